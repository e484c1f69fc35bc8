#include "report.hpp"

#include <algorithm>

namespace srt::doctor {
namespace {

const char* status_word(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::warn: return "warn";
    case Status::fail: return "FAIL";
  }
  return "?";
}

}  // namespace

void Report::ok(const std::string& name, const std::string& message, std::vector<std::string> details) {
  checks_.push_back({name, Status::ok, message, "", std::move(details)});
}

void Report::warn(const std::string& name, const std::string& message, const std::string& fix) {
  checks_.push_back({name, Status::warn, message, fix, {}});
}

void Report::fail(const std::string& name, const std::string& message, const std::string& fix) {
  checks_.push_back({name, Status::fail, message, fix, {}});
}

bool Report::failed() const {
  return std::any_of(checks_.begin(), checks_.end(), [](const Check& c) { return c.status == Status::fail; });
}

void Report::print_text(std::FILE* out) const {
  for (const Check& c : checks_) {
    std::fprintf(out, "%-4s  %-14s %s", status_word(c.status), c.name.c_str(), c.message.c_str());
    if (!c.fix.empty()) std::fprintf(out, " -- %s", c.fix.c_str());
    std::fprintf(out, "\n");
    for (const std::string& d : c.details) std::fprintf(out, "      %s\n", d.c_str());
  }
  const auto count = [this](Status s) {
    return std::count_if(checks_.begin(), checks_.end(), [s](const Check& c) { return c.status == s; });
  };
  std::fprintf(out, "%s: %ld ok, %ld warnings, %ld failures\n", failed() ? "FAILED" : "PASSED",
               long(count(Status::ok)), long(count(Status::warn)), long(count(Status::fail)));
}

Json Report::to_json() const {
  Json checks = Json::array();
  for (const Check& c : checks_)
    checks.push_back({{"name", c.name}, {"status", status_word(c.status)}, {"message", c.message},
                      {"fix", c.fix}, {"details", c.details}});
  return {{"ok", !failed()}, {"checks", checks}};
}

}  // namespace srt::doctor
