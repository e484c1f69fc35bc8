#!/usr/bin/python3
"""srt-spank's recipe keys against srtctl's own JSON Schema (NVIDIA/srt-slurm v2.18 era,
docs/schema/recipe.schema.json), read from ../shared/reference/srtctl-schema beside the project,
never copied in.

  srtctl_schema_test.py SRT_HELPER SRC

1. Every property path srtctl's schema has is known to `srt-helper schema --layout v2`: a field of
   its own, or inside a block it keeps as written. None is refused as an unknown key, but the
   ones listed in REFUSED with the reason.
2. Every text value srtctl's schema allows for a key both have is allowed here too (an enum of
   ours may hold more: v1 spellings), but the ones in ENUM_DECISIONS.
3. Every recipe and variants file of the InferenceX corpora (corpus-v2, corpus-v2.18) that
   srtctl's schema accepts (jsonschema, Draft 2020-12) is accepted by `srt-helper validate`, but
   the ones in LIMITS, each with the srt-spank limit it names.
4. Reported, not asserted: the share of corpus-v2.18's variants that validate with no
   "cannot launch" note.
Exit 77 (skipped) when the reference folder is absent.
"""
import json
import os
import subprocess
import sys

import jsonschema
import yaml

# srtctl's keys srt-spank refuses on purpose: path -> why.
REFUSED = {}

# (path, value) srtctl allows that srt-spank refuses on purpose: -> why.
ENUM_DECISIONS = {}

# srt-spank's keys that srtctl 2.18's schema does not have, each with why: "v1" ones are the v1
# layout's spellings srtctl 2.x still normalised (accepted here for existing recipes), and must
# be refused under `validate --current-schema` (the snippet sets them on a schema-2 recipe); the
# others are srt-spank's own or a fork's, with the reason.
V1 = "v1"
OURS_ONLY = {
    "backend": (V1, "backend: {type: atom}"),
    "resources.prefill_nodes": (V1, "resources: {gpus_per_node: 8, prefill_nodes: 1}"),
    "resources.decode_nodes": (V1, "resources: {gpus_per_node: 8, decode_nodes: 1}"),
    "resources.agg_nodes": (V1, "resources: {gpus_per_node: 8, agg_nodes: 1}"),
    "resources.prefill_workers": (V1, "resources: {gpus_per_node: 8, prefill_workers: 1}"),
    "resources.decode_workers": (V1, "resources: {gpus_per_node: 8, decode_workers: 1}"),
    "resources.agg_workers": (V1, "resources: {gpus_per_node: 8, agg_workers: 1}"),
    "resources.gpus_per_prefill": (V1, "resources: {gpus_per_node: 8, gpus_per_prefill: 8}"),
    "resources.gpus_per_decode": (V1, "resources: {gpus_per_node: 8, gpus_per_decode: 8}"),
    "resources.gpus_per_agg": (V1, "resources: {gpus_per_node: 8, gpus_per_agg: 8}"),
    "resources.prefill_critical": (V1, "resources: {gpus_per_node: 8, prefill_critical: true}"),
    "resources.decode_critical": (V1, "resources: {gpus_per_node: 8, decode_critical: true}"),
    "resources.agg_critical": (V1, "resources: {gpus_per_node: 8, agg_critical: true}"),
    "frontend.dedicated_node": (V1, "frontend: {type: atomesh, enable_multiple_frontends: false, dedicated_node: true}"),
    "benchmark.client_dedicated_node": (V1, "benchmark: {type: manual, client_dedicated_node: true}"),
    "infra.etcd_nats_dedicated_node": (V1, "infra: {etcd_nats_dedicated_node: true}"),
    "dynamo.version": (V1, "dynamo: {version: 1.0.0}"),
    "dynamo.hash": (V1, "dynamo: {hash: abc}"),
    "dynamo.wheel": (V1, "dynamo: {wheel: w.whl}"),
    "dynamo.cargo_patches": (V1, "dynamo: {cargo_patches: [p]}"),
    "frontend.orchestrator_placement": ("own", "srtctl v2.2.1's router placement, kept for its recipes (noted)"),
    "benchmark.client_placement": ("own", "srtctl v2.2.1's client placement, kept for its recipes (noted)"),
    "benchmark.tokenizer_mode": ("own", "srtctl v2.2.1 knew it; it changes nothing srt-spank runs"),
    "benchmark.aiperf_server_metrics": ("own", "srtctl v2.2.1 knew it; it changes nothing srt-spank runs"),
    "dynamo.source.top_of_tree": ("own", "srtctl 2.0's dynamo.source spelling; the dynamo block is inert here"),
    "infra": (V1, "infra: {etcd_nats_dedicated_node: false}"),
    "infra.etcd_cpu_affinity": (V1, "infra: {etcd_cpu_affinity: 0}"),
    "infra.nats_max_payload_mb": (V1, "infra: {nats_max_payload_mb: 8}"),
    "infra.placement": ("own", "not a key: known only to refuse it with a hint"),
    "services[].pool": ("own", "the service-pool spelling before v2.18's placement.pool; accepted with a warning"),
    "telemetry.provider": ("own", "srtctl's power telemetry before the key went (only dcgm-power); InferenceX's earlier "
                                  "AgentX recipes write it, and it names what the block does"),
    "engine.enable_kv_events": ("own", "ATOM's engine-wide KV-event switch of srt-spank's v1 recipes"),
}
# The SemiAnalysis fork's TileRT engine (InferenceX's recipes spell these): srt-spank's own.
for _k in ("max_seq_len", "model_profile", "prefill_container", "prefill_kv_cache_dtype", "speculative_tokens",
           "transport", "weight_model_type", "weights_dir", "with_mtp"):
    OURS_ONLY["engine." + _k] = ("own", "the TileRT fork's engine knobs, as InferenceX's TileRT recipe gives them")

