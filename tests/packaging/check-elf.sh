#!/usr/bin/env bash
# check-elf.sh ROOT: the ELF files of an installed package tree (an RPM payload or a .deb's
# data) link only what each is allowed to, srt-exec is static, and the loader exports only the
# SPANK entry points. Prints, per file, its NEEDED list and the highest GLIBC symbol version it
# requires (a node's glibc must be at least that); MAX_GLIBC=2.28 (say) makes a higher one fail.
set -euo pipefail
root=${1:?usage: check-elf.sh ROOT}
status=0
fail() { echo "FAIL: $*" >&2; status=1; }

# Why each list: the loader is loaded by every Slurm command on every host, so it may need
# nothing a bare node lacks (docs/design.md "The SPANK plugin"); the implementation is loaded into
# Slurm processes, so it must not bring a second libslurm (it uses the host's libslurmfull), and
# into every slurmstepd of a recipe job, so it brings no libcrypto (SHA-256 is Nettle's);
# srt-helper is an ordinary program and links libslurm, but none of the job-step libraries
# (ZeroMQ, cpp-httplib and its OpenSSL, spdlog's fmt): those are srt-helper-jobstep.so's, loaded
# only by launch, kv-relay and kv-watch.
allowed_for() {
  local libc='libc\.so\.6|libdl\.so\.2|libpthread\.so\.0|libm\.so\.6|ld-linux-x86-64\.so\.2'
  local cxx='libstdc\+\+\.so\.6|libgcc_s\.so\.1'
  local core='libyaml-cpp\.so\.[0-9.]+|libhwloc\.so\.[0-9]+|libnettle\.so\.[0-9]+'
  local slurm='libslurm\.so\.[0-9]+'
  local jobstep='libzmq\.so\.[0-9]+|libfmt\.so\.[0-9.]+|libspdlog\.so\.[0-9.]+|libcpp-httplib\.so\.[0-9.]+|libssl\.so\.[0-9]+|libcrypto\.so\.[0-9]+|libz\.so\.1'
  case "$1" in
    spank_srt.so) echo '^(libc\.so\.6|libdl\.so\.2)$' ;;
    srt_spank_impl.so) echo "^($libc|$cxx|$core)\$" ;;
    # What every slurmstepd of a recipe job maps: no yaml-cpp, no libcrypto.
    srt_spank_node.so) echo "^($libc|$cxx|libhwloc\.so\.[0-9]+|libnettle\.so\.[0-9]+)\$" ;;
    srt-helper) echo "^($libc|$cxx|$core|$slurm)\$" ;;
    srt-helper-jobstep.so) echo "^($libc|$cxx|$core|$slurm|$jobstep)\$" ;;
    srt-exec) echo '^$' ;;
    *) echo '' ;;
  esac
}

is_elf() { [[ "$(head -c4 "$1" 2>/dev/null | tr -d '\0')" == $'\x7fELF' ]]; }

found=0
printf '%-58s %-10s %s\n' FILE GLIBC NEEDED
while IFS= read -r -d '' file; do
  is_elf "$file" || continue
  found=$((found + 1))
  rel=${file#"$root"}
  name=$(basename "$file")
  needed=$(readelf -d "$file" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ' || true)
  # A static binary has no dynamic symbols: grep finds nothing, which is not an error here.
  glibc=$(readelf -W --dyn-syms "$file" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1 || true)
  printf '%-58s %-10s %s\n' "$rel" "${glibc:--}" "${needed:-(none)}"
  allowed=$(allowed_for "$name")
  if [[ -z "$allowed" ]]; then
    fail "$rel: an ELF file this check does not know: give it an allow-list in $0"
    continue
  fi
  for lib in $needed; do
    [[ "$lib" =~ $allowed ]] || fail "$rel needs $lib, which is not in its allow-list ($allowed)"
  done
  if [[ "$name" == srt-exec ]]; then
    # Captured first: `readelf | grep -q` under pipefail fails if readelf dies of SIGPIPE.
    if ! headers=$(readelf -lW "$file"); then
      fail "$rel: readelf -lW failed"
    elif grep -q 'Requesting program interpreter' <<<"$headers"; then
      fail "$rel has a program interpreter: it must be fully static"
    fi
    [[ -z "$needed" ]] || fail "$rel needs shared libraries ($needed): it must be fully static"
  fi
  if [[ "$name" == srt_spank_node.so ]]; then
    # Not in NEEDED is not enough: an object of srt_core that uses yaml-cpp, pulled in beside one
    # slurmstepd needs (a unity build's chunk did), leaves YAML's symbols undefined, and dlopen
    # in slurmstepd fails on the first one. Nothing of yaml-cpp may be asked for at all.
    yaml=$(nm -D --undefined-only "$file" | awk '{ print $NF }' | grep -E '^_ZN(K)?4YAML' || true)
    [[ -z "$yaml" ]] || fail "$rel leaves yaml-cpp symbols undefined (slurmstepd would not load it): $(echo "$yaml" | head -3 | tr '\n' ' ')"
  fi
  if [[ "$name" == spank_srt.so ]]; then
    exports=$(nm -D --defined-only "$file" | awk '{ print $NF }' | grep -vE '^(plugin_name|plugin_type|plugin_version|spank_plugin_version|slurm_spank_[a-z_]+)$' || true)
    [[ -z "$exports" ]] || fail "$rel exports more than the SPANK entry points: $(echo "$exports" | tr '\n' ' ')"
  fi
  if [[ -n "${MAX_GLIBC:-}" && -n "$glibc" ]] &&
     [[ "$(printf '%s\n%s\n' "$glibc" "$MAX_GLIBC" | sort -V | tail -n1)" != "$MAX_GLIBC" ]]; then
    fail "$rel needs GLIBC_$glibc, above MAX_GLIBC=$MAX_GLIBC"
  fi
done < <(find "$root" -type f -print0 | sort -z)

(( found > 0 )) || fail "no ELF file under $root"
(( status == 0 )) && echo "PASS: $found ELF files within their allow-lists"
exit $status
