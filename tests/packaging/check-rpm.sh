#!/usr/bin/env bash
# check-rpm.sh PKGDIR: the RPM build-packages.sh made is what admins should get:
#   rpmlint reports no error; rpm -qlp lists exactly the expected files; the Release names the
#   Slurm series and Requires pins it; the config files are %config(noreplace); the payload's
#   ELF files pass check-elf.sh.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
pkgdir=$(cd "${1:?usage: check-rpm.sh PKGDIR}" && pwd)
status=0
fail() { echo "FAIL: $*" >&2; status=1; }

rpms=()
while IFS= read -r -d '' f; do rpms+=("$f"); done < <(find "$pkgdir" -maxdepth 1 -name 'slurm-spank-srt-*.rpm' ! -name '*.src.rpm' -print0)
(( ${#rpms[@]} == 1 )) || { echo "FAIL: expected one binary RPM in $pkgdir, found ${#rpms[@]}" >&2; exit 1; }
rpm=${rpms[0]}
echo "== $rpm"

echo "== rpmlint"
# --ignore-unused-rpmlintrc: one rpmlintrc serves every release's rpmlint, and a filter for one
# of them is unused by another (trixie's 2.7 spell-checks %description; bookworm's 2.4 cannot).
lint=$(rpmlint --ignore-unused-rpmlintrc -r "$src/packaging/slurm-spank-srt.rpmlintrc" "$rpm" "$src/packaging/slurm-spank-srt.spec" 2>&1 || true)
echo "$lint"
grep -qE '^[^ ]+: E: ' <<<"$lint" && fail "rpmlint reports errors"
grep -qE '[1-9][0-9]* errors?,' <<<"$lint" && fail "rpmlint counts errors"

echo "== file list"
diff -u <("$here/expected-files.sh" rpm "$src") <(rpm -qlp "$rpm" | sort -u) || fail "rpm -qlp differs from the expected list (- expected, + packaged)"

echo "== Slurm series"
hex=$(sed -n 's/^#define[[:space:]]*SLURM_VERSION_NUMBER[[:space:]]*0x\([0-9a-fA-F]*\).*/\1/p' /usr/include/slurm/slurm_version.h)
major=$(( 0x$hex >> 16 & 255 )); minor=$(printf '%02d' $(( 0x$hex >> 8 & 255 ))); next=$(printf '%02d' $(( (0x$hex >> 8 & 255) + 1 )))
release=$(rpm -qp --qf '%{RELEASE}' "$rpm")
[[ "$release" == "1.sl$major$minor"* ]] || fail "Release '$release' does not name Slurm $major.$minor (1.sl$major$minor)"
requires=$(rpm -qp --requires "$rpm")
grep -qE "^slurm(\(.*\))? >= $major\.$minor$" <<<"$requires" || fail "no 'Requires: slurm >= $major.$minor'"
grep -qE "^slurm(\(.*\))? < $major\.$next$" <<<"$requires" || fail "no 'Requires: slurm < $major.$next'"
echo "Release $release; $(grep -E '^slurm' <<<"$requires" | tr '\n' ';')"

echo "== config files"
configs=$(rpm -qp --qf '[%{FILEFLAGS:fflags}|%{FILENAMES}\n]' "$rpm" | awk -F'|' '$1 ~ /c/ && $1 ~ /n/ { print $2 }' | sort)
[[ "$configs" == $'/etc/slurm/plugstack.conf.d/srt.conf\n/etc/srt/cluster.yaml' ]] ||
  fail "%config(noreplace) files are '$configs', expected srt.conf and cluster.yaml"

echo "== topology cache"
# Root fills it (at install and by srt-topology-cache.service at boot); job users only read it.
cache=$(rpm -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILENAMES}\n]' "$rpm" | grep ' /var/cache/srt$' || true)
[[ "$cache" == "drwxr-xr-x root:root /var/cache/srt" ]] || fail "/var/cache/srt is '$cache', not a root-owned 0755 directory"
scripts=$(rpm -qp --scripts "$rpm")
grep -q '^/usr/bin/srt-helper topology --refresh-cache' <<<"$scripts" || fail "%post does not fill the topology cache"
grep -q 'systemctl enable srt-topology-cache.service' <<<"$scripts" || fail "%post does not enable srt-topology-cache.service"
grep -q 'systemctl enable --now srt-topology-cache.path' <<<"$scripts" || fail "%post does not enable srt-topology-cache.path"

echo "== payload"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
(cd "$root" && rpm2cpio "$rpm" | cpio -idm --quiet)
grep -q '^required /usr/lib64/slurm/spank_srt.so profile=/etc/srt/cluster.yaml$' "$root/etc/slurm/plugstack.conf.d/srt.conf" ||
  fail "srt.conf does not hold the RPM's plugin line"
grep -q '^ExecStart=/usr/bin/srt-helper topology --refresh-cache$' "$root/usr/lib/systemd/system/srt-topology-cache.service" ||
  fail "srt-topology-cache.service does not run the installed srt-helper"
# The profile's parsed copy (docs/security.md "Recipes and snapshots") follows every edit of the profile.
grep -q '^PathChanged=/etc/srt/cluster.yaml$' "$root/usr/lib/systemd/system/srt-topology-cache.path" ||
  fail "srt-topology-cache.path does not watch /etc/srt/cluster.yaml"
grep -aq '/usr/lib64/slurm/srt_spank_impl.so' "$root/usr/lib64/slurm/spank_srt.so" ||
  fail "the loader's default implementation path is not /usr/lib64/slurm/srt_spank_impl.so"
"$here/check-elf.sh" "$root" || status=1

(( status == 0 )) && echo "PASS: $rpm"
exit $status
