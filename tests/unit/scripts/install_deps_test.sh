#!/usr/bin/env bash
# scripts/install-deps.sh with stand-in dpkg-query and apt-get on PATH: one package missing, the
# install succeeds. Run once with a pre-existing policy-rc.d (Docker-derived Debian images ship
# one) and once without: the script exits 0 both times, leaves the pre-existing file untouched
# and removes the one it made. It never touches the machine's /usr/sbin/policy-rc.d:
# SRT_POLICY_RC_D points it at a file in a temporary directory.
#   install_deps_test.sh SOURCE_DIR
set -euo pipefail
src=$1
script="$src/scripts/install-deps.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The stand-ins: every package is installed but libslurm-dev, until apt-get installs it; apt-get
# records its arguments and what the policy file held while it ran (the daemons must not start).
mkdir -p "$tmp/bin"
cat > "$tmp/bin/dpkg-query" <<'EOT'
#!/bin/sh
pkg=$(eval echo "\${$#}")
if [ "$pkg" = libslurm-dev ] && [ ! -e "$STANDIN_STATE/installed" ]; then exit 1; fi
printf 'install ok installed'
EOT
cat > "$tmp/bin/apt-get" <<'EOT'
#!/bin/sh
echo "$*" >> "$STANDIN_STATE/apt-get.log"
cat "$SRT_POLICY_RC_D" > "$STANDIN_STATE/policy-during-install" 2>/dev/null || true
case " $* " in *" install "*) touch "$STANDIN_STATE/installed" ;; esac
exit 0
EOT
chmod 755 "$tmp/bin/dpkg-query" "$tmp/bin/apt-get"
# id -u must say root (CI runs as root; a developer may not): a stand-in for that too.
# shellcheck disable=SC2016  # the stand-in's own $1 and $@
printf '#!/bin/sh\n[ "$1" = -u ] && { echo 0; exit 0; }\nexec /usr/bin/id "$@"\n' > "$tmp/bin/id"
chmod 755 "$tmp/bin/id"

run_case() {  # NAME PREEXISTING(0|1)
  local name=$1 pre=$2 state="$tmp/$1" rc=0 out
  mkdir -p "$state"
  local policy="$state/policy-rc.d"
  if [ "$pre" = 1 ]; then printf '#!/bin/sh\n# the image'"'"'s own\nexit 101\n' > "$policy"; fi
  local before=""
  [ "$pre" = 1 ] && before=$(sha256sum "$policy")
  out=$(PATH="$tmp/bin:$PATH" STANDIN_STATE="$state" SRT_POLICY_RC_D="$policy" \
        bash "$script" 2>&1) || rc=$?
  [ "$rc" = 0 ] || fail "$name: install-deps.sh exited $rc after a successful install; it printed: $out"
  grep -q '^install-deps: installing libslurm-dev$' <<<"$out" || fail "$name: it did not say what it installs: $out"
  grep -q ' install libslurm-dev$' "$state/apt-get.log" || fail "$name: apt-get was not asked for libslurm-dev: $(cat "$state/apt-get.log")"
  grep -q 'exit 101' "$state/policy-during-install" || fail "$name: no policy-rc.d forbade starting daemons during the install"
  if [ "$pre" = 1 ]; then
    [ -e "$policy" ] || fail "$name: the pre-existing policy-rc.d was removed"
    [ "$(sha256sum "$policy")" = "$before" ] || fail "$name: the pre-existing policy-rc.d was changed"
  else
    [ ! -e "$policy" ] || fail "$name: the policy-rc.d the script made was left behind"
  fi
  echo "ok: $name"
}
run_case preexisting-policy 1
run_case no-policy 0

# Nothing missing: exit 0 at once, no apt-get.
state="$tmp/nothing-missing"; mkdir -p "$state"; touch "$state/installed"
PATH="$tmp/bin:$PATH" STANDIN_STATE="$state" SRT_POLICY_RC_D="$state/policy-rc.d" bash "$script" \
  || fail "nothing-missing: exited $?"
[ ! -e "$state/apt-get.log" ] || fail "nothing-missing: apt-get ran"
echo "ok: nothing-missing"
