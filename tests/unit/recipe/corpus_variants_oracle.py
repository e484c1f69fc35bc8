#!/usr/bin/python3
"""An independent reading of srtctl 2.x's variants rules, for the corpus test: for every
variants file (top-level ``base:``) under CORPUS, print one line per variant srtctl would run
without a selector: ``FILE:SELECTOR<TAB>NAME<TAB>NODES`` (FILE relative to CORPUS).

The rules are ../shared/reference/srt-slurm-v2.md's, implemented here with PyYAML and nothing
of srt-spank's C++, so the two readings check each other:
- section 5: override_* sorted by key, then zip_override_* sorted, base excluded; an override
  deep-merges into base (dicts merge, lists and scalars replace, null deletes); its name is its
  own ``name`` else ``<base.name>_<suffix>``; in a zip group every list leaf is a dimension
  (length-1 lists and scalars broadcast), variant i takes index i, its name from a ``name`` list
  else ``<base.name>_<group>_<i>``.
- section 7: prefill + decode nodes when either role gives nodes (``colocate`` counts 0), else
  agg nodes (default 1); +1 when etcd/nats, the frontend or the benchmark is placed on a
  dedicated node and they share one (benchmark.colocate_with_frontend, default true), else one
  per dedicated role.
Usage: corpus_variants_oracle.py CORPUS
"""
import copy
import os
import sys

import yaml


class Loader(yaml.SafeLoader):
    pass


def merge(base, over):
    out = copy.deepcopy(base)
    for key, value in over.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def zip_length(node):
    """The group's length: the longest list leaf (length-1 lists broadcast)."""
    if isinstance(node, dict):
        return max([zip_length(v) for v in node.values()] + [1])
    if isinstance(node, list) and node:
        return len(node)  # a list of lists too: one literal list per variant
    return 1


def zip_slice(node, i):
    if isinstance(node, dict):
        return {k: zip_slice(v, i) for k, v in node.items()}
    if isinstance(node, list):
        return copy.deepcopy(node[0] if len(node) == 1 else node[i])
    return copy.deepcopy(node)


def role_nodes(doc, role):
    for section in (doc.get("roles") or {}, doc.get("resources") or {}):
        value = section.get(role)
        if isinstance(value, dict) and "nodes" in value:
            return value["nodes"]
    legacy = (doc.get("resources") or {}).get(role + "_nodes")
    return legacy


def dedicated(section):
    placement = (section or {}).get("placement") if isinstance(section, dict) else None
    return isinstance(placement, dict) and placement.get("node") == "dedicated"


def node_demand(doc):
    prefill, decode = role_nodes(doc, "prefill"), role_nodes(doc, "decode")
    if prefill is not None or decode is not None:
        count = lambda n: 0 if n in (None, "colocate") else int(n)  # noqa: E731
        workers = count(prefill) + count(decode)
    else:
        agg = role_nodes(doc, "agg")
        workers = int(agg) if agg is not None else 1
    # services: a mapping by name, or a list of {name, type, placement}
    services = doc.get("services") or {}
    entries = services.values() if isinstance(services, dict) else services
    infra = any(isinstance(s, dict) and (s.get("type") or s.get("name")) in ("etcd", "nats") and dedicated(s)
                for s in entries) or \
        (isinstance(services, dict) and any(dedicated(services.get(s)) for s in ("etcd", "nats"))) or \
        bool((doc.get("infra") or {}).get("etcd_nats_dedicated_node"))
    roles = [infra, dedicated(doc.get("frontend")), dedicated(doc.get("benchmark"))]
    if not any(roles):
        return workers
    shared = ((doc.get("benchmark") or {}).get("colocate_with_frontend", True))
    return workers + (1 if shared else sum(roles))


def variants(doc):
    base = doc["base"]
    base_name = base.get("name", "")
    for key in sorted(k for k in doc if k.startswith("override_")):
        over = doc[key] or {}
        merged = merge(base, over)
        name = over.get("name") or "%s_%s" % (base_name, key[len("override_"):])
        yield key, name, merged
    for key in sorted(k for k in doc if k.startswith("zip_override_")):
        group = doc[key] or {}
        names = group.get("name")
        for i in range(zip_length(group)):
            sliced = zip_slice({k: v for k, v in group.items() if k != "name"}, i)
            name = names[i] if isinstance(names, list) else (names or "%s_%s_%d" % (
                base_name, key[len("zip_override_"):], i))
            yield "%s[%d]" % (key, i), name, merge(base, sliced)


def main():
    corpus = sys.argv[1]
    for top, _, files in sorted(os.walk(corpus)):
        for f in sorted(files):
            if not f.endswith(".yaml"):
                continue
            path = os.path.join(top, f)
            with open(path) as fh:
                doc = yaml.load(fh, Loader=Loader)
            if not isinstance(doc, dict) or "base" not in doc:
                continue
            rel = os.path.relpath(path, corpus)
            for selector, name, merged in variants(doc):
                print("%s:%s\t%s\t%d" % (rel, selector, name, node_demand(merged)))


if __name__ == "__main__":
    main()
