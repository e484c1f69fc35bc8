// A recipe's generic services in the Plan (srtctl v2.18 ServiceConfig and ServicePlacementConfig):
// one process per node its placement names, in its own image, its readiness port claimed on that
// node before any worker's ports are handed out, so that the allocator goes around it and no port
// the job plans meets it (docs/running-recipes.md "Services").
#include <algorithm>
#include <set>

#include "processes.hpp"
#include "srt/error.hpp"

namespace srt::plan_detail {
namespace {

// "one instance per distinct physical node that role's workers use" (prefill, decode, agg), per
// engine worker node (workers; compute is the same while srt-spank has no pools), every node of
// the allocation (all), else one on the head or infra node. In the job's node order.
std::vector<int> placed_nodes(const Service& s, const NodeRoles& roles, const std::vector<Endpoint>& endpoints, int n) {
  if (s.node == "head") return {roles.head};
  if (s.node == "infra") return {roles.infra};  // dedicated is refused for a generic service
  std::set<int> out;
  if (s.node == "all")
    for (int i = 0; i < n; ++i) out.insert(i);
  for (const auto& e : endpoints) {
    if (s.node == "workers" || s.node == "compute" || s.node == to_string(e.mode)) out.insert(e.nodes.begin(), e.nodes.end());
  }
  return {out.begin(), out.end()};
}

Probe probe_of(const ServiceProbe& r) {
  Probe p;
  p.kind = r.kind.empty() ? "none" : r.kind;
  p.port = r.kind == "tcp" || r.kind == "http" ? r.port : 0;
  p.path = r.kind == "http" ? r.path : "";
  p.status = r.kind == "http" ? r.status : 200;
  p.pattern = r.kind == "log" ? r.pattern : "";
  p.timeout_seconds = r.timeout_seconds;
  p.interval_seconds = r.interval_seconds;
  return p;
}

// The preamble runs in the step's shell, which then becomes the command: what it exports (a
// library path, a ulimit) is the command's, and its `exit 1` ends the step before the command.
std::vector<std::string> service_argv(const Service& s) {
  if (s.preamble.empty()) return s.argv;
  std::vector<std::string> argv = {"bash", "-c", s.preamble + "\nexec \"$@\"", "service_" + s.name};
  argv.insert(argv.end(), s.argv.begin(), s.argv.end());
  return argv;
}

}  // namespace

std::vector<Process> make_services(const Recipe& r, const NodeRoles& roles, const std::vector<Endpoint>& endpoints,
                                   const std::vector<PlanNode>& nodes, std::vector<NodePorts>& ports) {
  std::vector<Process> out;
  for (std::size_t i = 0; i < r.services.size(); ++i) {
    const Service& s = r.services[i];
    const std::vector<int> at = placed_nodes(s, roles, endpoints, int(nodes.size()));
    if (at.empty())
      fail("services: '" + s.name + "' is placed on " + s.node + ", and the job has no " + s.node + " worker",
           "place it on head, workers or all, or on a role the recipe has");
    for (std::size_t k = 0; k < at.size(); ++k) {
      const PlanNode& node = nodes[std::size_t(at[k])];
      Process p;
      p.name = "service:" + s.name + ":" + std::to_string(k);
      p.role = Role::service;
      p.index = int(i);
      p.node_index = node.index;
      p.node = node.name;
      p.step_name = "service_" + s.name + "_" + std::to_string(k);
      // srtctl's service_<name>.out; one per node when it runs on several.
      p.log_file = at.size() == 1 ? "service_" + s.name + ".out" : "service_" + s.name + "_" + node.name + ".out";
      p.argv = service_argv(s);
      p.readiness = probe_of(s.readiness);
      if (p.readiness.port > 0) {
        ports[std::size_t(node.index)].claim(p.readiness.port, "service " + s.name + "'s readiness port",
                                             "give the service another port (services[].readiness)");
        p.ports.service = {p.readiness.port};
      }
      // A generic service is not critical unless it says so (srtctl: "a dead sidecar costs its own
      // log, not the run").
      p.critical = s.critical;
      out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace srt::plan_detail
