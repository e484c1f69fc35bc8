#!/usr/bin/env bash
# test-launch-data-network.sh BASE RECIPE: KV traffic and the router's calls to the workers go over
# the data network, on a lab started with --data-network: the node names
# resolve to the management bridge (where Slurm talks), NODE-data to a second bridge. The lab's
# profile is swapped for the test (and put back) for one without node_addresses and with
#   data_network: {name_pattern: "{node}-data", cidr: LAB_DATA_SUBNET.0/24}
# so every slurmstepd finds every address alone through the lab's /etc/hosts. Then:
#   1. in every node, TCP to the profile's port range over the management subnet is prohibited
#      (an ip rule: a Plan that used the node names' addresses fails its first cross-node call);
#   2. the job runs the recipe's sweep to the end (COMPLETED, status.json completed);
#   3. while it serves: every worker's ATOM_HOST_IP (read from its process) is its node's data
#      address, the port audit is clean, and every TCP connection on a planned port of any node
#      has both ends on the data subnet or loopback, at least one of them between two nodes.
# The other half of the "done when", a name that does not resolve, is refused before any
# worker: the same profile with a node missing from /etc/hosts fails the job at its first step,
# naming the node (checked last).
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
recipe=${2:?usage: test-launch-data-network.sh BASE RECIPE}
[[ "$recipe" = /* ]] || recipe="$LAUNCH_SRC/$recipe"
[[ "$LAB_MODE" == netns && -n "${LAB_DATA_SUBNET:-}" ]] ||
  { echo "SKIP: the lab has no data network (lab-start.sh --mode netns --data-network)"; exit 77; }
profile="$LAB_BASE/etc/srt/cluster.yaml"
data_cidr="$LAB_DATA_SUBNET.0/24"
mgmt_cidr="$LAB_SUBNET.0/24"
t0=$(lab_now)

mkdir -p "$LAB_BASE/work"
saved=$(mktemp "$LAB_BASE/work/profile-saved.XXXX")
cp "$profile" "$saved"
nodes_ns=()
for node in $(scontrol show hostnames "$LAB_NODES"); do nodes_ns+=("$LAB_NETNS_PREFIX-$node"); done
restore() {
  launch_cancel_job
  cp "$saved" "$profile" && rm -f "$saved"
  local ns
  for ns in "${nodes_ns[@]}"; do ip -n "$ns" rule del pref 99 2>/dev/null || true; ip -n "$ns" route flush table 199 2>/dev/null || true; done
}
trap restore EXIT

# The data-network profile: lab-profile.sh writes node_addresses last.
write_profile() {  # PATTERN
  sed '/^node_addresses:/,$d' "$saved" > "$profile"
  printf 'data_network: {name_pattern: "%s", cidr: %s}\n' "$1" "$data_cidr" >> "$profile"
}
write_profile '{node}-data'
read -r range_begin range_end < <(sed -n 's/^port_range_begin: *//p; s/^port_range_end: *//p' "$profile" | paste -sd' ')
for ns in "${nodes_ns[@]}"; do
  ip -n "$ns" rule add ipproto tcp dport "$range_begin-$range_end" lookup 199 pref 99
  ip -n "$ns" route add prohibit "$mgmt_cidr" table 199
done
echo "management subnet $mgmt_cidr closed to ports $range_begin-$range_end on every node; data network $data_cidr"

jid=$(SRT_STANDIN_TOKEN_MS=${SRT_STANDIN_TOKEN_MS:-20} launch_submit "$recipe")
echo "job $jid: $(basename "$recipe")"
launch_wait_state "$jid" benchmark 120 || { launch_show "$jid"; lab_fail "job $jid never reached the benchmark"; }
echo "benchmark started after $(lab_elapsed "$t0") s"

# The Plan as the nodes computed it: on the host the -data names do not resolve, so its copy of
# the profile names the same addresses (the ports, which the audit needs, are the same).
nodelist=$(squeue -h -j "$jid" -o %N)
host_profile="$LAB_BASE/work/profile-data-$jid.yaml"
{ cat "$profile"; echo "node_addresses:"
  for node in $(scontrol show hostnames "$LAB_NODES"); do
    var=LAB_NODE_DATA_ADDR_${node//-/_}; echo "  $node: ${!var}"
  done; } > "$host_profile"
plan="$LAB_BASE/work/plan-$jid.json"
"$SRT_HELPER" plan "$recipe" --profile "$host_profile" --nodelist "$nodelist" --job-id "$jid" --json > "$plan"

# First, while every step serves, the sockets of every node (one ss each), the port audit and
# every worker task's ATOM_HOST_IP; then what the snapshots show, in one pass.
snaps="$LAB_BASE/work/ss-$jid"
mkdir -p "$snaps"
workers=0
for node in $(scontrol show hostnames "$nodelist"); do
  ns="$LAB_NETNS_PREFIX-$node"
  nsenter --net="/run/netns/$ns" ss -tnH state established > "$snaps/$node"
  launch_port_audit "$jid" "$plan" "$node"
  var=LAB_NODE_DATA_ADDR_${node//-/_}
  want=${!var}
  # ATOM_HOST_IP of the worker tasks slurmd started on the node (the engine stand-in under
  # srt-exec); the launcher's srun clients on the head node carry the Plan's variables of steps
  # on other nodes.
  seen=0
  while read -r pid; do
    [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == srun ]] && continue
    environ=$(tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null) || continue
    grep -qx "SLURMD_NODENAME=$node" <<<"$environ" || continue
    ip_of=$(sed -n 's/^ATOM_HOST_IP=//p' <<<"$environ")
    [[ -z "$ip_of" ]] && continue
    [[ "$ip_of" == "$want" ]] || lab_fail "a worker on $node (pid $pid) advertises ATOM_HOST_IP=$ip_of, not its data address $want"
    seen=$((seen + 1))
  done < <(ip netns pids "$ns")
  (( seen == 0 )) || { workers=$((workers + 1)); echo "$node: $seen worker processes advertise ATOM_HOST_IP=$want"; }
done
want_workers=$(/usr/bin/python3 -c 'import json, sys
print(len({p["node"] for p in json.load(open(sys.argv[1]))["processes"] if p["role"] in ("prefill", "decode", "agg")}))' "$plan")
(( workers == want_workers )) || lab_fail "worker processes seen on $workers nodes, the Plan has workers on $want_workers"
# Every connection on a planned port (of any node): both ends on the data subnet or loopback,
# and at least one between two nodes (else nothing was checked).
/usr/bin/python3 - "$plan" "$data_cidr" "$snaps" <<'PY' || { launch_show "$jid"; lab_fail "traffic off the data network"; }
import ipaddress, json, os, sys
plan, net, snaps = json.load(open(sys.argv[1])), ipaddress.ip_network(sys.argv[2]), sys.argv[3]
ports = {x for p in plan["processes"] for v in (p.get("ports") or {}).values() for x in v}
cross = bad = 0
for node in sorted(os.listdir(snaps)):
    for line in open(os.path.join(snaps, node)):
        f = line.split()
        if len(f) < 4:
            continue
        (la, lp), (pa, pp) = f[2].rsplit(":", 1), f[3].rsplit(":", 1)
        if int(lp) not in ports and int(pp) not in ports:
            continue
        ends = [ipaddress.ip_address(a.strip("[]").removeprefix("::ffff:")) for a in (la, pa)]
        off = [str(a) for a in ends if not a.is_loopback and a not in net]
        if off:
            print(f"{node}: {f[2]} -> {f[3]} is off the data network {net}")
            bad += 1
        elif ends[0] != ends[1] and not ends[0].is_loopback:
            cross += 1
print(f"{cross} connections between two nodes on planned ports, all on {net}; {bad} off it")
sys.exit(1 if bad or cross == 0 else 0)
PY
echo "ATOM_HOST_IP, port audit and connections on the data network after $(lab_elapsed "$t0") s"

result=$(lab_wait_job "$jid" 600) || { launch_show "$jid"; lab_fail "job did not complete: $result"; }
echo "$result after $(lab_elapsed "$t0") s"
[[ "$(launch_status "$jid" state)" == completed ]] || { launch_show "$jid"; lab_fail "status.json does not say completed"; }
launch_assert_clean "$jid" 10
jid=

# A node without a data-network name: the job fails at its first step, naming the node.
write_profile '{node}-rail2'
jid=$(launch_submit "$recipe")
result=$(lab_wait_job "$jid" 60) && lab_fail "job $jid with unresolvable data names completed: $result"
out="$LAB_BASE/work/launch-$jid.out"
grep -q "its data-network name '${LAB_NODE_PREFIX}1-rail2' does not resolve" "$out" ||
  { cat "$out"; lab_fail "job $jid did not fail naming ${LAB_NODE_PREFIX}1's data-network name"; }
grep -m1 "does not resolve" "$out"
launch_assert_clean "$jid" 10
echo "PASS: $(basename "$recipe") over the data network in $(lab_elapsed "$t0") s; unresolvable names refused"
