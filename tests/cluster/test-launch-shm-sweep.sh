#!/usr/bin/env bash
# test-launch-shm-sweep.sh BASE: what SGLang leaves in /dev/shm when it is killed is removed with
# the job. The SGLang twin's aggregated worker runs with 4 tokenizer workers, so its server writes
# /dev/shm/multi_tokenizer_args_<its pid> (as SGLang does; a clean exit removes it, a SIGKILL does
# not; the pid is the container's, here bwrap's PID namespace). The server is SIGKILLed once the
# job is healthy: the job fails (class engine), and its teardown removes the file the killed
# server left, saying so on the job's output.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
t0=$(lab_now)
mark=$(lab_scratch launch-shm-sweep)/before
touch "$mark"
sleep 0.1  # a file written in the same clock tick as the mark is not -newer than it
jid=$(launch_helper_submit "$LAUNCH_SRC/recipes/lab/dsr1/sglang/mi355x-fp8/8k1k/agg-tp8.yaml:base" \
  --set 'roles.agg.args.tokenizer-worker-num=4')
echo "job $jid: the SGLang twin with 4 tokenizer workers"
launch_wait_state "$jid" ranks 120 || { launch_show "$jid"; lab_fail "job $jid never became healthy"; }
mapfile -t segments < <(find /dev/shm -maxdepth 1 -name 'multi_tokenizer_args_*' -newer "$mark")
(( ${#segments[@]} == 1 )) || { launch_show "$jid"; lab_fail "expected the server's one multi_tokenizer_args_<pid>, found: ${segments[*]:-none}"; }
segment=${segments[0]}
pid=$(launch_step_pid "$jid" agg_0) || { launch_show "$jid"; lab_fail "no agg_0 server process"; }
kill -KILL "$pid"
echo "killed the SGLang server (pid $pid), which leaves $segment"
result=$(lab_wait_job "$jid" 60) && { launch_show "$jid"; lab_fail "job $jid completed: $result"; }
launch_expect_class "$jid" engine
[[ ! -e "$segment" ]] || { launch_show "$jid"; lab_fail "$segment is still there after the job"; }
grep -q "teardown: removed $segment" "$LAB_BASE/work/launch-$jid.out" ||
  { launch_show "$jid"; lab_fail "the job's output does not say the sweep removed $segment"; }
launch_assert_clean "$jid" 10
echo "PASS: the teardown removed what the killed SGLang server left in /dev/shm ($(lab_elapsed "$t0") s)"
