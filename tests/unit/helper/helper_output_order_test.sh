#!/bin/bash
# srt-helper's stdout and stderr in one file (`>log 2>&1`, as sbatch and CI logs capture them):
# every message keeps its own line and the order the program writes it in. A recipe's warnings
# come before its verdict, its note right after it; plan's warnings before the Plan or the
# refusal, its note after the Plan; report's note about an unknown GPU count after the table.
#   helper_output_order_test.sh SRT_HELPER SOURCE_DIR
set -uo pipefail
helper=$1 src=$2
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
# The shipped profile, with the test's node names given addresses (they resolve nowhere): plan
# would otherwise warn about each node's data address (the last case below shows that warning).
profile="$tmp/cluster.yaml"
{ cat "$src/etc/srt/cluster.yaml"; printf 'node_addresses: {lab-n1: 10.1.0.1, lab-n2: 10.1.0.2}\n'; } >"$profile"

fail() {
  echo "FAIL: $1"
  sed 's/^/    | /' log
  failures=$((failures + 1))
}

# expect CODE ARGS... <<< EXPECTED: the whole log, byte for byte, and the exit code.
expect() {
  local code=$1
  shift
  "$helper" "$@" >log 2>&1
  local rc=$?
  [ "$rc" = "$code" ] || { fail "srt-helper $* exited $rc, want $code"; return; }
  diff -u - log >diff.out || { fail "srt-helper $*: the log differs from what the program writes"; cat diff.out; }
}

# No line holds a second message: a prefix only ever starts a line.
whole_lines() {
  if grep -nE '.(warning|note|srt-helper): ' log >merged.out; then
    fail "srt-helper $*: a message starts in the middle of a line"
    cat merged.out
  fi
}

# A recipe with a warning (duplicate key) and a note (a key srt-spank cannot launch yet), a
# clean one, and one that is invalid.
sed 's/^  decode_workers: 1$/  decode_workers: 1\n  prefill_critical: false/' \
  "$src/tests/fixtures/recipes/good/atom-1p1d-minimal.yaml" | sed '1i name: first' >note.yaml
cp "$src/tests/fixtures/recipes/good/atom-1p1d-minimal.yaml" clean.yaml
sed 's/^  prefill_workers: 1$/  prefill_workers: 0/' clean.yaml >bad.yaml
warning="warning: note.yaml:2:1: name: duplicate key (first at line 1, again at line 2); the last value wins, as in srtctl; remove one of them"
note="note: note.yaml: srtctl knows these, srt-spank cannot launch them yet: resources.prefill_critical"

expect 1 validate --profile "$profile" note.yaml bad.yaml clean.yaml <<EOF
$warning
note.yaml: ok (2 nodes)
$note
bad.yaml:9:3: resources.prefill_workers: disaggregated serving needs both prefill and decode workers; set prefill_workers: 1 or more
bad.yaml: invalid (1 problem)
clean.yaml: ok (2 nodes)
EOF

expect 0 nodes --profile "$profile" note.yaml <<EOF
$warning
2
EOF

# Refused (one node short): the warning, then the refusal, each on its own line.
expect 1 plan --profile "$profile" --nodelist lab-n1 note.yaml <<EOF
$warning
srt-helper: the recipe needs 2 nodes but the job has 1; submit with -N 2
EOF

# A node whose name resolves nowhere: its data-network warning, with the recipe's, before the refusal.
expect 1 plan --profile "$src/etc/srt/cluster.yaml" --nodelist srt-no-such-node-1 note.yaml <<EOF
$warning
warning: data_network: node srt-no-such-node-1: its name does not resolve to an IPv4 address; planned with the node name here; a job on this node would fail: make the name resolve to the node's data-network address on every node (DNS or /etc/hosts), set the cluster profile's data_network.name_pattern to the names that do, or list the node under node_addresses
srt-helper: the recipe needs 2 nodes but the job has 1; submit with -N 2
EOF

# Planned: the warning, the whole table, then the note.
"$helper" plan --profile "$profile" --nodelist 'lab-n[1-2]' --job-id 7 note.yaml >log 2>&1
[ "$(sed -n 1p log)" = "$warning" ] || fail "plan: the warning is not the first line"
[ "$(sed -n 2p log)" = "" ] && fail "plan: no table after the warning"
grep -q '^job 7: 2 node(s) demanded' <<<"$(sed -n 2p log)" || fail "plan: the table does not follow the warning"
[ "$(tail -n 1 log)" = "$note" ] || fail "plan: the note is not the last line, after the table"
[ "$(grep -c '^benchmark ' log)" = 1 ] || fail "plan: the table's last row is not there once"
whole_lines plan

# report on a results tree without plan.json: the table, then one note about the GPU count.
mkdir -p run/fixed-seq
cp "$src"/tests/fixtures/results/4102/fixed-seq/*.json run/fixed-seq/
"$helper" report run >log 2>&1
rc=$?
[ "$rc" = 0 ] || fail "report without a GPU count exited $rc, want 0"
grep -q '^run .* job run ' <<<"$(sed -n 1p log)" || fail "report: the table is not first"
grep -q '^note: run: GPU count unknown .* and no picture is drawn; pass --gpus N' <<<"$(tail -n 1 log)" \
  || fail "report: the note is not the last line, after the table"
[ "$(grep -c '^note: ' log)" = 1 ] || fail "report: not exactly one note"
whole_lines report

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "ok: validate, nodes, plan and report keep their lines and order in one log"
