#!/usr/bin/env bash
# The launcher reads JSON that the job's own steps write: here the
# preflight probes' answers, written by a faked srun, with fields of the wrong type (the engine
# "found": "yes", a GPU count "eight"), then nested a million levels deep. Each time the job must
# end as a failed job, as every failure does: exit 1, status.json "failed" with the reason,
# logs.tar.gz written, the console's last line naming the outcome. Before the fix nlohmann's
# type_error left Launch::run: exit 2, status.json still "running", no logs.
# Usage: launch_hostile_json_test.sh SRT_HELPER SOURCE_DIR
set -euo pipefail
helper=${1:?usage: launch_hostile_json_test.sh SRT_HELPER SOURCE_DIR}
src=${2:?usage: launch_hostile_json_test.sh SRT_HELPER SOURCE_DIR}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work/results" "$work/bin"
# shellcheck source=fake_job.sh
source "$(dirname "${BASH_SOURCE[0]}")/fake_job.sh"
fake_job_setup hostile-json-test

# srun, faked: a preflight probe step writes $work/answer.json where its --out says, and ends.
cat > "$work/bin/srun" <<SH
#!/bin/bash
while (( \$# )); do
  if [[ "\$1" == --out ]]; then cp "$work/answer.json" "\$2"; exit 0; fi
  shift
done
exit 0
SH
chmod 755 "$work/bin/srun"

jid=4300
check_case() {  # NAME: run the job with $work/answer.json as every probe's answer
  local name=$1 env rc=0 out="$work/$1.out" dir
  jid=$((jid + 1))
  dir="$work/results/$jid"
  read -r -a env <<< "$(job_env "$jid")"
  env -i PATH="$work/bin:/usr/bin:/bin" HOME="$work" "${env[@]}" \
    ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${LSAN_OPTIONS:+LSAN_OPTIONS=$LSAN_OPTIONS} \
    ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
    "$helper" launch --profile "$profile" > "$out" 2>&1 || rc=$?
  (( rc == 1 )) || { cat "$out"; fail "$name: launch exited $rc, not 1 (a failed job)"; }
  [[ -f "$dir/status.json" ]] || { cat "$out"; fail "$name: no status.json"; }
  /usr/bin/python3 - "$dir/status.json" "$name" <<'PY' || { cat "$out"; exit 1; }
import json, sys
s = json.load(open(sys.argv[1]))
if s.get("state") != "failed" or "preflight" not in s.get("reason", ""):
    sys.exit(f"FAIL: {sys.argv[2]}: status.json says {s.get('state')!r}: {s.get('reason')!r}")
PY
  [[ -f "$dir/logs.tar.gz" ]] || { cat "$out"; fail "$name: no logs.tar.gz: teardown did not run"; }
  grep -q "^.*job $jid failed: preflight" "$out" || { cat "$out"; fail "$name: the console does not end with the outcome"; }
  if grep -q 'json.exception' "$out"; then cat "$out"; fail "$name: nlohmann's exception text reached the user"; fi
  echo "PASS: $name: a failed job, with status, logs and the reason"
}

/usr/bin/python3 - "$work/answer.json" <<'PY'
import json, sys
json.dump({"probe_version": 1, "python": {"executable": "/usr/bin/python3"},
           "engine": {"module": "atom.entrypoints.openai_server", "found": "yes", "version": 7},
           "mooncake": {"found": 1}, "router": {"command": "atomesh", "path": ["/bin/atomesh"]},
           "files": "all of them", "frameworks": [1, 2], "gpus": {"count": "eight"},
           "rdma": {"dev_infiniband": "maybe", "devices": 3}, "model": []}, open(sys.argv[1], "w"))
PY
check_case wrong-types

/usr/bin/python3 - "$work/answer.json" <<'PY'
import sys
deep = "[" * 1000000 + "]" * 1000000
open(sys.argv[1], "w").write('{"probe_version": 1, "engine": {"found": true, "version": ' + deep + '}}')
PY
check_case deep-nesting
