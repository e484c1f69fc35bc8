#!/usr/bin/env bash
# rootfs.sh: one Debian root filesystem per Debian release for the build matrix (Slurm 24.11 and
# GCC 14 on trixie, Slurm 26.05 and GCC 16 on sid, beside the host's bookworm with 22.05 and
# GCC 12), made with mmdebstrap and cached outside the source tree, and commands run inside one
# with the source tree mounted.
#
#   rootfs.sh make RELEASE                      make it, unless a complete one of the same
#                                               packages is there (then it returns at once)
#   rootfs.sh run RELEASE [--rw DIR]... -- CMD [ARG...]
#   rootfs.sh path RELEASE                      print where it is
#
# Where: ${SRT_ROOTFS_CACHE:-/var/cache/srt-rootfs}/RELEASE. It is complete when RELEASE.stamp
# holds the digest of what it was made from (the release, its packages from scripts/packages.list,
# the mmdebstrap options); anything else there (a run cut short, an older package list) is
# removed and made again. make retries mmdebstrap on a failed fetch, and when it still fails it
# says why and exits non-zero: a CI phase that needs the root filesystem fails, it never skips.
#
# run: CMD runs as root inside the root filesystem (chroot), in a private mount namespace
# (unshare -m), so nothing mounted for it is seen outside it or outlives it: /proc, /sys and /dev,
# an empty /run and /tmp, this source tree read-only at its own path and each --rw DIR (created
# if missing; a build directory, e.g. SRC/build-matrix-RELEASE) writable at its own path. The
# working directory is the current one if it is one of those, else the source tree. CMD's
# environment is a clean one: PATH, HOME, LANG, and SRT_* and CI from the caller's.
# Needs root, mmdebstrap and util-linux (unshare, findmnt).
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${SRT_ROOTFS_CACHE:-/var/cache/srt-rootfs}
mirror=${SRT_ROOTFS_MIRROR:-http://deb.debian.org/debian}
# The groups of scripts/packages.list a root filesystem gets (lab: the lab cluster's Slurm
# daemons, munge and the stand-ins' python, for test.sh's "lab RELEASE" phases; package: the
# RPM and .deb tools, for the packages built per Slurm version in its "build RELEASE" phase).
groups=(build unit lab package)

log() { printf '[rootfs] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
usage() { die "usage: rootfs.sh make RELEASE | run RELEASE [--rw DIR]... -- CMD... | path RELEASE"; }

mmdebstrap_opts() {  # RELEASE: the options make passes (also part of the stamp's digest)
  local packages
  packages=$("$src/scripts/packages.sh" "$1" "${groups[@]}" | paste -sd, -) || return 1
  [[ -n "$packages" ]] || return 1
  # Check-Valid-Until: sid's Release file can be past its Valid-Until on the registry this runs
  # against; a stable release's has none, so it matters for sid only and does no harm elsewhere.
  printf '%s\n' --variant=apt --mode=root --components=main --include="$packages" \
    --aptopt='Acquire::Retries "5"' --aptopt='APT::Install-Recommends "false"' \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*'
}

# Refuses to go on when anything is mounted at or below DIR (removing it would reach into the
# mount: a bind of the source tree, say).
assert_nothing_mounted() {  # DIR
  local mounted
  mounted=$(findmnt -rn -o TARGET | awk -v d="$1" '$0 == d || index($0, d "/") == 1')
  [[ -z "$mounted" ]] || die "something is mounted below $1, not removing it: $(echo "$mounted" | tr '\n' ' ')"
}

release_arg() {  # RELEASE: refuses a name that is no column of scripts/packages.list
  [[ -n "${1:-}" && "$1" =~ ^[a-z][a-z0-9-]*$ ]] || usage
  "$src/scripts/packages.sh" "$1" build >/dev/null || die "unknown release '$1'"
}

cmd_make() {  # RELEASE
  local release=$1 dir=$cache/$1 stamp=$cache/$1.stamp partial=$cache/$1.partial
  local mlog=$cache/$1.mmdebstrap.log
  (( EUID == 0 )) || die "making a root filesystem needs root"
  command -v mmdebstrap >/dev/null || die "mmdebstrap not found: run scripts/install-deps.sh"
  mkdir -p "$cache"
  exec 9>"$cache/$release.lock"
  flock -w 3600 9 || die "another rootfs.sh holds $cache/$release.lock"
  local opts digest
  opts=$(mmdebstrap_opts "$release") || die "no packages for $release in scripts/packages.list"
  digest=$(printf '%s\n' "$release" "$mirror" "$opts" | sha256sum | cut -d' ' -f1)
  if [[ -d "$dir" && "$(cat "$stamp" 2>/dev/null)" == "$digest" ]]; then
    log "$release: complete at $dir"
    return 0
  fi
  if [[ -e "$dir" || -e "$partial" ]]; then
    log "$release: removing the incomplete or outdated root filesystem at $dir"
    assert_nothing_mounted "$dir"
    assert_nothing_mounted "$partial"
    rm -rf "$stamp" "$dir" "$partial"
  fi
  local -a args
  mapfile -t args <<<"$opts"
  local attempt t0
  for attempt in 1 2 3; do
    t0=$(date +%s)
    log "$release: mmdebstrap from $mirror (attempt $attempt of 3; log: $mlog)"
    if nice -n 19 ionice -c3 mmdebstrap "${args[@]}" "$release" "$partial" "$mirror" >"$mlog" 2>&1; then
      mv "$partial" "$dir"
      printf '%s\n' "$digest" > "$stamp.new" && mv "$stamp.new" "$stamp"
      log "$release: made in $(( $(date +%s) - t0 )) s at $dir ($(du -sh "$dir" | cut -f1)); $(chroot "$dir" gcc -dumpfullversion 2>/dev/null | sed 's/^/GCC /')"
      return 0
    fi
    log "$release: mmdebstrap failed after $(( $(date +%s) - t0 )) s; its last lines:"
    tail -n 15 "$mlog" | sed 's/^/    /' >&2
    assert_nothing_mounted "$partial"
    rm -rf "$partial"
    (( attempt < 3 )) && sleep $(( attempt * 15 ))
  done
  die "$release: mmdebstrap failed 3 times (a fetch from $mirror, or a package name in scripts/packages.list; whole log: $mlog)"
}

cmd_run() {  # RELEASE [--rw DIR]... -- CMD...
  local release=$1; shift
  local dir=$cache/$release stamp=$cache/$release.stamp
  local -a rw=()
  while (( $# )); do
    case "$1" in
      --rw) [[ -n "${2:-}" ]] || usage; rw+=("$(mkdir -p "$2" && cd "$2" && pwd)"); shift 2 ;;
      --) shift; break ;;
      *) usage ;;
    esac
  done
  (( $# )) || usage
  (( EUID == 0 )) || die "running in a root filesystem needs root (chroot, mounts)"
  [[ -d "$dir" && -s "$stamp" ]] || die "$release: no complete root filesystem at $dir: run scripts/rootfs.sh make $release"
  exec 9>"$cache/$release.lock"
  flock -s -w 3600 9 || die "$release: the root filesystem is being made by another rootfs.sh"
  unshare -m --propagation private -- bash "${BASH_SOURCE[0]}" __inside "$dir" "$PWD" "${#rw[@]}" "${rw[@]}" "$@"
}

# In the private mount namespace: mount, run, unmount (the namespace would drop the mounts when
# its last process ends anyway; a process CMD left behind would keep them, and its root, alive).
cmd_inside() {  # ROOT CWD NRW RW... CMD...
  local root=$1 cwd=$2 nrw=$3; shift 3
  local -a rw=("${@:1:$nrw}"); shift "$nrw"
  mounted=()  # global: the EXIT trap runs after this function has returned
  unmount_all() {
    local i
    for (( i = ${#mounted[@]} - 1; i >= 0; i-- )); do
      umount -R "${mounted[$i]}" 2>/dev/null || umount -R -l "${mounted[$i]}" || true
    done
  }
  trap unmount_all EXIT
  mnt() { mount "$@"; mounted+=("${*: -1}"); }  # mount's last argument is the mount point
  # The root itself a mount point, as a real system's is (mount(2) on "/", e.g. making it
  # private in a test's own namespace, fails with EINVAL on a plain directory).
  mnt --bind "$root" "$root"
  mnt -t proc proc "$root/proc"
  mnt --rbind /sys "$root/sys"
  mnt --rbind /dev "$root/dev"
  mnt -t tmpfs -o mode=755 tmpfs "$root/run"
  mnt -t tmpfs -o mode=1777 tmpfs "$root/tmp"
  # The host's names, as the host resolves them: Slurm 24.11's slurmctld connects back to srun by
  # the submit host's name, and without it in /etc/hosts every srun waits ten seconds of
  # getaddrinfo retries at its end ("Unable to resolve" in slurmctld's log).
  if [[ -f /etc/hosts && -e "$root/etc/hosts" ]]; then
    mnt --bind /etc/hosts "$root/etc/hosts"
    mount -o remount,bind,ro "$root/etc/hosts"
  fi
  mkdir -p "$root$src"
  mnt --bind "$src" "$root$src"
  mount -o remount,bind,ro "$root$src"
  local d
  for d in "${rw[@]}"; do
    mkdir -p "$root$d" 2>/dev/null || [[ -d "$root$d" ]] || die "cannot make $d inside the root filesystem"
    mnt --bind "$d" "$root$d"
  done
  [[ -d "$root$cwd" ]] || cwd=$src
  local -a env=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8)
  local v
  while IFS= read -r v; do env+=("$v=${!v}"); done < <(compgen -e | grep -E '^(SRT_[A-Za-z0-9_]*|CI|TERM)$' || true)
  local rc=0
  # shellcheck disable=SC2016  # $1 and $@ are the inner shell's
  chroot "$root" /usr/bin/env -i "${env[@]}" /bin/bash -c 'cd "$1" && shift && exec "$@"' _ "$cwd" "$@" || rc=$?
  return "$rc"
}

case "${1:-}" in
  make) release_arg "${2:-}"; cmd_make "$2" ;;
  run) release_arg "${2:-}"; r=$2; shift 2; cmd_run "$r" "$@" ;;
  path) release_arg "${2:-}"; echo "$cache/$2" ;;
  __inside) shift; cmd_inside "$@" ;;
  *) usage ;;
esac
