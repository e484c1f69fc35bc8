#include "srt/plan.hpp"

namespace srt {

namespace {

Json env_object(const EnvList& env) {
  Json o = Json::object();
  for (const auto& [k, v] : env) o[k] = v;
  return o;
}

Json container_object(const ContainerSpec& c) {
  Json mounts = Json::array();
  for (const auto& m : c.mounts)
    mounts.push_back({{"host", m.host}, {"container", m.container}, {"read_only", m.read_only}, {"device", m.device}});
  return {{"on_host", c.on_host}, {"image", c.image}, {"mounts", std::move(mounts)},
          {"unlimited_memlock", c.unlimited_memlock}};
}

}  // namespace

Json plan_to_json(const Plan& plan) {
  Json j = Json::object();
  j["job_id"] = plan.job_id;
  j["demand"] = {{"nodes", plan.demand_nodes}};
  j["nodes"] = Json::array();
  for (const auto& n : plan.nodes)
    j["nodes"].push_back({{"index", n.index}, {"name", n.name}, {"address", n.address}, {"roles", n.roles}});
  j["processes"] = Json::array();
  for (const auto& p : plan.processes) {
    Json o = Json::object();
    o["name"] = p.name;
    o["role"] = to_string(p.role);
    o["index"] = p.index;
    o["node"] = p.node;
    o["node_index"] = p.node_index;
    o["step_name"] = p.step_name;
    o["gpus"] = p.gpus;
    o["ranks"] = p.ranks;
    o["dp_ranks"] = p.dp_ranks;
    o["argv"] = p.argv;
    o["env"] = env_object(p.env);
    o["unset_env"] = p.unset_env;
    Json ports = Json::object();
    p.ports.each([&ports](const char* kind, const std::vector<int>& list) { ports[kind] = list; });
    o["ports"] = ports;
    o["readiness"] = {{"kind", p.readiness.kind}, {"port", p.readiness.port}, {"path", p.readiness.path}};
    if (p.role == Role::service) {
      Json& r = o["readiness"];
      if (p.readiness.kind == "http") r["status"] = p.readiness.status;
      if (p.readiness.kind == "log") r["pattern"] = p.readiness.pattern;
      r["timeout_seconds"] = p.readiness.timeout_seconds;
      r["interval_seconds"] = p.readiness.interval_seconds;
    }
    o["log_file"] = p.log_file;
    o["critical"] = p.critical;
    o["container"] = container_object(p.container);
    if (adapter_shown(p)) o["adapter"] = p.adapter;
    if (!p.setup_script.empty()) o["setup_script"] = p.setup_script;
    j["processes"].push_back(std::move(o));
  }
  j["kv_events_mode"] = to_string(plan.kv_events_mode);
  j["kv_event_endpoints"] = plan.kv_event_endpoints;
  j["benchmark_points"] = plan.benchmark_points;
  j["job_env"] = env_object(plan.job_env);
  if (const auto& h = plan.host_setup)
    j["host_setup"] = {{"nodes", h->nodes},         {"script", h->script},
                       {"teardown", h->teardown},   {"ignore_failure", h->ignore_failure},
                       {"timeout_seconds", h->timeout_seconds}, {"from", h->from}};
  if (const auto& t = plan.telemetry) {
    const GpuExporter& x = t->exporter;
    j["telemetry"] = {{"required", t->required},
                      {"collect_interval_ms", t->collect_interval_ms},
                      {"storage_subdir", t->storage_subdir},
                      {"startup_timeout_seconds", t->startup_timeout_seconds},
                      {"request_timeout_seconds", t->request_timeout_seconds},
                      {"from", t->from},
                      {"exporter",
                       {{"container_image", x.container_image},
                        {"port", x.port},
                        {"command", x.command},
                        {"binary", x.binary},
                        {"kind", x.kind},
                        {"gpu_labels", {{"index", x.index_label}, {"identity", x.identity_label}, {"instance", x.instance_labels}}},
                        {"gpu_metrics",
                         {{"power", x.power_metric},
                          {"power_scope", x.power_scope},
                          {"gpu_util", x.util_metric},
                          {"sm_active", x.sm_active_metric},
                          {"temperature", x.temperature_metric}}}}}};
  }
  if (!plan.digest.empty()) j["digest"] = plan.digest;
  return j;
}

}  // namespace srt
