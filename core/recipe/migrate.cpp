// v1 -> schema 2, key by key as `srtctl migrate` rewrites a recipe
// (NVIDIA/srt-slurm src/srtctl/core/migrate.py @ 4733c5ee and docs/legacy-v1.md @ 17c4ece9),
// written as the exact inverse of schema2_normalize.cpp: each schema-2 key below is the one that
// reader turns back into the v1 key it came from, so the migrated recipe makes the same Plan
// (test_migrate.cpp).
#include "srt/migrate.hpp"

#include <set>

#include "extract.hpp"
#include "srt/variants.hpp"

namespace srt {
namespace {

using recipe_detail::detect_layout;
using recipe_detail::get;
using recipe_detail::mode_of;

const char* const kRoles[] = {"prefill", "decode", "agg"};

class Migrator {
 public:
  explicit Migrator(const Document& in) : in_(in), root_(in.root) {}

  Json run() {
    refuse_other_layouts();
    if (!errors_.empty()) throw Error(std::move(errors_));
    if (!root_.is_object()) fail_at("", "is not a mapping", "a recipe is a YAML mapping of keys");
    const Json* backend = get(root_, "backend");
    type_ = backend && get(*backend, "type") && (*backend)["type"].is_string() ? (*backend)["type"].get<std::string>() : "sglang";
    roles_from_resources();
    roles_from_backend();
    engine_from_backend();
    services_from_infra();
    sidecar();
    if (!errors_.empty()) throw Error(std::move(errors_));
    return assemble();
  }

 private:
  void error(const std::string& path, std::string message, std::string hint = {}) {
    errors_.push_back(in_.at(path, std::move(message), std::move(hint)));
  }
  void fail_at(const std::string& path, std::string message, std::string hint) {
    error(path, std::move(message), std::move(hint));
    throw Error(std::move(errors_));
  }
  void cannot(const std::string& path, const std::string& why, const std::string& hint) {
    error(path, "cannot be migrated to schema 2: " + why, hint);
  }

  void refuse_other_layouts() {
    if (is_variants_document(in_))
      return error("base", "is a variants file (base: + override_*); srt-helper migrate rewrites plain recipes only for now",
                   "migrate the recipe each variant expands to, or rewrite base: and each override_* by hand (srtctl migrate does the whole file)");
    schema::Issues issues;
    const int layout = detect_layout(in_, issues, false);
    for (auto& d : issues.errors) errors_.push_back(std::move(d));
    if (layout == 2)
      error(get(root_, "schema") ? "schema" : get(root_, "engine") ? "engine" : "roles",
            "is already srt-slurm's schema 2 layout; nothing to migrate", "srt-helper migrate reads a v1 recipe (no schema:, or schema: 1)");
  }

  Json& role(const std::string& name) {
    Json& r = roles_[name];
    if (!r.is_object()) r = Json::object();
    return r;
  }

  // resources.<role>_nodes/_workers, gpus_per_<role>, <role>_critical -> roles.<role>.nodes/workers/gpus/critical.
  void roles_from_resources() {
    const Json* res = get(root_, "resources");
    if (!res || !res->is_object()) return;
    for (const std::string r : kRoles) {
      for (const auto& [v1, v2] : std::vector<std::pair<std::string, std::string>>{
               {r + "_nodes", "nodes"}, {r + "_workers", "workers"}, {"gpus_per_" + r, "gpus"}, {r + "_critical", "critical"}}) {
        const Json* v = get(*res, v1);
        if (!v) continue;
        consumed_resources_.insert(v1);
        const auto n = v2 == "nodes" && !v->is_boolean() ? schema::as_integer(*v) : std::nullopt;
        if (n && *n == 0 && r == "decode") {
          role(r)["nodes"] = "colocate";  // 2.x spells "decode shares the prefill nodes" so (srtctl's core/roles.py)
          colocate_ = true;
        } else if (n && *n == 0) {
          cannot("resources." + v1, "schema 2 has no zero-node " + r + " role (roles." + r + ".nodes must be positive)",
                 "drop the key, or give the role its nodes");
        } else {
          role(r)[v2] = *v;
        }
      }
    }
    if (colocate_) materialize_colocated_gpus(*res);
  }

