// The run as people read it in a terminal (and srt-helper run prints at the end of a sweep), and
// as JSON for machines. Failed and missing points keep their row: a sweep that lost c128 must
// not look like a sweep that never tried it.
#include <cstdarg>
#include <cstdio>
#include <string>

#include "srt/report.hpp"

namespace srt::report {

namespace {

void appendf(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string& out, const char* fmt, ...) {
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  if (n > 0) {
    const std::size_t at = out.size();
    out.resize(at + std::size_t(n) + 1);  // vsnprintf writes the NUL too
    std::vsnprintf(&out[at], std::size_t(n) + 1, fmt, again);
    out.resize(at + std::size_t(n));
  }
  va_end(again);
}

// A figure, or "-" when there is nothing measured to show.
std::string num(double v, int decimals) {
  if (v <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// A per-GPU figure of `measured`: "unknown" when the run's GPU count is, "-" (as elsewhere) when
// nothing was measured either way.
std::string per_gpu(const GpuCount& g, double figure, double measured, int decimals) {
  if (!g.known()) return measured > 0 ? "unknown" : "-";
  return num(figure, decimals);
}

std::string gpu_line(const GpuCount& g) {
  if (!g.known()) return "unknown (no plan.json, no _gpus_<N> in the result file names, no --gpus)";
  std::string s = std::to_string(g.total);
  if (g.disagg()) {
    s += " = " + std::to_string(g.prefill) + " prefill + " + std::to_string(g.decode) + " decode";
    if (g.agg > 0) s += " + " + std::to_string(g.agg) + " agg";
  } else if (g.agg > 0 && g.agg == g.total) {
    s += " agg";
  }
  return s + " (from " + g.source + ")";
}

constexpr const char* kRow = "%6s %-7s %9s %6s %8s %10s %9s %8s %10s %9s %9s %8s %8s %8s %8s %9s %9s\n";

Json latency_json(const Latency& l) { return Json{{"median_ms", l.median_ms}, {"p99_ms", l.p99_ms}}; }

Json per_gpu_json(const GpuCount& g, double v) { return g.known() ? Json(v) : Json(nullptr); }

}  // namespace

const char* to_string(PointState s) {
  switch (s) {
    case PointState::ok: return "ok";
    case PointState::failed: return "FAILED";
    case PointState::missing: return "MISSING";
  }
  return "?";
}

std::string Run::label() const { return name + " (job " + job_id + ")"; }

int Run::count(PointState s) const {
  int n = 0;
  for (const auto& p : points) n += p.state == s;
  return n;
}

std::string render_table(const Run& run) {
  std::string out;
  appendf(out, "run %s  job %s  %s\n", run.name.c_str(), run.job_id.c_str(), run.dir.c_str());
  if (!run.state.empty()) appendf(out, "job state: %s\n", run.state.c_str());
  if (!run.model.empty()) appendf(out, "model: %s\n", run.model.c_str());
  appendf(out, "GPUs: %s\n", gpu_line(run.gpus).c_str());
  if (run.without_gpus) out += std::string(kStandInCaveat) + "\n";
  if (!run.worker_restarts.empty()) appendf(out, "worker restarts: %s\n", run.worker_restarts.c_str());
  std::string expected;
  for (const auto& p : run.points) expected += (expected.empty() ? "" : " ") + std::to_string(p.concurrency);
  appendf(out, "concurrencies: %s (expected from %s)\n", expected.c_str(), run.expected_source.c_str());
  appendf(out,
          "tok/s/gpu = total token throughput / GPUs (InferenceX tput_per_gpu); out/gpu = output tok/s / GPUs;\n"
          "tok/s/user = 1000 / median TPOT (InferenceX intvty); latencies in ms (p50 = median)\n\n");
  appendf(out, kRow, "conc", "state", "done", "failed", "req/s", "out tok/s", "tok/s/gpu", "out/gpu", "tok/s/user",
          "ttft p50", "ttft p99", "tpot p50", "tpot p99", "itl p50", "itl p99", "e2el p50", "e2el p99");
  for (const auto& p : run.points) {
    const std::string conc = "c" + std::to_string(p.concurrency);
    if (p.state == PointState::missing) {
      appendf(out, kRow, conc.c_str(), to_string(p.state), "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-",
              "-", "-", "-");
      continue;
    }
    const std::string done = std::to_string(p.completed) + "/" + std::to_string(p.num_prompts);
    const std::string total_per_gpu = per_gpu(run.gpus, p.total_per_gpu, p.total_token_throughput, 1);
    const std::string output_per_gpu = per_gpu(run.gpus, p.output_per_gpu, p.output_throughput, 1);
    appendf(out, kRow, conc.c_str(), to_string(p.state), done.c_str(), std::to_string(p.failed_requests).c_str(),
            num(p.request_throughput, 2).c_str(), num(p.output_throughput, 1).c_str(), total_per_gpu.c_str(),
            output_per_gpu.c_str(), num(p.interactivity, 2).c_str(), num(p.ttft.median_ms, 1).c_str(),
            num(p.ttft.p99_ms, 1).c_str(), num(p.tpot.median_ms, 2).c_str(), num(p.tpot.p99_ms, 2).c_str(),
            num(p.itl.median_ms, 2).c_str(), num(p.itl.p99_ms, 2).c_str(), num(p.e2el.median_ms, 1).c_str(),
            num(p.e2el.p99_ms, 1).c_str());
  }
  const int failed = run.count(PointState::failed), missing = run.count(PointState::missing);
  if (failed + missing > 0) {
    out += "\n";
    for (const auto& p : run.points)
      if (p.state != PointState::ok)
        appendf(out, "  c%d %s: %s\n", p.concurrency, to_string(p.state), p.failure.c_str());
  }
  appendf(out, "\n%d point(s): %d ok, %d failed, %d missing\n", int(run.points.size()), run.count(PointState::ok),
          failed, missing);
  return out;
}

Json runs_to_json(const std::vector<Run>& runs) {
  Json out = Json::array();
  for (const auto& r : runs) {
    Json j;
    j["name"] = r.name;
    j["label"] = r.label();
    j["dir"] = r.dir;
    j["job_id"] = r.job_id;
    j["state"] = r.state;
    j["model"] = r.model;
    j["gpus"] = {{"total", r.gpus.total}, {"prefill", r.gpus.prefill}, {"decode", r.gpus.decode},
                 {"agg", r.gpus.agg}, {"disagg", r.gpus.disagg()},
                 {"source", r.gpus.known() ? r.gpus.source : "unknown"}};
    j["expected_from"] = r.expected_source;
    j["stand_in_model"] = r.without_gpus;  // no GPU on the workers' nodes: not a measurement
    if (!r.worker_restarts.empty()) j["worker_restarts"] = r.worker_restarts;
    j["points"] = Json::array();
    for (const auto& p : r.points) {
      Json q;
      q["concurrency"] = p.concurrency;
      q["state"] = p.state == PointState::ok ? "ok" : p.state == PointState::failed ? "failed" : "missing";
      q["reason"] = p.failure;
      q["file"] = p.file;
      if (p.state != PointState::missing) {
        q["num_prompts"] = p.num_prompts;
        q["completed"] = p.completed;
        q["failed"] = p.failed_requests;
        q["total_input_tokens"] = p.total_input_tokens;
        q["total_output_tokens"] = p.total_output_tokens;
        q["duration_s"] = p.duration_s;
        q["request_throughput"] = p.request_throughput;
        q["output_throughput"] = p.output_throughput;
        q["total_token_throughput"] = p.total_token_throughput;
        // null, not 0, when the GPU count is unknown: 0 would read as a measured zero.
        q["output_tput_per_total_gpu"] = per_gpu_json(r.gpus, p.output_per_gpu);
        q["tput_per_gpu"] = per_gpu_json(r.gpus, p.total_per_gpu);
        q["output_tput_per_gpu"] = per_gpu_json(r.gpus, p.output_per_decode_gpu);
        q["input_tput_per_gpu"] = per_gpu_json(r.gpus, p.input_per_prefill_gpu);
        q["interactivity"] = p.interactivity;
        q["ttft"] = latency_json(p.ttft);
        q["tpot"] = latency_json(p.tpot);
        q["itl"] = latency_json(p.itl);
        q["e2el"] = latency_json(p.e2el);
      }
      j["points"].push_back(std::move(q));
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace srt::report