# A schema-2 recipe that `validate --current-schema` accepts; a snippet replaces its line of the
# same top-level key, or is added.
CURRENT = {
    "schema": "schema: 2",
    "name": "name: t",
    "model": "model: {path: m, container: c}",
    "resources": "resources: {gpus_per_node: 8}",
    "engine": "engine: {type: atom, connector: mooncake}",
    "frontend": "frontend: {type: atomesh, enable_multiple_frontends: false}",
    "roles": "roles: {prefill: {nodes: 1, workers: 1}, decode: {nodes: 1, workers: 1}}",
    "benchmark": "benchmark: {type: manual}",
}

# Corpus files srtctl's schema accepts and srt-spank refuses: relative path -> the words of
# srt-spank's refusal that name the limit.
LIMITS = {
    # The file leaves benchmark.command to the runner's --set, which srt-spank requires in the
    # file for type custom. (Its mapping-valued flags, speculative-config and engram-config, are
    # one JSON argument each.)
    "benchmarks/multi_node/srt-slurm-recipes/dsv41flash/vllm/h100-fp4/agentx/agg-tp8-dspark5.yaml":
        "benchmark.command is required for benchmark.type=custom",
}


# Mappings srtctl's schema types by their values only, and the keys its loader accepts in them
# (srtctl core/roles.py: the worker roles).
MAPPING_KEYS = {"roles": ("prefill", "decode", "agg")}