  // decode_nodes: 0 -> nodes: colocate needs gpus on both roles (schema2_normalize.cpp refuses it
  // otherwise); srtctl's migrate.py (newest) writes prefill = prefill_nodes x gpus_per_node /
  // prefill_workers and decode inherits it, as Resources::gpus_per_worker computes.
  void materialize_colocated_gpus(const Json& res) {
    role("prefill");  // both exist before references are taken (ordered_json is a vector)
    role("decode");
    Json& p = roles_["prefill"];
    Json& d = roles_["decode"];
    if (!p.contains("gpus")) {
      const auto nodes = get(res, "prefill_nodes") ? schema::as_integer(res["prefill_nodes"]) : std::nullopt;
      const auto workers = get(res, "prefill_workers") ? schema::as_integer(res["prefill_workers"]) : std::nullopt;
      const auto gpn = get(res, "gpus_per_node") ? schema::as_integer(res["gpus_per_node"]) : std::nullopt;
      if (!nodes || !workers || !gpn || *workers <= 0)
        return cannot("resources.decode_nodes", "colocate needs gpus on both roles, and they cannot be computed here",
                      "set resources.gpus_per_prefill (or gpus_per_node, prefill_nodes and prefill_workers) first");
      p["gpus"] = *nodes * *gpn / *workers;
    }
    if (!d.contains("gpus")) d["gpus"] = p["gpus"];
  }

  // backend.<mode>_environment -> env, backend.<type>_config.<mode> -> args,
  // backend.<mode>_extra_args -> extra_args, kv_events_config / ATOM's enable_kv_events -> kv_events.
  void roles_from_backend() {
    const Json* b = get(root_, "backend");
    if (!b || !b->is_object()) return;
    for (const std::string r : kRoles) {
      const std::string mode = mode_of(r);
      if (const Json* env = get(*b, mode + "_environment")) role(r)["env"] = *env, consumed_backend_.insert(mode + "_environment");
    }
    for (auto it = b->begin(); it != b->end(); ++it) {
      const std::string& k = it.key();
      if (k.size() <= 7 || k.compare(k.size() - 7, 7, "_config") != 0 || k == "kv_events_config") continue;
      consumed_backend_.insert(k);
      if (it->is_null()) continue;
      if (k != type_ + "_config") {
        cannot("backend." + k, "schema 2 has one engine per recipe and its flags go to roles.<role>.args; this is " + type_ + "'s recipe",
               "drop backend." + k + ", or set backend.type to " + k.substr(0, k.size() - 7));
        continue;
      }
      if (!it->is_object()) {
        cannot("backend." + k, "is not a mapping of prefill/decode/aggregated flags", "write {prefill: {...}, decode: {...}}");
        continue;
      }
      for (auto m = it->begin(); m != it->end(); ++m) {
        const std::string r = m.key() == "aggregated" ? "agg" : m.key();
        if (r != "prefill" && r != "decode" && r != "agg")
          cannot("backend." + k + "." + m.key(), "is not a worker mode", "use prefill, decode or aggregated");
        else if (!m->is_null())
          role(r)["args"] = *m;
      }
    }
    for (const std::string r : kRoles)
      if (const Json* x = get(*b, mode_of(r) + "_extra_args")) role(r)["extra_args"] = *x, consumed_backend_.insert(mode_of(r) + "_extra_args");
    kv_events(*b);
  }

  void kv_events(const Json& b) {
    // ATOM: one engine-wide switch in v1; 2.x (the fork's spelling) gives it per role, and
    // schema2_normalize.cpp turns any true roles.<role>.kv_events back into backend.enable_kv_events.
    if (type_ == "atom" && get(b, "enable_kv_events")) {
      consumed_backend_.insert("enable_kv_events");
      if (roles_.empty()) return keep_in_engine_.insert("enable_kv_events"), void();
      for (auto& [name, r] : roles_.items()) r["kv_events"] = b["enable_kv_events"];
    }
    const Json* k = get(b, "kv_events_config");
    if (!k) return;
    consumed_backend_.insert("kv_events_config");
    if (k->is_boolean()) {
      // docs/legacy-v1.md: true expands to prefill + decode, plus agg on SGLang.
      bool placed = false;
      for (const std::string r : kRoles)
        if (roles_.contains(r) && (r != "agg" || type_ == "sglang")) roles_[r]["kv_events"] = *k, placed = true;
      if (!placed && k->get<bool>())
        cannot("backend.kv_events_config", "no role of this recipe takes it (aggregated " + type_ + " workers have no per-role KV events in 2.x)",
               "drop it, or give the role sizes in resources first");
      return;
    }
    if (!k->is_object()) return cannot("backend.kv_events_config", "is neither a boolean nor a per-mode mapping", "write true, or {prefill: {...}, decode: {...}}");
    for (auto it = k->begin(); it != k->end(); ++it) {
      const std::string r = it.key() == "aggregated" ? "agg" : it.key();
      if (r != "prefill" && r != "decode" && r != "agg")
        cannot("backend.kv_events_config." + it.key(), "is not a worker mode", "use prefill, decode or aggregated");
      else
        role(r)["kv_events"] = it.value();
    }
  }

