#!/bin/bash
# srt-helper snapshot: the snapshot a job carries, made as the plugin's submit side makes it, and
# shown back (--show): the recipe path and variant as given, this build's version, the profile's
# digest, the recipe as read. A recipe the plugin would refuse is refused (exit 1, file:line), and a
# damaged or foreign snapshot is named as such.
#   snapshot_test.sh SRT_HELPER SOURCE_DIR
set -uo pipefail
helper=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect CODE PATTERN CMD...: CMD exits CODE and says PATTERN on stderr.
expect() {
  local code=$1 pattern=$2 rc
  shift 2
  "$@" >/dev/null 2>"$tmp/err"
  rc=$?
  [[ $rc == "$code" ]] || fail "$* exited $rc, not $code: $(cat "$tmp/err")"
  grep -q -- "$pattern" "$tmp/err" || fail "$* did not say '$pattern': $(cat "$tmp/err")"
}
recipe=$src/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml
variants=$src/tests/fixtures/recipes/variants/atom-variants.yaml
printf 'cluster: t\ngpus_per_node: 8\n' >"$tmp/cluster.yaml"

snap=$("$helper" snapshot "$recipe" --profile "$tmp/cluster.yaml") || fail "snapshot of $recipe"
[[ "$snap" =~ ^[A-Za-z0-9+/]+=*$ ]] || fail "not one line of base64: ${snap:0:80}"
"$helper" snapshot --show --snapshot "$snap" >"$tmp/show.json" || fail "--show"
SLURM_SPANK_SRT_SNAPSHOT=$snap "$helper" snapshot --show >"$tmp/show-env.json" || fail "--show from the environment"
cmp -s "$tmp/show.json" "$tmp/show-env.json" || fail "--show differs between --snapshot and the environment"
version=$("$helper" --version | awk '{print $2}')
/usr/bin/python3 - "$tmp/show.json" "$recipe" "$version" "$(sha256sum "$tmp/cluster.yaml" | cut -d' ' -f1)" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
assert s["format"] == 2 and s["package"] == sys.argv[3], s
assert s["recipe_path"] == sys.argv[2] and s["profile_digest"] == sys.argv[4], s
assert s["recipe"]["schema"] == 2 and s["profile"]["cluster"] == "t", s
assert "variant" not in s and s["recipe_text_bytes"] > 1000, s
PY

# A variant: the expanded one, with its selector; a variants file without one is refused.
sel=$("$helper" nodes "$variants" --profile "$tmp/cluster.yaml" | awk 'NR == 1 {print $1}')
[[ -n "$sel" ]] || fail "no variant in $variants"
"$helper" snapshot "$variants:$sel" --profile "$tmp/cluster.yaml" >"$tmp/v.b64" || fail "snapshot of $variants:$sel"
# Captured first: `helper | grep -q` under pipefail fails when grep quits at the match and the
# helper, which writes the JSON a line at a time and the selector on line 6, dies of SIGPIPE at
# its next line (CI, 2026-12-04, beside a compiler).
"$helper" snapshot --show --snapshot "$(cat "$tmp/v.b64")" >"$tmp/v.json" || fail "snapshot --show of $variants:$sel"
grep -q "\"selector\": \"$sel\"" "$tmp/v.json" || fail "the variant's selector"
expect 1 SELECTOR "$helper" snapshot "$variants" --profile "$tmp/cluster.yaml"

# Refused as the plugin refuses it: exit 1, file:line:column and key path.
sed '0,/^    gpus: 8$/s//    gpu: 8/' "$src/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml" >"$tmp/bad.yaml"
"$helper" snapshot "$tmp/bad.yaml" --profile "$tmp/cluster.yaml" >"$tmp/out" 2>"$tmp/err"
[[ $? == 1 && ! -s "$tmp/out" ]] || fail "a bad recipe was snapshotted"
grep -q "bad.yaml:[0-9]*:[0-9]*: roles.prefill.gpu" "$tmp/err" || fail "the refusal: $(cat "$tmp/err")"

# Damaged, and the format srt-spank wrote before format 2.
expect 1 'is damaged' "$helper" snapshot --show --snapshot "${snap:0:100}"
old=$(printf '{"v":1,"recipe_path":"r.yaml","recipe":"name: x\\n"}' | base64 -w0)
expect 1 'older srt-spank (snapshot format 1)' "$helper" snapshot --show --snapshot "$old"
env -u SLURM_SPANK_SRT_SNAPSHOT "$helper" snapshot --show >/dev/null 2>&1
[[ $? == 2 ]] || fail "--show without a snapshot is a usage error"
echo "PASS: snapshot made as the plugin makes it, shown back, refusals named"
