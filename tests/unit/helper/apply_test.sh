#!/usr/bin/env bash
# srt-helper apply and the srtctl entry point as InferenceX's srt driver calls them
# (`srtctl apply ... -f R --file R --json --yes`), against a faked Slurm: sbatch answers job
# 601 and records its arguments, scontrol records the release, scancel the cancel.
#   - stdout is exactly one JSON document with srtctl's manifest fields and types;
#   - the job is submitted held, with --output=<base>/%j/logs/sweep_%j.log, and that file exists
#     (a regular file in directories of ours) before the release;
#   - -f X --file Y: Y is submitted (argparse's last one wins);
#   - errors: {"status": "error", ...} on stdout, exit 1; a malformed --set exit 2 (argparse's);
#   - a job directory planted as a symlink: refused, the held job cancelled;
#   - benchmark.stream_output is a recipe key (--set);
#   - -f - and -f /dev/stdin:SELECTOR read the recipe from standard input (kept as config.yaml);
#   - INFMAX_WORKSPACE is mounted at /infmax-workspace through the submitted recipe;
#   - a runner's srtslurm.yaml changes nothing the profile decides (reported); its new aliases resolve;
#   - the entry point maps apply/dry-run/migrate and refuses the rest.
# Usage: apply_test.sh SRT_HELPER SOURCE_DIR
set -euo pipefail
helper=${1:?usage: apply_test.sh SRT_HELPER SOURCE_DIR}
src=${2:?usage: apply_test.sh SRT_HELPER SOURCE_DIR}
srtctl="$(dirname "$helper")/srtctl-path/srtctl"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=fake_job.sh
source "$(dirname "${BASH_SOURCE[0]}")/fake_job.sh"
fake_job_setup apply-test
mkdir -p "$work/bin" "$work/rec"
cat > "$work/bin/sbatch" <<SH
#!/bin/bash
printf '%s\n' "\$@" > "$work/rec/sbatch.args"
# The recipe as submitted (a temporary file when srt-helper rewrote it), as the plugin reads it.
for a in "\$@"; do [[ "\$a" == --srt-recipe=* ]] && cp "\${a#--srt-recipe=}" "$work/rec/recipe.submitted" 2>/dev/null; done
echo "noise on sbatch's stderr" >&2
echo 601
SH
cat > "$work/bin/scontrol" <<SH
#!/bin/bash
# The sweep log must exist when the job is released.
[[ -f "$work/results/601/logs/sweep_601.log" && ! -L "$work/results/601/logs/sweep_601.log" ]] || exit 9
echo "\$*" > "$work/rec/scontrol"
SH
cat > "$work/bin/scancel" <<SH
#!/bin/bash
echo "\$*" > "$work/rec/scancel"
SH
chmod 755 "$work/bin"/*

apply() {  # EXPECTED-EXIT ARGS... : stdout to $work/out, stderr to $work/err
  local want=$1 rc=0
  shift
  rm -rf "${work:?}/rec"/* "$work/results"/*
  PATH="$work/bin:$PATH" RUNNER_NAME=runner-7 "$srtctl" apply --profile "$profile" "$@" >"$work/out" 2>"$work/err" || rc=$?
  echo "--- srtctl apply $* (exit $rc)"
  cat "$work/out" "$work/err"
  (( rc == want )) || fail "exit $rc, expected $want"
}
# The driver's reader: json.loads of the whole file (two lines fail with "Extra data").
read_manifest() {
  python3 - "$work/out" "$@" <<'PY'
import json, sys
record = json.loads(open(sys.argv[1]).read())
for check in sys.argv[2:]:
    assert eval(check, {"r": record}), f"{check}: {record}"
PY
}

other=$work/other.yaml
cp "$recipe" "$other"
apply 0 --set benchmark.stream_output=true -f "$other" --no-preflight --tags "a, b,," --json --yes --file "$recipe"
read_manifest 'r["status"] == "submitted"' 'r["slurm_job_id"] == "601"' 'r["job_name"] == "runner-7"' \
  "r['output_dir'] == '$work/results/601'" "r['metadata_path'] == '$work/results/601/601.json'" \
  'r["tags"] == ["a", "b"]' 'r["applied_overrides"] == ["--set benchmark.stream_output=true"]' \
  'isinstance(r["config_path"], str)' || fail "the manifest"
grep -qx -- "--hold" "$work/rec/sbatch.args" || fail "the job was not submitted held"
grep -qx -- "--output=$work/results/%j/logs/sweep_%j.log" "$work/rec/sbatch.args" || fail "sbatch --output is not the sweep log"
[[ "$(cat "$work/rec/scontrol")" == "release 601" ]] || fail "the job was not released"
[[ -f "$work/results/601/601.json" ]] || fail "no <jobid>.json"
grep -q "noise" "$work/out" && fail "sbatch's messages reached stdout"

# -f X ... --file Y: Y; without --set the recipe goes to sbatch by its own path.
apply 0 -f "$other" --json --file "$recipe"
grep -qx -- "--srt-recipe=$recipe" "$work/rec/sbatch.args" || fail "--file did not win over -f"
read_manifest "r['config_path'] == '$(realpath "$recipe")'" 'r["tags"] is None' '"applied_overrides" not in r' ||
  fail "the manifest without overrides"
apply 0 -f "$recipe"
grep -q '^Job 601 submitted' "$work/out" || fail "the prose line does not match the fork path's 'Job ([0-9]+)'"

# One job per apply: a variants file without a selector is refused.
apply 1 -f "$src/tests/fixtures/recipes/variants/atom-variants.yaml" --json
read_manifest 'r["status"] == "error"' '"variant" in r["error"] or "selector" in r["error"]' || fail "the variants refusal"
[[ -e "$work/rec/sbatch.args" ]] && fail "a variants file without a selector was submitted"
# --setup-script NAME is the recipe's setup_script; this profile names no directory to find it in.
apply 1 -f "$recipe" --setup-script install.sh --json
read_manifest 'r["status"] == "error"' '"setup_scripts_dir" in r["error"]' || fail "--setup-script without setup_scripts_dir"
apply 1 -f "$recipe" --setup-script ../etc/passwd --json
read_manifest 'r["status"] == "error"' '"is not a file name" in r["error"]' || fail "--setup-script with a path"
apply 1 -f "$recipe" --serve-only --json
read_manifest '"--serve-only" in r["error"]' || fail "--serve-only"
apply 2 -f "$recipe" --set benchmark.stream_output --json
[[ -s "$work/out" ]] && fail "a usage error wrote to stdout"

# -f - (srtctl v2): the recipe from standard input, kept as <output_dir>/config.yaml, which the
# manifest names; with a selector on a variants file; empty input refused.
apply_stdin() {  # EXPECTED-EXIT INPUT ARGS...
  local want=$1 input=$2
  shift 2
  apply "$want" "$@" <"$input"
}
apply_stdin 0 "$recipe" -f - --json
read_manifest "r['config_path'] == '$work/results/601/config.yaml'" || fail "-f -: config_path"
cmp -s "$recipe" "$work/results/601/config.yaml" || fail "-f -: config.yaml is not the recipe given"
grep -q -- "--srt-recipe=.*/stdin.yaml$" "$work/rec/sbatch.args" || fail "-f -: not submitted from the copy of standard input"
apply_stdin 0 "$src/tests/fixtures/recipes/variants/atom-variants.yaml" --json --file /dev/stdin:override_2p1d
read_manifest 'r["status"] == "submitted"' || fail "-f /dev/stdin:SELECTOR"
grep -q -- "--srt-recipe=.*/stdin.yaml:override_2p1d$" "$work/rec/sbatch.args" || fail "-f /dev/stdin:SELECTOR: the selector"
apply_stdin 1 /dev/null -f - --json
read_manifest 'r["status"] == "error"' '"standard input held no recipe" in r["error"]' || fail "-f - with nothing on it"
[[ -e "$work/rec/sbatch.args" ]] && fail "an empty standard input was submitted"

