#!/bin/bash
# srt-helper plan --topology shows, for Mooncake over RDMA, what each rank of each worker does with
# its NICs. On the Pollara fixture ATOM's own pick (ionic_<N>) misses the pairing, so every rank
# opens every NIC of its topology file and sends over the one its GPU is paired with, the rank's
# own entry of the ATOM_MOONCAKE_IB_DEVICE list the same Plan gives the worker; the node's console
# line names the GPUs that miss. Where the NIC beside GPU N is ionic_N, ATOM picks: no list, no
# topology file, each rank opens only its own NIC. Over TCP there is nothing to show.
#   plan_rdma_ranks_test.sh SRT_HELPER SOURCE_DIR
set -uo pipefail
helper=$1 src=$2
recipe=$src/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml
topology=$src/tests/fixtures/topology/mi355x-8gpu-pollara.xml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'node_addresses: {n1: 10.1.0.1, n2: 10.1.0.2, n3: 10.1.0.3}\n' >"$tmp/cluster.yaml"
common=(--profile "$tmp/cluster.yaml" --nodelist 'n[1-3]' --topology "$topology")

"$helper" plan "$recipe" "${common[@]}" --set engine.mooncake_protocol=rdma --json >"$tmp/rdma.json" || exit 1
"$helper" plan "$recipe" "${common[@]}" --set engine.mooncake_protocol=rdma >"$tmp/rdma.txt" || exit 1
"$helper" plan "$recipe" "${common[@]}" --set engine.mooncake_protocol=tcp --json >"$tmp/tcp.json" || exit 1
follows=(--profile "$tmp/cluster.yaml" --nodelist 'n[1-3]' --topology "$src/tests/fixtures/topology/mi355x-8gpu-ionic-follows-gpu.xml")
"$helper" plan "$recipe" "${follows[@]}" --set engine.mooncake_protocol=rdma --json >"$tmp/own.json" || exit 1
"$helper" plan "$recipe" "${follows[@]}" --set engine.mooncake_protocol=rdma >"$tmp/own.txt" || exit 1
/usr/bin/python3 - "$tmp/rdma.json" "$tmp/tcp.json" "$tmp/rdma.txt" "$tmp/own.json" "$tmp/own.txt" <<'PY'
import json, sys
rdma, tcp, text = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
own, own_text = json.load(open(sys.argv[4])), open(sys.argv[5]).read()
workers = [p for p in rdma["processes"] if p["role"] in ("prefill", "decode")]
assert len(workers) == 3, [p["name"] for p in workers]
for p in workers:
    env = dict(p["env"]) if isinstance(p["env"], dict) else {k: v for k, v in p["env"]}
    ib = env["ATOM_MOONCAKE_IB_DEVICE"].split(",")
    ranks = p["rdma_ranks"]
    assert [r["rank"] for r in ranks] == list(range(8)), ranks
    for r in ranks:
        assert r["preferred"] == [ib[r["rank"]]], (p["name"], r, ib)
        assert sorted(r["opens"]) == sorted(ib), (p["name"], r, ib)
        assert r["location"] == f"hip:{r['rank']}"
        assert f"{p['name']:<18} {r['rank']:<5} {r['gpu']:<4} {r['location']:<7} {ib[r['rank']]:<14} " in text, r
assert "prefill:0 on n1: ATOM's own NIC pick misses the pairing for GPU 0 ionic_0 (paired ionic_4), GPU 1 ionic_1 " \
    "(paired ionic_7)" in text, text
assert "every rank gets the worker's paired NICs instead (ATOM_MOONCAKE_IB_DEVICE=ionic_4,ionic_7," in text
for p in (p for p in own["processes"] if p["role"] in ("prefill", "decode")):
    env = dict(p["env"]) if isinstance(p["env"], dict) else {k: v for k, v in p["env"]}
    assert "ATOM_MOONCAKE_IB_DEVICE" not in env and "MC_CUSTOM_TOPO_JSON" not in env, (p["name"], env)
    kv = json.loads(p["argv"][p["argv"].index("--kv-transfer-config") + 1])
    assert "ib_device" not in kv, kv
    assert [(r["opens"], r["preferred"]) for r in p["rdma_ranks"]] == \
        [([f"ionic_{r}"], [f"ionic_{r}"]) for r in range(8)], p["rdma_ranks"]
    assert f"{p['name']} on {p['node']}: each rank opens only its own NIC, as ATOM picks it: GPU 0 ionic_0, " in own_text
assert not any("rdma_ranks" in p for p in tcp["processes"]), "TCP workers got an RDMA rank table"
print(f"ok: Pollara: {len(workers)} RDMA workers x 8 ranks send over their own ATOM_MOONCAKE_IB_DEVICE entry and open "
      "all 8; ionic_N beside GPU N: ATOM picks, one NIC per rank")
PY
