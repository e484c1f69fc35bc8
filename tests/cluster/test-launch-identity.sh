#!/usr/bin/env bash
# test-launch-identity.sh BASE: preflight in the batch step. (1) The lab twin, whose identity
# names the commit the stand-in ATOM package reports: preflight passes, the job completes and
# fingerprints.json (one fingerprint per role, engine version and commit, Mooncake and router
# versions) is in the job's results. (2) The same recipe expecting another ATOM commit: the job
# fails in preflight, naming identity.frameworks.atom with the expected and the found value,
# before any worker step starts, and leaves nothing running.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=launch-lib.sh
source "$HERE/launch-lib.sh"
launch_test_init "${1:-}"
recipe="$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"
work=$(lab_scratch launch-identity)
wrong=5837907f3aa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4

# fingerprints.json as "role commit mooncake router" lines, sorted.
fingerprint_lines() {
  /usr/bin/python3 -c 'import json,sys
for f in json.load(open(sys.argv[1]))["fingerprints"]:
    print(f["role"], f["engine"]["commit"], f["mooncake"]["version"], f["router"]["version"])' "$1" | sort
}

# (1) identity matches: the job runs, fingerprints.json is in the results.
t0=$(lab_now)
jid=$(launch_submit "$recipe")
echo "job $jid: $(basename "$recipe") (identity.frameworks.atom: 4e0848dcdf94...)"
result=$(lab_wait_job "$jid" 300) || { launch_show "$jid"; lab_fail "job $jid did not complete: $result"; }
[[ "$(launch_status "$jid" state)" == completed ]] || { launch_show "$jid"; lab_fail "status.json does not say completed"; }
prints="$(launch_job_dir "$jid")/fingerprints.json"
[[ -s "$prints" ]] || lab_fail "no fingerprints.json in $(launch_job_dir "$jid")"
got=$(fingerprint_lines "$prints")
echo "fingerprints (role commit mooncake router):"
while read -r line; do echo "  $line"; done <<< "$got"
want=$'benchmark 4e0848dcd 0.3.6 None\ndecode 4e0848dcd 0.3.6 None\nprefill 4e0848dcd 0.3.6 None\nrouter 4e0848dcd 0.3.6 0.1.0'
[[ "$got" == "$want" ]] || lab_fail "fingerprints.json is not what the stand-ins report: $got"
grep -q 'preflight: every role' "$LAB_BASE/work/launch-$jid.out" || lab_fail "no preflight verdict on the job's output"
launch_assert_clean "$jid" 10
echo "identity matches: COMPLETED in $(lab_elapsed "$t0") s"

# (2) the recipe expects another ATOM commit: stop in preflight, no worker started.
sed -e "s/frameworks: { atom: \"[0-9a-f]*\" }/frameworks: { atom: \"$wrong\" }/" "$recipe" > "$work/wrong-commit.yaml"
grep -q "$wrong" "$work/wrong-commit.yaml" || lab_fail "could not change identity.frameworks.atom"
t0=$(lab_now)
jid=$(launch_submit "$work/wrong-commit.yaml")
echo "job $jid: identity.frameworks.atom: $wrong"
result=$(lab_wait_job "$jid" 120) && { launch_show "$jid"; lab_fail "job $jid completed: $result"; }
elapsed=$(lab_elapsed "$t0")
[[ "$result" == *"JobState=FAILED"* ]] || { launch_show "$jid"; lab_fail "expected FAILED: $result"; }
reason=$(launch_status "$jid" reason)
echo "status.json after $elapsed s: $reason"
for part in "identity.frameworks.atom" "expected $wrong" "found 0.1.4.dev113+g4e0848dcd" "no worker was started"; do
  [[ "$reason" == *"$part"* ]] || { launch_show "$jid"; lab_fail "the reason does not say '$part'"; }
done
launch_expect_class "$jid" image
launch_expect_reason_line "$jid" prefill decode
dir=$(launch_job_dir "$jid")
[[ -s "$dir/fingerprints.json" ]] || lab_fail "no fingerprints.json for the stopped job"
if compgen -G "$dir/logs/*_prefill_w*.out" >/dev/null || compgen -G "$dir/logs/*_decode_w*.out" >/dev/null; then
  lab_fail "a worker step wrote a log: a worker was started"
fi
/usr/bin/python3 -c 'import json,sys
s = json.load(open(sys.argv[1]))
assert "workers" not in s["timings_seconds"], s["timings_seconds"]
assert not s.get("processes"), s.get("processes")' "$dir/status.json" \
  || { launch_show "$jid"; lab_fail "status.json shows worker steps"; }
launch_assert_clean "$jid" 10
echo "PASS: identity match runs; a wrong ATOM commit stops in preflight after $elapsed s, before any worker"
