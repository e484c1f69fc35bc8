// The Plan's digest: SHA-256 over a canonical binary encoding, streamed field by field.
// Every node and the submit side compare it, so it must cover everything plan_to_json shows
// (tests/unit/plan/test_plan_digest.cpp changes each field and checks the digest follows).
// It used to hash plan_to_json().dump(); for 1024 nodes that JSON copy was three quarters of
// make_plan's time (docs/performance.md), and hashing the fields directly gives the same guarantee.
#include <cstdint>
#include <string_view>

#include "srt/digest.hpp"
#include "srt/plan.hpp"

namespace srt {

namespace {

// Type-tagged and length-prefixed, so no two different Plans encode to the same bytes.
class Encoder {
 public:
  void num(std::int64_t v) {
    char b[9] = {'i'};
    for (int i = 0; i < 8; ++i) b[1 + i] = char((std::uint64_t(v) >> (8 * i)) & 0xff);
    sha_.update(std::string_view(b, sizeof b));
  }
  void str(std::string_view s) {
    count('s', s.size());
    sha_.update(s);
  }
  void list(std::size_t n) { count('l', n); }
  void strs(const std::vector<std::string>& v) {
    list(v.size());
    for (const auto& s : v) str(s);
  }
  void ints(const std::vector<int>& v) {
    list(v.size());
    for (int i : v) num(i);
  }
  void env(const EnvList& e) {
    list(e.size());
    for (const auto& [k, v] : e) {
      str(k);
      str(v);
    }
  }
  std::string finish() { return sha_.hex(); }

 private:
  void count(char tag, std::size_t n) {
    char b[9] = {tag};
    for (int i = 0; i < 8; ++i) b[1 + i] = char((std::uint64_t(n) >> (8 * i)) & 0xff);
    sha_.update(std::string_view(b, sizeof b));
  }
  Sha256 sha_;
};

}  // namespace

std::string plan_digest(const Plan& plan) {
  Encoder e;
  e.str("srt-plan-v1");
  e.num(std::int64_t(plan.job_id));
  e.num(plan.demand_nodes);
  e.list(plan.nodes.size());
  for (const auto& n : plan.nodes) {
    e.num(n.index);
    e.str(n.name);
    e.str(n.address);
    e.strs(n.roles);
  }
  e.list(plan.processes.size());
  for (const auto& p : plan.processes) {
    e.str(p.name);
    e.str(to_string(p.role));
    e.num(p.index);
    e.str(p.node);
    e.num(p.node_index);
    e.str(p.step_name);
    e.ints(p.gpus);
    e.num(p.ranks);
    e.num(p.dp_ranks);
    e.strs(p.argv);
    e.env(p.env);
    e.strs(p.unset_env);
    e.list(p.ports.kinds());
    p.ports.each([&e](const char* kind, const std::vector<int>& ports) {
      e.str(kind);
      e.ints(ports);
    });
    e.str(p.readiness.kind);
    e.num(p.readiness.port);
    e.str(p.readiness.path);
    e.str(p.log_file);
    e.num(p.critical ? 1 : 0);
    e.num(p.container.on_host ? 1 : 0);
    e.str(p.container.image);
    e.list(p.container.mounts.size());
    for (const auto& m : p.container.mounts) {
      e.str(m.host);
      e.str(m.container);
      e.num((m.read_only ? 1 : 0) | (m.device ? 2 : 0));
    }
    e.num(p.container.unlimited_memlock ? 1 : 0);
    // Added with the engine adapters: ATOM's and AToMesh's are what every earlier Plan ran, so
    // they encode nothing and those Plans keep their digests (tests/golden pins them).
    if (adapter_shown(p)) {
      e.str("adapter");
      e.str(p.adapter);
    }
    // A service's probe has more than a worker's (Role::service is newer than every pinned Plan).
    if (p.role == Role::service) {
      e.str("probe");
      e.num(p.readiness.status);
      e.str(p.readiness.pattern);
      e.num(p.readiness.timeout_seconds);
      e.num(p.readiness.interval_seconds);
    }
    // The same for a setup script: a Plan without one keeps its digest.
    if (!p.setup_script.empty()) {
      e.str("setup_script");
      e.str(p.setup_script);
    }
  }
  e.str(to_string(plan.kv_events_mode));
  e.strs(plan.kv_event_endpoints);
  e.ints(plan.benchmark_points);
  e.env(plan.job_env);
  // Added with host_setup: a Plan without one keeps its digest.
  if (const auto& h = plan.host_setup) {
    e.str("host_setup");
    e.strs(h->nodes);
    e.str(h->script);
    e.str(h->teardown);
    e.num(h->ignore_failure ? 1 : 0);
    e.num(h->timeout_seconds);
    e.str(h->from);
  }
  // Added with telemetry: a Plan without it keeps its digest. Its exporters are processes above.
  if (const auto& t = plan.telemetry) {
    const GpuExporter& x = t->exporter;
    e.str("telemetry");
    e.num(t->required ? 1 : 0);
    e.num(t->collect_interval_ms);
    e.str(t->storage_subdir);
    e.num(std::int64_t(t->startup_timeout_seconds * 1000));
    e.num(std::int64_t(t->request_timeout_seconds * 1000));
    e.str(t->from);
    for (const std::string* s : {&x.container_image, &x.command, &x.binary, &x.kind, &x.index_label, &x.identity_label,
                                 &x.power_metric, &x.power_scope, &x.util_metric, &x.sm_active_metric,
                                 &x.temperature_metric})
      e.str(*s);
    e.num(x.port);
    e.strs(x.instance_labels);
  }
  return e.finish();
}

}  // namespace srt