def walk(schema, root, path, out, seen=()):
    """Every property path of `schema` -> the set of its types and enum values, and whether
    the path keeps what is written under it (open)."""
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        if name in seen:
            return
        return walk(root["$defs"][name], root, path, out, seen + (name,))
    entry = out.setdefault(path, {"types": set(), "enum": set(), "open": False})
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []):
            walk(sub, root, path, out, seen)
    t = schema.get("type")
    if t:
        entry["types"].update(t if isinstance(t, list) else [t])
    for v in schema.get("enum", []):
        entry["enum"].add(v if isinstance(v, str) else json.dumps(v))
    for v in schema.get("x-srt-unsupported-values", []):
        entry["enum"].add(v)
    props = schema.get("properties", {})
    objectish = t == "object" or (isinstance(t, list) and "object" in t) or props
    if objectish and not props and schema.get("additionalProperties") is not False:
        entry["open"] = True  # a mapping kept as written (any keys)
    if not t and not props and not schema.get("anyOf") and not schema.get("oneOf") and "$ref" not in schema \
            and "enum" not in schema:
        entry["open"] = True  # any value at all
    for k, v in props.items():
        walk(v, root, f"{path}.{k}" if path else k, out, seen)
    # A mapping whose values follow one schema (srtctl's roles: additionalProperties RoleConfig):
    # its entries are the names srtctl's loader takes there.
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) and extra and path in MAPPING_KEYS:
        for k in MAPPING_KEYS[path]:
            walk(extra, root, f"{path}.{k}", out, seen)
    if isinstance(schema.get("items"), dict):
        walk(schema["items"], root, path + "[]", out, seen)


def covered(path, ours):
    """'known' when ours has the path, 'open' when an ancestor keeps what is written, else None."""
    if path in ours:
        return "known"
    parts = path.replace("[]", ".[]").split(".")
    for i in range(len(parts) - 1, 0, -1):
        q = ".".join(parts[:i]).replace(".[]", "[]")
        if q in ours:
            return "open" if ours[q]["open"] else None
    return None


# srt-spank's own cluster-profile keys, which srtctl's cluster schema lacks, and why each is here.
_OWN = "srt-spank's own (docs/INSTALL.md, etc/srt/cluster.yaml)"
PROFILE_OURS = {
    **{k: _OWN for k in ("benchmark_stall_timeout", "container_run_args", "container_runtime",
                         "container_runtime_args", "container_user", "data_network", "docker_users_are_root",
                         "engine_command", "frontend_port", "gpu_devices", "gpu_idle_vram_mib",
                         "identity_mismatch", "kv_events_capability", "listen_address", "mooncake_gid_index", "node_addresses",
                         "node_sharing", "port_range_begin", "port_range_end", "rdma_mounts",
                         "recipe_mount_prefixes", "results_root", "router_command", "setup_scripts_dir",
                         "sglang_command", "sglang_router_command", "shared_job_slots", "topology_cache_dir",
                         "vllm_command", "vllm_router_command")},
    "accelerator_vendor": "the AMD fork's srtslurm.yaml 2.0 key (amd -> ROCR_VISIBLE_DEVICES)",
    "gpu_sbatch_directive": "the AMD fork's srtslurm.yaml 2.0 key (how GPUs are requested)",
    "runtime_config_transport": "the AMD fork's key; srt-spank always embeds the recipe in the job (inert)",
    "docker_hosts": "srtctl's docker launcher's hosts (an earlier key): accepted, the launcher not run",
}


