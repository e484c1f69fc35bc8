#!/usr/bin/env bash
# test-spank-submit.sh BASE: a bad recipe is refused by sbatch, salloc and srun with the
# validator's message (file:line:column and key path) and nothing is queued; a missing file and
# a lone --srt-step are refused too; a job without the option sees no SRT_ variable and its
# slurmstepd never loads the implementation library, while an srt job's does.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
lab_test_init "${1:-}"
unset SRT_HELPER  # ctest passes it; the tasks must see only what the plugin sets
work=$(lab_scratch spank-submit)
cd "$work"
good="$HERE/../../recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"
# The shipped recipe is schema 2: misspell roles.prefill.gpus (the first "    gpus: 8").
sed '0,/^    gpus: 8$/s//    gpu: 8/' "$good" > bad.yaml
grep -q '^    gpu: 8$' bad.yaml || lab_fail "could not make the bad recipe"
line=$(grep -n '^    gpu: 8$' bad.yaml | cut -d: -f1)

where="bad.yaml:$line:"
lab_expect_refused sbatch sbatch.out "$where" sbatch -N2 --srt-recipe=bad.yaml --wrap true
lab_expect_refused salloc salloc.out "$where" salloc -N2 --srt-recipe=bad.yaml true
lab_expect_refused srun srun.out "$where" srun -N2 --srt-recipe=bad.yaml true
grep -qF "did you mean 'gpus'" sbatch.out || lab_fail "no 'did you mean' hint"
grep -qF "roles.prefill.gpu" sbatch.out || lab_fail "the refusal does not name the key path roles.prefill.gpu"
lab_expect_refused missing missing.out "missing.yaml" sbatch -N2 --srt-recipe=missing.yaml --wrap true
lab_expect_refused lone-step step.out "--srt-step only works inside a job" srun -N1 --srt-step=prefill:0 true
lab_expect_refused bad-step badstep.out "is not a worker name" srun -N2 --srt-recipe="$good" --srt-step=router true

echo "--- a job without the option is untouched"
# The task's parent is its slurmstepd: its maps show which plugin libraries it loaded. Counted:
# SRT_ variables, the node side's library, the loader, the submit side's library, yaml-cpp and
# libcrypto mappings (a slurmstepd of a recipe job maps neither of the last three).
# shellcheck disable=SC2016  # expanded in the task
probe='m=/proc/$PPID/maps; env | grep -c "^SRT_" || true; for p in srt_spank_node spank_srt.so srt_spank_impl libyaml-cpp libcrypto; do grep -c "$p" $m || true; done'
mapfile -t plain < <(srun -N1 bash -c "$probe")
echo "plain job: SRT_ variables=${plain[0]} node library mappings=${plain[1]} loader mappings=${plain[2]}"
[[ "${plain[0]}" == 0 ]] || lab_fail "a job without --srt-recipe sees SRT_ variables"
[[ "${plain[1]}" == 0 && "${plain[3]}" == 0 ]] || lab_fail "the implementation is loaded for a job without --srt-recipe"
(( plain[2] > 0 )) || lab_fail "the loader is not in the step at all: the check above proves nothing"
# Task 0's lines only (--label): two tasks' lines interleave.
mapfile -t srt < <(srun -N2 --label --srt-recipe="$good" bash -c "$probe" | sed -n 's/^0: //p')
echo "srt job: SRT_ variables=${srt[0]} node library=${srt[1]} submit library=${srt[3]} yaml-cpp=${srt[4]} libcrypto=${srt[5]} (plain: ${plain[5]})"
(( srt[0] > 5 && srt[1] > 0 )) || lab_fail "an srt job should load the node library and see SRT_ variables"
[[ "${srt[3]}" == 0 ]] || lab_fail "a slurmstepd loaded the submit side's srt_spank_impl.so"
[[ "${srt[4]}" == 0 ]] || lab_fail "a slurmstepd of an srt job maps yaml-cpp"
[[ "${srt[5]}" == "${plain[5]}" ]] || lab_fail "the plugin brought libcrypto into slurmstepd"
echo "PASS: bad input refused at submit by sbatch, salloc and srun; plain jobs untouched"
