// The launcher's readiness gate on what the job's router answers. Pure: the HTTP body in, a
// verdict out; any body is safe to give it (read as srt/untrusted_json.hpp reads).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace srt {

struct Plan;

struct Readiness {
  bool ready = false;
  // The router lists more workers than the Plan has: something else registered with it (the
  // router's registration is unauthenticated), and requests would reach a stranger's engine.
  bool extra = false;
  std::string why;  // "router sees prefill 1/2, decode 1/1", or what is wrong with the answer
};

// AToMesh's GET /workers (srtctl wait_for_model, which waits for at least as many): ready when
// stats.prefill_count is prefill and decode_count + regular_count is decode, exactly; more than
// that is `extra`. A count that is absent reads as 0; one that is not a non-negative integer
// keeps the gate closed and is named. With `planned` (planned_worker_urls), every entry of the
// answer's `workers` list must be one of those URLs, "URL@<rank>" as a DP-aware router lists a
// rank: one that is not is `extra` too, named, though the counts match (a stranger registered
// while a planned worker had not yet).
Readiness router_workers_ready(std::string_view body, int prefill, int decode,
                               const std::set<std::string>* planned = nullptr);

// The URLs the Plan's router is given for its workers (http://<node address>:<worker's port>), as
// the frontend adapters render them.
std::set<std::string> planned_worker_urls(const Plan& plan);

// A service's log probe (log_readiness.cpp): fed what the log gained since the last look, it
// says whether a complete line matched `pattern` (ECMAScript, as near Python's re as a recipe's
// pattern needs), compiled once for the whole wait. Each line is looked at up to its first
// 4 KiB: libstdc++'s matcher recurses per character, and a readiness line never needs more.
class LogMatcher {
 public:
  // A pattern log_pattern_error refuses (the recipe reader refused it already) never matches.
  explicit LogMatcher(const std::string& pattern);
  // True once a complete line of what was fed matched; a line still being written waits for
  // its newline in a later feed.
  bool feed(std::string_view bytes);
  // The log was replaced or truncated: what comes next is a new file's, from its start.
  void restart();
  // How many bytes of the log were fed: where the next read starts.
  std::uint64_t offset() const { return offset_; }

 private:
  struct Compiled;
  std::shared_ptr<const Compiled> re_;
  std::string line_;  // the line being read, its first 4 KiB
  std::uint64_t offset_ = 0;
};
// Why `pattern` is no regular expression LogMatcher can use; nullopt when it is one.
std::optional<std::string> log_pattern_error(const std::string& pattern);

}  // namespace srt
