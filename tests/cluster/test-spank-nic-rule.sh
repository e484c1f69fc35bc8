#!/usr/bin/env bash
# test-spank-nic-rule.sh BASE: the node decides which NICs an ATOM worker's ranks open over
# Mooncake RDMA, in the worker's own step. The lab's nodes have the Pollara fixture topology,
# where ATOM's own pick (ionic_<N> for GPU N) is not the NIC beside the GPU: the worker step
# gets the paired list (ATOM_MOONCAKE_IB_DEVICE) and its console says which GPUs miss, as
# `srt-helper plan --topology` predicts for that node.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
lab_test_init "${1:-}"
helper=${SRT_HELPER:?set SRT_HELPER to the srt-helper binary}
unset SRT_HELPER  # the tasks must see only what the plugin sets
work=$(lab_scratch spank-nic-rule)
cd "$work"
recipe="$work/rdma-1p1d.yaml"
sed -E 's/^(  mooncake_protocol:) tcp( .*)?$/\1 rdma/' "$HERE/../../recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml" > "$recipe"
grep -q '^  mooncake_protocol: rdma$' "$recipe" || lab_fail "the 1P1D recipe no longer says mooncake_protocol: tcp"

"$helper" plan "$recipe" --profile "$LAB_BASE/etc/srt/cluster.yaml" --nodelist "$LAB_NODES" \
  --topology "$HERE/../fixtures/topology/mi355x-8gpu-pollara.xml" > "$work/plan.txt"
expected=$(grep -m1 "^prefill:0 on .*: ATOM's own NIC pick misses the pairing for GPU 0 ionic_0 (paired ionic_4)" \
  "$work/plan.txt") || { cat "$work/plan.txt"; lab_fail "plan --topology does not predict the NIC line"; }
node=${expected%%: ATOM*}; node=${node#prefill:0 on }

cat > "$work/job.sh" <<EOS
#!/bin/bash
srun -N1 -w $node --srt-step=prefill:0 /usr/bin/env > worker.env 2> worker.err
EOS
chmod 755 "$work/job.sh"
jid=$(sbatch --parsable -N2 --srt-recipe="$recipe" -D "$work" -o "$work/job-%j.out" "$work/job.sh")
result=$(lab_wait_job "$jid" 60) || { cat "$work/job-$jid.out" worker.err 2>/dev/null; lab_fail "job $jid: $result"; }
grep -qxF "srt: $expected" worker.err || { cat worker.err; lab_fail "the worker step's console lacks: srt: $expected"; }
grep -qx "ATOM_MOONCAKE_IB_DEVICE=ionic_4,ionic_7,ionic_1,ionic_0,ionic_6,ionic_5,ionic_3,ionic_2" worker.env ||
  lab_fail "the worker step did not get the paired NIC list: $(grep ATOM_MOONCAKE worker.env || echo none)"
echo "PASS: prefill:0 on $node got the paired NICs and said why: $expected"
