#!/usr/bin/env bash
# test-launch-rdma-unready.sh BASE: the 2P1D lab twin with Mooncake over RDMA (engine
# mooncake_protocol: rdma) on lab nodes that have no RDMA userspace: the profile's default
# rdma_mounts name /etc/libibverbs.d, which no lab node has, so the container runtime refuses
# the workers' probe steps. The job fails at preflight, before any worker, within seconds:
# the console says preflight ran for RDMA (the images' NIC-selection line), names each role
# whose probe gave no answer, and shows the runtime's own reason from that step's log.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
work=$(lab_scratch launch-rdma-unready)
[[ ! -e /etc/libibverbs.d ]] || { echo "SKIP: this host has /etc/libibverbs.d (the lab nodes would too)"; exit 77; }
recipe="$work/disagg-2p1d-dpa-tp8-rdma.yaml"
sed 's/^\(  mooncake_protocol:\) tcp$/\1 rdma/' "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml" > "$recipe"
grep -q '^  mooncake_protocol: rdma$' "$recipe" || lab_fail "the lab twin no longer says mooncake_protocol: tcp where this test expects it"

t0=$(lab_now)
jid=$(launch_submit "$recipe")
echo "job $jid: the 2P1D twin over RDMA, no verbs providers on the nodes"
launch_expect_failed "$jid" 60 "preflight: prefill on " "decode on " "the preflight probe gave no answer" \
  "(no worker was started)"
launch_expect_class "$jid" image
log="$LAB_BASE/work/launch-$jid.out"
for text in "RDMA NIC selection of the engine images: " "preflight: missing: prefill on " \
            "preflight: missing: decode on " "_preflight_prefill.out:" "| bwrap: Can't find source path /etc/libibverbs.d"; do
  grep -qF -- "$text" "$log" || { cat "$log"; lab_fail "the job's output lacks '$text'"; }
done
grep -q "started [0-9]* worker steps" "$log" && lab_fail "workers were started after a failed preflight"
launch_assert_clean "$jid" 10
echo "PASS: the RDMA twin failed at preflight in $(lab_elapsed "$t0") s with the runtime's reason"
