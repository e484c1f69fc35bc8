// libFuzzer target: the launcher's readers of JSON other processes wrote,
// each on the same bytes: the preflight probe's answer (read_probe_answer, then what every role
// misses and the fingerprint as fingerprints.json records it), the router's /workers (the
// readiness gate), a benchmark result file (the validity gate) and a plan.json (GPU counts).
// The property: each ends as a value or an srt::Error with a message; no other exception, no
// crash, no sanitizer report (nesting, types and numbers beyond int included).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "srt/error.hpp"
#include "srt/preflight.hpp"
#include "srt/readiness.hpp"
#include "srt/report.hpp"
#include "srt/untrusted_json.hpp"
#include "srt/validity.hpp"

namespace {

void probe_answer(std::string_view text) {
  srt::Fingerprint f;
  try {
    f = srt::read_probe_answer(text, "fuzz");
  } catch (const srt::Error& e) {
    if (std::string(e.what()).empty()) __builtin_trap();
    return;
  }
  for (const char* role : {"prefill", "decode", "router", "benchmark"}) {
    srt::PreflightNeeds n;
    n.role = role;
    n.engine = n.mooncake = n.rdma = n.router = true;
    n.gid_index = 3;
    n.files = {"/bench.py"};
    (void)srt::missing_pieces(f, n);
  }
  (void)srt::fingerprint_to_json(f).dump();
  if (f.gpu_count < -1) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  probe_answer(text);

  const srt::Readiness r = srt::router_workers_ready(text, 1, 1);
  if (r.why.empty()) __builtin_trap();

  const srt::PointResult p = srt::judge_point_text(4, "fuzz-c4.json", text);
  if (p.completed < 0 || p.output_tokens < 0) __builtin_trap();
  if (p.problem.empty() && p.completed == 0) __builtin_trap();  // a point with nothing done is never valid

  const srt::Json plan = srt::parse_untrusted_json(text);
  try {
    (void)srt::report::gpus_from_plan(plan, "fuzz-plan.json");
  } catch (const srt::Error&) {
  }
  return 0;
}
