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

# What each good recipe must give, by its path under SOURCE_DIR: the node count (validate's
# "ok (N nodes)", nodes' N), the backend of those srt-spank validates but does not plan, and the
# keys validate's note names as not launchable yet. A good recipe missing here fails the sweep.
declare -A want_nodes=(
  [recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml]=2
  [recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml]=3
  [recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml]=2
  [recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml]=3
  [recipes/qwen3/atom/mi355x-bf16/smoke/disagg-1p1d-tp8.yaml]=2
  [recipes/qwen3/atom/mi355x-bf16/smoke/disagg-2p1d-tp8.yaml]=3
  [recipes/lab/qwen3/atom/mi355x-bf16/smoke/disagg-1p1d-tp8.yaml]=2
  [recipes/lab/qwen3/atom/mi355x-bf16/smoke/disagg-2p1d-tp8.yaml]=3
  [recipes/dsr1/sglang/mi355x-fp8/8k1k/agg-tp8.yaml]=1
  [recipes/dsv4/atom/mi355x-fp4/agentic/agg-tp8.yaml]=1
  [recipes/lab/dsv4/atom/mi355x-fp4/agentic/agg-tp8.yaml]=1
  [recipes/dsv4/vllm/mi355x-fp4/agentic/agg.yaml]=1
  [recipes/lab/dsv4/vllm/mi355x-fp4/agentic/agg.yaml]=1
  [recipes/lab/dsr1/sglang/mi355x-fp8/8k1k/agg-tp8.yaml]=1
  [recipes/lab/dsv4/sglang/mi355x/agentic/disagg-dspark.yaml]=2
  [tests/fixtures/recipes/good/agg-direct.yaml]=1
  [tests/fixtures/recipes/good/atom-1p1d-minimal.yaml]=2
  [tests/fixtures/recipes/good/atom-shared-decode-anchors.yaml]=1
  [tests/fixtures/recipes/good/sglang-dynamo-tier2.yaml]=7
  [tests/fixtures/recipes/good/sglang-type-omitted.yaml]=2
)
# Variants files (base + override_*): each selector is swept as a recipe of its own, named
# FILE:SELECTOR as sbatch --srt-recipe takes it.
declare -A want_variants=(
  [recipes/dsr1/sglang/mi355x-fp8/8k1k/agg-tp8.yaml]="base override_tp8_dpa override_2x_tp4_dpa"
  [recipes/lab/dsr1/sglang/mi355x-fp8/8k1k/agg-tp8.yaml]="base override_tp8_dpa override_2x_tp4_dpa"
  [recipes/dsv4/atom/mi355x-fp4/agentic/agg-tp8.yaml]="override_tp8_c4 override_dep8_c64"
  [recipes/lab/dsv4/atom/mi355x-fp4/agentic/agg-tp8.yaml]="override_tp8_c4 override_dep8_c64"
  [recipes/dsv4/vllm/mi355x-fp4/agentic/agg.yaml]="override_tp4_c1 override_dep8_c64"
  [recipes/lab/dsv4/vllm/mi355x-fp4/agentic/agg.yaml]="override_tp4_c1 override_dep8_c64"
  [recipes/lab/dsv4/sglang/mi355x/agentic/disagg-dspark.yaml]="override_c4 override_dpa"
)
# Recipes srt-spank validates but does not plan: what make_plan names as not planned yet.
declare -A not_planned=(
  [tests/fixtures/recipes/good/sglang-dynamo-tier2.yaml]="frontend\\.type 'dynamo'"
  [tests/fixtures/recipes/good/sglang-type-omitted.yaml]="frontend\\.type 'dynamo'"
)
declare -A want_note=(
  [tests/fixtures/recipes/good/sglang-dynamo-tier2.yaml]="benchmark.type=sa-bench, sweep, profiling.type=nsys, frontend.enable_multiple_frontends"
  [tests/fixtures/recipes/good/sglang-type-omitted.yaml]="frontend.enable_multiple_frontends"
)

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# ere TEXT: TEXT as a grep -E pattern matching it literally.
# shellcheck disable=SC2001  # one bracket of all the ERE specials; ${//} would need one per char
ere() { sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"$1"; }

