// srt-slurm 2.x's `schema: 2` layout normalized into the v1 fields, as srtctl 2.0 does before its
// marshmallow validation (core/config.py resolve_config_with_defaults: expand_roles ->
// expand_placement -> expand_services; SemiAnalysisAI/srt-slurm 32ef19f7). The result is the
// v1-shaped Document extract() and check_rules() read: one model, two spellings. Every v1 path it
// writes is aliased to the schema-2 path it came from, so later diagnostics name what the user wrote.
#include <algorithm>
#include <array>
#include <set>
#include <string_view>
#include <utility>

#include "extract.hpp"
#include "schema2_names.hpp"
#include "srt/restart_policy.hpp"

namespace srt::recipe_detail {
namespace {

std::string text_of(const Json* v) { return v && v->is_string() ? v->get<std::string>() : std::string(); }

class Normalizer {
 public:
  // The recipe is owned (moved in) and nothing is copied that can be moved: a schema-2 recipe must
  // cost no more to load than its v1 spelling (docs/performance.md). The output starts as the input
  // without the four schema-2 sections (schema, engine, roles, services), which stay in in_ and are
  // written as v1 keys; every other section is moved to out_ and read there, except backend, a v1
  // section a schema-2 recipe rarely has, which in_ keeps a copy of: the checks against it ("cannot
  // be combined with backend.X") must see what the user wrote, not what engine() and roles() add to
  // out_'s. engine() and to_backend move the engine's keys and each role's env and args (the bulk)
  // into place.
  Normalizer(Document&& in, bool current, schema::Issues& issues, std::vector<std::string>& unsupported,
             RoleOverrides& per_role)
      : in_(std::move(in)), current_(current), issues_(issues), unsupported_(unsupported), per_role_(per_role) {
    out_.file = in_.file;  // marks, warnings and overrides: moved over once the last diagnostic on in_ is made (run())
    out_.aliases.reserve(32);
    if (!in_.root.is_object()) {
      out_.root = in_.root;
      return;
    }
    out_.root = object_of_capacity(in_.root.size() + 4);  // + backend, resources, infra, dynamo
    auto& out = out_.root.get_ref<Json::object_t&>();     // the input's keys are unique: appended, not looked up
    for (auto it = in_.root.begin(); it != in_.root.end(); ++it)
      if (it.key() == "backend") out.emplace_back(it.key(), it.value());
      else if (it.key() != "schema" && it.key() != "engine" && it.key() != "roles" && it.key() != "services")
        out.emplace_back(it.key(), std::move(it.value()));
  }

  Document run() {
    if (current_)
      for (const auto& [path, v2] : legacy_keys(out_.root))
        error(path, "is a v1 key; --current-schema refuses it (srtctl's require_current_schema)",
              "write " + v2 + " instead (srtctl migrate rewrites it)");
    engine();
    type_config_ = type_ + "_config";
    roles();
    placement("frontend", {"orchestrator_placement", "dedicated_node"}, "dedicated_node");
    placement("benchmark", {"client_placement", "client_dedicated_node"}, "client_dedicated_node");
    services();
    telemetry();
    frontend_type();
    if (const Json* infra = get(out_.root, "infra"); infra && get(*infra, "placement"))
      error("infra.placement", "is not a thing in srt-slurm 2.x (srtctl 2.0 core/placement.py)",
            "place etcd and NATS as services: [{name: etcd, type: etcd, placement: {node: dedicated}}, {name: nats, type: nats, ...}]");
    if (out_.root.contains("infra") && out_.root["infra"].is_object()) out_.root["infra"].erase("placement");
    // The marks are the file's (schema-2 paths); a v1 path finds its mark through out_.aliases
    // (Document::mark_of). From here on diagnostics are made on out_.
    out_.marks = std::move(in_.marks);
    out_.warnings = std::move(in_.warnings);
    out_.overrides = std::move(in_.overrides);
    check_backend();
    return std::move(out_);
  }

 private:
  void error(const std::string& path, std::string message, std::string hint = {}) {
    if (issues_.bad(path)) return;
    issues_.error(in_.at(path, std::move(message), std::move(hint)));
  }

