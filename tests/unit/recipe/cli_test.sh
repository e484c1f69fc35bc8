#!/bin/bash
# srt-helper validate/nodes/schema from the outside: exit codes 0 (valid), 1 (invalid), 2 (usage).
set -uo pipefail
helper=$1 src=$2
profile="$src/etc/srt/cluster.yaml"
r1="$src/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"
r2="$src/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml"
# The same two recipes in the v1 layout: the shipped ones are schema 2; these are migrate's input.
v1a="$src/tests/fixtures/recipes/v1/atom-disagg-1p1d-tp8-8k1k.yaml"
v1b="$src/tests/fixtures/recipes/v1/atom-disagg-2p1d-dpa-tp8-8k1k.yaml"
bad="$src/tests/fixtures/recipes/bad"
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect() {  # expect CODE PATTERN -- ARGS...: exit code and a grep -E pattern on stdout+stderr
  local code=$1 pattern=$2
  shift 3
  "$helper" "$@" >"$tmp/out" 2>&1
  local rc=$?
  if [ "$rc" != "$code" ] || ! grep -Eq -- "$pattern" "$tmp/out"; then
    echo "FAIL (rc=$rc, want $code, pattern '$pattern'): srt-helper $*"
    sed 's/^/    /' "$tmp/out"
    failures=$((failures + 1))
  else
    echo "ok   srt-helper $*"
  fi
}

expect 0 "disagg-1p1d-tp8.yaml: ok \(2 nodes\)" -- validate --profile "$profile" "$r1"
expect 0 "atom-disagg-1p1d-tp8-8k1k.yaml: ok \(2 nodes\)" -- validate --profile "$profile" "$v1a"
expect 0 "disagg-2p1d-dpa-tp8.yaml: ok \(3 nodes\)" -- validate --profile "$profile" "$r1" "$r2"
expect 1 "backend.atom_config.prefill.tp: ATOM config cannot override" -- validate --profile "$profile" "$bad/reserved-tp.yaml"
expect 1 "reserved-tp.yaml: invalid" -- validate --profile "$profile" "$r1" "$bad/reserved-tp.yaml"
expect 1 "is a FIFO|is a directory" -- validate --profile "$profile" "$src/recipes"
expect 1 "cannot open" -- validate --profile "$profile" "$tmp/missing.yaml"
expect 2 "RECIPE is required|required" -- validate
expect 2 "nope" -- validate --nope "$r1"
expect 2 "cluster profile" -- validate --profile "$tmp/missing-profile.yaml" "$r1"
expect 0 "ok \(2 nodes\)" -- validate --profile "$profile" --set roles.prefill.workers=1 "$r1"
expect 0 "ok \(2 nodes\)" -- validate --profile "$profile" --set resources.prefill_workers=1 "$v1a"
expect 1 "--set frontend.type=dynamo: .*frontend.type|backend.type: atom requires" -- validate --profile "$profile" --set frontend.type=dynamo "$r1"
expect 0 "srt-spank cannot launch them yet: .*sweep" -- validate --profile "$profile" "$src/tests/fixtures/recipes/good/sglang-dynamo-tier2.yaml"
expect 0 "^3$" -- nodes --profile "$profile" "$r2"
expect 0 "^2$" -- nodes --profile "$profile" "$r1"
expect 1 "unknown key" -- nodes --profile "$profile" "$bad/unknown-top-typo.yaml"
expect 0 "2020-12" -- schema
expect 0 "recipe-v2.json" -- schema --layout v2
expect 2 "layout" -- schema --layout v3
# srt-slurm 2.x: schema 2 loads; --current-schema refuses the v1 layout.
v2="$src/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"
expect 0 "disagg-1p1d-tp8.yaml: ok \(2 nodes\)" -- validate --profile "$profile" --current-schema "$v2"
expect 1 "schema 1 recipes no longer load" -- validate --profile "$profile" --current-schema "$v1a"
expect 1 "roles.prefill.gpus: ATOM currently requires" -- validate --profile "$profile" --set roles.prefill.gpus=16 "$v2"

"$helper" schema --layout v2 | /usr/bin/python3 -c 'import json,sys; s=json.load(sys.stdin); assert "roles" in s["properties"]' \
  || { echo "FAIL: schema --layout v2 has no roles"; failures=$((failures + 1)); }