# run CODE PATTERN... -- ARGS...: srt-helper ARGS exits CODE, every grep -E PATTERN matches a line
# of its stdout+stderr, and stderr holds no sanitizer report. The output is in files (out, err,
# all) before anything greps it: `cat out err | grep -q` under pipefail fails whenever grep quits
# at its first match and cat dies of SIGPIPE.
run() {
  local code=$1 patterns=() pattern
  shift
  while [ "$#" -gt 0 ] && [ "$1" != -- ]; do patterns+=("$1"); shift; done
  if [ "$#" = 0 ] || [ "${#patterns[@]}" = 0 ]; then echo "run: usage: run CODE PATTERN... -- ARGS..." >&2; exit 2; fi
  shift
  runs=$((runs + 1))
  "$helper" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? why=""
  cat "$tmp/out" "$tmp/err" >"$tmp/all"
  if grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: [A-Za-z]*Sanitizer' "$tmp/err"; then
    why="sanitizer report"
  elif [ "$rc" != "$code" ]; then
    why="rc=$rc, want $code"
  else
    for pattern in "${patterns[@]}"; do
      grep -Eq -- "$pattern" "$tmp/all" || { why="no '$pattern' in the output"; break; }
    done
  fi
  if [ -n "$why" ]; then
    echo "FAIL ($why): srt-helper $*"
    sed -n '1,40s/^/    /p' "$tmp/all"
    failures=$((failures + 1))
    return 1
  fi
}

# stdout_is TEXT / stderr_is TEXT: the last run printed exactly TEXT there (trailing newlines aside).
stdout_is() { [ "$(cat "$tmp/out")" = "$1" ] || fail "stdout of the last run is not '$1': $(cat "$tmp/out")"; }
stderr_is() { [ "$(cat "$tmp/err")" = "$1" ] || fail "stderr of the last run is not '$1': $(cat "$tmp/err")"; }

# check_json PYTHON_EXPR [JSON_FILE]: the last run's stdout is JSON `j` for which PYTHON_EXPR holds;
# JSON_FILE, if given, is `t`. cpus('0-3,8') is a CPU list as a set.
check_json() {
  /usr/bin/python3 -c "
import json, sys
def cpus(s):
    return {c for part in s.split(',') if part for c in range(int(part.split('-')[0]), int(part.split('-')[-1]) + 1)}
j = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else None
sys.exit(0 if ($1) else 1)" "$tmp/out" "${@:2}" \
    || fail "JSON check '$1' on the last run"
}

mapfile -t good < <(find "$src/recipes" "$fixtures/recipes/good" -name '*.yaml' | sort)
mapfile -t bad < <(find "$fixtures/recipes/bad" -name '*.yaml' | sort)
mapfile -t topologies < <(find "$fixtures/topology" -name '*.xml' | sort)
if [ "${#good[@]}" -lt 8 ] || [ "${#bad[@]}" -lt 50 ] || [ "${#topologies[@]}" -lt 5 ]; then
  echo "FAIL: fixtures missing (${#good[@]} good, ${#bad[@]} bad, ${#topologies[@]} topologies)"
  exit 1
fi

# Each fixture's 8 GPUs in index order, each with its CPU list; kept for the plans below.
for i in "${!topologies[@]}"; do
  xml=${topologies[$i]}
  run 0 '^  "gpus": \[$' -- topology --json --xml "$xml" \
    && check_json "[g['index'] for g in j['gpus']] == list(range(8)) and all(cpus(g['cpuset']) for g in j['gpus'])"
  cp "$tmp/out" "$tmp/topology-$i.json"
done
q=$(ere "$fixtures/recipes/bad/yaml-syntax.yaml")
# Which hwloc call refuses a file that is no XML depends on hwloc's XML backend: its own minimal
# parser fails hwloc_topology_load ("cannot load"), libxml2's (hwloc_xml_libxml.so, from
# libhwloc-plugins, which trixie's Slurm pulls in through libpmix2t64) hwloc_topology_set_xml
# ("cannot read"). Either way one line naming the file, exit 1, nothing on stdout.
run 1 "^srt-helper: cannot (load the hwloc topology from|read hwloc XML) '$q'" -- topology --xml "$fixtures/recipes/bad/yaml-syntax.yaml" \
  && stdout_is ""

