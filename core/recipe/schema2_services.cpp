// A schema-2 generic service (srtctl v2.18 ServiceConfig, type generic): what srt-spank runs of it
// (jobstep/launch/machine_services.cpp) and what it cannot yet. Each of those is a "cannot launch"
// key, so that launch refuses the recipe rather than run it without them.
#include <regex>

#include "schema.hpp"
#include "schema2_names.hpp"
#include "srt/readiness.hpp"

namespace srt::recipe_detail {
namespace {

std::string text_at(const Json& obj, const char* key) {
  const Json* v = get(obj, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

}  // namespace

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

}  // namespace srt::recipe_detail
