#include "srt/host_setup.hpp"

#include "schema.hpp"
#include "srt/join.hpp"

namespace srt {

namespace schema {

Field host_setup_field(std::string key, std::string doc) {
  return object(std::move(key),
                field_list(make("commands", Kind::string_list,
                                "shell commands run in order on each node's host, joined with &&"),
                           make("teardown", Kind::string_list,
                                "shell commands run on each node after the workers stop, on every path"),
                           str("nodes", "all: every node of the job; workers: the nodes with workers")
                               .one_of({"all", "workers"})
                               .def("all"),
                           boolean("ignore_failure", "a node whose commands fail is a warning, not the job's end")
                               .def("false"),
                           integer("timeout_seconds", "per node, for the commands and for the teardown")
                               .range(1, 7 * 24 * 3600)
                               .def("300")),
                std::move(doc));
}

}  // namespace schema

HostSetup read_host_setup(const Json* block) {
  HostSetup h;
  if (!block || !block->is_object()) return h;
  h.given = true;
  const auto list = [block](const char* key, std::vector<std::string>& out) {
    if (const auto it = block->find(key); it != block->end() && it->is_array())
      for (const auto& x : *it) out.push_back(python_str(x));
  };
  list("commands", h.commands);
  list("teardown", h.teardown);
  if (const auto it = block->find("nodes"); it != block->end() && it->is_string()) h.nodes = it->get<std::string>();
  if (const auto it = block->find("ignore_failure"); it != block->end())
    if (const auto b = schema::as_boolean(*it)) h.ignore_failure = *b;
  if (const auto it = block->find("timeout_seconds"); it != block->end())
    if (const auto n = schema::as_integer(*it); n && *n > 0 && *n <= 7 * 24 * 3600) h.timeout_seconds = static_cast<int>(*n);
  return h;
}

const HostSetup& effective_host_setup(const Recipe& recipe, const Profile& profile) {
  return recipe.host_setup.given ? recipe.host_setup : profile.default_host_setup;
}

std::string host_setup_script(const std::vector<std::string>& commands) { return join(commands, " && "); }

}  // namespace srt