# Variants files (base: + override_* / zip_override_*) and FILE:SELECTOR, -f FILE:SELECTOR.
v="$src/tests/fixtures/recipes/variants/atom-variants.yaml"
expect 1 "atom-variants.yaml:override_2p1d \(t-2p1d\): ok \(3 nodes\)" -- validate --profile "$profile" "$v"
expect 1 "atom-variants.yaml:override_bad \(t_bad\): invalid \(1 problem\)" -- validate --profile "$profile" "$v"
expect 1 "atom-variants.yaml:3[0-9]:[0-9]+: resources.decode_workers: in variant override_bad: " -- validate --profile "$profile" "$v"
expect 1 "atom-variants.yaml:zip_override_scale\[1\] \(t_scale_1\): ok \(4 nodes\)" -- validate --profile "$profile" "$v"
expect 0 "^[^ ]*atom-variants.yaml:override_2p1d \(t-2p1d\): ok \(3 nodes\)$" -- validate --profile "$profile" "$v:override_2p1d"
expect 0 "zip_override_scale\[0\] \(t_scale_0\): ok \(2 nodes\)" -- validate --profile "$profile" -f "$v:zip_override_*"
expect 0 "ok \(2 nodes\)" -- validate --profile "$profile" -f "$v:zip_override_scale[0]" "$r1"
expect 0 "override_bad \(t_bad\): ok" -- validate --profile "$profile" --set resources.decode_workers=1 "$v"
expect 1 "there is no variant 'override_nope'; valid selectors: base, override_2p1d, override_bad, zip_override_scale, zip_override_scale\[0\]" -- validate --profile "$profile" "$v:override_nope"
expect 1 "not a variants file" -- validate --profile "$profile" "$r1:override_x"
expect 1 "expands to no recipe.*base-only.yaml:base" -- validate --profile "$profile" "$src/tests/fixtures/recipes/variants/base-only.yaml"
expect 1 "override-no-model.yaml:3:1: model: in variant override_a: is required" -- validate --profile "$profile" "$src/tests/fixtures/recipes/variants/override-no-model.yaml"
expect 1 "override-no-model.yaml:override_a \(y\): invalid \(1 problem\)" -- validate --profile "$profile" "$src/tests/fixtures/recipes/variants/override-no-model.yaml"
expect 0 "^3$" -- nodes --profile "$profile" "$v:override_2p1d"
expect 0 "^4$" -- nodes --profile "$profile" -f "$v:zip_override_scale[1]"
expect 1 "^override_2p1d 3$" -- nodes --profile "$profile" "$v"
expect 1 "^zip_override_scale\[1\] 4$" -- nodes --profile "$profile" "$v"
expect 0 "^zip_override_scale\[0\] 2$" -- nodes --profile "$profile" "$v:zip*"
expect 1 "variants file with 4 variants, and plan runs one.*:SELECTOR; the variants: override_2p1d, override_bad" -- plan --profile "$profile" --nodelist "n[1-4]" "$v"
expect 1 "':zip\*' selects 2 variants, and a job runs one" -- submit --profile "$profile" "$v:zip*"
expect 1 "variants file with 4 variants, and a job runs one" -- run --profile "$profile" -f "$v"
expect 0 "\"SRT_RECIPE\": \"[^\"]*atom-variants.yaml:override_2p1d\"" -- plan --json --profile "$profile" --nodelist "n[1-3]" "$v:override_2p1d"
expect 0 "\"name\": \"t-2p1d\"" -- plan --json --profile "$profile" --nodelist "n[1-3]" -f "$v:override_2p1d"
expect 0 "\"resources.decode_nodes=1\"" -- plan --json --profile "$profile" --nodelist "n[1-3]" --set resources.decode_nodes=1 "$v:override_2p1d"

