#!/usr/bin/env bash
# The per-boot topology cache as production has it: a root-owned directory that slurmstepd reads
# as the job's user. The job user cannot fill it (every step of every job would discover the
# topology again); `srt-helper topology --refresh-cache`, run as root at boot and at install,
# does: it writes this boot's file world-readable whatever root's umask, removes other boots'
# files, and refuses a directory others can write. Then another uid's lookup reads the cache, and
# doctor says whether this boot has one. The same step writes root's parsed copy of the node's
# profile, which slurmstepd plans with (it never plans with the snapshot's: docs/security.md
# "Recipes and snapshots"). The refresh's hwloc reads the fixture through
# HWLOC_XMLFILE, as it would this machine (8 GPUs); the lookups discover this machine itself when
# there is no cache (srt-helper topology takes HWLOC_XMLFILE as --xml, so they run without it).
# Usage: topology_cache_test.sh SRT_HELPER SOURCE_DIR   (root: two uids; else skipped, 77)
set -euo pipefail
helper=${1:?usage: topology_cache_test.sh SRT_HELPER SOURCE_DIR}
src=$(cd "${2:?usage: topology_cache_test.sh SRT_HELPER SOURCE_DIR}" && pwd)
if (( EUID != 0 )); then echo "SKIP: needs root (root fills the cache, another uid reads it)"; exit 77; fi
command -v setpriv >/dev/null || { echo "SKIP: setpriv (util-linux) is not installed"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
unset HWLOC_XMLFILE
fixture=$src/tests/fixtures/topology/mi355x-8gpu-pollara.xml
refresh() { HWLOC_XMLFILE=$fixture "$helper" topology --refresh-cache --boot-id "$boot" "$@"; }
boot=$work/boot_id
echo 6f1c2d3e-4a5b-4c6d-8e7f-0123456789ab > "$boot"
cache=$work/cache
mkdir -m 755 "$cache"
as_user() { setpriv --reuid 65534 --regid 65534 --clear-groups -- "$@"; }
source_of() { "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["source"])'; }

# What a job user sees today: the root-owned directory stays empty, every lookup is live.
out=$(as_user "$helper" topology --cache-dir "$cache" --boot-id "$boot" --json)
[[ $(python3 -c 'import json,sys; print(json.load(sys.stdin)["source"])' <<<"$out") == hwloc:live ]] ||
  fail "a job user's lookup without a cache is not live: $out"
grep -q 'topology cache not written' <<<"$out" || fail "the job user's lookup does not say it could not write: $out"
[[ -z $(ls -A "$cache") ]] || fail "the job user wrote into root's cache directory"

# Doctor, with no cache for this boot: a warning that says what to run.
doctor() { "$helper" doctor --plugstack /dev/null --profile "$work/profile.yaml" --boot-id "$boot" --json; }
printf 'cluster: t\ngpus_per_node: 8\ntopology_cache_dir: %s\n' "$cache" > "$work/profile.yaml"
cache_line() { python3 -c 'import json,sys
for c in json.load(sys.stdin)["checks"]:
    if c["name"] == "topology-cache": print(c["status"], c["message"], c.get("fix", ""))'; }
line=$(doctor | cache_line || true)
[[ $line == warn* && $line == *"--refresh-cache"* ]] || fail "doctor without a cache: '$line'"

# Root refreshes with a hardening umask; an earlier boot's file goes, a directory of that name stays.
echo '{}' > "$cache/topology-00000000-0000-0000-0000-000000000000.json"
mkdir "$cache/topology-11111111-0000-0000-0000-000000000000.json"
echo '{}' > "$cache/profile-0000000000000000000000000000000000000000000000000000000000000000.cbor"
out=$(umask 077; refresh --cache-dir "$cache" --profile "$work/profile.yaml")
echo "$out"
file=$cache/topology-$(cat "$boot").json
copy=$cache/profile-$(sha256sum "$work/profile.yaml" | cut -d' ' -f1).cbor
[[ $out == "wrote $file (8 GPUs); removed 1 of earlier boots"$'\n'"wrote $copy ($work/profile.yaml as this srt-spank reads it); removed 1 of other profiles" ]] ||
  fail "refresh said: $out"
[[ $(stat -c '%U %a' "$copy") == "root 644" ]] || fail "the profile copy is $(stat -c '%U %a' "$copy"), not root 644"
[[ ! -e $cache/profile-0000000000000000000000000000000000000000000000000000000000000000.cbor ]] ||
  fail "another profile's copy stayed"
[[ $(stat -c '%U %a' "$file") == "root 644" ]] || fail "the cache file is $(stat -c '%U %a' "$file"), not root 644"
[[ ! -e $cache/topology-00000000-0000-0000-0000-000000000000.json ]] || fail "an earlier boot's file stayed"
[[ -d $cache/topology-11111111-0000-0000-0000-000000000000.json ]] || fail "a directory was removed"

# The job user now reads root's cache.
src_now=$(source_of as_user "$helper" topology --cache-dir "$cache" --boot-id "$boot" --json)
[[ $src_now == "cache:$file" ]] || fail "the job user's lookup after the refresh: $src_now"
line=$(doctor | cache_line || true)
[[ $line == "ok $file: 8 GPUs, this boot's"* ]] || fail "doctor with this boot's cache: '$line'"

# Doctor on root's copy of the profile slurmstepd plans with, in plugstack.conf's cache_dir=
# (docs/security.md "Recipes and snapshots"): there, missing after an edit of the profile, refused
# when not root's.
printf 'required /nonexistent/spank_srt.so profile=%s cache_dir=%s\n' "$work/profile.yaml" "$cache" > "$work/plugstack.conf"
copy_line() { "$helper" doctor --plugstack "$work/plugstack.conf" --boot-id "$boot" --json | python3 -c 'import json,sys
for c in json.load(sys.stdin)["checks"]:
    if c["name"] == "profile-copy": print(c["status"], c["message"], c.get("fix", ""))' || true; }
line=$(copy_line)
[[ $line == "ok $cache/profile-"*": $work/profile.yaml as this srt-spank reads it"* ]] || fail "doctor with the copy: '$line'"
chown 65534 "$copy"
line=$(copy_line)
[[ $line == FAIL*"owned by uid 65534"*"--refresh-cache --cache-dir $cache"* ]] || fail "doctor on another user's copy: '$line'"
chown 0 "$copy"
printf '# edited\n' >> "$work/profile.yaml"
line=$(copy_line)
[[ $line == warn*"no copy of $work/profile.yaml in $cache"*"--refresh-cache --cache-dir $cache"* ]] ||
  fail "doctor after the profile changed: '$line'"
sed -i '$d' "$work/profile.yaml"

# The profile's directory when --cache-dir is not given.
rm "$file"
SRTSLURM_CONFIG=$work/profile.yaml refresh >/dev/null
[[ -f $file ]] || fail "--refresh-cache did not fill the profile's topology_cache_dir"

# Refusals: a directory others can write, a fixture, no directory at all.
chmod 777 "$cache"
if out=$(refresh --cache-dir "$cache" 2>&1); then fail "refreshed a world-writable directory"; fi
grep -q 'writable by everyone' <<<"$out" || fail "world-writable refusal: $out"
line=$(doctor | cache_line || true)
[[ $line == FAIL*"writable by everyone"* ]] || fail "doctor on a world-writable cache: '$line'"
chmod 755 "$cache"
if out=$(refresh --cache-dir "$cache" --xml "$fixture" 2>&1); then fail "refreshed from --xml"; fi
grep -q 'drop --xml' <<<"$out" || fail "--xml refusal: $out"
printf 'cluster: t\ngpus_per_node: 8\ntopology_cache_dir: ""\n' > "$work/empty.yaml"
if out=$(refresh --profile "$work/empty.yaml" 2>&1); then fail "refreshed nowhere"; fi
grep -q 'no topology cache directory' <<<"$out" || fail "no-directory refusal: $out"
echo "PASS: root fills the cache (topology and profile copy) the job user reads; doctor says which"
