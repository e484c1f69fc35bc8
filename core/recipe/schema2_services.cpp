// One entry of a recipe's `services:` list (srtctl v2.18 ServiceConfig), in either layout: srtctl's
// own rules for it, and for a generic service what srt-spank runs of it
// (jobstep/launch/machine_services.cpp) and what it cannot yet. Each of those is a "cannot launch"
// key, so that launch refuses the recipe rather than run it without them.
#include <regex>

#include "schema.hpp"
#include "schema2_names.hpp"
#include "srt/document.hpp"
#include "srt/readiness.hpp"

namespace srt::recipe_detail {
namespace {

std::string text_at(const Json& obj, const char* key) {
  const Json* v = get(obj, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

void error(const Document& doc, schema::Issues& issues, const std::string& path, std::string message, std::string hint = {}) {
  if (!issues.bad(path)) issues.error(doc.at(path, std::move(message), std::move(hint)));
}

void check_generic_service(const Json& s, const std::string& path, const Document& doc, schema::Issues& issues,
                           std::vector<std::string>& unsupported, std::set<std::string>& names) {
  // The name is the step's (service_<name>_<k>) and the log file's (service_<name>.out): a path
  // and a Slurm job name, so it stays a plain word.
  static const std::regex kName("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
  const std::string name = text_at(s, "name");
  if (!issues.bad(path + ".name")) {
    if (!std::regex_match(name, kName))
      issues.error(doc.at(path + ".name", "'" + name + "' cannot name a service's step and log file (service_<name>.out)",
                          "use letters, digits, '_', '.' and '-', starting with a letter or digit, at most 64"));
    else if (!names.insert(name).second)
      issues.error(doc.at(path + ".name", "'" + name + "' names two services", "give each service its own name"));
  }
  // Pools (nodes the service owns), terminal services and services built from a git source.
  for (const char* k : {"nodes", "terminal", "source", "build_command"})
    if (get(s, k)) unsupported.push_back(path + "." + k);
  if (const Json* pl = get(s, "placement"); pl && pl->is_object()) {
    if (get(*pl, "pool")) unsupported.push_back(path + ".placement.pool");
    if (text_at(*pl, "per") == "worker") unsupported.push_back(path + ".placement.per=worker");
  }
  if (const Json* r = get(s, "readiness"); r && r->is_object())
    if (const Json* log = get(*r, "log"); log && log->is_object())
      if (const Json* pattern = get(*log, "pattern"); pattern && pattern->is_string())
        if (const auto why = log_pattern_error(pattern->get<std::string>()))
          issues.error(doc.at(path + ".readiness.log.pattern", "is not a regular expression srt-spank can search for (" + *why + ")",
                              "write an ECMAScript (JavaScript) regular expression; a plain phrase works as it is"));
  const std::string start = text_at(s, "start");
  if (!start.empty() && start != "before_workers" && start != "after_frontend")
    unsupported.push_back(path + ".start=" + start);
  if (get(s, "metrics"))
    issues.warnings.push_back(doc.at(path + ".metrics", "srt-spank scrapes no service's metrics (srtctl's Tachometer); accepted",
                                     "scrape the endpoint yourself, or drop the key"));
}

}  // namespace

void check_service(const Json& s, const std::string& path, const Document& doc, schema::Issues& issues,
                   std::vector<std::string>& unsupported, std::set<std::string>& names) {
  const std::string type = get(s, "type") ? text_at(s, "type") : "generic";
  const Json* pl = get(s, "placement");
  const std::string node = pl ? text_at(*pl, "node") : std::string();
  const bool infra_kind = type == "etcd" || type == "nats" || type == "mooncake-master";
  if (node == "dedicated" && !infra_kind)
    error(doc, issues, path + ".placement.node", "dedicated is only for etcd, nats and mooncake-master services",
          "place it on head, infra, prefill, decode, agg, workers or all (services/config.py)");
  if (const Json* r = get(s, "readiness"); r && r->is_object()) {
    int probes = 0;
    for (const char* k : {"port", "tcp", "http", "log"}) probes += get(*r, k) ? 1 : 0;
    if (probes != 1)
      error(doc, issues, path + ".readiness", "needs exactly one probe (port, tcp, http or log), got " + std::to_string(probes),
            "keep one probe plus timeout_seconds/interval_seconds");
  }
  if (type == "generic" && !get(s, "command")) error(doc, issues, path + ".command", "is required for a generic service", "give its argv");
  if (get(s, "source") && !node.empty() && node != "head" && node != "infra" && node != "dedicated")
    error(doc, issues, path + ".placement.node", "a service with source: needs a single-node placement (head, infra or dedicated)");
  if (type == "generic") check_generic_service(s, path, doc, issues, unsupported, names);
}

// A v1-layout recipe's services (InferenceX's variants files put one in an override): srtctl 2.x
// loads them as a schema-2 recipe's. The v1 layout places etcd and NATS with `infra`, and the
// kinds other than generic stay cannot-launch keys here.
void check_v1_services(const Document& doc, schema::Issues& issues, std::vector<std::string>& unsupported) {
  const Json* list = get(doc.root, "services");
  if (!list || !list->is_array()) return;
  std::set<std::string> names;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const Json& s = (*list)[i];
    const std::string path = index_path("services", i);
    if (!s.is_object() || issues.bad(path + ".type")) continue;
    if (get(s, "enabled") && !schema::as_boolean(s["enabled"]).value_or(true)) continue;
    check_service(s, path, doc, issues, unsupported, names);
    const std::string type = get(s, "type") ? text_at(s, "type") : "generic";
    if (type != "generic") unsupported.push_back(path + ".type=" + type);
  }
}

}  // namespace srt::recipe_detail