  // backend.type + every engine-wide knob -> engine: (a bare string when nothing else is left).
  void engine_from_backend() {
    const Json* b = get(root_, "backend");
    if (!b) return;
    if (!b->is_object()) return cannot("backend", "is not a mapping", "write backend: {type: ...}");
    Json e = Json::object();
    e["type"] = type_;
    for (auto it = b->begin(); it != b->end(); ++it) {
      const std::string& k = it.key();
      if (k == "type" || (consumed_backend_.count(k) && !keep_in_engine_.count(k))) continue;
      if (k == "mooncake_kv_store") {
        mooncake(*it);
        continue;
      }
      e[k] = *it;
    }
    engine_ = e.size() == 1 ? Json(type_) : e;
  }

  // backend.mooncake_kv_store -> a mooncake-master service (srtctl's services/normalize.py reads it
  // back: container, env, args <- master_extra_args, options.store_config).
  void mooncake(const Json& store) {
    if (store.is_null()) return;
    if (!store.is_object()) return cannot("backend.mooncake_kv_store", "is not a mapping", "write {container: ..., ...}");
    Json s = {{"name", "mooncake-master"}, {"type", "mooncake-master"}};
    for (auto it = store.begin(); it != store.end(); ++it) {
      const std::string& k = it.key();
      if (k == "container" || k == "env") s[k] = *it;
      else if (k == "master_extra_args") s["args"] = *it;
      else if (k == "store_config") s["options"] = {{"store_config", *it}};
      else cannot("backend.mooncake_kv_store." + k, "a mooncake-master service has no such field", "drop it");
    }
    mooncake_ = s;
  }

  // infra.etcd_nats_dedicated_node: true -> etcd + nats services on a dedicated node (a false is
  // dropped: the default); infra.nats_max_payload_mb -> the nats service's options.max_payload_mb.
  void services_from_infra() {
    const Json* infra = get(root_, "infra");
    if (!infra) return;
    if (!infra->is_object()) return cannot("infra", "is not a mapping", "write infra: {etcd_nats_dedicated_node: true}");
    bool dedicated = false;
    const Json* payload = nullptr;
    for (auto it = infra->begin(); it != infra->end(); ++it) {
      if (it.key() == "etcd_nats_dedicated_node") dedicated = schema::as_boolean(*it).value_or(false);
      else if (it.key() == "nats_max_payload_mb") payload = it->is_null() ? nullptr : &*it;
      else cannot("infra." + it.key(), "2.x's etcd/nats services have no such field", "drop it, or set it on the service by hand");
    }
    Json place = {{"node", "dedicated"}};
    if (dedicated) infra_services_.push_back({{"name", "etcd"}, {"type", "etcd"}, {"placement", place}});
    if (dedicated || payload) {
      Json nats = {{"name", "nats"}, {"type", "nats"}};
      if (dedicated) nats["placement"] = place;
      if (payload) nats["options"] = {{"max_payload_mb", *payload}};
      infra_services_.push_back(nats);
    }
  }

  // dynamo.sidecar: true -> roles.*.sidecar (docs/legacy-v1.md: must agree across roles).
  void sidecar() {
    const Json* d = get(root_, "dynamo");
    if (!d || !get(*d, "sidecar") || roles_.empty()) return;
    for (auto& [name, r] : roles_.items()) r["sidecar"] = (*d)["sidecar"];
    sidecar_moved_ = true;
  }

  Json frontend(const Json& f) {
    Json out = Json::object();
    if (!f.is_object()) return f;
    const Json* op = get(f, "orchestrator_placement");
    const bool dedicated = get(f, "dedicated_node") && schema::as_boolean(f["dedicated_node"]).value_or(false);
    if (op && dedicated)
      error("frontend.dedicated_node", "cannot be migrated together with frontend.orchestrator_placement: both become frontend.placement.node",
            "keep one of them");
    for (auto it = f.begin(); it != f.end(); ++it) {
      const std::string& k = it.key();
      if (k == "orchestrator_placement" || k == "dedicated_node") {
        if (k == "orchestrator_placement" && op) out["placement"] = {{"node", *op}};
        else if (k == "dedicated_node" && dedicated && !op) out["placement"] = {{"node", "dedicated"}};
        continue;
      }
      // NVIDIA/srt-slurm PR #436: v1's sglang frontend is the router; schema 2's sglang is a direct
      // worker.
      out[k] = k == "type" && it->is_string() && it->get<std::string>() == "sglang" ? Json("sglang-router") : *it;
    }
    return out;
  }

