#!/usr/bin/env bash
# lab-docker.sh start BASE IMAGE_TAR | stop BASE | docker BASE NODE ARGS...: one Docker daemon per
# lab node, as a docker
# site has one per node: Debian's dockerd inside the node's own network and mount namespaces
# (entered through its slurmd), so `--network host` is the node's network and `docker run` from
# the node's steps reaches the node's own daemon. Each daemon listens on
# /run/srt-lab-docker/docker.sock, a path bound to BASE/docker/NODE/run in that node's mount
# namespace only (the profile names that one path; each node sees its own), keeps its images and
# containers under BASE/docker/NODE, and loads IMAGE_TAR (lab-image.sh's root filesystem) as the
# recipes' image names. No bridge and no iptables rules: only host networking is used.
# stop ends every node's daemon and waits for it; the mounts go with the node's namespace.
# docker runs `docker ARGS...` against NODE's daemon, inside that node. The profile's
# container_runtime_args are `--host unix:///run/srt-lab-docker/docker.sock` (sock_dir below).
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=lib.sh
source "$here/lib.sh"
usage="usage: lab-docker.sh start BASE IMAGE_TAR | stop BASE | docker BASE NODE ARGS..."
action=${1:?$usage}
base=${2:?$usage}
lab_use "$base"
src=$(cd "$here/../.." && pwd)
sock_dir=/run/srt-lab-docker

node_pid() { cat "$base/run/slurmd-$1.pid"; }
in_node() { local node=$1; shift; nsenter -t "$(node_pid "$node")" -m -n -- "$@"; }

case $action in
  start)
    tar=${3:?$usage}
    command -v dockerd >/dev/null || lab_die "dockerd is not installed (scripts/install-deps.sh: docker.io)"
    [[ "$LAB_MODE" == netns ]] || lab_die "the lab's docker daemons need netns mode (a daemon per node's network)"
    mkdir -p "$sock_dir"
    for node in $(scontrol show hostnames "$LAB_NODES"); do
      d=$base/docker/$node
      mkdir -p "$d/run" "$d/root"
      if in_node "$node" docker -H "unix://$sock_dir/docker.sock" version >/dev/null 2>&1; then continue; fi
      # shellcheck disable=SC2016  # $1 and $2 are sh's
      in_node "$node" sh -c 'mountpoint -q "$2" || mount --bind "$1" "$2"' sh "$d/run" "$sock_dir"
      # --bridge none --iptables false: nothing of the host's or the lab's networking changes.
      # The lab's marker: lab-stop.sh ends it with the lab's daemons if a test could not.
      in_node "$node" env "$LAB_MARKER=$base" setsid dockerd --host "unix://$sock_dir/docker.sock" --data-root "$d/root" \
        --exec-root "$sock_dir/x" --pidfile "$sock_dir/dockerd.pid" --bridge none --iptables=false \
        --ip6tables=false > "$base/log/dockerd-$node.log" 2>&1 < /dev/null &
      for _ in $(seq 1 100); do
        in_node "$node" docker -H "unix://$sock_dir/docker.sock" version >/dev/null 2>&1 && break
        sleep 0.2
      done
      in_node "$node" docker -H "unix://$sock_dir/docker.sock" version >/dev/null 2>&1 ||
        lab_die "dockerd on $node did not answer in 20 s: $(tail -3 "$base/log/dockerd-$node.log")"
      id=$(in_node "$node" docker -H "unix://$sock_dir/docker.sock" import "$tar")
      lab_recipe_images "$src" | while read -r name; do
        in_node "$node" docker -H "unix://$sock_dir/docker.sock" tag "$id" "$name"
      done
      lab_log "dockerd on $node: $(in_node "$node" docker -H "unix://$sock_dir/docker.sock" version --format '{{.Server.Version}}')"
    done
    ;;
  docker)
    node=${3:?$usage}
    in_node "$node" docker --host "unix://$sock_dir/docker.sock" "${@:4}"
    ;;
  stop)
    for node in $(scontrol show hostnames "$LAB_NODES"); do
      [[ -f "$base/run/slurmd-$node.pid" ]] || continue
      pid=$(in_node "$node" cat "$sock_dir/dockerd.pid" 2>/dev/null) || continue
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do lab_alive "$pid" || break; sleep 0.2; done
      if lab_alive "$pid"; then kill -KILL "$pid"; fi
    done
    ;;
  *) lab_die "$usage" ;;
esac
