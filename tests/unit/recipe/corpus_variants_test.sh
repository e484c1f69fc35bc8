#!/bin/bash
# The InferenceX corpus's variants files (../shared/reference/corpus-v2, outside the project: read
# from there, never copied in) expand as srtctl 2.x expands them. Two independent readings of the
# same rules (reference/srt-slurm-v2.md sections 5 and 7) must agree on every variant: srt-helper
# validate (C++, yaml-cpp), which prints "FILE:SELECTOR (NAME): ok (N nodes)" per variant, and
# corpus_variants_oracle.py (PyYAML), which prints FILE:SELECTOR, NAME and N. Every variant of
# each must be the other's, with the same name and node demand.
# Exit 77 (skipped) when the corpus is absent.
set -uo pipefail
helper=$1 src=$2
corpus=${SRT_CORPUS_V2:-$src/../shared/reference/corpus-v2}
if [ ! -d "$corpus" ]; then
  echo "skipped: no corpus at $corpus (set SRT_CORPUS_V2)"
  exit 77
fi
profile="$src/etc/srt/cluster.yaml"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

/usr/bin/python3 "$src/tests/unit/recipe/corpus_variants_oracle.py" "$corpus" | sort >"$tmp/want" ||
  { echo "FAIL: the oracle did not run"; exit 1; }

# What the helper says, for every variant of every file: FILE:SELECTOR TAB NAME TAB NODES|invalid.
files=0
while IFS= read -r -d '' path; do
  rel=${path#"$corpus"/}
  files=$((files + 1))
  "$helper" validate --profile "$profile" "$path" >"$tmp/out" 2>/dev/null
  # "PATH:SELECTOR (NAME): ok (N nodes)" / "...: invalid (N problems)"
  sed -nE "s#^$path:([^ ]+) \\((.*)\\): (ok \\(([0-9]+) nodes?\\)|(invalid)).*#$rel:\\1\t\\2\t\\4\\5#p" "$tmp/out" >>"$tmp/got"
done < <(find "$corpus" -name '*.yaml' -type f -print0 | sort -z)
touch "$tmp/got"
sort -o "$tmp/got" "$tmp/got"

total=$(wc -l <"$tmp/want")
agreed=$(comm -12 "$tmp/want" "$tmp/got" | wc -l)
while IFS= read -r line; do echo "FAIL oracle says:  $line"; done < <(comm -23 "$tmp/want" "$tmp/got")
while IFS= read -r line; do echo "FAIL helper says:  $line"; done < <(comm -13 "$tmp/want" "$tmp/got")
echo "corpus variants ($files files read): $agreed/$total variants agree on selector, name and node demand"
[ "$total" -gt 0 ] && [ "$agreed" = "$total" ] && [ "$(wc -l <"$tmp/got")" = "$total" ]