  Json benchmark(const Json& b) {
    if (!b.is_object()) return b;
    Json out = Json::object();
    const Json* cp = get(b, "client_placement");
    const bool dedicated = get(b, "client_dedicated_node") && schema::as_boolean(b["client_dedicated_node"]).value_or(false);
    if (cp && dedicated)
      error("benchmark.client_dedicated_node", "cannot be migrated together with benchmark.client_placement: both become benchmark.placement.node",
            "keep one of them");
    for (auto it = b.begin(); it != b.end(); ++it) {
      const std::string& k = it.key();
      if (k == "client_placement" && cp) out["placement"] = {{"node", *cp}};
      else if (k == "client_dedicated_node") {
        if (dedicated && !cp) out["placement"] = {{"node", "dedicated"}};
      } else if (k != "client_placement") out[k] = *it;
    }
    return out;
  }

  // dynamo.version/wheel/cargo_patches -> dynamo.source.pypi/wheel/patches (docs/legacy-v1.md).
  Json dynamo(const Json& d) {
    if (!d.is_object()) return d;
    Json out = Json::object();
    for (auto it = d.begin(); it != d.end(); ++it) {
      const std::string& k = it.key();
      const std::string to = k == "version" ? "pypi" : k == "wheel" ? "wheel" : k == "cargo_patches" ? "patches" : "";
      if (!to.empty()) {
        if (!out["source"].is_object()) out["source"] = Json::object();
        out["source"][to] = *it;
      } else if (k == "hash") {
        // 2.x wants git + rev; which repository srtctl migrate writes is not in the note (UNCONFIRMED).
        cannot("dynamo.hash", "2.x names a commit as dynamo.source: {git: <repository>, rev: <commit>}", "write that by hand");
      } else if (!(k == "sidecar" && sidecar_moved_)) {
        out[k] = *it;
      }
    }
    return out;
  }

  Json assemble() {
    Json out = Json::object();
    out["schema"] = 2;
    Json services = infra_services_;
    if (!mooncake_.is_null()) services.push_back(mooncake_);
    bool roles_done = roles_.empty(), services_done = services.empty();
    auto put_roles = [&] {
      if (!roles_done) out["roles"] = roles_, roles_done = true;
    };
    auto put_services = [&] {
      if (!services_done) out["services"] = services, services_done = true;
    };
    for (auto it = root_.begin(); it != root_.end(); ++it) {
      const std::string& k = it.key();
      if (k == "schema") continue;
      if (k == "resources" && it->is_object()) {
        Json kept = Json::object();
        for (auto r = it->begin(); r != it->end(); ++r)
          if (!consumed_resources_.count(r.key())) kept[r.key()] = *r;
        if (!kept.empty()) out[k] = kept;
        if (!get(root_, "backend")) put_roles();
      } else if (k == "backend") {
        if (!engine_.is_null()) out["engine"] = engine_;
        put_roles();
        if (!get(root_, "infra")) put_services();
      } else if (k == "infra") {
        put_services();
      } else if (k == "frontend") {
        out[k] = frontend(*it);
      } else if (k == "benchmark") {
        out[k] = benchmark(*it);
      } else if (k == "dynamo") {
        Json d = dynamo(*it);
        if (!d.is_object() || !d.empty()) out[k] = d;
      } else {
        out[k] = *it;
      }
    }
    put_roles();
    put_services();
    if (!errors_.empty()) throw Error(std::move(errors_));
    return out;
  }

  const Document& in_;
  const Json& root_;
  std::vector<Diagnostic> errors_;
  std::string type_ = "sglang";
  Json roles_ = Json::object();
  Json engine_;
  Json mooncake_;
  Json infra_services_ = Json::array();
  std::set<std::string> consumed_resources_, consumed_backend_, keep_in_engine_;
  bool colocate_ = false, sidecar_moved_ = false;
};

}  // namespace

Json migrate_to_schema2(const Document& v1) { return Migrator(v1).run(); }

std::string migrate_to_schema2_yaml(const Document& v1, const std::string& source) {
  std::string shown = source;
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';  // the name stays on the comment line
  const Json migrated = migrate_to_schema2(v1);
  return emit_yaml(migrated, "migrated from " + shown + " by srt-helper migrate (v1 -> schema 2); comments of the original are not kept");
}

}  // namespace srt
