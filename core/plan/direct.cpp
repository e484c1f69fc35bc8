// Frontends without a router process: the benchmark talks to the one aggregated worker.
#include <string>

#include "adapters.hpp"
#include "srt/error.hpp"

namespace srt::plan_detail {

namespace {

class Direct final : public FrontendAdapter {
 public:
  // public_port: the worker binds the job's public port (srtctl's frontends/direct.py
  // DirectServerFrontend, which sglang, vllm and atom share); without it, the worker keeps a
  // planned port, as `infera` (not launched) always has here.
  Direct(const char* name, const char* engine, bool public_port, const char* metric)
      : name_(name), engine_(engine), public_port_(public_port), metric_(metric) {}
  const char* name() const override { return name_; }
  bool runs_process() const override { return false; }
  bool worker_binds_public_port() const override { return public_port_; }
  Process process(const FrontendSite&) const override {
    fail(std::string("internal: frontend ") + name_ + " runs no process of its own");
  }
  const char* progress_metric() const override { return metric_; }
  bool fronts(const EngineAdapter& engine) const override { return std::string(engine.name()) == engine_; }

 private:
  const char* name_;
  const char* engine_;
  bool public_port_;
  const char* metric_;
};

}  // namespace

const FrontendAdapter& direct_frontend(const std::string& type) {
  static const Direct atom("atom", "atom", true, "");  // srtctl's frontends/atom.py: the public port
  static const Direct infera("infera", "atom", false, "");
  static const Direct sglang("sglang-direct", "sglang", true, "");
  static const Direct vllm("vllm", "vllm", true, "");  // srtctl's vllm_direct.py: the public port
  if (type == "infera") return infera;
  if (type == "sglang-direct") return sglang;
  if (type == "vllm") return vllm;
  return atom;
}

}  // namespace srt::plan_detail