# submit FILE:SELECTOR with a fake sbatch: --srt-recipe is the argument as given (the plugin
# expands the same variant); with --set, the expanded variant with the override, as a plain recipe.
mkdir -p "$tmp/bin"
cat > "$tmp/bin/sbatch" <<SH
#!/bin/bash
printf '%s\n' "\$@" > "$tmp/sbatch.args"
for a in "\$@"; do case "\$a" in --srt-recipe=*) cat "\${a#--srt-recipe=}" > "$tmp/sbatch.recipe" 2>/dev/null ;; esac; done
echo 4242
SH
chmod 755 "$tmp/bin/sbatch"
submit_check() {  # submit_check PATTERN-IN-ARGS [PATTERN-IN-RECIPE] -- SUBMIT-ARGS...
  local args_re=$1 recipe_re=$2
  shift 3
  rm -f "$tmp/sbatch.args" "$tmp/sbatch.recipe"
  if PATH="$tmp/bin:$PATH" "$helper" submit --profile "$profile" "$@" >"$tmp/out" 2>&1 &&
     grep -Eq -- "$args_re" "$tmp/sbatch.args" && { [ -z "$recipe_re" ] || grep -Eq -- "$recipe_re" "$tmp/sbatch.recipe"; }; then
    echo "ok   srt-helper submit $*"
  else
    echo "FAIL: srt-helper submit $* (sbatch args /$args_re/, recipe /$recipe_re/)"
    sed 's/^/    /' "$tmp/out" "$tmp/sbatch.args" 2>/dev/null
    failures=$((failures + 1))
  fi
}
submit_check "^--srt-recipe=$v:override_2p1d\$" "" -- "$v:override_2p1d"
submit_check "^--nodes=3\$|^-N3\$|^--nodes 3\$" "" -- -f "$v:override_2p1d"
submit_check "^--srt-recipe=/.*/atom-variants.yaml\$" "\"decode_nodes\": 2" -- --set resources.decode_nodes=2 --set resources.decode_workers=2 "$v:override_2p1d"

# migrate: stdout, -o, --in-place; the result validates under --current-schema.
hdr="^# migrated from .*disagg-1p1d-tp8-8k1k.yaml by srt-helper migrate \(v1 -> schema 2\); comments of the original are not kept$"
expect 0 "$hdr" -- migrate "$v1a"
expect 0 "^schema: 2$" -- migrate "$v1a"
"$helper" migrate "$v1a" > "$tmp/m-stdout.yaml" 2>/dev/null
head -1 "$tmp/m-stdout.yaml" | grep -Eq "$hdr" || { echo "FAIL: migrate: the header is not the first line"; failures=$((failures + 1)); }
expect 0 "wrote $tmp/m-out.yaml" -- migrate "$v1b" -o "$tmp/m-out.yaml"
expect 0 "m-out.yaml: ok \(3 nodes\)" -- validate --profile "$profile" --current-schema "$tmp/m-out.yaml"
cp "$v1a" "$tmp/m-inplace.yaml" && chmod 640 "$tmp/m-inplace.yaml"
expect 0 "wrote $tmp/m-inplace.yaml" -- migrate --in-place "$tmp/m-inplace.yaml"
cmp -s <(tail -n +2 "$tmp/m-inplace.yaml") <(tail -n +2 "$tmp/m-stdout.yaml") ||
  { echo "FAIL: migrate --in-place wrote other text than stdout"; failures=$((failures + 1)); }
[ "$(stat -c %a "$tmp/m-inplace.yaml")" = 640 ] || { echo "FAIL: migrate --in-place changed the mode"; failures=$((failures + 1)); }
ls -a "$tmp" | grep -q '^\.srt-migrate\.' && { echo "FAIL: migrate left a temporary file"; failures=$((failures + 1)); }
expect 0 "m-inplace.yaml: ok \(2 nodes\)" -- validate --profile "$profile" --current-schema "$tmp/m-inplace.yaml"
expect 1 "m-inplace.yaml:[0-9]+:1: schema: is already srt-slurm's schema 2 layout" -- migrate --in-place "$tmp/m-inplace.yaml"
expect 1 "disagg-1p1d-tp8.yaml:[0-9]+:1: schema: is already srt-slurm's schema 2" -- migrate "$v2"
expect 1 "base: is a variants file" -- migrate "$v"
expect 1 "backend.atom_config.prefill.tp: ATOM config cannot override.*|not migrated: the v1 recipe is invalid" -- migrate "$bad/reserved-tp.yaml"
expect 1 "cannot open" -- migrate "$tmp/missing.yaml"
expect 2 "excludes|--in-place" -- migrate --in-place -o "$tmp/x.yaml" "$v1a"
expect 2 "FILE is required|required" -- migrate
[ -e "$tmp/x.yaml" ] && { echo "FAIL: migrate wrote despite a usage error"; failures=$((failures + 1)); }

"$helper" schema | /usr/bin/python3 -c 'import json,sys; s=json.load(sys.stdin); assert "backend" in s["properties"]' \
  || { echo "FAIL: schema is not JSON with backend"; failures=$((failures + 1)); }

# Captured first: `helper | grep -q` under pipefail fails if the helper dies of SIGPIPE.
if ! out=$(SRTSLURM_CONFIG="$profile" "$helper" validate "$r2") || [[ "$out" != *"ok (3 nodes)"* ]]; then
  echo "FAIL: SRTSLURM_CONFIG not used"; failures=$((failures + 1))
fi

echo "$failures failure(s)"
[ "$failures" = 0 ]
