// srtctl's telemetry block and GPU exporter (srt/telemetry.hpp), read as its schema defines them
// (NVIDIA/srt-slurm v2.18 docs/schema/recipe.schema.json TelemetryConfig and
// TelemetryExporterConfig; docs/power-telemetry.md for the DCGM defaults).
#include "srt/telemetry.hpp"

#include "schema.hpp"
#include "srt/error.hpp"

namespace srt {

namespace schema {

namespace {

Field metric_field(const char* key, const char* doc, bool with_scope = false) {
  std::vector<Field> f = field_list(str("metric", "the exposition's metric name").req());
  if (with_scope) f.push_back(str("scope", "what the reading covers, recorded as power_scope").req());
  return object(key, std::move(f), doc);
}

}  // namespace

Field gpu_exporter_field(std::string key, std::string doc) {
  return object(
      std::move(key),
      field_list(
          str("container_image", "the exporter's image (or a containers alias); unused with binary").req(),
          integer("port", "where it serves /metrics on every worker node").range(1, 65535).req(),
          str("command", "its command line, {port} replaced; a dcgm exporter's own when absent"),
          str("binary", "a host executable run with no container, command its arguments"),
          str("kind", "dcgm: DCGM's labels and metrics unless written; custom: only what is written")
              .one_of({"dcgm", "custom"})
              .def("dcgm"),
          object("gpu_labels",
                 field_list(str("index", "the label holding the node-local GPU index").req(),
                            str("identity", "the label unique per physical GPU").req(),
                            make("instance", Kind::string_list, "labels of a partition, whose samples are dropped")),
                 "how a sample names its GPU"),
          object("gpu_metrics",
                 field_list(metric_field("power", "per-GPU watts", true),
                            metric_field("gpu_util", "per-GPU utilisation, percent"),
                            metric_field("sm_active", "per-GPU SM activity, 0-1"),
                            metric_field("temperature", "per-GPU temperature, Celsius")),
                 "the metrics recorded")),
      std::move(doc));
}

Field telemetry_field() {
  return object(
      "telemetry",
      field_list(
          boolean("enabled", "run a GPU exporter on every worker node and record power over each point").def("false"),
          boolean("required", "an unpublishable measurement fails the job").def("false"),
          integer("collect_interval_ms", "milliseconds between scrapes of every exporter")
              .range(1, kPowerMaxGapMs)
              .def("1000"),
          str("storage_subdir", "where under the job's logs the artifacts go").def("power"),
          make("startup_timeout_seconds", Kind::number, "how long the exporters may take to answer").def("30"),
          make("request_timeout_seconds", Kind::number, "each scrape's timeout").def("2"),
          gpu_exporter_field("dcgm_exporter", "the GPU exporter (the profile's default_gpu_exporter when absent)"),
          // The launcher stamps every window and every sample on the one host it runs on, so
          // there is no second clock to check; it joins its collector itself.
          boolean("clock_sync_check", "srtctl's NTP check of the nodes: not needed here (one clock)").inert(),
          make("collector_join_timeout_seconds", Kind::number, "srtctl's collector shutdown budget").inert(),
          // The one provider srtctl's power telemetry had before the key went (its docs: "there is
          // no provider key"); InferenceX recipes of that time still write it.
          str("provider", "srtctl's earlier spelling of what this block is").one_of({"dcgm-power"}).inert(),
          any("cpu_power_exporter", "a CPU power exporter scraped from the head").tier2(),
          any("cpu_power", "an in-job CPU power collector on each node").tier2()),
      "GPU power over each benchmark point (srtctl's dcgm-power)");
}

}  // namespace schema

namespace {

const Json* member(const Json& block, const char* key) {
  if (!block.is_object()) return nullptr;
  const auto it = block.find(key);
  return it == block.end() || it->is_null() ? nullptr : &*it;
}

std::string text(const Json& block, const char* key, std::string fallback) {
  const Json* v = member(block, key);
  return v && v->is_string() ? v->get<std::string>() : fallback;
}

double seconds(const Json& block, const char* key, double fallback) {
  const Json* v = member(block, key);
  return v && v->is_number() && v->get<double>() > 0 ? v->get<double>() : fallback;
}

// gpu_metrics.NAME.metric, or `fallback` when the block does not name one.
std::string metric(const Json* metrics, const char* name, std::string fallback) {
  if (!metrics) return fallback;
  const Json* m = member(*metrics, name);
  return m ? text(*m, "metric", "") : fallback;
}

}  // namespace

GpuExporter read_gpu_exporter(const Json& block) {
  GpuExporter e;
  e.container_image = text(block, "container_image", "");
  if (const Json* p = member(block, "port"))
    if (const auto n = schema::as_integer(*p); n && *n > 0 && *n < 65536) e.port = static_cast<int>(*n);
  e.command = text(block, "command", "");
  e.binary = text(block, "binary", "");
  e.kind = text(block, "kind", "dcgm");
  const Json* labels = member(block, "gpu_labels");
  const Json* metrics = member(block, "gpu_metrics");
  if (e.kind == "custom") {
    // No DCGM default leaks into an exporter that is not DCGM: only what it writes.
    e.index_label = e.identity_label = e.power_metric = e.power_scope = "";
    e.util_metric = e.sm_active_metric = e.temperature_metric = "";
    e.instance_labels.clear();
  }
  if (labels) {
    e.index_label = text(*labels, "index", e.index_label);
    e.identity_label = text(*labels, "identity", e.identity_label);
    if (const Json* inst = member(*labels, "instance"); inst && inst->is_array()) {
      e.instance_labels.clear();
      for (const auto& x : *inst)
        if (x.is_string()) e.instance_labels.push_back(x.get<std::string>());
    }
  }
  if (metrics) {
    e.power_metric = metric(metrics, "power", e.power_metric);
    if (const Json* power = member(*metrics, "power")) e.power_scope = text(*power, "scope", e.power_scope);
    e.util_metric = metric(metrics, "gpu_util", e.util_metric);
    e.sm_active_metric = metric(metrics, "sm_active", e.sm_active_metric);
    e.temperature_metric = metric(metrics, "temperature", e.temperature_metric);
  }
  return e;
}

Telemetry read_telemetry(const Json* block) {
  Telemetry t;
  if (!block || !block->is_object()) return t;
  t.given = true;
  if (const Json* v = member(*block, "enabled"))
    if (const auto b = schema::as_boolean(*v)) t.enabled = *b;
  if (const Json* v = member(*block, "required"))
    if (const auto b = schema::as_boolean(*v)) t.required = *b;
  if (const Json* v = member(*block, "collect_interval_ms"))
    if (const auto n = schema::as_integer(*v); n && *n > 0 && *n <= kPowerMaxGapMs) t.collect_interval_ms = int(*n);
  t.storage_subdir = text(*block, "storage_subdir", t.storage_subdir);
  t.startup_timeout_seconds = seconds(*block, "startup_timeout_seconds", t.startup_timeout_seconds);
  t.request_timeout_seconds = seconds(*block, "request_timeout_seconds", t.request_timeout_seconds);
  if (const Json* e = member(*block, "dcgm_exporter"); e && e->is_object()) t.exporter = read_gpu_exporter(*e);
  t.cpu_legs = member(*block, "cpu_power_exporter") != nullptr || member(*block, "cpu_power") != nullptr;
  return t;
}

DefaultGpuExporter read_default_gpu_exporter(const Json* root) {
  DefaultGpuExporter d;
  if (!root || !root->is_object()) return d;
  const auto it = root->find("default_gpu_exporter");
  if (it == root->end()) return d;
  d.given = true;
  if (it->is_object()) d.exporter = read_gpu_exporter(*it);
  return d;
}

std::optional<GpuExporter> effective_gpu_exporter(const Telemetry& t, const DefaultGpuExporter& cluster) {
  if (!t.enabled) return std::nullopt;
  if (t.exporter) return t.exporter;
  return cluster.exporter;
}

std::string missing_gpu_exporter(const Telemetry& t, const DefaultGpuExporter& cluster) {
  if (!t.enabled || effective_gpu_exporter(t, cluster)) return {};
  return std::string("no GPU exporter to run: the recipe's telemetry names no dcgm_exporter and ") +
         (cluster.given ? "the cluster profile's default_gpu_exporter is null" : "the cluster profile has no default_gpu_exporter");
}

}  // namespace srt