def profile_section(helper, src, ref, failures):
    """srtctl's cluster schema against srt-spank's profile table (srt-helper schema --profile)."""
    theirs_doc = json.load(open(os.path.join(ref, "srtctl-schema", "cluster.schema.json")))
    ours_doc = json.loads(subprocess.run([helper, "schema", "--profile"], check=True,
                                         capture_output=True, text=True).stdout)
    theirs, ours = {}, {}
    walk(theirs_doc, theirs_doc, "", theirs)
    walk(ours_doc, ours_doc, "", ours)
    for p in sorted(theirs):
        if p and covered(p, ours) is None:
            failures.append(f"srtctl's cluster key {p} is refused as unknown by srt-spank's profile")
    own = sorted(p for p in ours if p and "." not in p and "[]" not in p and covered(p, theirs) is None)
    for p in own:
        if p not in PROFILE_OURS:
            failures.append(f"srt-spank's profile key {p} is not in srtctl's cluster schema and not in PROFILE_OURS")
    for p in PROFILE_OURS:
        if p not in own:
            failures.append(f"PROFILE_OURS lists {p}, which is not (or no longer) srt-spank's alone")
    enums = 0
    for p in sorted(theirs):
        if p in ours and theirs[p]["enum"] and ours[p]["enum"]:
            enums += 1
            for v in sorted(theirs[p]["enum"] - ours[p]["enum"]):
                failures.append(f"profile {p}: srtctl allows {v!r}, srt-spank does not")
    # The shipped profile's srtctl keys mean to srtctl what they mean here: its schema, through a
    # real validator, accepts them as written.
    with open(os.path.join(src, "etc", "srt", "cluster.yaml")) as f:
        shipped = yaml.safe_load(f)
    srtctl_part = {k: v for k, v in shipped.items() if k in theirs_doc["properties"]}
    for e in jsonschema.Draft202012Validator(theirs_doc).iter_errors(srtctl_part):
        failures.append(f"etc/srt/cluster.yaml: srtctl's cluster schema refuses {'.'.join(map(str, e.path))}: {e.message}")
    # additionalProperties: false, as srtctl's schema says: an unknown key is refused, by name.
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "cluster.yaml")
        with open(bad, "w") as f:
            yaml.safe_dump({**shipped, "gpus_per_nod": 8}, f)
        out = subprocess.run([helper, "validate", "--profile", bad,
                              os.path.join(src, "recipes", "dsr1", "sglang", "mi355x-fp8", "8k1k", "agg-tp8.yaml")],
                             capture_output=True, text=True)
        if out.returncode == 0 or "gpus_per_nod" not in out.stdout + out.stderr:
            failures.append("a profile with an unknown key (gpus_per_nod) is not refused by name")
    print(f"srtctl's cluster schema: {len(theirs_doc['properties'])} keys, every one known to srt-spank's profile; "
          f"{len(own)} of srt-spank's own; enums compared on {enums} keys; the shipped profile's "
          f"{len(srtctl_part)} srtctl keys pass srtctl's schema")


