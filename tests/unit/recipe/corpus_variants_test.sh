#!/bin/bash
# The InferenceX corpus's variants files (../shared/reference/corpus-v2, outside the project: read
# from there, never copied in) expand to the variants tests/fixtures/corpus-v2/variants-expected.tsv
# lists, derived by hand from srtctl's rules. `srt-helper validate FILE` runs on every file of the
# corpus and prints one verdict per variant, "FILE:SELECTOR (NAME): ok (N nodes)"; each variant must
# be in the table (keyed by a SHA-256 prefix of "FILE:SELECTOR", FILE relative to the corpus), with
# the name whose SHA-256 prefix the table gives and its hand-derived node demand (section 7 of the
# note), or the verdict "invalid" where the table says "refused"; and every table row must be seen.
# Exit 77 (skipped) when the corpus is absent.
set -uo pipefail
helper=$1 src=$2
corpus=${SRT_CORPUS_V2:-$src/../shared/reference/corpus-v2}
expected="$src/tests/fixtures/corpus-v2/variants-expected.tsv"
if [ ! -d "$corpus" ]; then
  echo "skipped: no corpus at $corpus (set SRT_CORPUS_V2)"
  exit 77
fi
profile="$src/etc/srt/cluster.yaml"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hash16() { printf 'sha256:%s' "$(printf '%s' "$1" | sha256sum | cut -c1-16)"; }

# What the helper says, for every variant of every file: key TAB name-hash TAB verdict TAB FILE:SELECTOR.
files=0
while IFS= read -r -d '' path; do
  rel=${path#"$corpus"/}
  files=$((files + 1))
  "$helper" validate --profile "$profile" "$path" >"$tmp/out" 2>/dev/null
  # "PATH:SELECTOR (NAME): ok (N nodes)" / "...: invalid (N problems)"
  while IFS=$'\t' read -r selector name verdict; do
    printf '%s\t%s\t%s\t%s\n' "$(hash16 "$rel:$selector")" "$(hash16 "$name")" "$verdict" "$rel:$selector" >>"$tmp/got"
  done < <(sed -nE "s#^$path:([^ ]+) \\((.*)\\): (ok \\([0-9]+ nodes?\\)|invalid).*#\\1\t\\2\t\\3#p" "$tmp/out")
done < <(find "$corpus" -name '*.yaml' -type f -print0 | sort -z)
touch "$tmp/got"

total=0 matched=0 counted=0 seen=0
while IFS=$'\t' read -r key name nodes; do
  [[ "$key" == \#* ]] && continue
  total=$((total + 1))
  line=$(awk -F'\t' -v k="$key" '$1 == k' "$tmp/got")
  if [ -z "$line" ]; then
    echo "FAIL: the table's variant $key is not among the corpus's variants"
    continue
  fi
  seen=$((seen + 1))
  where=$(printf '%s' "$line" | cut -f4)
  got_name=$(printf '%s' "$line" | cut -f2)
  verdict=$(printf '%s' "$line" | cut -f3)
  # "ok (N nodes)" -> N; "invalid" -> refused
  case "$verdict" in
    "ok ("*) got_nodes=${verdict#ok (}; got_nodes=${got_nodes%% *} ;;
    invalid) got_nodes=refused ;;
    *) got_nodes= ;;
  esac
  name_ok=0
  if [ "$got_name" = "$name" ]; then
    matched=$((matched + 1)) name_ok=1
  else
    echo "FAIL ${where##*/}: want the name whose hash is $name, got $got_name"
  fi
  if [ -n "$nodes" ] && [ "$got_nodes" = "$nodes" ]; then
    counted=$((counted + 1))
    [ "$name_ok" = 1 ] && echo "ok   ${where##*/} ($verdict)"
  else
    want=${nodes:-"(no count in the table)"}; [ "$want" = refused ] || want="$want nodes"
    echo "FAIL ${where##*/}: want $want, got ${got_nodes:-no verdict}${verdict:+ ($verdict)}"
  fi
done <"$expected"
# The helper must not find variants the table lacks either.
extra=$(cut -f1 "$tmp/got" | grep -vxcFf <(grep -v '^#' "$expected" | cut -f1))  # 0 lines: grep exits 1, the count is still 0
if [ "$extra" != 0 ]; then
  echo "FAIL: $extra variant(s) not in the table:"
  grep -vFf <(grep -v '^#' "$expected" | cut -f1) "$tmp/got" | cut -f4 | sed 's/^/    /'
fi
echo "corpus variants ($files files read): $seen/$total in the corpus, names $matched/$total matched, node counts $counted/$total matched"
[ "$total" -gt 0 ] && [ "$seen" = "$total" ] && [ "$matched" = "$total" ] && [ "$counted" = "$total" ] && [ "$extra" = 0 ]