  // v1 path <- schema-2 path: diagnostics on it (and its mark) are the schema-2 path's.
  void alias(const Alias& a) { out_.aliases.push_back(a); }
  void alias(std::string v1, std::string v2) { out_.aliases.emplace_back(std::move(v1), std::move(v2)); }

  // A v1 section the normalizer writes. Made at a capacity that holds what roles() and engine()
  // put in backend or resources for three roles (each role's size keys, environment, config and
  // events: about a dozen), so that growing it never deep-copies the keys already there.
  static constexpr std::size_t kSectionCapacity = 16;
  Json& slot(const std::string& section) {
    if (Json* s = get(out_.root, section); s && s->is_object()) return *s;
    return put(out_.root, section, object_of_capacity(kSectionCapacity));
  }

  // The first role's engine, when the recipe has no top-level one (srtctl v2.18: "set on every
  // role when no top-level engine is declared"); engine_path_ then names it.
  Json* lift_role_engine() {
    Json* roles = get(in_.root, "roles");
    for (const RoleNames& n : role_names()) {
      Json* r = roles ? get(*roles, n.role) : nullptr;
      Json* e = r ? get(*r, "engine") : nullptr;
      if (!e) continue;
      engine_path_ = n.path + ".engine";
      if (!e->is_string() && !e->is_object()) {
        error(engine_path_, "must be an engine name or a mapping {type, engine options}", "write engine: sglang, for example");
        return nullptr;
      }
      lifted_engine_ = *e;  // the other roles must say the same (role_engine)
      return e;
    }
    return nullptr;
  }

  void engine() {
    Json* e = get(in_.root, "engine");
    const bool lifted = !e && (e = lift_role_engine()) != nullptr;
    const std::string& base = engine_path_;
    const Json* legacy = get(in_.root, "backend");
    const std::string legacy_type = legacy ? text_of(get(*legacy, "type")) : std::string();
    if (!e || issues_.bad(base)) {
      type_ = legacy_type.empty() ? "sglang" : legacy_type;  // srtctl's BackendConfigField default
      return;
    }
    std::string type = "sglang", type_path = base;
    Json& b = slot("backend");
    if (e->is_string()) {
      type = e->get<std::string>();
    } else if (e->is_object()) {
      if (e->contains("type")) type = text_of(get(*e, "type")), type_path = base + ".type";
      for (auto it = e->begin(); it != e->end(); ++it) {
        if (it.key() == "type" || issues_.bad(base + "." + it.key())) continue;
        // A role's engine was kept as written by the schema-2 table: its keys are checked as the
        // v1 backend's (check_backend), at their own lines.
        if (lifted) written(it.key());
        put(b, it.key(), std::move(it.value()));  // in_ is ours and nothing reads engine's keys again
        alias("backend." + it.key(), base + "." + it.key());
      }
    }
    if (lifted) written("type");
    if (!legacy_type.empty() && legacy_type != type)
      error(type_path, "engine '" + type + "' conflicts with backend.type '" + legacy_type + "'",
            "keep one of them (srtctl 2.0 core/config.py)");
    put(b, "type", type);
    alias("backend.type", type_path);
    type_ = type;
  }

