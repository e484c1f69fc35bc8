// Reading what the Plan decided for a process, for the plan tests: one spelling of each lookup,
// with sentinels no real value takes ("<unset>", "<none>"), so a missing variable or flag never
// compares equal to an empty value.
#pragma once
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "recipes.hpp"

namespace test_recipes {

inline std::string env_of(const srt::Process& p, const std::string& name) {
  for (const auto& [k, v] : p.env)
    if (k == name) return v;
  return "<unset>";
}

// The word after FLAG in the process's argv.
inline std::string arg_after(const srt::Process& p, const std::string& flag) {
  auto it = std::find(p.argv.begin(), p.argv.end(), flag);
  return it == p.argv.end() || it + 1 == p.argv.end() ? "<none>" : *(it + 1);
}

inline bool has_arg(const srt::Process& p, const std::string& a) {
  return std::find(p.argv.begin(), p.argv.end(), a) != p.argv.end();
}

// No two processes of the Plan bind the same port on the same node.
inline void no_port_twice(const srt::Plan& plan) {
  std::set<std::pair<int, int>> seen;
  for (const auto& p : plan.processes)
    for (const auto& [kind, ports] : all_ports(p))
      for (int port : ports)
        if (!seen.insert({p.node_index, port}).second) FAIL(p.name << " " << kind << " reuses port " << port << " on " << p.node);
}

// The Plan made from `recipe` on its nodes binds every listener whose address it sets (each
// worker's and router's --host, the router's --prometheus-host) to its node's data-network
// address; with listen_address: any, or nodes known only by their names, to every interface.
// Returns how many listeners it checked in the first Plan, so a case cannot pass on none.
inline int check_listen_hosts(const srt::Recipe& recipe) {
  const int n = srt::node_demand(recipe, srt::default_profile());
  auto hosts = [](const srt::Plan& plan, auto&& want) {
    int checked = 0;
    for (const auto& p : plan.processes) {
      if (p.role == srt::Role::benchmark || p.role == srt::Role::service) continue;
      for (const char* flag : {"--host", "--prometheus-host"}) {
        if (!has_arg(p, flag)) continue;
        ++checked;
        CHECK(arg_after(p, flag) == want(plan.nodes.at(std::size_t(p.node_index))));
      }
    }
    return checked;
  };
  const int checked = hosts(srt::make_plan(recipe, srt::default_profile(), inputs(n)),
                            [](const srt::PlanNode& node) { return node.address; });
  srt::Profile any = srt::default_profile();
  any.listen_address = "any";
  hosts(srt::make_plan(recipe, any, inputs(n)), [](const srt::PlanNode&) { return std::string("0.0.0.0"); });
  srt::PlanInputs names = inputs(n);
  names.addresses.clear();
  hosts(srt::make_plan(recipe, srt::default_profile(), names), [](const srt::PlanNode&) { return std::string("0.0.0.0"); });
  return checked;
}

}  // namespace test_recipes
