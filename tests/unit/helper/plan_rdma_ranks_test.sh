#!/bin/bash
# srt-helper plan --topology shows, for Mooncake over RDMA, what each rank of each worker does with
# its NICs: it opens every NIC of its topology file, and sends over the one its
# GPU is paired with, which is the rank's own entry of the ATOM_MOONCAKE_IB_DEVICE list the same
# Plan gives the worker. Over TCP there is nothing to show.
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
/usr/bin/python3 - "$tmp/rdma.json" "$tmp/tcp.json" "$tmp/rdma.txt" <<'PY'
import json, sys
rdma, tcp, text = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
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
assert "Mooncake has no per-rank filter" in text
assert not any("rdma_ranks" in p for p in tcp["processes"]), "TCP workers got an RDMA rank table"
print(f"ok: {len(workers)} RDMA workers x 8 ranks: each sends over its own ATOM_MOONCAKE_IB_DEVICE entry and opens all 8")
PY