  void roles() {
    Json* roles = get(in_.root, "roles");
    if (!roles || !roles->is_object()) return;
    std::vector<std::pair<std::string, std::string>> sizes;
    legacy_resources(out_.root, sizes, false);
    for (const auto& [path, v2] : sizes)
      error(path, "cannot be combined with roles: (srtctl 2.0 expand_roles writes it)", "write " + v2 + " instead");
    // Both sections exist before either reference is taken: Json is an ordered_json, whose object
    // is a vector, so adding "backend" to the root could move "resources" and leave `res`
    // dangling (fuzz.plan found it). Nothing below adds a key to the root until the loop ends.
    slot("resources"), slot("backend");
    Json& res = slot("resources");
    Json& backend = slot("backend");
    const Json* legacy = get(in_.root, "backend");
    std::optional<bool> sidecar;
    std::string sidecar_path;
    bool colocate = false;
    Json kept = Json::object();  // roles.<role>.{container,srun_options}, put in out_ after the loop
    for (const RoleNames& n : role_names()) {
      Json* r = get(*roles, n.role);
      if (!r || !r->is_object()) continue;
      alias(n.nodes), alias(n.workers), alias(n.gpus);
      if (const Json* v = get(*r, "nodes"); v && !issues_.bad(n.nodes.second)) {
        auto count = v->is_boolean() ? std::nullopt : schema::as_integer(*v);
        if (v->is_string() && v->get_ref<const std::string&>() == "colocate") {
          if (n.role != "decode")
            error(n.nodes.second, "colocate is only for roles.decode.nodes (decode shares the prefill nodes)",
                  "give a positive number of nodes");
          else put(res, n.nodes_key, 0), colocate = true;
        } else if (count && *count >= 1) {
          put(res, n.nodes_key, *count);
        } else {
          error(n.nodes.second, "must be a positive number" + std::string(n.role == "decode" ? " or colocate" : "") + ", got " +
                                    (v->is_string() ? "'" + v->get<std::string>() + "'" : python_str(*v)),
                n.role == "decode" && count && *count == 0 ? "write colocate to put decode on the prefill nodes (v1: decode_nodes: 0)"
                                                           : "");
        }
      }
      if (const Json* v = get(*r, "workers")) put(res, n.workers_key, *v);
      if (const Json* v = get(*r, "gpus")) put(res, n.gpus_key, *v);
      if (const Json* c = get(*r, "critical")) put(res, n.critical_key, *c), alias(n.critical);
      if (const Json* v = get(*r, "restart")) {
        std::vector<RestartPolicyProblem> problems;
        const auto policy = parse_restart_policy(*v, problems);
        for (const auto& p : problems) error(n.path + ".restart" + (p.key.empty() ? "" : "." + p.key), p.message, p.hint);
        if (policy && policy->enabled()) per_role_.restart[n.role] = *policy;
      }
      // srtctl v2.18's role image and per-role srun options: v1 has no spelling for them, so they
      // stay in the normalized document as roles.<role>.{container,srun_options} (their marks and
      // paths are the file's), where extract() reads them and check_safe_text() checks the option
      // names as it does the recipe's own.
      if (const Json* c = get(*r, "container");
          c && c->is_string() && c->get_ref<const std::string&>().find_first_not_of(" \t") == std::string::npos)
        error(n.path + ".container", "is empty", "name an image or a cluster profile alias, or drop the key (model.container is the default)");
      for (const char* key : {"container", "srun_options"})
        if (Json* v = get(*r, key)) kept[n.role][key] = std::move(*v);
      to_backend(*r, n, "env", n.env_key, nullptr, legacy, [&] { alias(n.env); });
      to_backend(*r, n, "args", type_config_, &n.mode, legacy, [&] { alias("backend." + type_config_ + "." + n.mode, n.args); });
      if (get(*r, "extra_args")) {
        if (type_ == "trtllm") to_backend(*r, n, "extra_args", n.extra_key, nullptr, legacy, [&] { alias(n.extra); });
        else unsupported_.push_back(n.path + ".extra_args");
      }
      if (const Json* k = get(*r, "kv_events")) {
        if (legacy && get(*legacy, "kv_events_config") && (*legacy)["kv_events_config"].is_boolean())
          error(n.kv_events_config.second, "cannot be combined with a boolean backend.kv_events_config", "give kv_events per role only");
        if (type_ == "atom") {
          if (schema::as_boolean(*k).value_or(false))
            put(backend, "enable_kv_events", true), alias(n.enable_kv_events), written("enable_kv_events");
        } else {
          Json* events = get(backend, "kv_events_config");
          if (!events || !events->is_object()) {
            // The mapping itself is the first role's too: an engine without KV-event settings
            // (mocker) refuses it whole, and that diagnostic names the line it came from.
            events = &put(backend, "kv_events_config", Json::object());
            alias("backend.kv_events_config", n.kv_events_config.second);
          }
          put(*events, n.mode, *k);
          alias(n.kv_events_config), written("kv_events_config");
        }
      }
      role_engine(*r, n);
      if (const Json* s = get(*r, "sidecar")) {
        const bool v = schema::as_boolean(*s).value_or(false);
        if (sidecar && *sidecar != v)
          error(n.path + ".sidecar", "disagrees with " + sidecar_path, "the Dynamo sidecar is on for every role or none");
        sidecar = v, sidecar_path = n.path + ".sidecar";
      }
    }
    if (sidecar) put(slot("dynamo"), "sidecar", *sidecar);
    if (colocate) {
      const Json* prefill = get(std::as_const(*roles), "prefill");
      const Json* pg = prefill ? get(*prefill, "gpus") : nullptr;
      const Json* decode = get(std::as_const(*roles), "decode");
      const Json* dg = decode ? get(*decode, "gpus") : nullptr;
      if (!pg || !dg)
        error("roles.decode.nodes", "colocate needs gpus on both roles.prefill and roles.decode",
              "set roles.prefill.gpus and roles.decode.gpus (srtctl 2.0 core/roles.py)");
    }
    if (!kept.empty()) put(out_.root, "roles", std::move(kept));  // res and backend are not used past the loop
  }

