#!/usr/bin/env bash
# lab-image.sh: the lab's container image for podman: a Debian bookworm root filesystem
# (mmdebstrap, minbase) with the python the stand-ins need, and the stand-ins themselves in
# /opt/srt-standins, imported with `podman import`: no registry, no pull. Prints the image's name
# (localhost/srt-lab-standins:<digest>, <digest> the digest of what it is made from (package list and the
# stand-ins' files, so a changed stand-in makes a new image and an unchanged one is reused)
# and the path of its root filesystem's tar (docker loads that).
# The image is also tagged with every image name the lab recipes use (rocm/atom-dev:...), as a
# site pre-loads the image a recipe names: `run` then finds it locally and pulls nothing, and
# preflight's identity check sees the recipe's own name.
# The root filesystem's tar is cached beside the matrix's (SRT_ROOTFS_CACHE).
#   lab-image.sh [--runtime-arg ARG]...     (podman's options, e.g. --runtime runc)
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=lib.sh
source "$src/tests/cluster/lib.sh"
cache=${SRT_ROOTFS_CACHE:-/var/cache/srt-rootfs}
mirror=${SRT_ROOTFS_MIRROR:-http://deb.debian.org/debian}
podman=(podman)
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runtime-arg) podman+=("$2"); shift 2 ;;
    *) echo "lab-image.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
packages=python3,python3-aiohttp,python3-zmq,python3-msgpack,python3-uvloop,python3-yaml,procps
command -v podman >/dev/null || { echo "lab-image.sh: podman is not installed (scripts/install-deps.sh)" >&2; exit 1; }
command -v mmdebstrap >/dev/null || { echo "lab-image.sh: mmdebstrap is not installed (scripts/install-deps.sh)" >&2; exit 1; }
digest=$( { echo "$packages"; cd "$src" && find tests/standins -type f ! -name '*.pyc' ! -path '*/tests/*' | LC_ALL=C sort |
            while read -r f; do echo "$f"; sha256sum < "$f"; done; } | sha256sum | cut -c1-16)
image=localhost/srt-lab-standins:$digest
tag_recipe_names() {
  lab_recipe_images "$src" | while read -r name; do "${podman[@]}" tag "$image" "$name"; done
}
mkdir -p "$cache"
tar=$cache/lab-image-$digest.tar
if [[ -s $tar ]] && "${podman[@]}" image exists "$image"; then tag_recipe_names; echo "$image $tar"; exit 0; fi
if [[ ! -s $tar ]]; then
  rm -rf "$cache"/lab-image-*.tar "$cache"/partial-lab-image-*.tar
  partial=$cache/partial-lab-image-$digest.tar  # mmdebstrap writes a tar for a name ending .tar
  stage=$(mktemp -d)
  trap 'rm -rf "$stage"' EXIT
  mkdir -p "$stage/srt-standins"
  (cd "$src/tests/standins" && tar --exclude=__pycache__ --exclude=tests -cf - .) | tar -C "$stage/srt-standins" -xf -
  for attempt in 1 2 3; do
    if nice -n 19 mmdebstrap --variant=minbase --include="$packages" \
         --customize-hook="copy-in $stage/srt-standins /opt" bookworm "$partial" "$mirror" > "$cache/lab-image.log" 2>&1; then
      mv "$partial" "$tar"
      break
    fi
    echo "lab-image.sh: mmdebstrap failed (attempt $attempt of 3; $cache/lab-image.log)" >&2
    rm -f "$partial"
    (( attempt < 3 )) || exit 1
    sleep 10
  done
fi
"${podman[@]}" import --quiet "$tar" "$image" > /dev/null
tag_recipe_names
echo "$image $tar"