# INFMAX_WORKSPACE (the driver's per-run workspace): the submitted recipe mounts it at
# /infmax-workspace, in place of the profile's; a system directory is refused by the mount
# policy, a relative path before that.
mkdir -p "$work/ws"
INFMAX_WORKSPACE=$work/ws apply 0 -f "$recipe" --json
python3 - "$work/rec/recipe.submitted" "$work/ws" <<'PY' || fail "INFMAX_WORKSPACE: not mounted in the submitted recipe"
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
assert doc["container_mounts"][sys.argv[2]] == "/infmax-workspace", doc.get("container_mounts")
PY
grep -q "INFMAX_WORKSPACE: $work/ws mounted at /infmax-workspace" "$work/err" || fail "INFMAX_WORKSPACE: not said"
INFMAX_WORKSPACE=/etc apply 1 -f "$recipe" --json
read_manifest 'r["status"] == "error"' '"/etc" in r["error"]' || fail "INFMAX_WORKSPACE=/etc was not refused"
[[ -e "$work/rec/sbatch.args" ]] && fail "INFMAX_WORKSPACE=/etc was submitted"
INFMAX_WORKSPACE=ws apply 1 -f "$recipe" --json
read_manifest '"is not absolute" in r["error"]' || fail "a relative INFMAX_WORKSPACE"