  // roles.<role>.engine beside the recipe's engine (engine_path_, set by engine()).
  void role_engine(const Json& role, const RoleNames& n) {
    const Json* e = get(role, "engine");
    const std::string here = n.path + ".engine";
    if (!e) {
      if (engine_path_ != "engine")
        error(n.path, "names no engine while " + engine_path_ + " does: with no top-level engine every role names its own",
              "add the same engine: to " + n.path + ", or write one top-level engine: (srtctl v2.18 core/roles.py)");
      return;
    }
    if (here == engine_path_ || issues_.bad(here)) return;
    if (engine_path_ == "engine") {
      if (!e->is_string())
        error(here, "cannot be combined with the top-level engine (srtctl takes one form or the other)",
              "drop " + here + ", or move engine: into every role");
      else if (e->get_ref<const std::string&>() != type_)
        error(here, "roles." + n.role + ".engine '" + e->get<std::string>() + "' differs from the recipe's engine '" + type_ + "'",
              "every role runs the same engine (srtctl 2.0 core/roles.py)");
    } else if (*e != lifted_engine_) {
      error(here, "differs from " + engine_path_ + ": srt-spank runs one engine, with one set of engine options, per job",
            "give every role the same engine: value, or write it once as the top-level engine:");
    }
  }

  // roles.<role>.<key> -> backend.<head>, or backend.<head>.<sub> ("atom_config" . "prefill"); then
  // `aliased` records where it came from.
  template <typename Aliased>
  void to_backend(Json& role, const RoleNames& n, const char* key, const std::string& head, const std::string* sub,
                  const Json* legacy, Aliased aliased) {
    // `role` is in in_, which this class owns: the value is moved out (nothing reads it again).
    Json* v = get(role, key);
    if (!v) return;
    if (legacy && get(*legacy, head) && (!sub || get((*legacy)[head], *sub))) {
      const std::string p = n.path + "." + key;
      return error(p, "cannot be combined with backend." + head + (sub ? "." + *sub : "") + " (srtctl 2.0 expand_roles writes it)",
                   "keep " + p + " only");
    }
    Json& b = slot("backend");
    written(head);
    if (!sub) {
      put(b, head, std::move(*v));
    } else {
      Json* h = get(b, head);
      if (!h || !h->is_object()) h = &put(b, head, object_of_capacity(3));  // prefill, decode, aggregated
      put(*h, *sub, std::move(*v));
    }
    aliased();
  }

