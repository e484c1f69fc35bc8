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

}  // namespace test_recipes