refs=()
planned_with_topology=0
hostile_lists=("lab-n[3-1]" "lab-n[a-c]" "lab-n[1-999999999]" "")
for f in "${good[@]}"; do
  rel=${f#"$src/"}
  if [ -n "${want_variants[$rel]:-}" ]; then
    for sel in ${want_variants[$rel]}; do refs+=("$f:$sel"); done
  else
    refs+=("$f")
  fi
done
for r in "${refs[@]}"; do
  file=${r%%:*}
  rel=${file#"$src/"}
  q=$(ere "$r")
  n=${want_nodes[$rel]:-}
  [ -n "$n" ] || { fail "$rel: no expected node count in want_nodes: add it"; continue; }
  nodes_word=nodes
  [ "$n" = 1 ] && nodes_word=node
  note=""
  [ -n "${want_note[$rel]:-}" ] && note="note: $r: srtctl knows these, srt-spank cannot launch them yet: ${want_note[$rel]}"
  if [ "$r" = "$file" ]; then
    run 0 "^$q: ok \($n $nodes_word\)\$" -- validate --profile "$profile" "$r" || continue
    stdout_is "$r: ok ($n $nodes_word)"
  else  # a variant is named with its recipe name: FILE:SELECTOR (NAME): ok
    run 0 "^$q \([^)]+\): ok \($n $nodes_word\)\$" -- validate --profile "$profile" "$r" || continue
    [ "$(wc -l < "$tmp/out")" = 1 ] || fail "validate $r: more than one line: $(cat "$tmp/out")"
  fi
  stderr_is "$note"
  run 0 "^$n\$" -- nodes --profile "$profile" "$r" || continue
  stdout_is "$n"
  nodelist="lab-n[1-$n]"
  names="'lab-n1'"
  for ((k = 2; k <= n; k++)); do names+=", 'lab-n$k'"; done
  [ "$n" = 1 ] && nodelist="lab-n1"
  # Recipes srt-spank validates but does not plan (other backends): a clear refusal, no Plan.
  if [ -n "${not_planned[$rel]:-}" ]; then
    refusal="^srt-helper: ${not_planned[$rel]} can be validated but not planned yet; "
    run 1 "$refusal" -- plan --profile "$profile" --nodelist "$nodelist" "$r" && stdout_is ""
    run 1 "$refusal" -- plan --json --profile "$profile" --nodelist "$nodelist" "$r" && stdout_is ""
    continue
  fi
  # The table: its head line, one row per node in host-list order (with roles), and a digest
  # that the JSON's must start with.
  rows=()
  for ((k = 1; k <= n; k++)); do rows+=("^$((k - 1)) +lab-n$k +lab-n$k +[a-z]"); done
  run 0 "^job 77: $n node\(s\) demanded, kv events (on|off), digest [0-9a-f]{12}\$" "${rows[@]}" \
    -- plan --profile "$profile" --nodelist "$nodelist" --job-id 77 "$r"
  digest=$(sed -n 's/^job 77: .*, digest \([0-9a-f]\{12\}\)$/\1/p' "$tmp/out")
  run 0 '^  "job_id": 77,$' -- plan --json --profile "$profile" --nodelist "$nodelist" --job-id 77 "$r" \
    && check_json "j['job_id'] == 77 and j['demand']['nodes'] == $n and [x['name'] for x in j['nodes']] == [$names]
      and all(p['node'] in [$names] for p in j['processes'])
      and any(p['role'] in ('prefill', 'decode', 'agg') for p in j['processes'])
      and len('$digest') == 12 and j['digest'].startswith('$digest')"
  # One topology per recipe, in turn: every topology is planned with many recipes and every
  # recipe with one (the binding does not depend on the recipe beyond its GPUs per worker), a
  # fifth of the runs of every pair (this test is the longest of the unit and sanitizer phases).
  i=$(( planned_with_topology++ % ${#topologies[@]} ))
  if run 0 '"SRT_WORKER_CPUS": "[0-9]' -- plan --json --profile "$profile" --nodelist "$nodelist" --topology "${topologies[$i]}" "$r"; then
    # Every worker's binding came from the XML: its CPU list is its GPUs' CPU lists there.
    check_json "all(cpus(p['env']['SRT_WORKER_CPUS']) == set().union(*(cpus(g['cpuset']) for g in t['gpus'] if g['index'] in p['gpus']))
      for p in j['processes'] if p['role'] in ('prefill', 'decode', 'agg'))" "$tmp/topology-$i.json"
  fi
  # One node short of the demand, and a host list Slurm cannot read: errors, not crashes.
  if [ "$n" -gt 1 ]; then
    run 1 "^srt-helper: the recipe needs $n nodes but the job has $((n - 1)); submit with -N $n\$" \
      -- plan --profile "$profile" --nodelist "lab-n[1-$((n - 1))]" "$r" && stdout_is ""
  fi
  # The host lists Slurm cannot read, one per recipe in turn as the topologies.
  hostile=${hostile_lists[$(( planned_with_topology % ${#hostile_lists[@]} ))]}
  if [ -n "$hostile" ]; then
    run 1 "^srt-helper: cannot read the node list '$(ere "$hostile")'; " \
      -- plan --profile "$profile" --nodelist "$hostile" "$r" && stdout_is ""
  else
    run 1 "^srt-helper: the node list is empty; " -- plan --profile "$profile" --nodelist " , " "$r" && stdout_is ""
  fi
done

# Each bad fixture's first three lines name the key path, line (0: any) and text of the error it
# must get: validate prints that diagnostic as FILE:LINE:COLUMN: PATH: MESSAGE, every problem on a
# line naming the file, then FILE: invalid (N problems); plan refuses it the same way, no Plan.
for r in "${bad[@]}"; do
  { read -r l1; read -r l2; read -r l3; } <"$r"
  if [[ "$l1" != "# expect-path:"* || "$l2" != "# expect-line: "* || "$l3" != "# expect-text: "* ]]; then
    fail "$r: no '# expect-path/line/text:' header"
    continue
  fi
  path=${l1#"# expect-path:"} path=${path# } line=${l2#"# expect-line: "} text=${l3#"# expect-text: "}
  where="$(ere "$r"):$line:[0-9]+: "
  [ "$line" = 0 ] && where="$(ere "$r")(:[0-9]+:[0-9]+)?: "
  diagnostic="$where${path:+$(ere "$path"): }.*$(ere "$text")"
  if run 1 "^$diagnostic" -- validate --profile "$profile" "$r"; then
    mapfile -t lines <"$tmp/out"
    k=$((${#lines[@]} - 1))
    s=s
    [ "$k" = 1 ] && s=""
    if [ "$k" -lt 1 ] || [ "${lines[$k]}" != "$r: invalid ($k problem$s)" ]; then
      fail "validate $r: the last line is not '$r: invalid ($k problem$s)': ${lines[*]: -1}"
    fi
    for l in "${lines[@]:0:k}"; do
      [[ "$l" == "$r:"* ]] || fail "validate $r: a problem line that does not name the file: $l"
    done
  fi
  run 1 "^(srt-helper: )?$diagnostic" -- plan --json --profile "$profile" --nodelist "lab-n[1-4]" "$r" && stdout_is ""
done

# shellcheck disable=SC2016  # a literal $schema key
run 0 '^  "\$schema": "https://json-schema\.org/draft/2020-12/schema",$' -- schema \
  && check_json "'backend' in j['properties'] and 'resources' in j['properties'] and 'name' in j['required']"

# The report fixtures (tests/fixtures/results/README.md): 4101 has c4..c32 ok, c64 failed (96 of
# 640 requests), c128 missing, on 16 GPUs; 4102 has c256..c1024 ok and c2048 failed (0 completed),
# on 24 GPUs.
if [ -d "$fixtures/results/4101" ]; then
  cp -r "$fixtures/results/4101" "$fixtures/results/4102" "$tmp/"
  run1=dsv4-atom-mi355x-disagg-1p1d-tp8-isl8192-osl1024 run2=dsv4-atom-mi355x-disagg-2p1d-dpa-tp8-isl8192-osl1024
  run 0 "^run $run1  job 4101  $(ere "$tmp/4101")\$" '^GPUs: 16 = 8 prefill \+ 8 decode \(from plan\.json\)$' \
    '^ +c64 FAILED +544/640 +96 ' '^  c64 FAILED: 96 of 640 requests failed ' "^  c128 MISSING: no result file " \
    '^6 point\(s\): 4 ok, 1 failed, 1 missing$' \
    "^run $run2  job 4102  $(ere "$tmp/4102")\$" '^GPUs: 24 = 16 prefill \+ 8 decode \(from plan\.json\)$' \
    '^  c2048 FAILED: no request completed \(0 of 4096\)$' '^4 point\(s\): 3 ok, 1 failed, 0 missing$' \
    -- report --no-pictures "$tmp/4101" "$tmp/4102"
  run 0 '^    "job_id": "4101",$' -- report --json --no-pictures "$tmp/4101" \
    && check_json "len(j) == 1 and j[0]['name'] == '$run1' and j[0]['gpus']['total'] == 16
      and [(p['concurrency'], p['state']) for p in j[0]['points']]
          == [(4, 'ok'), (8, 'ok'), (16, 'ok'), (32, 'ok'), (64, 'failed'), (128, 'missing')]
      and (j[0]['points'][4]['completed'], j[0]['points'][4]['failed']) == (544, 96)"
  run 1 "^srt-helper: $(ere "$tmp/no-such-run"): not a directory" -- report --no-pictures "$tmp/no-such-run" && stdout_is ""
fi

echo "$runs runs, $failures failure(s)"
[ "$failures" = 0 ]
