#include "srt/failure_class.hpp"

namespace srt::launch {

const char* failure_class(Cause cause, std::optional<Role> role) {
  switch (cause) {
    case Cause::recipe: return "recipe";
    // Held ports and a shared allocation are the node's state, not the recipe's: elsewhere (or
    // exclusive) the same job can run.
    case Cause::not_exclusive:
    case Cause::ports_busy:
    case Cause::gpus_busy:
    case Cause::host_setup:  // a node check (RDMA ports, a clean GPU) that another node may pass
    case Cause::node_failure: return "node";
    case Cause::image: return "image";
    case Cause::step_ended:
      if (role == Role::router) return "router";
      if (role == Role::benchmark) return "benchmark";
      if (role == Role::service) return "service";  // a critical one (services[].critical)
      return "engine";  // prefill, decode, agg and their kv-relays (a GPU exporter is never critical)
    case Cause::not_healthy: return "engine";
    case Cause::router_gate: return "router";
    case Cause::service: return "service";
    case Cause::stalled: return "stall";
    case Cause::results: return "benchmark";
    case Cause::telemetry: return "telemetry";
    case Cause::time_limit: return "timeout";
    case Cause::cancelled: return "cancelled";
    case Cause::internal: break;
  }
  return "internal";
}

bool retry_elsewhere(const std::string& failure_class) { return failure_class == "node"; }

}  // namespace srt::launch
