// srt-slurm 2.x's `schema: 2` recipe keys (srtctl 2.0's src/srtctl/core/config.py, core/roles.py,
// services/config.py). The blocks 2.0 left alone are the v1 table's own Fields, copied from
// recipe_schema(), so the two layouts cannot disagree on them. srtctl 2.0 keeps accepting the v1
// spellings beside the new ones (its normalizers run on every recipe, core/config.py
// resolve_config_with_defaults), so they stay here; `--current-schema` refuses them later
// (schema2_normalize.cpp).
#include "schema.hpp"
#include "srt/limits.hpp"

namespace srt::schema {
namespace {

Field v1(const std::string& key) {
  const Field* f = find_field(recipe_schema(), key);
  return f ? *f : any(key, "");
}

// engine: the v1 backend variant without its per-role parts, which moved to roles.<role>
// (srtctl 2.0 core/roles.py expand_roles). A bare string is the type.
Field engine() {
  Field e = v1("backend");
  e.key = "engine";
  e.doc = "the engine: a name (sglang) or {type, engine-wide knobs} (default: sglang)";
  e.type_shorthand = true;
  auto per_role = [](const Field& f) {
    const std::string& k = f.key;
    auto ends = [&](const std::string& t) { return k.size() > t.size() && k.compare(k.size() - t.size(), t.size(), t) == 0; };
    return ends("_config") || ends("_environment") || ends("_extra_args") || k == "mooncake_kv_store" ||
           k == "enable_kv_events";
  };
  auto strip = [&](std::vector<Field>& fields) {
    std::vector<Field> kept;
    for (auto& f : fields)
      if (!per_role(f)) kept.push_back(std::move(f));
    fields = std::move(kept);
  };
  strip(e.fields);
  for (auto& [type, fields] : e.variants) {
    strip(fields);
    // ATOM's KV-event switch is engine-wide in v1 (backend.enable_kv_events); 2.x spells it per
    // role (roles.<role>.kv_events), but the engine-wide spelling is kept for ATOM recipes.
    if (type == "atom") fields.push_back(boolean("enable_kv_events", "publish KV-cache events from every DP rank").def("false"));
  }
  return e;
}

Field role(const std::string& name, bool decode) {
  const std::string mode = name == "agg" ? "aggregated" : name;
  return object(
      name,
      field_list(any("nodes", decode ? "nodes of this role: a positive number, or colocate (share the prefill nodes)"
                                     : "nodes of this role: a positive number"),
                 integer("workers", "endpoints of this role").range(1, kMaxRoleWorkers),
                 integer("gpus", "GPUs per endpoint (default: nodes x gpus_per_node / workers)").range(1, kMaxEndpointGpus),
                 // env, args, extra_args and kv_events are checked as the v1 fields they become
                 // (backend.<mode>_environment, backend.<engine>_config.<mode>), per engine.
                 any("env", "environment of these workers ({node}, {node_id} substituted)"),
                 any("args", "engine flags of these workers (v1: backend.<engine>_config." + mode + ")"),
                 any("extra_args", "extra engine arguments (v1: backend." + mode + "_extra_args)"),
                 // A name or {type, engine options}: with no top-level engine, every role gives the
                 // same one (srtctl v2.18 core/roles.py; checked by the normalizer).
                 any("engine", "the engine of these workers: the recipe's, or with no top-level engine, the same on every role"),
                 str("container", "image or cluster profile alias of these workers (default: model.container)"),
                 dict("srun_options", "--key=value on these workers' steps, over the recipe's srun_options").nullable_values(),
                 any("kv_events", "publish KV events (bool or {publisher, topic})"),
                 boolean("sidecar", "Dynamo KV-router sidecar (must agree across roles)").inert(),
                 boolean("critical", "an exit of this role ends the job").def("true").tier2(),
                 // srtctl v2.18: checked by the normalizer (srt/restart_policy.hpp) and kept as
                 // Recipe::per_role.restart; the launcher supervises by it
                 // (jobstep/launch/machine_supervise.cpp).
                 any("restart", "relaunch exited workers in place: never (default), on-failure, always, or "
                                "{policy, max_restarts, backoff_seconds, max_backoff_seconds}")),
      "the " + mode + " workers");
}

Field placement(std::vector<std::string> where, std::set<std::string> unsupported, const std::string& doc) {
  Field node = str("node", doc).one_of(std::move(where), std::move(unsupported)).req();
  return object("placement", field_list(std::move(node)), doc);
}

Field frontend_v2() {
  Field f = v1("frontend");
  for (auto& c : f.fields) {
    if (c.key == "placement")
      c = placement({"head", "first_decode", "dedicated"}, {"first_decode"}, "where the router runs (default: head)");
    // NVIDIA/srt-slurm PR #436: under schema 2, sglang is a direct worker (no router);
    // sglang-router is the router.
    if (c.key == "type") c.doc = "router in front of the workers (schema 2: sglang = direct worker, sglang-router = router)";
  }
  return f;
}

Field benchmark_v2() {
  Field b = v1("benchmark");
  b.fields.push_back(placement({"head", "last_decode", "dedicated"}, {"last_decode"}, "where the client runs (default: head)"));
  return b;
}

Field resources_v2() {
  Field r = v1("resources");
  r.doc = "machine facts (gpu_type, gpus_per_node, spread_workers, het_jobs); role sizes are under roles";
  return r;
}

// A service's placement: a node class (srtctl v2.18 ServicePlacementConfig adds `compute`), or
// another service's pool, one instance per node or per worker.
Field service_placement() {
  Field p = placement({"head", "infra", "dedicated", "prefill", "decode", "agg", "workers", "compute", "all"}, {},
                      "where it runs (dedicated: etcd, nats, mooncake-master only)");
  p.fields[0].required = false;  // default head; `pool` replaces it
  p.fields[0].default_text = "head";
  p.fields.push_back(any("pool", "run on the nodes another service owns (services[].nodes)"));
  p.fields.push_back(str("per", "node (default) or worker: one instance per placed node or per worker").one_of({"node", "worker"}));
  return p;
}

Field dynamo() {
  Field d = v1("dynamo");
  d.fields.push_back(object("source",
                            field_list(str("pypi", "version on PyPI"), str("wheel", "wheel path"), str("git", "repository"),
                                       str("rev", "commit"), str("sha", "commit (srtctl v2.18)"),
                                       boolean("top_of_tree", "main"), any("patches", "patches")),
                            "where Dynamo comes from (replaces version/wheel/hash/cargo_patches)"));
  return d;
}

Field infra() {
  Field i = v1("infra");
  i.fields.push_back(any("placement", "not a key (refused with a hint)"));
  return i;
}

Field build_recipe_schema_v2() {
  // The v1 root's fields are not copied wholesale: most are replaced below (a copy of the v1 table
  // was a third of this table's cost, paid on the first load of every process).
  Field root = object("", {}, "an srt-slurm 2.x recipe (schema: 2)");
  std::vector<Field> fields;
  fields.reserve(recipe_schema().fields.size() + 2);
  for (const auto& f : recipe_schema().fields) {
    if (f.key == "schema")
      fields.push_back(make("schema", Kind::integer, "layout version: 2 (absent: 1, unless engine:/roles: are used)"));
    else if (f.key == "resources") {
      fields.push_back(resources_v2());
      fields.push_back(engine());
      fields.push_back(object("roles", field_list(role("prefill", false), role("decode", true), role("agg", false)),
                              "the workers per role: prefill + decode (disaggregated) or agg"));
    } else if (f.key == "backend") fields.push_back(any("backend", "v1 spelling of engine + roles (checked as v1)"));
    else if (f.key == "frontend") fields.push_back(frontend_v2());
    else if (f.key == "benchmark") fields.push_back(benchmark_v2());
    else if (f.key == "services") fields.push_back(services_field());
    else if (f.key == "dynamo") fields.push_back(dynamo());
    else if (f.key == "infra") fields.push_back(infra());
    else fields.push_back(f);
  }
  root.fields = std::move(fields);
  return root;
}

}  // namespace

Field services_field() {
  Field s = object(
      "services",
      field_list(
          str("name", "unique name; a declared etcd/nats replaces the implied one").req(),
          str("type", "generic (default), etcd, nats, mooncake-master, mooncake-store, or an exporter kind").def("generic"),
          any("command", "argv (required for generic)"), any("args", "extra arguments"), str("container", "image"),
          dict("env", "its environment"), any("source", "code to build first"), any("build_command", "build command"),
          integer("build_timeout_seconds", "build budget").def("1800"),
          service_placement(),
          str("start", "when it starts").one_of({"infra", "before_workers", "after_frontend", "with_workers"}),
          object("readiness",
                 field_list(integer("port", "TCP port (shorthand for tcp)").range(1, 65535),
                            object("tcp", field_list(integer("port", "port").range(1, 65535).req()), "TCP probe"),
                            object("http",
                                   field_list(integer("port", "port").range(1, 65535).req(), str("path", "path").def("/health"),
                                              integer("status", "expected status").def("200")),
                                   "HTTP probe"),
                            object("log", field_list(str("pattern", "regular expression").req()), "log probe"),
                            integer("timeout_seconds", "give up after").def("120"),
                            integer("interval_seconds", "poll interval").def("2")),
                 "exactly one probe"),
          boolean("inherit_discovery_env", "etcd/NATS endpoints in its environment").def("true"),
          boolean("critical", "a crash fails the run"), any("preamble", "shell before the command"),
          integer("cpus_per_task", "srun --cpus-per-task"), str("cpu_bind", "srun --cpu-bind"),
          dict("srun_options", "srun options of this service").nullable_values(),
          boolean("enabled", "false drops an implied service").def("true"), any("external", "an existing endpoint"),
          any("options", "per-kind options (nats: max_payload_mb; mooncake-master: store_config)"),
          // Service pools: after NVIDIA/srt-slurm v2.2.1 (UNCONFIRMED); accepted with a warning.
          any("nodes", "service pool size (after v2.2.1)"), any("pool", "service pool (after v2.2.1)"),
          any("terminal", "pool terminal (after v2.2.1)"),
          any("metrics", "the service's metrics endpoints (srtctl v2.18 ServiceMetricsConfig)")),
      "one process srtctl starts beside the workers (services/config.py)");
  s.kind = Kind::object_list;
  return s;
}

const Field& recipe_schema_v2() {
  static const Field root = build_recipe_schema_v2();
  return root;
}

}  // namespace srt::schema
