#!/usr/bin/env bash
# check-deb.sh PKGDIR: the .deb holds exactly the expected files in Debian's plugin directory,
# marks /etc files as conffiles, pins the Slurm series, and its ELF files pass check-elf.sh.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
pkgdir=$(cd "${1:?usage: check-deb.sh PKGDIR}" && pwd)
status=0
fail() { echo "FAIL: $*" >&2; status=1; }

debs=()
while IFS= read -r -d '' f; do debs+=("$f"); done < <(find "$pkgdir" -maxdepth 1 -name 'slurm-spank-srt_*.deb' -print0)
(( ${#debs[@]} == 1 )) || { echo "FAIL: expected one .deb in $pkgdir, found ${#debs[@]}" >&2; exit 1; }
deb=${debs[0]}
echo "== $deb"
dpkg-deb -I "$deb"

echo "== file list"
diff -u <("$here/expected-files.sh" deb "$src") \
        <(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|' | sort -u) ||
  fail "dpkg-deb -c differs from the expected list (- expected, + packaged)"

echo "== topology cache"
cache=$(dpkg-deb -c "$deb" | awk '$6 == "./var/cache/srt/" { print $1, $2 }')
[[ "$cache" == "drwxr-xr-x root/root" ]] || fail "/var/cache/srt is '$cache', not a root-owned 0755 directory"

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -R "$deb" "$root"
[[ "$(cat "$root/DEBIAN/conffiles")" == $'/etc/slurm/plugstack.conf.d/srt.conf\n/etc/srt/cluster.yaml' ]] ||
  fail "conffiles are '$(cat "$root/DEBIAN/conffiles")'"
grep -q "^required /usr/lib/$multiarch/slurm-wlm/spank_srt.so profile=/etc/srt/cluster.yaml\$" \
  "$root/etc/slurm/plugstack.conf.d/srt.conf" || fail "srt.conf does not name Debian's plugin directory"
grep -aq "/usr/lib/$multiarch/slurm-wlm/srt_spank_impl.so" "$root/usr/lib/$multiarch/slurm-wlm/spank_srt.so" ||
  fail "the loader's default implementation path is not Debian's plugin directory"
grep -q '^  /usr/bin/srt-helper topology --refresh-cache' "$root/DEBIAN/postinst" || fail "postinst does not fill the topology cache"
grep -q 'systemctl enable --now srt-topology-cache.path' "$root/DEBIAN/postinst" || fail "postinst does not enable srt-topology-cache.path"
grep -q '^ExecStart=/usr/bin/srt-helper topology --refresh-cache$' "$root/usr/lib/systemd/system/srt-topology-cache.service" ||
  fail "srt-topology-cache.service does not run the installed srt-helper"
# The profile's parsed copy (docs/security.md "Recipes and snapshots") follows every edit of the profile.
grep -q '^PathChanged=/etc/srt/cluster.yaml$' "$root/usr/lib/systemd/system/srt-topology-cache.path" ||
  fail "srt-topology-cache.path does not watch /etc/srt/cluster.yaml"
hex=$(sed -n 's/^#define[[:space:]]*SLURM_VERSION_NUMBER[[:space:]]*0x\([0-9a-fA-F]*\).*/\1/p' /usr/include/slurm/slurm_version.h)
major=$(( 0x$hex >> 16 & 255 )); minor=$(printf '%02d' $(( 0x$hex >> 8 & 255 )))
grep -q "^Depends:.*slurm-wlm-basic-plugins (>= $major.$minor~)" "$root/DEBIAN/control" || fail "Depends does not pin Slurm $major.$minor"
grep -q "^Version: .*+sl$major$minor\$" "$root/DEBIAN/control" || fail "Version does not name Slurm $major.$minor"
rm -rf "$root/DEBIAN"
"$here/check-elf.sh" "$root" || status=1

(( status == 0 )) && echo "PASS: $deb"
exit $status
