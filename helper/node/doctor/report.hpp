// srt-helper doctor's result: one line per check ("ok", "warn" or "FAIL", what was found, and
// for anything not ok what to do), optional detail lines under it, or the same as JSON.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "srt/document.hpp"

namespace srt::doctor {

enum class Status { ok, warn, fail };

struct Check {
  std::string name;                  // plugin, plugstack, implementation, profile, topology, ...
  Status status = Status::ok;
  std::string message;               // what was found
  std::string fix;                   // what to do ("" when ok)
  std::vector<std::string> details;  // e.g. the GPU-NIC table
};

class Report {
 public:
  void ok(const std::string& name, const std::string& message, std::vector<std::string> details = {});
  void warn(const std::string& name, const std::string& message, const std::string& fix);
  void fail(const std::string& name, const std::string& message, const std::string& fix);
  void add(Check check) { checks_.push_back(std::move(check)); }

  bool failed() const;
  const std::vector<Check>& checks() const { return checks_; }

  void print_text(std::FILE* out) const;
  Json to_json() const;

 private:
  std::vector<Check> checks_;
};

}  // namespace srt::doctor
