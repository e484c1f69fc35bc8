#!/usr/bin/env bash
# build-packages.sh OUTDIR [--from-build BUILD]: build slurm-spank-srt as an RPM (rpmbuild on
# the spec, from a tarball of this source tree) and as a .deb (packed with dpkg-deb), into OUTDIR:
#   OUTDIR/slurm-spank-srt-VERSION-1.slMMmm.ARCH.rpm, OUTDIR/slurm-spank-srt-VERSION-1.slMMmm.src.rpm
#   OUTDIR/slurm-spank-srt_VERSION-1+slMMmm_ARCH.deb
# Without --from-build the RPM's binaries are compiled by rpmbuild, and the .deb's from the same
# tree reconfigured for Debian's paths. --from-build BUILD packages the binaries of BUILD, an
# existing build of this tree configured with the arguments `build-packages.sh --layout-args`
# prints (the spec's cmake arguments, and SRT_DEB_PLUGIN_DIR for the .deb's loader and
# srt-helper: packaging/CMakeLists.txt); the script refuses a BUILD configured otherwise. CI's
# main build is configured so (scripts/test.sh), and nothing is compiled twice.
# On Debian the RPM is built with `rpmbuild --nodeps` (Debian's Slurm is no RPM): a smoke test
# of the spec. Work files stay in OUTDIR/work (rpmbuild's topdir, the .deb's root).
# Options (environment): SRT_PKG_NO_DEB=1 skips the .deb; JOBS (default: nproc).
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=slurm-spank-srt
spec=$src/packaging/$name.spec

