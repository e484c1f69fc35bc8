#!/usr/bin/env bash
# lab-user.sh: the non-root user the lab's tests submit jobs as, created on demand.
#
#   lab-user.sh [--user NAME] [--base DIR]   create NAME (default srtlab) if missing; with
#                                            --base, also DIR/work/NAME (owned by NAME) and
#                                            check that NAME can use that lab. Prints the
#                                            work directory (or the home) on stdout.
#   lab-user.sh [--user NAME] --remove       delete NAME and its home
#
# Idempotent and safe to run from concurrent tests (serialised with a lock file).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

user=srtlab
base=
remove=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --user) [[ $# -ge 2 ]] || lab_die "--user needs a value"; user=$2; shift 2 ;;
    --base) [[ $# -ge 2 ]] || lab_die "--base needs a value"; base=$2; shift 2 ;;
    --remove) remove=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) lab_die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $(id -u) -eq 0 ]] || lab_die "must run as root"
[[ "$user" =~ ^[a-z_][a-z0-9_-]*$ && "$user" != root ]] || lab_die "bad user name '$user'"

# useradd itself fails ("cannot lock /etc/passwd") when two tests create the user at once.
# The lock is in /run, which only root can write: in /tmp another user could put a link there
# first, and root's open would truncate what it names (fs.protected_symlinks is 0 on some hosts).
lock=/run/srt-lab-user.lock
exec 9>"$lock"
flock -w 30 9 || lab_die "could not take $lock"

if (( remove )); then
  if id -u "$user" >/dev/null 2>&1; then userdel --remove "$user" 2>/dev/null || userdel "$user"; fi
  exit 0
fi

if ! id -u "$user" >/dev/null 2>&1; then
  useradd --create-home --user-group --shell /bin/bash --comment "srt-spank lab test user" "$user"
fi
home=$(getent passwd "$user" | cut -d: -f6)

if [[ -z "$base" ]]; then
  echo "$home"
  exit 0
fi
lab_use "$base"
work="$base/work/$user"
mkdir -p "$work"
chmod 755 "$base/work"
chown "$user:" "$work"
chmod 755 "$work"
# What a job of this user needs from the lab, checked here so a failure names its cause.
lab_as_user "$user" test -r "$SLURM_CONF" \
  || lab_die "$user cannot read $SLURM_CONF (a directory above $base not searchable by others?)"
lab_as_user "$user" test -r "$LAB_PLUGSTACK" || lab_die "$user cannot read $LAB_PLUGSTACK"
lab_as_user "$user" test -w "$work" || lab_die "$user cannot write $work"
lab_as_user "$user" munge -n -S "$LAB_MUNGE_SOCKET" | unmunge -S "$LAB_MUNGE_SOCKET" >/dev/null \
  || lab_die "$user cannot use the munge socket $LAB_MUNGE_SOCKET"
lab_as_user "$user" sinfo -h -o %D >/dev/null || lab_die "$user cannot talk to the lab's slurmctld"
echo "$work"