  // <section>.placement.node -> the v1 dedicated flag (srtctl 2.0 core/placement.py expand_placement).
  void placement(const std::string& section, std::vector<std::string> legacy, const std::string& flag) {
    Json* s = get(out_.root, section);
    const Json* pl = s ? get(*s, "placement") : nullptr;
    if (!pl) return;
    for (const auto& k : legacy)
      if (get(*s, k))
        error(section + "." + k, "cannot be combined with " + section + ".placement (srtctl 2.0 expand_placement)",
              "keep " + section + ".placement.node only");
    const bool dedicated = text_of(get(*pl, "node")) == "dedicated";
    s->erase("placement");  // pl dangles from here
    if (dedicated && !issues_.bad(section + ".placement")) {
      out_.root[section][flag] = true;
      alias(section + "." + flag, section + ".placement.node");
    }
  }

  void services() {
    const Json* list = get(in_.root, "services");
    if (!list || !list->is_array()) return;
    std::optional<bool> infra_dedicated;
    std::string infra_path, master_path;
    std::set<std::string> names;  // the generic services' (the others are named by their kind)
    const std::set<std::string> known = {"generic", "etcd", "nats", "mooncake-master", "mooncake-store"};
    for (std::size_t i = 0; i < list->size(); ++i) {
      const Json& s = (*list)[i];
      const std::string p = index_path("services", i);
      if (!s.is_object() || issues_.bad(p + ".type")) continue;
      if (get(s, "enabled") && !schema::as_boolean(s["enabled"]).value_or(true)) continue;  // drops the service
      const std::string type = get(s, "type") ? text_of(get(s, "type")) : "generic";
      const Json* pl = get(s, "placement");
      const std::string node = pl ? text_of(get(*pl, "node")) : std::string();
      const bool infra_kind = type == "etcd" || type == "nats" || type == "mooncake-master";
      check_service(s, p, in_, issues_, unsupported_, names);
      if (!known.count(type))
        issues_.warnings.push_back(in_.at(p + ".type", "service type '" + type + "' is not one srtctl 2.0 names (exporter kinds are UNCONFIRMED); accepted"));
      const Json* opts = get(s, "options");
      if (opts && opts->is_object())
        for (auto it = opts->begin(); it != opts->end(); ++it) {
          const bool ok = (type == "nats" && it.key() == "max_payload_mb") || (type == "mooncake-master" && it.key() == "store_config") ||
                          !infra_kind;
          if (!ok) error(p + ".options." + it.key(), "is not an option of a " + type + " service",
                         type == "nats" ? "nats takes max_payload_mb" : type == "mooncake-master" ? "mooncake-master takes store_config" : "etcd takes none");
        }
      if (type == "etcd" || type == "nats") {
        const bool dedicated = node == "dedicated";
        if (infra_dedicated && *infra_dedicated != dedicated)
          error(p + ".placement.node", "etcd and nats disagree on dedicated: they share the infra node",
                "place both on dedicated, or neither (services/normalize.py)");
        if (!infra_dedicated) infra_path = p;
        infra_dedicated = dedicated;
        if (dedicated) slot("infra")["etcd_nats_dedicated_node"] = true, alias("infra.etcd_nats_dedicated_node", p + ".placement.node");
        if (type == "nats" && opts && get(*opts, "max_payload_mb"))
          slot("infra")["nats_max_payload_mb"] = (*opts)["max_payload_mb"], alias("infra.nats_max_payload_mb", p + ".options.max_payload_mb");
      } else if (type == "mooncake-master") {
        const Json* legacy = get(in_.root, "backend");
        if (!master_path.empty()) error(p, "is a second mooncake-master service (first: " + master_path + ")", "keep one");
        else if (legacy && get(*legacy, "mooncake_kv_store"))
          error(p, "cannot be combined with backend.mooncake_kv_store", "keep the service only");
        if (master_path.empty()) master_path = p;
        Json store = Json::object();
        if (get(s, "container")) store["container"] = s["container"];
        if (get(s, "env")) store["env"] = s["env"];
        if (get(s, "args")) store["master_extra_args"] = s["args"];
        if (opts && get(*opts, "store_config")) store["store_config"] = (*opts)["store_config"];
        slot("backend")["mooncake_kv_store"] = store;
        written("mooncake_kv_store");
        alias("backend.mooncake_kv_store", p);
      } else if (type != "generic") {
        unsupported_.push_back(p + ".type=" + type);  // mooncake-store, the exporter kinds
      }
    }
    // Kept whole, at the file's paths (their marks): extract() reads the generic ones.
    out_.root["services"] = *list;
  }


