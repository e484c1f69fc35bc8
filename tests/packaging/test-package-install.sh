#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# test-package-install.sh --packages DIR --base BASE --port P --fixture XML [--mode netns|multi]
#
# The RPM as an admin gets it, on a real (lab) cluster: its payload goes into a fresh root
# (rpm2cpio | cpio), and the lab starts from that layout only: Slurm includes the package's
# plugstack.conf.d (paths rewritten to the fresh root), the plugin reads the profile at the
# package's path (overwritten with the lab's values: stand-ins, no container runtime, node
# addresses), and recipe and srt-helper come from the installed paths. Then:
#   1. a job with --srt-recipe (a shipped recipe) runs "srun -N3 env": every task has the
#      job's SRT_ variables, its own SRT_NODE_INDEX and one SRT_PLAN_DIGEST, the digest the
#      installed srt-helper computes for the same inputs;
#   2. srt-helper doctor on a lab node, with the fixture topology, passes;
#   3. with a profile whose port range lies inside the kernel's ephemeral range it fails and
#      names the ports check.
# Needs root (the lab); exits 77 (skip) otherwise. Stops its lab on every exit path.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cluster=$(cd "$here/../cluster" && pwd)
# shellcheck source=../cluster/lib.sh
source "$cluster/lib.sh"

packages='' base='' port='' fixture='' mode=netns
while [[ $# -gt 0 ]]; do
  case "$1" in
    --packages) packages=$2; shift 2 ;;
    --base) base=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --fixture) fixture=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    *) lab_die "unknown argument '$1'" ;;
  esac
done
[[ -n "$packages" && -n "$base" && -n "$port" && -n "$fixture" ]] ||
  lab_die "usage: test-package-install.sh --packages DIR --base BASE --port P --fixture XML [--mode M]"
(( EUID == 0 )) || { echo "SKIP: the lab needs root" >&2; exit 77; }
[[ -r "$fixture" ]] || lab_die "no topology fixture at $fixture"
rpm=$(find "$packages" -maxdepth 1 -name 'slurm-spank-srt-*.rpm' ! -name '*.src.rpm' | sed -n 1p)
[[ -n "$rpm" ]] || lab_die "no slurm-spank-srt RPM in $packages: run packaging/build-packages.sh $packages"

# --- the fresh root ----------------------------------------------------------------------------
root=$base.root
lab_trust "$root"  # root runs what is unpacked here: in /tmp, another user could have made it
lab_fresh_dir "$root"
(cd "$root" && rpm2cpio "$rpm" | cpio -idm --quiet)
libdir=$root/usr/lib64/slurm
conf=$root/etc/slurm/plugstack.conf.d/srt.conf
profile=$root/etc/srt/cluster.yaml
helper=$root/usr/bin/srt-helper
# The loader's compiled-in implementation path is /usr/lib64/slurm: point impl= into the root.
sed -i -e "s|^required /usr/lib64/slurm/spank_srt.so profile=/etc/srt/cluster.yaml\$|required $libdir/spank_srt.so profile=$profile impl=$libdir/srt_spank_impl.so|" "$conf"
grep -q "^required $libdir/spank_srt.so " "$conf" || lab_die "the package's srt.conf has no plugin line to rewrite: $(grep -v '^#' "$conf")"
echo "installed $(basename "$rpm") into $root; plugin line: $(grep '^required' "$conf")"

stop_lab() { "$cluster/lab-stop.sh" --base "$base" --port "$port" >/dev/null 2>&1 || true; }
trap stop_lab EXIT
"$cluster/lab-start.sh" --base "$base" --port "$port" --mode "$mode" --nodes 3 --timeout 60 \
  --plugstack "$root/etc/slurm/plugstack.conf.d"
lab_use "$base"
"$cluster/lab-profile.sh" "$base" "$profile" >/dev/null
work=$(lab_scratch package-install)
cd "$work"

