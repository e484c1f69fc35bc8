#!/usr/bin/env bash
# Another user plants files where srt-helper writes. Two uids
# without accounts (setpriv): an attacker and a victim whose 0700 home holds authorized_keys,
# a .bashrc and a secret. The results_root is shared (1777), as a site's results share is.
#   launch: the attacker creates <results_root>/<jobid> before the victim's job (job ids are
#           sequential, squeue shows them) with status.json.tmp, plan.json.tmp,
#           fingerprints.json.tmp, logs.tar.gz, runtime-logs.tar.gz.tmp and the console log
#           as symlinks into the victim's home, or <jobid> itself as a symlink to the home. The
#           victim's `srt-helper launch` (a batch step faked: snapshot, digest, a failing srun)
#           refuses the directory, naming it, its owner and what to do; nothing in the home
#           changes. Without the planted directory the job writes its files there, regular
#           files of its own, and a rerun of the same job id (requeue) is fine.
#   run:    `srt-helper run` (sbatch, squeue and sacct faked) refuses to collect results from a
#           <jobid> the attacker made (with a symlink to the home inside, a forged result and a
#           multinode_server_logs.tar.gz symlink to authorized_keys), with --results or not;
#           from the victim's own directory it copies the results and not what a symlink in it
#           points to (saying so); sbatch's --output is not put in the shared results_root.
#   submit: `srt-helper submit --set` with the recipe in a shared directory where the attacker
#           planted <recipe>.srt-effective.yaml -> a file in the victim's home: the effective
#           recipe sbatch reads is in a private (0700) directory of the victim, elsewhere, and
#           is gone once sbatch returns; the home is unchanged. It is the schema-2 recipe as
#           written with the overrides (roles.decode.restart kept), not its v1 rendering.
# After every attack the sha256 of every file in the victim's home, and the list of its files
# with their modes and owners, are what they were before.
#   resume: `srt-helper run --resume` refuses a tree the attacker made, one others can write, a
#           recipe.yaml edited or made a symlink, a changed profile; the victim's own tree is
#           resubmitted with its recipe from a private directory and --points.
# Usage: planted_files_test.sh SRT_HELPER SOURCE_DIR launch|run|submit|resume   (root; else skipped, 77)
set -euo pipefail
helper=${1:?usage: planted_files_test.sh SRT_HELPER SOURCE_DIR launch|run|submit|resume}
src=${2:?usage: planted_files_test.sh SRT_HELPER SOURCE_DIR launch|run|submit|resume}
case=${3:?usage: planted_files_test.sh SRT_HELPER SOURCE_DIR launch|run|submit|resume}
if (( EUID != 0 )); then echo "SKIP: needs root (runs the attacker and the victim as two uids)"; exit 77; fi
command -v setpriv >/dev/null || { echo "SKIP: setpriv (util-linux) is not installed"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Two uids (and gids) nobody uses: setpriv needs no account.
free_id() {
  local id=$1
  while getent passwd "$id" >/dev/null || getent group "$id" >/dev/null; do id=$((id + 1)); done
  echo "$id"
}
attacker=$(free_id 62100)
victim=$(free_id $((attacker + 1)))
# The sanitizer build's options (libslurm's leak suppressions) reach the helper under the uids too.
keep_env=()
for v in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS; do [[ -n "${!v:-}" ]] && keep_env+=("$v=${!v}"); done
as_attacker() { setpriv --reuid="$attacker" --regid="$attacker" --clear-groups "$@"; }
as_victim() {
  setpriv --reuid="$victim" --regid="$victim" --clear-groups \
    env -i "${keep_env[@]}" PATH="$work/bin:/usr/bin:/bin" HOME="$home" "$@"
}

home="$work/home-victim"
mkdir -p "$home/.ssh"
echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIvictimkey victim@laptop" > "$home/.ssh/authorized_keys"
echo 'export PS1="victim$ "' > "$home/.bashrc"
echo "the victim's secret" > "$home/secret.txt"
echo "the victim's notes" > "$home/notes.txt"
chown -R "$victim:$victim" "$home"
chmod 700 "$home" "$home/.ssh"
chmod 600 "$home/.ssh/authorized_keys" "$home/secret.txt"
home_state() {
  (cd "$home" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
  find "$home" -printf '%P %y %m %U\n' | sort
}
home_state > "$work/home.before"
check_home() {
  home_state > "$work/home.after"
  diff -u "$work/home.before" "$work/home.after" || fail "$1: the victim's home changed"
}

# The shared results_root, the profile, the recipe; bin/ holds the faked Slurm commands.
mkdir -p "$work/results" "$work/bin" "$work/rec"
chmod 1777 "$work/results" "$work/rec"
# shellcheck source=fake_job.sh
source "$(dirname "${BASH_SOURCE[0]}")/fake_job.sh"
fake_job_setup planted-files-test

case_launch() {
  # srun fails at once but for the GPU and port checks: every preflight probe ends unanswered, the job
  # fails and tears down, which writes everything a job writes (status, plan, fingerprints,
  # console, both tarballs).
  printf '#!/bin/sh\ncase "$*" in *" port-check "*|*" gpu-check "*) exit 0 ;; esac\nexit 1\n' > "$work/bin/srun"
  chmod 755 "$work/bin/srun"
  local jid=4242 dir="$work/results/4242" env rc out
  read -r -a env <<< "$(job_env "$jid")"

  as_attacker mkdir -m 777 "$dir" "$dir/logs"
  as_attacker ln -s "$home/secret.txt" "$dir/status.json.tmp"
  as_attacker ln -s "$home/.bashrc" "$dir/plan.json.tmp"
  as_attacker ln -s "$home/notes.txt" "$dir/fingerprints.json.tmp"
  as_attacker ln -s "$home/secret.txt" "$dir/logs.tar.gz"
  as_attacker ln -s "$home/notes.txt" "$dir/runtime-logs.tar.gz.tmp"
  as_attacker ln -s "$home/.ssh/authorized_keys" "$dir/logs/sweep_$jid.log"
  out="$work/launch-planted.out"
  rc=0
  as_victim "${env[@]}" "$helper" launch --profile "$profile" > "$out" 2>&1 || rc=$?
  cat "$out"
  check_home "launch into a planted job directory"
  (( rc != 0 )) || fail "launch went on in a job directory the attacker made"
  grep -qF "$dir is owned by uid $attacker" "$out" || fail "the refusal does not name the directory and its owner"
  grep -qF "remove it or choose another results_root" "$out" || fail "the refusal does not say what to do"
  [[ -z "$(find "$dir" -user "$victim")" ]] || fail "the victim wrote into the attacker's directory: $(find "$dir" -user "$victim")"

  # <jobid> itself a symlink to the victim's home.
  rm -rf "$dir"
  as_attacker ln -s "$home" "$dir"
  rc=0
  as_victim "${env[@]}" "$helper" launch --profile "$profile" > "$out" 2>&1 || rc=$?
  cat "$out"
  check_home "launch into a job directory that is a symlink to the home"
  (( rc != 0 )) || fail "launch went on through a job directory that is a symlink"
  grep -qF "$dir is a symbolic link" "$out" || fail "the refusal does not say the job directory is a symlink"

  # No attacker: the job makes its directory and writes regular files of its own; a rerun of the
  # same job id (a requeue) finds its own directory and is fine.
  rm -f "$dir"
  for attempt in first rerun; do
    as_victim "${env[@]}" "$helper" launch --profile "$profile" > "$out" 2>&1 || true
    grep -q "job $jid failed: preflight" "$out" || { cat "$out"; fail "$attempt attempt: the job did not get to preflight"; }
    for f in status.json plan.json fingerprints.json logs.tar.gz runtime-logs.tar.gz "logs/sweep_$jid.log"; do
      [[ -f "$dir/$f" && ! -L "$dir/$f" && "$(stat -c %u "$dir/$f")" == "$victim" ]] ||
        fail "$attempt attempt: $dir/$f is not a regular file of the victim's"
    done
    [[ "$(stat -c '%u %a' "$dir")" == "$victim 755" ]] || fail "$attempt attempt: $dir is $(stat -c '%u %a' "$dir")"
  done
  check_home "a job of the victim's own"
  echo "PASS: launch refuses a planted job directory and writes only its own files"
}

# Faked Slurm for `run` and `submit`: sbatch records its arguments (and the recipe it was given,
# with the mode and owner of its directory) and submits job rec/next-job; the job is gone at
# once and accounting says COMPLETED 0:0.
fake_slurm() {
  cat > "$work/bin/sbatch" <<SH
#!/bin/bash
printf '%s\n' "\$@" > "$work/rec/sbatch.args"
for a in "\$@"; do
  case "\$a" in
    --srt-recipe=*) r=\${a#--srt-recipe=}
      echo "\$r" > "$work/rec/recipe.path"
      stat -c '%a %u %F' "\$(dirname "\$r")" > "$work/rec/recipe.dir"
      stat -c '%a %u %F' "\$r" > "$work/rec/recipe.file"
      cat "\$r" > "$work/rec/recipe.yaml" ;;
  esac
done
cat "$work/rec/next-job"
SH
  printf '#!/bin/sh\nexit 0\n' > "$work/bin/squeue"
  printf '#!/bin/sh\necho "COMPLETED|0:0"\n' > "$work/bin/sacct"
  chmod 755 "$work/bin/sbatch" "$work/bin/squeue" "$work/bin/sacct"
}

# results JOBID_DIR: a completed c4 point and the job's Plan, as a job leaves them.
results() {
  local dir=$1 jid
  jid=$(basename "$dir")
  mkdir -p "$dir/fixed-seq"
  cp "$src/tests/fixtures/results/4101/fixed-seq/dsv4-atom-mi355x-disagg-1p1d-tp8-isl8192-osl1024-c4.json" \
     "$dir/fixed-seq/lab-c4.json"
  "$helper" plan "$recipe" --profile "$profile" --nodelist "$nodelist" --job-id "$jid" --json > "$dir/plan.json"
  echo '{"state": "completed", "reason": "benchmark finished"}' > "$dir/status.json"
  echo "runtime logs of job $jid" > "$dir/runtime-logs.tar.gz"
}

case_run() {
  echo 4242 > "$work/rec/next-job"
  fake_slurm
  local dir="$work/results/4242" pub="$work/pub" rc out
  mkdir -p "$pub"
  chown "$victim:$victim" "$pub"

  # The attacker's job directory: a forged result, a symlink to the home, and the copy `run`
  # makes of runtime-logs.tar.gz planted as a symlink to authorized_keys.
  as_attacker mkdir -m 777 "$dir"
  as_attacker bash -c "$(declare -f results); src='$src' helper='$helper' recipe='$recipe' profile='$profile' nodelist='$nodelist' results '$dir'"
  as_attacker ln -s "$home" "$dir/home"
  as_attacker ln -s "$home/.ssh/authorized_keys" "$dir/multinode_server_logs.tar.gz"
  out="$work/run-planted.out"
  rc=0
  as_victim "$helper" run "$recipe" --profile "$profile" --no-pictures --timeout 30 > "$out" 2>&1 || rc=$?
  cat "$out"
  check_home "run (results left in place) from a planted job directory"
  (( rc != 0 )) || fail "run judged results from a job directory the attacker made"
  grep -qF "$dir is owned by uid $attacker" "$out" || fail "run's refusal does not name the directory and its owner"
  grep -qF "remove it or choose another results_root" "$out" || fail "run's refusal does not say what to do"
  ! grep -qE "^  c4 +ok:" "$out" || fail "run judged the attacker's forged result ok"

  rc=0
  as_victim "$helper" run "$recipe" --profile "$profile" --no-pictures --timeout 30 --results "$pub" > "$out" 2>&1 || rc=$?
  cat "$out"
  check_home "run --results from a planted job directory"
  (( rc != 0 )) || fail "run --results collected a job directory the attacker made"
  grep -qF "$dir is owned by uid $attacker" "$out" || fail "run --results' refusal does not name the directory and its owner"
  ! grep -rqF "the victim's secret" "$pub" || fail "the victim's home was copied into the published results"
  [[ ! -e "$pub/4242/home" ]] || fail "$pub/4242/home exists"
  ! grep -qx -- "--output=$work/results/.*" "$work/rec/sbatch.args" ||
    fail "sbatch's --output is in the shared results_root: $(grep -- --output "$work/rec/sbatch.args")"

  # The victim's own job directory, holding a symlink to the home (the benchmark left one):
  # the results are copied, the link is not followed, and run says it left it out.
  echo 4243 > "$work/rec/next-job"
  dir="$work/results/4243"
  mkdir -m 755 "$dir"
  chown "$victim:$victim" "$dir"
  as_victim bash -c "$(declare -f results); src='$src' helper='$helper' recipe='$recipe' profile='$profile' nodelist='$nodelist' results '$dir'"
  as_victim ln -s "$home" "$dir/home"
  rc=0
  as_victim "$helper" run "$recipe" --profile "$profile" --no-pictures --timeout 30 --results "$pub" > "$out" 2>&1 || rc=$?
  cat "$out"
  check_home "run --results from the victim's own job directory"
  grep -qE "^  c4 +ok: 40 completed" "$out" || fail "run did not judge the victim's own c4 result"
  [[ -f "$pub/4243/fixed-seq/lab-c4.json" && -f "$pub/4243/plan.json" ]] || fail "the results were not copied to $pub/4243"
  compgen -G "$pub/4243/*_srt-4243_conc4_gpus_16*.json" >/dev/null || fail "no InferenceX copy of c4 in $pub/4243"
  [[ "$(cat "$pub/4243/multinode_server_logs.tar.gz")" == "runtime logs of job 4243" ]] ||
    fail "multinode_server_logs.tar.gz is not the job's runtime-logs.tar.gz"
  [[ ! -e "$pub/4243/home" && ! -L "$pub/4243/home" ]] || fail "the symlink $dir/home was copied"
  ! grep -rqF "the victim's secret" "$pub" || fail "the victim's home was copied into the published results"
  grep -F "$dir/home" "$out" | grep -q "symbolic link" || fail "run does not say it left out the symlink $dir/home"
  echo "PASS: run collects only from its own job directory, without following links"
}

case_submit() {
  echo 4242 > "$work/rec/next-job"
  fake_slurm
  local shared="$work/shared" rc out path
  mkdir -m 777 "$shared"   # a team's recipe directory: anyone may add files
  cp "$recipe" "$shared/lab.yaml"
  chown "$victim:$victim" "$shared/lab.yaml"
  as_attacker ln -s "$home/notes.txt" "$shared/lab.yaml.srt-effective.yaml"
  out="$work/submit.out"
  rc=0
  as_victim "$helper" submit "$shared/lab.yaml" --profile "$profile" --set slurm.time_limit=01:00:00 \
    --set roles.decode.restart=on-failure > "$out" 2>&1 || rc=$?
  cat "$out"
  check_home "submit --set beside a planted effective recipe"
  (( rc == 0 )) || fail "submit --set failed ($rc)"
  grep -qx "Submitted batch job 4242" "$out" || fail "submit did not report the job"
  path=$(cat "$work/rec/recipe.path")
  echo "sbatch read the effective recipe at $path (directory: $(cat "$work/rec/recipe.dir"); file: $(cat "$work/rec/recipe.file"))"
  [[ "$path" != "$shared"/* ]] || fail "the effective recipe was written in the recipe's shared directory ($path)"
  [[ "$(cat "$work/rec/recipe.dir")" == "700 $victim directory" ]] || fail "the effective recipe's directory is not the victim's alone"
  [[ "$(cat "$work/rec/recipe.file")" == *" $victim regular file" ]] || fail "the effective recipe is not a regular file of the victim's"
  grep -q "01:00:00" "$work/rec/recipe.yaml" || fail "the effective recipe lacks the --set override"
  # Written as the schema-2 recipe it is: v1's layout has no place for roles.<role>.restart.
  grep -q '"restart": "on-failure"' "$work/rec/recipe.yaml" || fail "the effective recipe lost roles.decode.restart"
  [[ ! -e "$path" && ! -e "$(dirname "$path")" ]] || fail "the effective recipe is still there after sbatch returned ($path)"
  echo "PASS: submit --set writes the effective recipe in a private directory and removes it"
}

# run --resume RESULTS/JOBID: only a tree of the victim's own that nobody else can
# write, whose recipe.yaml is a regular file with status.json's digest, with the same profile;
# each refusal says why, submits nothing and leaves the home alone. The good tree's recipe goes
# to sbatch from a private directory, with --points for the points it lacks.
case_resume() {
  echo 4300 > "$work/rec/next-job"
  fake_slurm
  printf '#!/bin/sh\ncase "$*" in *" port-check "*|*" gpu-check "*) exit 0 ;; esac\nexit 1\n' > "$work/bin/srun"
  chmod 755 "$work/bin/srun"
  local jid=4243 dir="$work/results/4243" forged="$work/results/4244" env out="$work/resume.out" rc
  read -r -a env <<< "$(job_env "$jid")"
  # The victim's own job, as the launcher leaves a failed one: status.json, plan.json, recipe.yaml.
  as_victim "${env[@]}" "$helper" launch --profile "$profile" > "$work/launch.out" 2>&1 || true
  [[ -f "$dir/recipe.yaml" ]] || { cat "$work/launch.out"; fail "launch kept no recipe.yaml in $dir"; }
  cmp -s "$dir/recipe.yaml" "$recipe" || fail "recipe.yaml is not the recipe the job ran"
  refused() {  # NAME TEXT [ARGS...]: run --resume refuses with TEXT, submits nothing
    local name=$1 text=$2 rc=0
    shift 2
    rm -f "$work/rec/sbatch.args"
    as_victim "$helper" run --resume "$@" --no-pictures --timeout 30 > "$out" 2>&1 || rc=$?
    cat "$out"
    check_home "run --resume: $name"
    (( rc != 0 )) || fail "run --resume went on: $name"
    grep -qF -- "$text" "$out" || fail "run --resume ($name) does not say '$text'"
    [[ ! -e "$work/rec/sbatch.args" ]] || fail "run --resume ($name) submitted a job"
    echo "ok: $name refused"
  }
  cp "$dir/recipe.yaml" "$work/recipe.kept"
  chmod 644 "$work/recipe.kept"
  as_victim sh -c "echo '# edited after the job' >> '$dir/recipe.yaml'"
  refused "recipe.yaml edited" "its SHA-256 differs from status.json's recipe_digest" "$dir" --profile "$profile"
  as_victim rm "$dir/recipe.yaml"
  as_victim ln -s "$home/secret.txt" "$dir/recipe.yaml"
  refused "recipe.yaml a symlink" "recipe.yaml: cannot resume: it is a symlink, not a regular file" "$dir" --profile "$profile"
  as_victim rm "$dir/recipe.yaml"
  as_victim cp "$work/recipe.kept" "$dir/recipe.yaml"
  cp "$profile" "$work/profile-changed.yaml"
  echo "# edited since the job" >> "$work/profile-changed.yaml"
  refused "profile changed" "the cluster profile changed since job $jid" "$dir" --profile "$work/profile-changed.yaml"
  chmod 777 "$dir"
  refused "tree writable by others" "is writable by" "$dir" --profile "$profile"
  chmod 755 "$dir"
  # The attacker's tree: a copy of the victim's files (status, plan, recipe digests all agree).
  as_attacker mkdir -m 755 "$forged"
  as_attacker cp "$dir/status.json" "$dir/plan.json" "$dir/recipe.yaml" "$forged/"
  refused "a tree the attacker made" "$forged is owned by uid $attacker" "$forged" --profile "$profile"

  # docs/security.md "Faults, time limits and reruns": a second resume of a tree being resumed
  # would rewrite its status.json from what it read first; it is refused while the first holds
  # the tree's lock.
  # The holder keeps the lock until $work/release exists (at most 60 s).
  as_victim /usr/bin/python3 -c 'import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX)
for _ in range(600):
    if os.path.exists(sys.argv[2]): break
    time.sleep(0.1)' "$dir" "$work/release" >/dev/null 2>&1 &
  local holder=$!
  for _ in $(seq 50); do flock -n "$dir" true 2>/dev/null || break; sleep 0.1; done
  refused "a resume already running" "another \`srt-helper run --resume\` of this tree is running" "$dir" --profile "$profile"
  touch "$work/release"
  wait "$holder" 2>/dev/null || true
  rc=0
  as_victim "$helper" run --resume "$dir" --profile "$profile" --no-pictures --timeout 30 > "$out" 2>&1 || rc=$?
  cat "$out"
  check_home "run --resume of the victim's tree"
  grep -qF "resuming job $jid ($dir): c4 c8 c16 c32 c64 c128, missing or failed there" "$out" ||
    fail "run --resume did not name the points the tree lacks"
  grep -qx -- "--points" "$work/rec/sbatch.args" && grep -qx -- "4,8,16,32,64,128" "$work/rec/sbatch.args" ||
    fail "sbatch did not get --points 4,8,16,32,64,128: $(tr '\n' ' ' < "$work/rec/sbatch.args")"
  cmp -s "$work/rec/recipe.yaml" "$work/recipe.kept" || fail "sbatch did not get the job's own recipe.yaml"
  read -r mode uid _ < "$work/rec/recipe.dir"
  [[ "$mode" == 700 && "$uid" == "$victim" ]] || fail "the resumed recipe's directory is $mode, uid $uid: not private"
  echo "PASS: run --resume refuses every tree it must not trust and resubmits the victim's own with --points"
}

case "$case" in
  launch) case_launch ;;
  resume) case_resume ;;
  run) case_run ;;
  submit) case_submit ;;
  *) fail "unknown case '$case' (launch, run, submit or resume)" ;;
esac