log() { printf '[build-packages] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# Debian's Slurm plugin directory (the .deb's layout).
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
plugin_dir=/usr/lib/$multiarch/slurm-wlm

# The cmake -D arguments of the spec's %build with its macros expanded (but SRT_BUILD_TESTS: a
# build packaged with --from-build may hold the tests), then the .deb's plugin directory.
layout_args() {
  command -v rpm >/dev/null || die "rpm not found: run scripts/install-deps.sh"
  local args
  args=$(sed -n '/^cmake -S \. -B build/,/^cmake --build/p' "$spec" | grep -oE -- '-D[A-Za-z_]+=[^ \\]+' |
         grep -v '^-DSRT_BUILD_TESTS=') || die "no cmake -D arguments in the %build of $spec"
  rpm --eval "$args"
  echo "-DSRT_DEB_PLUGIN_DIR=$plugin_dir"
}

if [[ "${1:-}" == --layout-args ]]; then
  layout_args
  exit 0
fi
out=${1:?usage: build-packages.sh OUTDIR [--from-build BUILD] | --layout-args}
from_build=''
if [[ "${2:-}" == --from-build ]]; then
  from_build=$(cd "${3:?usage: build-packages.sh OUTDIR --from-build BUILD}" && pwd)
elif [[ -n "${2:-}" ]]; then
  die "unknown argument '$2' (usage: build-packages.sh OUTDIR [--from-build BUILD] | --layout-args)"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$out/work
jobs=${JOBS:-$(nproc)}
for tool in rpmbuild cmake tar; do
  command -v "$tool" >/dev/null || die "$tool not found: run scripts/install-deps.sh"
done

# One version: CMake's project() and the spec must agree.
version=$(sed -n 's/^project([^)]*VERSION \([0-9][0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
spec_version=$(sed -n 's/^Version:[[:space:]]*//p' "$spec")
[[ -n "$version" && "$version" == "$spec_version" ]] ||
  die "CMakeLists.txt says version '$version' but $spec says '$spec_version': make them equal"

# The Slurm series these headers build for (the spec computes the same from the same header).
header=/usr/include/slurm/slurm_version.h
hex=$(sed -n 's/^#define[[:space:]]*SLURM_VERSION_NUMBER[[:space:]]*0x\([0-9a-fA-F]*\).*/\1/p' "$header" 2>/dev/null || true)
[[ -n "$hex" ]] || die "cannot read SLURM_VERSION_NUMBER from $header: install libslurm-dev (slurm-devel)"
series_major=$(( 0x$hex >> 16 & 255 ))
series_minor=$(printf '%02d' $(( 0x$hex >> 8 & 255 )))
next_minor=$(printf '%02d' $(( (0x$hex >> 8 & 255) + 1 )))
suffix=sl$series_major$series_minor

# --from-build: BUILD must be this tree's build, configured as the packages are.
if [[ -n "$from_build" ]]; then
  cache=$from_build/CMakeCache.txt
  [[ -f "$cache" ]] || die "--from-build $from_build: no CMakeCache.txt there"
  [[ "$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$cache")" == "$src" ]] ||
    die "--from-build $from_build: it is a build of $(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$cache"), not of $src"
  wrong=()
  while IFS= read -r arg; do
    key=${arg%%=*}; key=${key#-D}; want=${arg#*=}
    have=$(sed -n "s/^$key:[A-Z]*=//p" "$cache")
    [[ "$have" == "$want" ]] || wrong+=("$key is '$have', the packages need '$want'")
  done < <(layout_args)
  if (( ${#wrong[@]} )); then
    printf '  %s\n' "${wrong[@]}" >&2
    die "--from-build $from_build is not configured as the packages are; configure it with: $(layout_args | tr '\n' ' ')"
  fi
fi

# srt-job/srt-exec exist once the launch work adds the srt-exec target (see the spec).
with_launch=()
if grep -qs 'add_executable(srt-exec' "$src"/*/CMakeLists.txt "$src"/*/*/CMakeLists.txt; then
  with_launch=(--with launch)
fi

rm -rf "$work"
mkdir -p "$work"/{SOURCES,SPECS,BUILD,RPMS,SRPMS,BUILDROOT}

# --- source tarball: the working tree's files git knows or would add (not build dirs) -------
stage=$work/stage/$name-$version
mkdir -p "$stage"
(
  cd "$src"
  if git rev-parse --git-dir >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard
  else
    find . -path './build*' -prune -o -path './.git' -prune -o -type f -print0
  fi
) | (cd "$src" && while IFS= read -r -d '' f; do [[ -f "$f" ]] && printf '%s\0' "$f"; done) |
  tar -C "$src" --null -T - -cf - | tar -C "$stage" -xf -
tar -C "$work/stage" --owner=0 --group=0 -czf "$work/SOURCES/$name-$version.tar.gz" "$name-$version"
cp "$spec" "$work/SPECS/"
log "source: $work/SOURCES/$name-$version.tar.gz ($(find "$stage" -type f | wc -l) files)"

# --- the binaries of an existing build (--from-build), up to date -----------------------------
prebuilt=()
if [[ -n "$from_build" ]]; then
  targets=(spank_srt srt_spank_impl srt_spank_node srt-helper srt_helper_jobstep spank_srt_deb srt-helper-deb)
  (( ${#with_launch[@]} )) && targets+=(srt-exec)
  log "from-build: $from_build (brought up to date: ${targets[*]})"
  cmake --build "$from_build" -j "$jobs" --target "${targets[@]}" > "$work/from-build.log" 2>&1 ||
    { tail -n 40 "$work/from-build.log" >&2; die "building $from_build failed; whole log: $work/from-build.log"; }
  prebuilt=(--define "srt_build_dir $from_build")
fi

# --- RPM -------------------------------------------------------------------------------------
log "rpmbuild (Slurm $series_major.$series_minor, ${with_launch[*]:-without launch}${from_build:+, the binaries of $from_build})"
rpmbuild -ba --nodeps --noclean "${with_launch[@]}" "${prebuilt[@]}" \
  --define "_topdir $work" --define "_smp_mflags -j$jobs" \
  "$work/SPECS/$name.spec" > "$work/rpmbuild.log" 2>&1 ||
  { tail -n 40 "$work/rpmbuild.log" >&2; die "rpmbuild failed; whole log: $work/rpmbuild.log"; }
rm -f "$out"/*.rpm
find "$work/RPMS" "$work/SRPMS" -name '*.rpm' -exec cp {} "$out/" \;
log "rpm: $(find "$out" -maxdepth 1 -name '*.rpm' -printf '%f ')"

[[ "${SRT_PKG_NO_DEB:-0}" == 1 ]] && exit 0

command -v dpkg-deb >/dev/null || die "dpkg-deb not found: run scripts/install-deps.sh"
arch=$(dpkg --print-architecture)
deb_version=$version-1+$suffix
root=$work/deb/root
rm -rf "$work/deb"
mkdir -p "$root/DEBIAN"
if [[ -n "$from_build" ]]; then
  # --- .deb: the same build's payload, with the loader, srt-helper and the drop-in built for
  # Debian's plugin directory (its component "deb", packaging/CMakeLists.txt) in place of the RPM's.
  rpm_plugin_dir=$(sed -n 's/^SRT_PLUGIN_DIR:[A-Z]*=//p' "$from_build/CMakeCache.txt")
  log "deb: the payload of $from_build, plugin directory $plugin_dir"
  {
    DESTDIR=$root cmake --install "$from_build" --strip &&
    rm -rf "${root:?}$rpm_plugin_dir" && rmdir -p --ignore-fail-on-non-empty "$(dirname "$root$rpm_plugin_dir")" &&
    # Into a directory of its own, then over the payload: cmake --install skips a file whose
    # time stamp matches the one already there (the two srt.conf are generated in one second).
    DESTDIR=$work/deb/component cmake --install "$from_build" --component deb --strip &&
    cp -a "$work/deb/component/." "$root/"
  } > "$work/deb-build.log" 2>&1 ||
    { tail -n 40 "$work/deb-build.log" >&2; die "the .deb payload failed; whole log: $work/deb-build.log"; }
  for f in "$root$plugin_dir/spank_srt.so" "$root/usr/bin/srt-helper"; do
    [[ -f "$f" ]] || die "the .deb payload has no ${f#"$root"}"
    if grep -aqF -e "$rpm_plugin_dir/spank_srt.so" -e "$rpm_plugin_dir/srt_spank_impl.so" "$f"; then
      die "${f#"$root"} in the .deb still names the RPM's plugin directory $rpm_plugin_dir"
    fi
  done
else
  # --- .deb: the RPM's compiled tree, reconfigured for Debian's paths -----------------------------
  # (rpmbuild --noclean keeps that tree.) Only what SRT_PLUGIN_DIR is compiled into (the loader's
  # default implementation path, doctor) is rebuilt; everything else is reused. A fresh build if
  # rpmbuild left no tree behind.
  tree=$work/BUILD/$name-$version
  [[ -d "$tree" ]] || tree=$stage
  log "deb: building in $tree/build with SRT_PLUGIN_DIR=$plugin_dir"
  {
    cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
      -DCMAKE_INSTALL_LIBDIR="lib/$multiarch" -DCMAKE_INSTALL_LIBEXECDIR=libexec \
      -DCMAKE_INSTALL_SYSCONFDIR=/etc -DSRT_PLUGIN_DIR="$plugin_dir" \
      -DSRT_PROFILE_PATH=/etc/srt/cluster.yaml -DSRT_PLUGSTACK_DIR=/etc/slurm/plugstack.conf.d \
      -DSRT_LIBEXECDIR=/usr/libexec -DSRT_BUILD_TESTS=OFF &&
    cmake --build "$tree/build" -j"$jobs" &&
    DESTDIR=$root cmake --install "$tree/build" --strip
  } > "$work/deb-build.log" 2>&1 ||
    { tail -n 40 "$work/deb-build.log" >&2; die "the .deb build failed; whole log: $work/deb-build.log"; }
fi

doc=$root/usr/share/doc/$name
mkdir -p "$doc"
{
  echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  echo "Upstream-Name: srt-spank"
  echo
  echo "Files: *"
  echo "License: Apache-2.0"
  echo " On Debian systems the full text is in /usr/share/common-licenses/Apache-2.0."
} > "$doc/copyright"
cp "$src"/docs/*.md "$doc/"  # INSTALL.md and the other guides, as the RPM's %doc
find "$root/usr/share/man" -type f ! -name '*.gz' -exec gzip -9n {} +

# Runtime libraries from the binaries' NEEDED entries (dpkg-shlibdeps wants a debian/control).
shl=$work/deb/shlibs
mkdir -p "$shl/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$name" "$name" > "$shl/debian/control"
mapfile -t elves < <(find "$root" -type f \( -name '*.so' -o -perm -u+x \) -exec sh -c \
  'head -c4 "$1" | grep -q "ELF" && echo "$1"' _ {} \;)
depends=$(cd "$shl" && dpkg-shlibdeps -O "${elves[@]/#/-e}" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
# Pinned to the Slurm series, as the RPM: the plugin loads in no other (libslurmfull and the
# plugin directory come from slurm-wlm-basic-plugins).
depends="${depends:+$depends, }slurm-wlm-basic-plugins (>= $series_major.$series_minor~), slurm-wlm-basic-plugins (<< $series_major.$next_minor~)"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: $name
Version: $deb_version
Architecture: $arch
Maintainer: srt-spank developers <srt-spank@localhost>
Installed-Size: $size
Depends: $depends
Section: admin
Priority: optional
Description: Slurm SPANK plugin for disaggregated LLM serving recipes on AMD GPUs
 srt-spank runs one srt-slurm recipe (prefill and decode engines, router and
 benchmark) as a Slurm job: sbatch --srt-recipe=RECIPE checks the recipe at
 submission, and on every node the plugin sets each task's roles, GPUs, NICs,
 CPU cores, ports and endpoints.
 .
 Built for Slurm $series_major.$series_minor only. Restart slurmd after installing or upgrading,
 then run srt-helper doctor on the node.
CONTROL
# The RPM's %post, %preun and %postun (the spec says why), as Debian's maintainer scripts.
cat > "$root/DEBIAN/postinst" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
  /usr/bin/srt-helper topology --refresh-cache >/dev/null 2>&1 || :
  if [ -d /run/systemd/system ]; then systemctl enable --now srt-topology-cache.path >/dev/null 2>&1 || :; systemctl enable srt-topology-cache.service >/dev/null 2>&1 || :; fi
fi
SCRIPT
cat > "$root/DEBIAN/prerm" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then systemctl disable --now srt-topology-cache.path >/dev/null 2>&1 || :; systemctl disable srt-topology-cache.service >/dev/null 2>&1 || :; fi
SCRIPT
cat > "$root/DEBIAN/postrm" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = remove ] || [ "$1" = purge ]; then rm -f /var/cache/srt/topology-*.json /var/cache/srt/profile-*.cbor; fi
SCRIPT
chmod 0755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm" "$root/DEBIAN/postrm"
(cd "$root" && find etc -type f | sed 's|^|/|' | sort) > "$root/DEBIAN/conffiles"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
rm -f "$out"/*.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$out/${name}_${deb_version}_$arch.deb" >&2
log "deb: $out/${name}_${deb_version}_$arch.deb"
