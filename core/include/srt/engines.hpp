// What the launcher asks of the engine or frontend that runs a planned process: the answers live
// in that program's adapter in core/plan, so the launcher stays engine-neutral.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "srt/plan.hpp"

namespace srt {

// The Prometheus counter of completed requests the stall watch sums: on a router's metrics port,
// or a worker's HTTP port (/metrics). "" for a process that has none (benchmark, kv-relay).
std::string progress_metric(const Process& p);

// One place the stall watch reads progress: GET http://<node's address>:<port>/metrics, the sum
// of `metric`'s samples whose labels contain `label` ("" = every sample).
struct ProgressSource {
  const Process* process = nullptr;
  int port = 0;
  std::string metric;
  std::string label;
};
// The Plan's progress sources: the router's counter of answered requests on its metrics port, only
// the 200 answers (a wedged engine's 5xx, or a stranger's requests, are not the benchmark getting
// anywhere; AToMesh and smg label them status_code, as sgl-router did), and each serving worker's
// counter of finished requests on its HTTP port. A process whose adapter names no counter has none.
std::vector<ProgressSource> progress_sources(const Plan& plan);

// What the per-point audit counts (srt/point_audit.hpp): the completion requests the router
// received (its request counter by path, on its metrics port), or without a router the requests
// the serving workers finished (their progress counters). `reads` are summed.
struct AuditSource {
  std::vector<ProgressSource> reads;
  std::string counter;  // as messages name it: "the router's mesh_http_requests_total{path=...}"
};
// nullopt when the Plan has nothing the audit can count, and `why_not` says what: a router
// without a request counter (the vLLM Router), or an engine whose counter is refreshed on its own
// clock (ATOM's, every 5 s) rather than as requests finish.
std::optional<AuditSource> audit_source(const Plan& plan, std::string& why_not);

// Shell globs teardown removes on a worker's node once its process group is gone (SGLang leaves
// shared-memory segments in /dev/shm); empty when the engine leaves nothing behind.
std::vector<std::string> teardown_sweep(const Process& p);

// Whether the recipe's prefill and decode workers move KV bytes over RDMA, as its engine's
// adapter says (ATOM: mooncake_protocol; SGLang: --disaggregation-transfer-backend).
bool kv_over_rdma(const Recipe& r);

// The fields the launcher's rank canary, sent straight to worker `w`, adds to its completion body
// so that the engine serves it without its router or peer (SGLang's fake bootstrap for a P/D
// worker); an empty object for most.
Json canary_fields(const Process& w);

}  // namespace srt
