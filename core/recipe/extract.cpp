// The typed Recipe from a checked Document. Runs after the schema check, so it can be lenient:
// a value of the wrong type (already reported) falls back to the default.
#include "extract.hpp"

#include <climits>

#include "schema.hpp"
#include "srt/host_setup.hpp"
#include "srt/telemetry.hpp"

namespace srt::recipe_detail {
namespace {

const Json* at(const Json& root, std::initializer_list<const char*> keys) {
  const Json* cur = &root;
  for (const char* k : keys) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(k);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur->is_null() ? nullptr : cur;
}

std::string text(const Json* v, std::string fallback = {}) {
  if (!v || v->is_array() || v->is_object()) return fallback;
  return python_str(*v);
}

int integer(const Json* v, int fallback) {
  if (!v) return fallback;
  auto n = schema::as_integer(*v);
  if (!n || *n < INT_MIN || *n > INT_MAX) return fallback;
  return static_cast<int>(*n);
}

bool boolean(const Json* v, bool fallback) {
  if (!v) return fallback;
  return schema::as_boolean(*v).value_or(fallback);
}

// srtctl formats values with str(); `key:` with no value becomes "" (a bare --flag).
EnvList pairs(const Json* v) {
  EnvList out;
  if (!v || !v->is_object()) return out;
  for (auto it = v->begin(); it != v->end(); ++it)
    if (!it.value().is_array() && !it.value().is_object())
      out.emplace_back(it.key(), it.value().is_null() ? std::string() : python_str(it.value()));
  return out;
}

Json object_or_empty(const Json* v) { return v && v->is_object() ? *v : Json::object(); }

std::vector<int> concurrencies(const Json* v) {
  std::vector<int> out;
  if (!v) return out;
  auto add = [&](const Json& x) {
    auto n = x.is_boolean() ? std::nullopt : schema::as_integer(x);
    if (n && *n > 0 && *n <= INT_MAX) out.push_back(static_cast<int>(*n));
  };
  if (v->is_array()) {
    for (const auto& x : *v) add(x);
  } else if (v->is_string()) {
    const std::string& s = v->get_ref<const std::string&>();
    std::size_t start = 0;
    while (start <= s.size()) {
      std::size_t x = s.find('x', start);
      add(Json(s.substr(start, x == std::string::npos ? std::string::npos : x - start)));
      if (x == std::string::npos) break;
      start = x + 1;
    }
  } else {
    add(*v);
  }
  return out;
}

// The generic services of a schema-2 recipe, which the normalizer keeps under `services` (the
// file's list; its other kinds are read as the v1 keys they became). srtctl v2.18's defaults.
std::vector<Service> read_services(const Json* list) {
  std::vector<Service> out;
  if (!list || !list->is_array()) return out;
  for (const Json& s : *list) {
    if (!s.is_object() || text(at(s, {"type"}), "generic") != "generic" || !boolean(at(s, {"enabled"}), true)) continue;
    Service v;
    v.name = text(at(s, {"name"}));
    for (const char* k : {"command", "args"})
      if (const Json* a = at(s, {k}); a && a->is_array())
        for (const auto& x : *a) v.argv.push_back(python_str(x));
    v.container = text(at(s, {"container"}));
    v.env = pairs(at(s, {"env"}));
    v.preamble = text(at(s, {"preamble"}));
    v.node = text(at(s, {"placement", "node"}), "head");
    v.before_workers = text(at(s, {"start"})) == "before_workers";
    v.critical = boolean(at(s, {"critical"}), false);
    v.cpus_per_task = integer(at(s, {"cpus_per_task"}), 0);
    v.cpu_bind = text(at(s, {"cpu_bind"}));
    v.srun_options = pairs(at(s, {"srun_options"}));
    if (const Json* r = at(s, {"readiness"})) {
      ServiceProbe& p = v.readiness;
      p.timeout_seconds = integer(at(*r, {"timeout_seconds"}), p.timeout_seconds);
      p.interval_seconds = integer(at(*r, {"interval_seconds"}), p.interval_seconds);
      if (const Json* port = at(*r, {"port"})) p.kind = "tcp", p.port = integer(port, 0);
      if (const Json* port = at(*r, {"tcp", "port"})) p.kind = "tcp", p.port = integer(port, 0);
      if (const Json* h = at(*r, {"http"})) {
        p.kind = "http";
        p.port = integer(at(*h, {"port"}), 0);
        p.path = text(at(*h, {"path"}), p.path);
        p.status = integer(at(*h, {"status"}), p.status);
      }
      if (const Json* l = at(*r, {"log"})) p.kind = "log", p.pattern = text(at(*l, {"pattern"}));
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

void extract(Recipe& r) {
  const Json& root = r.source.root;
  r.name = text(at(root, {"name"}));
  r.model.path = text(at(root, {"model", "path"}));
  r.model.container = text(at(root, {"model", "container"}));
  r.model.precision = text(at(root, {"model", "precision"}));
  r.model.stage_dir = text(at(root, {"model", "stage_dir"}));

  r.identity.model_repo = text(at(root, {"identity", "model", "repo"}));
  r.identity.model_revision = text(at(root, {"identity", "model", "revision"}));
  r.identity.container_image = text(at(root, {"identity", "container", "image"}));
  r.identity.frameworks = pairs(at(root, {"identity", "frameworks"}));

  r.slurm.account = text(at(root, {"slurm", "account"}));
  r.slurm.partition = text(at(root, {"slurm", "partition"}));
  r.slurm.time_limit = text(at(root, {"slurm", "time_limit"}));

  Resources& res = r.resources;
  res.gpu_type = text(at(root, {"resources", "gpu_type"}));
  res.gpus_per_node = integer(at(root, {"resources", "gpus_per_node"}), 0);
  res.prefill_nodes = integer(at(root, {"resources", "prefill_nodes"}), 0);
  res.decode_nodes = integer(at(root, {"resources", "decode_nodes"}), 0);
  res.decode_nodes_given = at(root, {"resources", "decode_nodes"}) != nullptr;
  res.agg_nodes = integer(at(root, {"resources", "agg_nodes"}), 0);
  res.prefill_workers = integer(at(root, {"resources", "prefill_workers"}), 0);
  res.decode_workers = integer(at(root, {"resources", "decode_workers"}), 0);
  res.agg_workers = integer(at(root, {"resources", "agg_workers"}), 0);
  res.gpus_per_prefill = integer(at(root, {"resources", "gpus_per_prefill"}), 0);
  res.gpus_per_decode = integer(at(root, {"resources", "gpus_per_decode"}), 0);
  res.gpus_per_agg = integer(at(root, {"resources", "gpus_per_agg"}), 0);
  res.spread_workers = boolean(at(root, {"resources", "spread_workers"}), false);

  Backend& b = r.backend;
  b.type = text(at(root, {"backend", "type"}), "sglang");  // srtctl's default backend
  b.connector = text(at(root, {"backend", "connector"}), b.type == "atom" ? "mooncake" : "");
  b.mooncake_protocol = text(at(root, {"backend", "mooncake_protocol"}));
  b.enable_kv_events = boolean(at(root, {"backend", "enable_kv_events"}), false);
  b.set_visible_devices = boolean(at(root, {"backend", "set_visible_devices"}), false);
  b.vllm_serve_binary = text(at(root, {"backend", "vllm_serve_binary"}));
  const std::string config_key = b.type + "_config";
  b.prefill_config = object_or_empty(at(root, {"backend", config_key.c_str(), "prefill"}));
  b.decode_config = object_or_empty(at(root, {"backend", config_key.c_str(), "decode"}));
  b.aggregated_config = object_or_empty(at(root, {"backend", config_key.c_str(), "aggregated"}));
  b.prefill_environment = pairs(at(root, {"backend", "prefill_environment"}));
  b.decode_environment = pairs(at(root, {"backend", "decode_environment"}));
  b.aggregated_environment = pairs(at(root, {"backend", "aggregated_environment"}));

  Frontend& f = r.frontend;
  f.type = text(at(root, {"frontend", "type"}), "dynamo");
  f.enable_multiple_frontends = boolean(at(root, {"frontend", "enable_multiple_frontends"}), true);
  f.num_additional_frontends = integer(at(root, {"frontend", "num_additional_frontends"}), 9);
  f.args = object_or_empty(at(root, {"frontend", "args"}));
  f.env = pairs(at(root, {"frontend", "env"}));
  f.container_image = text(at(root, {"frontend", "container_image"}));
  f.dedicated_node = boolean(at(root, {"frontend", "dedicated_node"}), false) ||
                     text(at(root, {"frontend", "placement", "node"})) == "dedicated";

  Benchmark& bm = r.benchmark;
  bm.type = text(at(root, {"benchmark", "type"}), "manual");
  bm.command = text(at(root, {"benchmark", "command"}));
  bm.env = pairs(at(root, {"benchmark", "env"}));
  bm.concurrencies = concurrencies(at(root, {"benchmark", "concurrencies"}));
  bm.isl = integer(at(root, {"benchmark", "isl"}), 0);
  bm.osl = integer(at(root, {"benchmark", "osl"}), 0);
  bm.container_image = text(at(root, {"benchmark", "container_image"}));
  bm.colocate_with_frontend = boolean(at(root, {"benchmark", "colocate_with_frontend"}), true);
  bm.client_dedicated_node = boolean(at(root, {"benchmark", "client_dedicated_node"}), false);
  bm.stream_output = boolean(at(root, {"benchmark", "stream_output"}), false);

  if (const Json* pe = at(root, {"post_eval"}); pe && pe->is_object()) {
    r.post_eval.given = true;
    if (const Json* c = at(root, {"post_eval", "command"}); c && c->is_array())
      for (const auto& x : *c) r.post_eval.command.push_back(python_str(x));
    if (const Json* e = at(root, {"post_eval", "passthrough_env"}); e && e->is_array())
      for (const auto& x : *e) r.post_eval.passthrough_env.push_back(python_str(x));
  }

  if (at(root, {"health_check"})) {
    HealthCheck h;  // srtctl's dataclass defaults fill what the recipe leaves out
    h.max_attempts = integer(at(root, {"health_check", "max_attempts"}), h.max_attempts);
    h.interval_seconds = integer(at(root, {"health_check", "interval_seconds"}), h.interval_seconds);
    r.health_check = h;
  }
  r.environment = pairs(at(root, {"environment"}));
  r.srun_options = pairs(at(root, {"srun_options"}));
  // Schema 2's roles.<role>.{container,srun_options}, which the normalizer keeps under that path.
  for (const char* role : {"prefill", "decode", "agg"}) {
    if (const Json* c = at(root, {"roles", role, "container"}); c && c->is_string())
      r.per_role.container[role] = c->get<std::string>();
    if (const Json* o = at(root, {"roles", role, "srun_options"}); o && o->is_object())
      r.per_role.srun_options[role] = pairs(o);
  }
  r.services = read_services(at(root, {"services"}));
  r.sbatch_directives = pairs(at(root, {"sbatch_directives"}));
  r.container_mounts = pairs(at(root, {"container_mounts"}));
  if (const Json* m = at(root, {"extra_mount"}); m && m->is_array())
    for (const auto& x : *m) r.extra_mount.push_back(python_str(x));
  r.setup_script = text(at(root, {"setup_script"}));
  r.host_setup = read_host_setup(at(root, {"host_setup"}));
  r.telemetry = read_telemetry(at(root, {"telemetry"}));
  r.log_dir = text(at(root, {"output", "log_dir"}));
  r.infra_dedicated_node = boolean(at(root, {"infra", "etcd_nats_dedicated_node"}), false);
}

}  // namespace srt::recipe_detail