# A runner's srtslurm.yaml in the working directory (or ../, ../../, as srtctl looks): a runtime and
# mounts of its own change nothing the job gets and are named on stderr; an alias the admin's
# profile lacks is resolved into the recipe submitted.
mkdir -p "$work/ckpt/sub"
apply 0 -f "$recipe" --json
cp "$work/rec/sbatch.args" "$work/sbatch.plain"
cat > "$work/ckpt/srtslurm.yaml" <<'YAML'
container_runtime: docker
default_mounts:
  /home/runner: /root
YAML
(cd "$work/ckpt/sub" && apply 0 -f "$recipe" --json)
cmp -s "$work/sbatch.plain" "$work/rec/sbatch.args" || fail "a runner's srtslurm.yaml changed what sbatch got"
grep -q "srtslurm.yaml: ignored, the cluster profile decides them .*: container_runtime, default_mounts" "$work/err" ||
  fail "the runner's srtslurm.yaml keys were not reported"
sed 's|path: "hf:deepseek-ai/DeepSeek-V4-Pro".*|path: runner-model|' "$recipe" > "$work/aliased.yaml"
printf 'model_paths:\n  runner-model: %s\n' "$work/models/v4" >> "$work/ckpt/srtslurm.yaml"
mkdir -p "$work/models/v4"
(cd "$work/ckpt" && apply 0 -f "$work/aliased.yaml" --json)
python3 - "$work/rec/recipe.submitted" "$work/models/v4" <<'PY' || fail "the runner's model_paths alias was not resolved"
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
assert doc["model"]["path"] == sys.argv[2], doc["model"]
PY
grep -q "model.path: runner-model -> $work/models/v4" "$work/err" || fail "the resolved alias was not said"
# A file others can write (planted in a shared parent) is not read: its aliases would pick the images.
chmod 666 "$work/ckpt/srtslurm.yaml"
(cd "$work/ckpt" && apply 0 -f "$work/aliased.yaml" --json)
grep -q "srtslurm.yaml: not read: a runner's srtslurm.yaml must be a regular file of this user's" "$work/err" ||
  fail "a world-writable srtslurm.yaml was read"
grep -qx -- "--srt-recipe=$work/aliased.yaml" "$work/rec/sbatch.args" || fail "a world-writable srtslurm.yaml's alias was resolved"
chmod 644 "$work/ckpt/srtslurm.yaml"
chmod 777 "$work/ckpt"
(cd "$work/ckpt" && apply 0 -f "$work/aliased.yaml" --json)
grep -q "srtslurm.yaml: not read" "$work/err" || fail "a srtslurm.yaml in a world-writable directory was read"
grep -qx -- "--srt-recipe=$work/aliased.yaml" "$work/rec/sbatch.args" || fail "the alias of a srtslurm.yaml others could swap was resolved"
rm -r "$work/ckpt"

# A job directory planted before the release (a symlink into somewhere else): refused, cancelled.
cat > "$work/bin/sbatch" <<SH
#!/bin/bash
printf '%s\n' "\$@" > "$work/rec/sbatch.args"
mkdir -p "$work/elsewhere"
ln -s "$work/elsewhere" "$work/results/601"
echo 601
SH
apply 1 -f "$recipe" --json
read_manifest 'r["status"] == "error"' || fail "the planted directory"
[[ "$(cat "$work/rec/scancel")" == "601" ]] || fail "the held job was not cancelled"
[[ -e "$work/rec/scontrol" ]] && fail "the job was released"
[[ -z "$(ls -A "$work/elsewhere")" ]] || fail "something was written through the planted link"

# The entry point's other subcommands.
"$srtctl" dry-run --file "$recipe" --profile "$profile" >/dev/null || fail "srtctl dry-run --file"
rc=0; "$srtctl" status 2>"$work/err" || rc=$?
(( rc == 2 )) && grep -q "not provided by srt-spank" "$work/err" || fail "srtctl status: exit $rc: $(cat "$work/err")"
help=$("$srtctl" --help) || fail "srtctl --help exits non-zero"
# Read from a variable: `srtctl --help | grep -q` under pipefail fails whenever grep quits at its
# match before srtctl has written its last line (SIGPIPE), as it did under ASan in CI.
grep -q "apply, dry-run, migrate" <<<"$help" || fail "srtctl --help: $help"
echo "apply: all cases pass"
