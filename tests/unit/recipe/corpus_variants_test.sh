#!/bin/bash
# The InferenceX corpus's variants files (reference/corpus-v2, outside the project: never copied in)
# expand to the variants tests/fixtures/corpus-v2/variants-expected.tsv lists, derived by hand from
# srtctl's rules: `srt-helper validate FILE` prints one verdict per variant, "FILE:SELECTOR (NAME):",
# and its node count must equal the table's hand-derived node demand (section 7 of the note), or the
# verdict must be "invalid" where the table says "refused". The table gives each name as a SHA-256
# prefix (no corpus content in the project): the name the helper prints is hashed and compared.
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

# What the helper says: file TAB selector TAB name TAB verdict, for every file the table names.
cut -f1 "$expected" | grep -v '^#' | sort -u >"$tmp/files"
missing=0
while read -r rel; do
  if [ ! -f "$corpus/$rel" ]; then
    echo "missing from the corpus: $rel"
    missing=$((missing + 1))
    continue
  fi
  "$helper" validate --profile "$profile" "$corpus/$rel" >"$tmp/out" 2>/dev/null
  # "PATH:SELECTOR (NAME): ok (N nodes)" / "...: invalid (N problems)"
  sed -nE "s#^$corpus/$rel:([^ ]+) \\((.*)\\): (ok \\([0-9]+ nodes?\\)|invalid).*#$rel\t\1\t\2\t\3#p" "$tmp/out" >>"$tmp/got"
  if ! grep -q "^$corpus/$rel:[^ ]* (" "$tmp/out"; then
    echo "no variants from $rel:"
    sed 's/^/    /' "$tmp/out" | head -5
  fi
done <"$tmp/files"
touch "$tmp/got"

total=0 matched=0 counted=0
while IFS=$'\t' read -r file selector name nodes; do
  [[ "$file" == \#* ]] && continue
  total=$((total + 1))
  line=$(awk -F'\t' -v f="$file" -v s="$selector" '$1 == f && $2 == s' "$tmp/got")
  got_name=$(printf '%s' "$line" | cut -f3)
  verdict=$(printf '%s' "$line" | cut -f4)
  # "ok (N nodes)" -> N; "invalid" -> refused
  case "$verdict" in
    "ok ("*) got_nodes=${verdict#ok (}; got_nodes=${got_nodes%% *} ;;
    invalid) got_nodes=refused ;;
    *) got_nodes= ;;
  esac
  name_ok=0 got_hash=
  [ -n "$line" ] && got_hash="sha256:$(printf '%s' "$got_name" | sha256sum | cut -c1-16)"
  if [ -n "$line" ] && [ "$got_hash" = "$name" ]; then
    matched=$((matched + 1)) name_ok=1
  else
    echo "FAIL ${file##*/}:$selector: want the name whose hash is $name, got '${got_name:-no such variant}'${got_hash:+ ($got_hash)}"
  fi
  if [ -n "$nodes" ] && [ "$got_nodes" = "$nodes" ]; then
    counted=$((counted + 1))
    [ "$name_ok" = 1 ] && echo "ok   ${file##*/}:$selector = $name ($verdict)"
  else
    want=${nodes:-"(no count in the table)"}; [ "$want" = refused ] || want="$want nodes"
    echo "FAIL ${file##*/}:$selector: want $want, got ${got_nodes:-no verdict}${verdict:+ ($verdict)}"
  fi
done <"$expected"
# The helper must not find variants the table lacks either.
extra=$(cut -f1,2 "$tmp/got" | grep -vxFf <(grep -v '^#' "$expected" | cut -f1,2) | wc -l)
[ "$extra" = 0 ] || echo "FAIL: $extra variant(s) not in the table: $(cut -f1,2 "$tmp/got" | grep -vxFf <(grep -v '^#' "$expected" | cut -f1,2) | tr '\n' ' ')"
echo "corpus variants: names $matched/$total matched, node counts $counted/$total matched, $missing file(s) missing"
[ "$matched" = "$total" ] && [ "$counted" = "$total" ] && [ "$extra" = 0 ] && [ "$missing" = 0 ]
