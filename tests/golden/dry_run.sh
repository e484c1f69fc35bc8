#!/usr/bin/env bash
# Golden `srt-helper launch --dry-run` output per shipped recipe (mpibind's style: saved expected
# output, reviewed when it changes). Every srun line the launcher would run, with its container,
# mounts, environment and argv, for each recipe under recipes/ on the shipped profile
# (etc/srt/cluster.yaml), job 4242, nodes mi355x-01.. as many as the recipe needs.
#
#   dry_run.sh check SRT_HELPER SOURCE_DIR   compare; on a difference show it and exit 1
#   dry_run.sh regen SRT_HELPER SOURCE_DIR   rewrite the saved files (then review `git diff`)
#
# The two seed recipes (recipes/dsv4/...) are also rendered for podman and docker:
# the same profile with container_runtime podman or docker and runtime and run options as a site
# would write them, saved under launch-dry-run/RUNTIME/recipes/....
#
# No digest is in these files (the dry run prints none), so a change that moves only the digest
# does not touch them; a change to any srun line does, and shows in review.
set -euo pipefail
mode=${1:?check or regen}
helper=${2:?srt-helper}
src=${3:?source dir}
golden="$src/tests/golden/launch-dry-run"
cd "$src"  # SRT_RECIPE is the path as given: relative to the tree, the same on every machine
# A profile in the environment would change every line; the shipped one is named explicitly.
unset SRTSLURM_CONFIG SLURM_JOB_ID SLURM_JOB_NODELIST

render() {  # RECIPE [PROFILE]
  local recipe=$1 profile=${2:-etc/srt/cluster.yaml} nodes
  nodes=$("$helper" nodes --profile "$profile" "$recipe")
  [[ $nodes =~ ^[1-9]$ ]] || { echo "FAIL: srt-helper nodes $recipe said '$nodes'" >&2; return 1; }
  "$helper" launch --dry-run --profile "$profile" --recipe "$recipe" \
    --nodelist "mi355x-[01-0$nodes]" --job-id 4242 --srt-exec /usr/libexec/srt/srt-exec
}

runtime_profile() {  # RUNTIME OUT: the shipped profile with that container runtime
  grep -q '^container_runtime: pyxis' etc/srt/cluster.yaml || { echo "FAIL: etc/srt/cluster.yaml has no container_runtime: pyxis line" >&2; return 1; }
  sed "s/^container_runtime: pyxis.*/container_runtime: $1\ncontainer_runtime_args: [--log-level, warn]\ncontainer_run_args: [--ulimit, 'nofile=1048576:1048576']/" \
    etc/srt/cluster.yaml > "$2"
  # docker's as the job's user (container_user: job), podman's as the image's (the default).
  # docker's daemon is root's: a site that runs it says its job users are trusted as root.
  if [[ $1 == docker ]]; then printf 'container_user: job\ndocker_users_are_root: true\n' >> "$2"; fi
}

mapfile -t recipes < <(find recipes -name '*.yaml' | LC_ALL=C sort)
((${#recipes[@]} >= 4)) || { echo "FAIL: found ${#recipes[@]} shipped recipes under $src/recipes" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
cases=()
for recipe in "${recipes[@]}"; do
  # A variants file (base + override_*) is rendered once per variant, as FILE:SELECTOR: `nodes`
  # lists "SELECTOR N" per override; base is selectable too.
  listed=$("$helper" nodes --profile etc/srt/cluster.yaml "$recipe")
  if [[ $listed =~ ^[1-9]$ ]]; then
    cases+=("pyxis $recipe")
  else
    cases+=("pyxis $recipe:base")
    while read -r selector _; do cases+=("pyxis $recipe:$selector"); done <<< "$listed"
  fi
done
for runtime in podman docker; do
  runtime_profile "$runtime" "$tmp/$runtime.yaml"
  for recipe in recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml; do
    cases+=("$runtime $recipe")
  done
done
for case in "${cases[@]}"; do
  runtime=${case%% *} recipe=${case#* }
  if [[ $runtime == pyxis ]]; then
    file=${recipe%%:*} selector=${recipe#"$file"}  # ":SELECTOR" or empty
    want="$golden/${file%.yaml}${selector/:/.}.json"
    got="$tmp/got.json"
    render "$recipe" > "$got"
  else
    want="$golden/$runtime/${recipe%.yaml}.json"
    got="$tmp/got.json"
    render "$recipe" "$tmp/$runtime.yaml" > "$got"
  fi
  if [[ $mode == regen ]]; then
    mkdir -p "$(dirname "$want")"
    cp "$got" "$want"
    echo "wrote ${want#"$src"/}"
  elif [[ ! -f $want ]]; then
    echo "FAIL: no saved dry run for $runtime $recipe (tests/golden/dry_run.sh regen, then review it)" >&2
    bad=1
  elif ! diff -u "$want" "$got" > "$tmp/diff"; then
    echo "FAIL: launch --dry-run of $recipe differs from ${want#"$src"/}:" >&2
    head -80 "$tmp/diff" >&2
    bad=1
  else
    echo "ok: $runtime $recipe ($(grep -c '"step_name"' "$got") steps)"
  fi
done
if [[ $mode == check ]]; then
  # A saved file whose recipe is gone is stale.
  while IFS= read -r saved; do
    rel=${saved#"$golden"/}
    rel=${rel#podman/}
    rel=${rel#docker/}
    rel=${rel%.json}
    # A variant's file is FILE.SELECTOR.json: its recipe is FILE.yaml and SELECTOR one of its variants.
    if [[ ! -f "$src/$rel.yaml" && $rel == *.* && -f "$src/${rel%.*}.yaml" ]]; then
      selector=${rel##*.}
      listed=$("$helper" nodes --profile etc/srt/cluster.yaml "${rel%.*}.yaml" 2>/dev/null || true)
      [[ $selector == base || $'\n'$listed == *$'\n'"$selector "* ]] && continue
    fi
    [[ -f "$src/$rel.yaml" ]] || { echo "FAIL: $rel.json has no recipe any more; remove it" >&2; bad=1; }
  done < <(find "$golden" -name '*.json')
fi
exit "$bad"
