#!/bin/bash
# srt-helper over every recipe in the repository and every fixture, on the subcommands that need
# no cluster: validate, nodes, plan (table and --json, on host lists and hwloc XML fixtures),
# topology --xml, schema, report. Built with SRT_SANITIZE=ON this runs the instrumented helper,
# so besides exit codes and messages each run's stderr must hold no sanitizer report.
#   helper_sweep_test.sh SRT_HELPER SOURCE_DIR
set -uo pipefail
helper=$1 src=$2
profile="$src/etc/srt/cluster.yaml"
fixtures="$src/tests/fixtures"
failures=0 runs=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run CODE PATTERN ARGS...: exit code CODE, grep -E PATTERN on stdout+stderr, no sanitizer report.
run() {
  local code=$1 pattern=$2
  shift 2
  runs=$((runs + 1))
  "$helper" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? why=""
  if grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: [A-Za-z]*Sanitizer' "$tmp/err"; then
    why="sanitizer report"
  elif [ "$rc" != "$code" ]; then
    why="rc=$rc, want $code"
  elif ! cat "$tmp/out" "$tmp/err" | grep -Eq -- "$pattern"; then
    why="no '$pattern' in the output"
  fi
  if [ -n "$why" ]; then
    echo "FAIL ($why): srt-helper $*"
    cat "$tmp/out" "$tmp/err" | head -40 | sed 's/^/    /'
    failures=$((failures + 1))
    return 1
  fi
}

# check_json PYTHON_EXPR: the last run's stdout is JSON `j` for which PYTHON_EXPR holds.
check_json() {
  /usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$tmp/out" \
    || { echo "FAIL: JSON check '$1' on the last run"; failures=$((failures + 1)); }
}

mapfile -t good < <(find "$src/recipes" "$fixtures/recipes/good" -name '*.yaml' | sort)
mapfile -t bad < <(find "$fixtures/recipes/bad" -name '*.yaml' | sort)
mapfile -t topologies < <(find "$fixtures/topology" -name '*.xml' | sort)
[ "${#good[@]}" -ge 8 ] && [ "${#bad[@]}" -ge 50 ] && [ "${#topologies[@]}" -ge 5 ] \
  || { echo "FAIL: fixtures missing (${#good[@]} good, ${#bad[@]} bad, ${#topologies[@]} topologies)"; exit 1; }

for r in "${good[@]}"; do
  name=$(basename "$r")
  run 0 "$name: ok \([0-9]+ nodes?\)" validate --profile "$profile" "$r" || continue
  run 0 '^[0-9]+$' nodes --profile "$profile" "$r" || continue
  n=$(cat "$tmp/out")
  nodelist="lab-n[1-$n]"
  [ "$n" = 1 ] && nodelist="lab-n1"
  # Recipes srt-spank validates but does not plan (other backends): a clear refusal, no Plan.
  if [[ $("$helper" plan --profile "$profile" --nodelist "$nodelist" "$r" 2>&1) == *"can be validated but not planned yet"* ]]; then
    run 1 "can be validated but not planned yet" plan --json --profile "$profile" --nodelist "$nodelist" "$r"
    continue
  fi
  run 0 "digest" plan --profile "$profile" --nodelist "$nodelist" --job-id 77 "$r"
  run 0 '"processes"' plan --json --profile "$profile" --nodelist "$nodelist" --job-id 77 "$r" \
    && check_json "j['job_id'] == 77 and len(j['nodes']) == $n and len(j['processes']) > 0"
  for xml in "${topologies[@]}"; do
    run 0 '"processes"' plan --json --profile "$profile" --nodelist "$nodelist" --topology "$xml" "$r" || continue
    # Every worker's binding came from the XML: its CPU list is set.
    check_json "all('SRT_WORKER_CPUS' in p['env'] for p in j['processes'] if p['role'] in ('prefill', 'decode', 'agg'))"
  done
  # One node short of the demand, and a host list Slurm cannot read: errors, not crashes.
  if [ "$n" -gt 1 ]; then
    run 1 "needs $n nodes" plan --profile "$profile" --nodelist "lab-n[1-$((n - 1))]" "$r"
  fi
  for hostile in "lab-n[3-1]" "lab-n[a-c]" "lab-n[1-999999999]"; do
    run 1 "cannot read the node list" plan --profile "$profile" --nodelist "$hostile" "$r"
  done
  run 1 "the node list is empty" plan --profile "$profile" --nodelist " , " "$r"
done

for r in "${bad[@]}"; do
  run 1 "$(basename "$r"): invalid|$(basename "$r")" validate --profile "$profile" "$r"
  run 1 "." plan --json --profile "$profile" --nodelist "lab-n[1-4]" "$r"
done

for xml in "${topologies[@]}"; do
  run 0 '"gpus"' topology --json --xml "$xml" && check_json "len(j['gpus']) == 8"
done
run 1 "." topology --xml "$fixtures/recipes/bad/yaml-syntax.yaml"

run 0 '"\$schema"' schema && check_json "'backend' in j['properties']"

if [ -d "$fixtures/results/4101" ]; then
  cp -r "$fixtures/results/4101" "$fixtures/results/4102" "$tmp/"
  run 0 "c64" report --no-pictures "$tmp/4101" "$tmp/4102"
  run 0 "." report --json --no-pictures "$tmp/4101" && check_json "len(j) > 0"
  run 1 "." report --no-pictures "$tmp/no-such-run"
fi

echo "$runs runs, $failures failure(s)"
[ "$failures" = 0 ]
