#!/usr/bin/env bash
# Installs, from Debian 12's packages, everything srt-spank needs to build, test and run its lab.
# Idempotent: when every package is present it returns in well under a second.
set -euo pipefail

# The names, per Debian release, are in scripts/packages.list (scripts/rootfs.sh reads the same
# list for the build matrix's root filesystems). The host installs every group.
# shellcheck source=/dev/null
release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
# sid names the next release (forky) in os-release; debian_version says sid.
case "$(cat /etc/debian_version 2>/dev/null)" in */sid) release=sid ;; esac
list=$("$(dirname "${BASH_SOURCE[0]}")/packages.sh" "$release" build unit lab package host) ||
  { echo "install-deps: no package list for Debian release '$release'" >&2; exit 1; }
mapfile -t packages <<<"$list"

missing=()
for p in "${packages[@]}"; do
  # A comparison, not `| grep -q`: under pipefail grep's early exit can fail dpkg-query (SIGPIPE).
  if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}; run this script as root" >&2
  exit 1
fi

# Without systemd the packages' postinst would try to start munge/slurmd/slurmctld through
# invoke-rc.d; the lab starts its own daemons, so forbid that for the duration of the install.
# Docker-derived images ship their own policy-rc.d: keep it, and remove only the one we made.
# SRT_POLICY_RC_D overrides the path for the script's own test (which must not touch the host's).
policy=${SRT_POLICY_RC_D:-/usr/sbin/policy-rc.d}
made_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod 755 "$policy"; made_policy=1
fi
# An if, not `[ ... ] && rm`: under set -e the test's status 1 would become the script's.
cleanup() {
  if [ "$made_policy" = 1 ]; then rm -f "$policy"; fi
}
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
apt_opts=(-o DPkg::Lock::Timeout=600 -y -q --no-install-recommends)
echo "install-deps: installing ${missing[*]}"
if ! apt-get "${apt_opts[@]}" install "${missing[@]}"; then
  apt-get -o DPkg::Lock::Timeout=600 -q update
  apt-get "${apt_opts[@]}" install "${missing[@]}"
fi
