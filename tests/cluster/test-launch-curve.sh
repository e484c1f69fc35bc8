#!/usr/bin/env bash
# test-launch-curve.sh BASE: the 2P1D lab twin's sweep with the stand-ins' timing model its
# recipe sets: per-GPU throughput and median TPOT are both
# non-decreasing over c256..c2048 (10 % tolerance, check_curve.py). This is what makes the demo's
# picture the model's and not the noise of two saturated cores.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=launch-lib.sh
source "$HERE/launch-lib.sh"
launch_test_init "${1:-}"
recipe="$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml"
gpus=24  # 2 prefill x 8 + 1 decode x 8
# One sweep: the 2P1D test runs the same recipe end to end, and a second sweep here cost a minute
# of CI for no rule the first does not check.
t0=$(lab_now)
# The recipe's environment carries the timing model: nothing from this shell may change it.
jid=$(unset SRT_STANDIN_TOKEN_MS SRT_STANDIN_SEQ_US; launch_submit "$recipe")
result=$(lab_wait_job "$jid" 300) || { launch_show "$jid"; lab_fail "job $jid did not complete: $result"; }
[[ "$(launch_status "$jid" state)" == completed ]] || { launch_show "$jid"; lab_fail "status.json does not say completed"; }
mapfile -t files < <(find "$(launch_job_dir "$jid")/fixed-seq" -name '*.json' | sort)
(( ${#files[@]} == 5 )) || lab_fail "expected 5 results (c256..c2048), found ${#files[@]}"
echo "job $jid in $(lab_elapsed "$t0") s"
/usr/bin/python3 "$HERE/check_curve.py" "$gpus" 0.10 "${files[@]}" \
  || lab_fail "job $jid: the curve is not monotone"
launch_assert_clean "$jid" 10
jid=
echo "PASS: a 2P1D sweep, throughput per GPU and median TPOT non-decreasing"