def main():
    helper, src = sys.argv[1], sys.argv[2]
    ref = os.path.join(src, "..", "shared", "reference")
    schema_file = os.path.join(ref, "srtctl-schema", "recipe.schema.json")
    if not os.path.isfile(schema_file):
        print(f"skipped: no srtctl schema at {schema_file} (../shared/reference is absent)")
        return 77
    theirs_doc = json.load(open(schema_file))
    ours_doc = json.loads(subprocess.run([helper, "schema", "--layout", "v2"], check=True,
                                         capture_output=True, text=True).stdout)
    theirs, ours = {}, {}
    walk(theirs_doc["$defs"]["Recipe"], theirs_doc, "", theirs)
    walk(ours_doc, ours_doc, "", ours)
    failures = []

    # 1. keys
    refused = [p for p in sorted(theirs) if p and covered(p, ours) is None]
    for p in refused:
        if p not in REFUSED and not any(p.startswith(r + ".") or p.startswith(r + "[]") for r in REFUSED):
            failures.append(f"srtctl's key {p} is refused as unknown by srt-spank")
    for p in REFUSED:
        if p not in refused:
            failures.append(f"REFUSED lists {p}, which srt-spank now knows: drop it from the list")
    known = sum(1 for p in theirs if p and covered(p, ours) == "known")
    opened = sum(1 for p in theirs if p and covered(p, ours) == "open")
    print(f"srtctl's schema: {len(theirs) - 1} property paths; srt-spank has {known} as fields of its own, "
          f"{opened} inside blocks it keeps as written, {len(refused)} refused ({len(REFUSED)} on purpose)")

    # 1b. srt-spank's keys srtctl does not have
    import tempfile
    ours_only = [p for p in sorted(ours) if p and covered(p, theirs) is None]
    with tempfile.TemporaryDirectory() as tmp:
        def current(snippet=None):
            lines = dict(CURRENT)
            if snippet:
                lines[snippet.split(":")[0]] = snippet
            f = os.path.join(tmp, "r.yaml")
            with open(f, "w") as out:
                out.write("\n".join(lines.values()) + "\n")
            return subprocess.run([helper, "validate", "--current-schema", "--profile",
                                   os.path.join(src, "etc", "srt", "cluster.yaml"), f], capture_output=True, text=True)
        base = current()
        if base.returncode != 0:
            failures.append("the minimal schema-2 recipe does not validate under --current-schema: " + base.stdout + base.stderr)
        for p in ours_only:
            kind, what = OURS_ONLY.get(p, (None, None))
            if kind is None:
                failures.append(f"srt-spank's key {p} is not in srtctl's schema and not in OURS_ONLY")
            elif kind == V1:
                out = current(what)
                if out.returncode == 0 or not any(seg in out.stdout + out.stderr for seg in p.split(".")):
                    failures.append(f"{p}: a v1 spelling, but validate --current-schema does not refuse it by name ({what})")
        for p in OURS_ONLY:
            if p not in ours_only:
                failures.append(f"OURS_ONLY lists {p}, which is not (or no longer) srt-spank's alone")
    print(f"srt-spank's own keys: {len(ours_only)} srtctl's schema lacks "
          f"({sum(1 for p in ours_only if OURS_ONLY.get(p, ('',))[0] == V1)} v1 spellings, refused under --current-schema)")

    # 2. enums of keys both have
    enum_checked = 0
    for p in sorted(theirs):
        if p not in ours or not theirs[p]["enum"] or not ours[p]["enum"]:
            continue
        enum_checked += 1
        for v in sorted(theirs[p]["enum"] - ours[p]["enum"]):
            if (p, v) not in ENUM_DECISIONS:
                failures.append(f"{p}: srtctl allows {v!r}, srt-spank does not")
    print(f"enums compared on {enum_checked} keys")

    # 3. the corpora
    validator = jsonschema.Draft202012Validator(theirs_doc)
    profile = os.path.join(src, "etc", "srt", "cluster.yaml")
    accepted = refused_files = 0
    variants = quiet = 0
    for corpus in ("corpus-v2", "corpus-v2.18"):
        base = os.path.join(ref, corpus)
        for dirpath, _, files in os.walk(base):
            for name in sorted(files):
                if not name.endswith(".yaml"):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, base)
                with open(path) as f:
                    doc = yaml.safe_load(f)
                if not isinstance(doc, dict) or (doc.get("schema") != 2 and "base" not in doc):
                    continue  # the v1 layout: srtctl 2.x's schema does not describe it
                errors = list(validator.iter_errors(doc))
                out = subprocess.run([helper, "validate", "--profile", profile, path], capture_output=True, text=True)
                text = out.stdout + out.stderr
                if corpus == "corpus-v2.18":
                    # "PATH[:SELECTOR] (NAME): ok (N nodes)", and per variant with a note
                    # "note: PATH[:SELECTOR]: srtctl knows these, srt-spank cannot launch them yet: ..."
                    lines = [l for l in out.stdout.splitlines() if ": ok (" in l]
                    variants += len(lines)
                    noted = {l.removeprefix("note: ").split(": srtctl knows these")[0]
                             for l in text.splitlines() if "cannot launch" in l}
                    quiet += sum(1 for l in lines if l.split(" (")[0].split(": ok")[0] not in noted)
                if errors:
                    refused_files += 1
                    continue
                accepted += 1
                if out.returncode != 0:
                    why = LIMITS.get(rel)
                    if why is None or why not in text:
                        last = [l for l in text.splitlines() if l.strip()][-3:]
                        failures.append(f"{corpus}/{rel}: srtctl's schema accepts it, srt-helper validate refuses it: "
                                        + " | ".join(last))
    print(f"corpora: {accepted} files srtctl's schema accepts, {refused_files} it refuses (checked by srtctl only)")

    # 4. the cluster profile
    profile_section(helper, src, ref, failures)
    if variants:
        print(f"corpus-v2.18: {quiet} of {variants} variants ({100 * quiet // variants} %) validate with no "
              "'cannot launch' note")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
