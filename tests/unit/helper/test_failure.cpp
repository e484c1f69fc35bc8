// Every way the launcher stops a job, and the failure_class status.json gives it.
#include <catch2/catch.hpp>

#include <optional>
#include <tuple>
#include <vector>

#include "srt/failure_class.hpp"

using srt::launch::Cause;
using srt::Role;
constexpr std::nullopt_t none = std::nullopt;

TEST_CASE("each fault the lab can make has its failure class - only a node's is retried elsewhere") {
  // fault (the lab test that makes it), cause, role -> class
  const std::vector<std::tuple<const char*, Cause, std::optional<Role>, const char*>> table = {
      {"profile changed after submit (spank-nodefail)", Cause::recipe, none, "recipe"},
      {"another job on the node (shared-ports, exclusive profile)", Cause::not_exclusive, none, "node"},
      {"a planned port held on a node (shared-ports)", Cause::ports_busy, none, "node"},
      {"a worker GPU held by another process (gpu-busy)", Cause::gpus_busy, none, "node"},
      {"the image lacks mooncake, or is not the identity (identity)", Cause::image, none, "image"},
      {"a decode worker killed (killed, run-killed-worker)", Cause::step_ended, Role::decode, "engine"},
      {"a prefill worker exits", Cause::step_ended, Role::prefill, "engine"},
      {"an aggregated worker exits", Cause::step_ended, Role::agg, "engine"},
      {"a kv-relay exits (kv-relay)", Cause::step_ended, Role::kv_relay, "engine"},
      {"the router killed (run-killed-router)", Cause::step_ended, Role::router, "router"},
      {"the benchmark step fails (whole sweep)", Cause::step_ended, Role::benchmark, "benchmark"},
      {"workers never healthy (unhealthy)", Cause::not_healthy, none, "engine"},
      {"the router never lists every worker", Cause::router_gate, none, "router"},
      {"a critical service ends (launch.services)", Cause::step_ended, Role::service, "service"},
      {"a service not ready in its timeout (launch.services)", Cause::service, none, "service"},
      {"a wedged decode: nothing completes (stall, stall-point)", Cause::stalled, none, "stall"},
      {"results invalid: failed requests (mutation-dp-rank)", Cause::results, none, "benchmark"},
      {"slurmd killed: NODE_FAIL (fault.slurmd-killed)", Cause::node_failure, none, "node"},
      {"time limit: SIGUSR1 (timelimit)", Cause::time_limit, none, "timeout"},
      {"scancel (scancel)", Cause::cancelled, none, "cancelled"},
      {"an exception the launcher did not expect", Cause::internal, none, "internal"},
  };
  for (const auto& [fault, cause, role, want] : table) {
    INFO(fault);
    CHECK(std::string(srt::launch::failure_class(cause, role)) == want);
    CHECK(srt::launch::retry_elsewhere(want) == (std::string(want) == "node"));
  }
}