namespace srt {

namespace {

// Characters a shell would treat as more than a word boundary: a command holding one would mean
// something else split into words than run by a shell, so it is refused rather than guessed.
constexpr const char* kShellSpecial = "'\"\\$`;&|<>(){}*?[]~#\n";

void replace_port(std::string& word, int port) {
  const std::string token = "{port}", value = std::to_string(port);
  for (std::size_t at = word.find(token); at != std::string::npos; at = word.find(token, at + value.size()))
    word.replace(at, token.size(), value);
}

}  // namespace

std::string gpu_exporter_command_problem(const std::string& command) {
  std::string rest = command;
  replace_port(rest, 0);  // "{port}" is the one placeholder; its braces are not the shell's
  const std::size_t bad = rest.find_first_of(kShellSpecial);
  if (bad == std::string::npos) return {};
  return std::string("holds '") + rest[bad] + "', which a shell would read: the command runs as plain words, no shell";
}

std::vector<std::string> gpu_exporter_argv(const GpuExporter& e, const std::string& listen_host) {
  std::string command = e.command;
  // srtctl's built-in DCGM command (src/srtctl/cli/mixins/telemetry_stage.py): 100 ms sampling,
  // on the node's data-network address only (srtctl's ":{port}" is every interface).
  // Go's listen address (dcgm-exporter's -a): an IPv6 literal goes in brackets.
  const std::string host = listen_host == "0.0.0.0" ? ""
                           : listen_host.find(':') != std::string::npos ? "[" + listen_host + "]"
                                                                        : listen_host;
  if (command.empty() && e.kind == "dcgm")
    command = "dcgm-exporter --collect-interval=100 --address " + host + ":{port}";
  if (const std::string problem = gpu_exporter_command_problem(command); !problem.empty())
    fail("the GPU exporter's command '" + command + "' " + problem,
         "put what needs a shell in a script in the image and name the script");
  std::vector<std::string> argv;
  if (!e.binary.empty()) argv.push_back(e.binary);
  std::size_t at = 0;
  while ((at = command.find_first_not_of(" \t", at)) != std::string::npos) {
    const std::size_t end = command.find_first_of(" \t", at);
    argv.push_back(command.substr(at, end == std::string::npos ? std::string::npos : end - at));
    replace_port(argv.back(), e.port);
    at = end;
  }
  return argv;
}

}  // namespace srt

namespace srt {

std::vector<std::pair<std::string, std::string>> gpu_exporter_problems(const GpuExporter& e, const Json& block) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto written = [&block](const char* key) { return block.is_object() && block.contains(key) && !block[key].is_null(); };
  if (e.kind == "custom") {
    // srtctl's docs/power-telemetry.md: "kind: custom ... must set command, gpu_labels and
    // gpu_metrics".
    for (const char* key : {"command", "gpu_labels", "gpu_metrics"})
      if (!written(key)) out.emplace_back(key, "is required by kind: custom (only a dcgm exporter has defaults)");
  }
  if (e.binary.empty() && e.container_image.empty())
    out.emplace_back("container_image", "is empty and no binary is given: nothing to run");
  if (!e.command.empty())
    if (std::string problem = gpu_exporter_command_problem(e.command); !problem.empty()) out.emplace_back("command", problem);
  return out;
}

}  // namespace srt
