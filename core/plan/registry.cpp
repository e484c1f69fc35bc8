// Which adapter a recipe's names select (adapters.hpp), and what the launcher asks of a process's
// adapter (srt/engines.hpp).
#include <string>

#include "adapters.hpp"
#include "srt/engines.hpp"
#include "srt/error.hpp"

namespace srt::plan_detail {

namespace {

struct Named {
  const char* name;
  const EngineAdapter& (*engine)();
};
struct NamedFrontend {
  const char* name;
  const FrontendAdapter& (*frontend)(const std::string& type);
};

const FrontendAdapter& atomesh(const std::string&) { return atomesh_frontend(); }
const FrontendAdapter& sglang_router(const std::string&) { return sglang_router_frontend(); }
const FrontendAdapter& vllm_router(const std::string&) { return vllm_router_frontend(); }

// backend.type (v1) / engine (schema 2).
const Named kEngines[] = {
    {"atom", atom_engine},
    {"sglang", sglang_engine},
    {"vllm", vllm_engine},
};

// frontend.type, after schema 2's normalization.
const NamedFrontend kFrontends[] = {
    {"atomesh", atomesh},
    {"atom", direct_frontend},
    {"infera", direct_frontend},
    {"sglang-router", sglang_router},
    {"sglang", sglang_router},  // the v1 layout's name of the router (schema 2's sglang is sglang-direct)
    {"sglang-direct", direct_frontend},
    {"vllm", direct_frontend},
    {"vllm-router", vllm_router},
};

template <typename T, std::size_t N>
std::string known(const T (&table)[N]) {
  std::string out;
  for (const auto& t : table) out += (out.empty() ? "" : ", ") + std::string(t.name);
  return out;
}

}  // namespace

bool has_engine_adapter(const std::string& name) {
  for (const auto& e : kEngines)
    if (name == e.name) return true;
  return false;
}

bool has_frontend_adapter(const std::string& type) {
  for (const auto& f : kFrontends)
    if (type == f.name) return true;
  return false;
}

const EngineAdapter& engine_adapter(const std::string& name) {
  for (const auto& e : kEngines)
    if (name == e.name) return e.engine();
  fail("backend.type '" + name + "' can be validated but not planned yet",
       "srt-spank plans these engines: " + known(kEngines) + "; use srtctl for this one");
}

const FrontendAdapter& frontend_adapter(const std::string& type) {
  for (const auto& f : kFrontends)
    if (type == f.name) return f.frontend(type);
  fail("frontend.type '" + type + "' can be validated but not planned yet",
       "srt-spank plans these frontends: " + known(kFrontends) + "; use srtctl for this one");
}

std::string worker_url(const Process& w, const std::vector<PlanNode>& nodes) {
  return "http://" + nodes.at(std::size_t(w.node_index)).address + ":" + std::to_string(w.ports.http.front());
}

}  // namespace srt::plan_detail

namespace srt {

std::string progress_metric(const Process& p) {
  using namespace plan_detail;
  if (p.role == Role::router && has_frontend_adapter(p.adapter)) return frontend_adapter(p.adapter).progress_metric();
  if (p.is_worker() && has_engine_adapter(p.adapter)) return engine_adapter(p.adapter).progress_metric();
  return "";
}

std::vector<ProgressSource> progress_sources(const Plan& plan) {
  std::vector<ProgressSource> out;
  for (const auto& p : plan.processes) {
    const std::string metric = progress_metric(p);
    if (metric.empty()) continue;
    if (p.role == Role::router && !p.ports.metrics.empty())
      out.push_back({&p, p.ports.metrics.front(), metric, "status_code=\"200\""});
    else if (p.is_worker() && p.readiness.kind == "http")
      out.push_back({&p, p.readiness.port, metric, ""});
  }
  return out;
}

std::optional<AuditSource> audit_source(const Plan& plan, std::string& why_not) {
  using namespace plan_detail;
  AuditSource a;
  for (const auto& p : plan.processes) {
    if (p.role != Role::router || !has_frontend_adapter(p.adapter)) continue;
    const std::string metric = frontend_adapter(p.adapter).request_metric();
    if (metric.empty() || p.ports.metrics.empty()) {
      why_not = "the " + p.adapter + " router has no counter of requests by path";
      return std::nullopt;
    }
    // The benchmark's two OpenAI routes (benchmark_serving.py's openai and openai-chat backends).
    for (const char* path : {"/v1/completions", "/v1/chat/completions"})
      a.reads.push_back({&p, p.ports.metrics.front(), metric, std::string("path=\"") + path + "\""});
    a.counter = "the router's " + metric + "{path=\"/v1/completions\" or \"/v1/chat/completions\"}";
    return a;
  }
  for (const auto& p : plan.processes) {
    if (!p.is_worker() || p.readiness.kind != "http" || !has_engine_adapter(p.adapter)) continue;
    const EngineAdapter& engine = engine_adapter(p.adapter);
    if (!engine.progress_metric_is_live()) {
      why_not = std::string(engine.name()) + "'s " + engine.progress_metric() + " is refreshed on the engine's own clock";
      return std::nullopt;
    }
    a.reads.push_back({&p, p.readiness.port, engine.progress_metric(), ""});
    a.counter = std::string("the workers' ") + engine.progress_metric();
  }
  if (a.reads.empty()) {
    why_not = "no router or serving worker counts requests";
    return std::nullopt;
  }
  return a;
}

bool kv_over_rdma(const Recipe& r) {
  using namespace plan_detail;
  return has_engine_adapter(r.backend.type) ? engine_adapter(r.backend.type).kv_over_rdma(r) : r.backend.mooncake_over_rdma();
}

Json canary_fields(const Process& w) {
  using namespace plan_detail;
  return w.is_worker() && has_engine_adapter(w.adapter) ? engine_adapter(w.adapter).canary_fields(w) : Json::object();
}

std::vector<std::string> teardown_sweep(const Process& p) {
  using namespace plan_detail;
  if (p.is_worker() && has_engine_adapter(p.adapter)) return engine_adapter(p.adapter).teardown_sweep();
  return {};
}

}  // namespace srt
