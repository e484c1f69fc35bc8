#!/usr/bin/env bash
# Installs, from Debian 12's packages, everything srt-spank needs to build, test and run its lab.
# Idempotent: when every package is present it returns in well under a second.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake pkg-config git
  # Slurm (headers for spank.h and libslurm's hostlist API; the daemons for the lab cluster)
  libslurm-dev slurmctld slurmd slurm-client munge
  # libraries core/ and helper/ use
  libyaml-cpp-dev libzmq3-dev cppzmq-dev libspdlog-dev libfmt-dev libhwloc-dev hwloc
  librocm-smi-dev nlohmann-json3-dev libcli11-dev libcpp-httplib-dev libcurl4-openssl-dev
  # msgpack-c/cxx: srt-helper kv-watch decodes KV-event batches
  libmsgpack-dev
  catch2 libssl-dev
  # stand-ins and test tools (Debian's python3, not any other python on PATH)
  python3 python3-yaml python3-aiohttp python3-zmq python3-msgpack python3-uvloop
  iproute2 procps util-linux bubblewrap shellcheck time
  # packaging
  rpm rpmlint dpkg-dev fakeroot
  # sanitizers and fuzzing
  clang libclang-rt-14-dev
  # report pictures
  python3-matplotlib
  # what srtctl (NVIDIA/srt-slurm, from a checkout) imports, for tests/bench's side-by-side run
  python3-marshmallow python3-marshmallow-dataclass python3-pydantic python3-rich
  python3-ruamel.yaml python3-jinja2 python3-requests python3-prometheus-client python3-typeguard
)

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