# --- 1. a job with a shipped recipe ------------------------------------------------------------
recipe=$(find "$root/usr/share/srt/recipes" -name '*2p1d*.yaml' | sort | sed -n 1p)
[[ -n "$recipe" ]] || lab_die "no 2P1D recipe under $root/usr/share/srt/recipes"
nodes=$("$helper" nodes --profile "$profile" "$recipe")
[[ "$nodes" == 3 ]] || lab_fail "installed srt-helper says $recipe needs '$nodes' nodes, expected 3"
jid=$(sbatch --parsable -N3 --srt-recipe="$recipe" -o "$work/job-%j.out" --wrap 'srun -N3 -l env')
result=$(lab_wait_job "$jid" 60) || lab_fail "job $jid: $result; $(tail -n 20 "$work/job-$jid.out" 2>/dev/null)"
echo "$result"
out=$work/job-$jid.out
for var in SRT_RECIPE SRT_PLAN_DIGEST SRT_NODE_INDEX SRT_NODE_ROLES SRT_HEAD_NODE SRT_FRONTEND_HOST \
           SRT_FRONTEND_PORT SRTCTL_FRONTEND_TYPE SRT_PREFILL_IPS SRT_PREFILL_ENDPOINTS SRT_DECODE_IPS \
           SRT_DECODE_ENDPOINTS; do
  count=$(grep -c "^[0-9]*: $var=" "$out" || true)
  [[ "$count" == 3 ]] || lab_fail "$var is set in $count of 3 tasks; job output: $out"
done
grep -q "^0: SRT_RECIPE=$recipe\$" "$out" || lab_fail "SRT_RECIPE is not the installed recipe path"
indexes=$(sed -n 's/^[0-9]*: SRT_NODE_INDEX=//p' "$out" | sort -n | tr '\n' ' ')
[[ "$indexes" == "0 1 2 " ]] || lab_fail "SRT_NODE_INDEX values are '$indexes'"
digests=$(sed -n 's/^[0-9]*: SRT_PLAN_DIGEST=//p' "$out" | sort -u)
[[ $(wc -l <<<"$digests") == 1 ]] || lab_fail "tasks disagree on SRT_PLAN_DIGEST: $digests"
nodelist=$(lab_job_field "$jid" NodeList)
helper_digest=$("$helper" plan --json --profile "$profile" --nodelist "$nodelist" --job-id "$jid" "$recipe" |
  /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["digest"])')
[[ "$helper_digest" == "$digests" ]] || lab_fail "the plugin's plan digest $digests differs from srt-helper's $helper_digest"
grep -E '^[0-9]+: SRT_(NODE_INDEX|NODE_ROLES|PLAN_DIGEST)=' "$out" | sort
echo "ok: job $jid ran the installed plugin with $(basename "$recipe"); plan digest ${digests:0:12}..."

# --- 2. doctor on a lab node ----------------------------------------------------------------------
node=${LAB_NODE_PREFIX}1
doctor_out=$work/doctor.out
if ! srun -N1 -w "$node" "$helper" doctor --profile "$profile" --xml "$fixture" > "$doctor_out" 2>&1; then
  cat "$doctor_out" >&2
  lab_fail "srt-helper doctor failed on $node"
fi
cat "$doctor_out"
for check in plugstack plugin implementation profile topology ports first-job; do
  grep -qE "^ok +$check " "$doctor_out" || lab_fail "doctor's $check check is not ok"
done
# A passing node is told to run the smoke recipe first, by the path the package installed it at.
smoke=$(sed -nE 's/^ok +first-job .*--srt-recipe=([^ ]+) srt-job$/\1/p' "$doctor_out")
[[ -n "$smoke" && -f "$root$smoke" ]] || lab_fail "doctor's first-job line does not name an installed smoke recipe (got '$smoke')"
srun -N1 -w "$node" "$helper" doctor --json --profile "$profile" --xml "$fixture" |
  /usr/bin/python3 -c 'import json, sys; r = json.load(sys.stdin); assert r["ok"] and len(r["checks"]) >= 8, r' ||
  lab_fail "doctor --json is not a passing report"
echo "ok: srt-helper doctor passes on $node"

# --- 3. a broken profile: the port range inside the ephemeral range ---------------------------------
bad=$work/bad-ports.yaml
sed -e 's/^port_range_begin:.*/port_range_begin: 40000/' -e 's/^port_range_end:.*/port_range_end: 40999/' "$profile" > "$bad"
rc=0
srun -N1 -w "$node" "$helper" doctor --profile "$bad" --xml "$fixture" > "$work/doctor-bad.out" 2>&1 || rc=$?
cat "$work/doctor-bad.out"
(( rc == 1 )) || lab_fail "doctor exited $rc with a port range inside the ephemeral range, expected 1"
grep -qE '^FAIL +ports .*40000-40999' "$work/doctor-bad.out" || lab_fail "doctor did not name the ports check"
echo "PASS: the installed package runs an srt job on the lab, and doctor passes and names a broken check"