  // InferenceX RECIPES.md says v2.2.1 refuses telemetry with a dedicated infra node; not seen in
  // srtctl's code (UNCONFIRMED), so a warning rather than an error.
  void telemetry() {
    const Json* t = get(out_.root, "telemetry");
    const Json* infra = get(out_.root, "infra");
    if (!t || (t->is_object() && get(*t, "enabled") && !schema::as_boolean((*t)["enabled"]).value_or(true))) return;
    if (infra && get(*infra, "etcd_nats_dedicated_node") && schema::as_boolean((*infra)["etcd_nats_dedicated_node"]).value_or(false))
      issues_.warnings.push_back(in_.at("telemetry", "srt-slurm v2.2.1 is said to refuse telemetry with a dedicated etcd/NATS node (InferenceX RECIPES.md; UNCONFIRMED in srtctl's code)",
                                        "drop one of them if srtctl refuses the recipe"));
  }

  // NVIDIA/srt-slurm PR #436 (in v2.2.1): under schema 2, frontend.type: sglang is a direct worker,
  // not the router.
  void frontend_type() {
    const Json* f = get(out_.root, "frontend");
    if (!f || text_of(get(*f, "type")) != "sglang" || issues_.bad("frontend.type")) return;
    out_.root["frontend"]["type"] = "sglang-direct";  // not the v1 router of that name
    const Json* roles = get(in_.root, "roles");
    const bool disagg = roles && (get(*roles, "prefill") || get(*roles, "decode"));
    const Json* agg = roles ? get(*roles, "agg") : nullptr;
    const Json* workers = agg ? get(*agg, "workers") : nullptr;
    if (disagg || (workers && schema::as_integer(*workers).value_or(1) != 1))
      error("frontend.type", "frontend.type: sglang under schema 2 is a direct worker: exactly one agg worker, no disaggregation",
            "use frontend.type: sglang-router for a router (srt-slurm #436)");
  }

  // The per-role parts landed in backend.*: checked as the v1 fields they now are, per engine.
  // The engine's own keys were checked as engine.* by the schema-2 table, so only what roles()
  // and services() wrote is walked here, unless the recipe also has a v1 backend: its keys are
  // checked nowhere else.
  void check_backend() {
    const Json* b = get(out_.root, "backend");
    if (!b) return;
    const schema::Field& root = schema::recipe_schema();
    const schema::Field& field = *schema::find_field(root, "backend");
    std::vector<std::string> found;
    if (get(in_.root, "backend")) schema::check_value(out_, root, field, *b, "backend", issues_, found);
    else schema::check_keys(out_, root, field, type_, *b, "backend", written_, issues_, found);
    for (auto& u : found) unsupported_.push_back(std::move(u));
  }

  // backend.<key> was written from a role or a service (checked by check_backend).
  void written(const std::string& key) {
    if (std::find(written_.begin(), written_.end(), key) == written_.end()) written_.push_back(key);
  }

  Document in_;
  Document out_;
  bool current_;
  schema::Issues& issues_;
  std::vector<std::string>& unsupported_;
  RoleOverrides& per_role_;  // the roles' enabled restart policies (Recipe::per_role)
  std::string type_ = "sglang";
  std::string engine_path_ = "engine";  // where the engine is written: engine, or roles.<role>.engine
  Json lifted_engine_;                  // a role's engine as written, when it is the recipe's
  std::string type_config_;  // backend.<engine>_config, from type_ once engine() has set it
  std::vector<std::string> written_;
};

}  // namespace

Document normalize_v2(Document doc, bool current_schema, schema::Issues& issues, std::vector<std::string>& unsupported,
                      RoleOverrides& per_role) {
  return Normalizer(std::move(doc), current_schema, issues, unsupported, per_role).run();
}

}  // namespace srt::recipe_detail
