// Cross-field rules: srtctl's (src/srtctl/core/schema.py validators, NVIDIA/srt-slurm c88ef731;
// wording kept recognisable) plus the few srt-spank adds because the process would otherwise fail
// after loading the model.
#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string>

#include "extract.hpp"
#include "srt/join.hpp"
#include "srt/limits.hpp"
#include "srt/telemetry.hpp"

namespace srt::recipe_detail {
namespace {

// ATOM flags srtctl (and our Plan) set itself: compared after stripping dashes, '_' -> '-'.
// `port` is ours: the Plan gives every co-located worker its own engine port.
const char* const kAtomManaged[] = {"model", "host", "server-port", "tp", "tensor-parallel-size", "kv-transfer-config", "port"};
// AToMesh flags srtctl builds from the worker list.
const char* const kAtomeshManaged[] = {"backend", "host", "port", "pd-disaggregation", "prefill", "decode", "worker-urls"};

class Rules {
 public:
  Rules(const Recipe& r, int gpn, schema::Issues& issues, std::vector<std::string>& unsupported)
      : r_(r), doc_(r.source), gpn_(gpn), issues_(issues), unsupported_(unsupported) {}

  void run() {
    parallel_sizes();
    atom();  // before layout(): its "fit on one node" says more than the generic fit message
    layout();
    router_pairing();
    atomesh();
    benchmark();
    misc();
  }

 private:
  void error(const std::string& path, std::string message, std::string hint = {}) {
    if (issues_.bad(doc_.written_path(path))) return;  // already reported by the type check
    issues_.error(doc_.at(path, std::move(message), std::move(hint)));
  }
  void warn(const std::string& path, std::string message, std::string hint = {}) {
    issues_.warnings.push_back(doc_.at(path, std::move(message), std::move(hint)));
  }
  // Each role's engine config, named as backend.<engine>_config names it.
  std::array<std::pair<const char*, const Json*>, 3> role_configs() const {
    return {{{"prefill", &r_.backend.prefill_config},
             {"decode", &r_.backend.decode_config},
             {"aggregated", &r_.backend.aggregated_config}}};
  }
  bool given(const char* section, const char* key) const {
    const Json& root = doc_.root;
    return root.is_object() && root.contains(section) && root[section].is_object() && root[section].contains(key) &&
           !root[section][key].is_null();
  }

  // gpus per worker as srtctl derives it: X_nodes * gpus_per_node // X_workers.
  int gpus_per(int explicit_gpus, int nodes, int workers) const {
    if (explicit_gpus > 0) return explicit_gpus;
    return (gpn_ > 0 && workers > 0) ? nodes * gpn_ / workers : 0;
  }

  void fits(const char* role, int workers, int gpus, int nodes) {
    if (gpn_ <= 0 || workers <= 0) return;
    const std::string key = std::string("resources.gpus_per_") + role;
    if (gpus == 0) {
      error(std::string("resources.") + role + "_workers",
            std::to_string(workers) + " workers on " + std::to_string(nodes) + " node(s) of " + std::to_string(gpn_) +
                " GPUs leave no GPU per worker",
            "fewer workers or more nodes");
      return;
    }
    if (static_cast<long long>(workers) * gpus > static_cast<long long>(nodes) * gpn_)
      error(key, std::to_string(workers) + " workers x " + std::to_string(gpus) + " GPUs do not fit on " +
                     std::to_string(nodes) + " node(s) x " + std::to_string(gpn_) + " GPUs",
            "raise resources." + std::string(role) + "_nodes or lower the workers or GPUs per worker");
  }

  // Every parallel size an engine is given, in every role, whatever the engine: the Plan counts
  // ranks, ports and KV-event blocks from them, and the engine gets the number as written, so a
  // value the Plan would read otherwise (2^32 + 2 read as 2) or cannot count (2^30 ranks) is
  // refused here, at its key.
  void parallel_sizes() {
    const std::string config = "backend." + r_.backend.type + "_config.";
    const std::vector<std::string>& names = parallel_size_flags();
    for (const auto& [role, values] : role_configs())
      for (auto it = values->begin(); it != values->end(); ++it) {
        if (std::find(names.begin(), names.end(), flag_name(it.key())) == names.end()) continue;
        const std::string problem = parallel_size_problem(it.value());
        if (!problem.empty())
          error(config + role + "." + it.key(), problem,
                "give the engine's real parallel size (at most " + std::to_string(kMaxParallelSize) + ")");
      }
  }

  void layout() {
    const Resources& s = r_.resources;
    const bool agg_given = given("resources", "agg_nodes") || given("resources", "agg_workers");
    if (s.disaggregated()) {
      if (agg_given) error("resources.agg_nodes", "cannot mix aggregated and disaggregated workers",
                           "use either prefill_*/decode_* or agg_*");
      if (s.prefill_nodes < 1) error("resources.prefill_nodes", "a disaggregated recipe needs at least one prefill node");
      if (s.prefill_workers < 1) error("resources.prefill_workers", "disaggregated serving needs both prefill and decode workers", "set prefill_workers: 1 or more");
      if (s.decode_workers < 1) error("resources.decode_workers", "disaggregated serving needs both prefill and decode workers", "set decode_workers: 1 or more");
      const int gpp = gpus_per(s.gpus_per_prefill, s.prefill_nodes, s.prefill_workers);
      if (s.decode_nodes == 0) {
        // decode_nodes: 0 -> decode shares the prefill nodes and inherits the prefill GPU count.
        const int gpd = s.gpus_per_decode > 0 ? s.gpus_per_decode : gpp;
        if (gpn_ > 0 && gpp > 0 && gpd > 0 &&
            static_cast<long long>(s.prefill_workers) * gpp + static_cast<long long>(s.decode_workers) * gpd >
                static_cast<long long>(s.prefill_nodes) * gpn_)
          error("resources.decode_nodes", "decode_nodes: 0 puts decode on the prefill nodes, but " +
                    std::to_string(s.prefill_workers) + "x" + std::to_string(gpp) + " prefill + " +
                    std::to_string(s.decode_workers) + "x" + std::to_string(gpd) + " decode GPUs exceed " +
                    std::to_string(s.prefill_nodes) + " node(s) x " + std::to_string(gpn_),
                "give decode nodes of its own");
        else fits("prefill", s.prefill_workers, gpp, s.prefill_nodes);
      } else {
        fits("prefill", s.prefill_workers, gpp, s.prefill_nodes);
        fits("decode", s.decode_workers, gpus_per(s.gpus_per_decode, s.decode_nodes, s.decode_workers), s.decode_nodes);
      }
    } else {
      for (const char* k : {"prefill_workers", "decode_workers", "gpus_per_prefill", "gpus_per_decode"})
        if (given("resources", k))
          error(std::string("resources.") + k, "is set but neither prefill_nodes nor decode_nodes is",
                "set prefill_nodes and decode_nodes for disaggregated serving");
      const int nodes = s.agg_nodes > 0 ? s.agg_nodes : 1;
      const int workers = s.agg_workers > 0 ? s.agg_workers : 1;
      fits("agg", workers, gpus_per(s.gpus_per_agg, nodes, workers), nodes);
    }
  }

  void router_pairing() {
    const std::string& fe = r_.frontend.type;
    const std::string& be = r_.backend.type;
    if ((fe == "atomesh" || fe == "infera" || fe == "atom") && be != "atom")
      error("frontend.type", "frontend.type: " + fe + " requires backend.type: atom (got '" + be + "')");
    if (be == "atom" && fe != "atomesh" && fe != "infera" && fe != "atom")
      error("backend.type", "backend.type: atom requires frontend.type: atomesh, infera or atom (got '" + fe + "')",
            "set frontend: {type: atomesh, enable_multiple_frontends: false}");
    if (fe == "atom" && (r_.resources.disaggregated() || std::max(r_.resources.agg_workers, 1) != 1))
      error("frontend.type", "frontend.type: atom serves exactly one aggregated ATOM worker",
            "use frontend.type: atomesh for replicas or prefill/decode");
    const int nodes = r_.resources.disaggregated() ? r_.resources.prefill_nodes + r_.resources.decode_nodes
                                                   : std::max(r_.resources.agg_nodes, 1);
    // srtctl's default is nginx plus extra routers once there is more than one node.
    if (r_.frontend.enable_multiple_frontends && nodes > 1 && fe != "vllm" && fe != "trtllm_serve" && fe != "atom")
      unsupported_.push_back("frontend.enable_multiple_frontends");
  }

  void atom() {
    if (r_.backend.type != "atom") return;
    for (const auto& [role, config] : role_configs()) {
      std::string managed;
      std::string first_path;
      for (auto it = config->begin(); it != config->end(); ++it) {
        const std::string name = flag_name(it.key());
        for (const char* m : kAtomManaged)
          if (name == m) {
            managed += (managed.empty() ? "'" : ", '") + it.key() + "'";
            if (first_path.empty()) first_path = "backend.atom_config." + std::string(role) + "." + it.key();
          }
      }
      if (!managed.empty())
        error(first_path, "ATOM config cannot override srtctl-managed argument(s): [" + managed + "]",
              "remove them; model, host, ports, -tp and --kv-transfer-config come from the recipe's resources and the Plan");
    }
    matched_rails();
    const Resources& s = r_.resources;
    auto one_node = [&](const char* role, int explicit_gpus, int nodes, int workers) {
      const int gpus = gpus_per(explicit_gpus, nodes, workers);
      if (gpn_ > 0 && gpus > gpn_)
        error(std::string("resources.gpus_per_") + role,
              "ATOM currently requires each logical endpoint to fit on one Slurm node (" + std::to_string(gpus) +
                  " GPUs > " + std::to_string(gpn_) + " per node)",
              "use more workers with fewer GPUs each");
    };
    if (s.disaggregated()) {
      one_node("prefill", s.gpus_per_prefill, s.prefill_nodes, s.prefill_workers);
      if (s.decode_nodes > 0) one_node("decode", s.gpus_per_decode, s.decode_nodes, s.decode_workers);
      if (!r_.backend.aggregated_config.empty())
        warn("backend.atom_config.aggregated", "is set but the recipe has no aggregated workers; it is not used");
    } else {
      one_node("agg", s.gpus_per_agg, std::max(s.agg_nodes, 1), std::max(s.agg_workers, 1));
      for (const char* role : {"prefill", "decode"})
        if (!(role[0] == 'p' ? r_.backend.prefill_config : r_.backend.decode_config).empty())
          warn(std::string("backend.atom_config.") + role, "is set but the recipe has no disaggregated workers; it is not used");
    }
  }

  // ATOM's matched rails (ATOM_MOONCAKE_MATCHED_RAILS) need one primary HCA per rank: the
  // connector refuses to start with a list of several ("Matched rails require a single primary
  // HCA per engine"; ROCm/ATOM #2276, docs/design.md "ATOM's NIC choice"). The worker's variable
  // as srtctl merges it: the role's, then the recipe's environment over it.
  void matched_rails() {
    const std::pair<WorkerMode, const char*> modes[] = {{WorkerMode::prefill, "backend.prefill_environment"},
                                                        {WorkerMode::decode, "backend.decode_environment"},
                                                        {WorkerMode::agg, "backend.aggregated_environment"}};
    for (const auto& [mode, role_path] : modes) {
      std::string rails, rails_path, list, list_path;
      for (const auto& [path, env] : {std::pair<std::string, const EnvList*>{role_path, &r_.backend.environment(mode)},
                                      std::pair<std::string, const EnvList*>{"environment", &r_.environment}})
        for (const auto& [k, v] : *env) {
          if (k == "ATOM_MOONCAKE_MATCHED_RAILS") rails = v, rails_path = path;
          if (k == "ATOM_MOONCAKE_IB_DEVICE") list = v, list_path = join_path(path, k);
        }
      // ATOM reads the variable as "auto" or a list of rail NICs (ROCm/ATOM docs and
      // mooncake_connector.py: "", after strip, is off); "0" or "false" would be a NIC name.
      std::string word;
      for (unsigned char c : rails)
        if (!std::isspace(c)) word += char(std::tolower(c));
      if (word.empty()) continue;
      if (word == "0" || word == "false" || word == "off" || word == "no")
        error(join_path(rails_path, "ATOM_MOONCAKE_MATCHED_RAILS"),
              "is '" + rails + "', which ATOM reads as a list of rail NICs, not as off (it takes 'auto' or NIC names)",
              "leave ATOM_MOONCAKE_MATCHED_RAILS out, or empty, to switch matched rails off");
      const std::vector<std::string> listed = split_list(list);
      const std::set<std::string> nics(listed.begin(), listed.end());
      if (nics.size() > 1)
        error(list_path,
              "names " + std::to_string(nics.size()) + " NICs with ATOM_MOONCAKE_MATCHED_RAILS set: matched rails need one "
              "primary HCA per rank, and ATOM refuses to start with a list",
              "give one NIC, or leave ATOM_MOONCAKE_IB_DEVICE out so each rank picks its GPU's own");
    }
  }

  void atomesh() {
    if (r_.frontend.type != "atomesh") return;
    for (auto it = r_.frontend.args.begin(); it != r_.frontend.args.end(); ++it) {
      const std::string name = flag_name(it.key());
      for (const char* m : kAtomeshManaged)
        if (name == m)
          error("frontend.args." + it.key(),
                name == "backend" ? "frontend.args.backend is managed by srtctl for atomesh"
                                  : "--" + name + " is set for AToMesh from the worker list and the profile",
                "remove it");
    }
    if (r_.backend.enable_kv_events)
      warn("backend.enable_kv_events", "AToMesh does not read KV events; they are published for nobody",
           "turn it off unless a consumer subscribes");
  }

  void benchmark() {
    const Benchmark& b = r_.benchmark;
    if (b.type == "custom" && b.command.find_first_not_of(" \t\n") == std::string::npos)
      error("benchmark.command", "benchmark.command is required for benchmark.type=custom",
            "give the shell command; it runs as bash -lc with SRT_FRONTEND_HOST/SRT_FRONTEND_PORT set");
    if (b.type != "custom" && !b.command.empty())
      warn("benchmark.command", "is only used by benchmark.type: custom");
    const PostEval& pe = r_.post_eval;
    if (pe.given && !pe.command.empty() && b.type != "custom")
      warn("post_eval", "the eval runs against the benchmark's endpoint, from its step: benchmark.type " + b.type +
                            " has none, so it never runs", "use benchmark.type: custom");
    if (b.type == "sa-bench") {
      if (b.isl <= 0) error("benchmark.isl", "benchmark.isl is required for sa-bench");
      if (b.osl <= 0) error("benchmark.osl", "benchmark.osl is required for sa-bench");
      if (b.concurrencies.empty()) error("benchmark.concurrencies", "benchmark.concurrencies is required for sa-bench");
    }
  }

  void misc() {
    if (r_.backend.type == "atom" && r_.backend.connector != "mooncake" && !issues_.bad(doc_.written_path("backend.connector")))
      error("backend.connector", "ATOM supports only the mooncake connector");
    // srtctl runs configs/<name> (else configs/patches/<name>): a name, never a path that could
    // leave the cluster's script directory.
    const std::string& s = r_.setup_script;
    if (!s.empty() && (s.find('/') != std::string::npos || s == "." || s == ".." || s.size() > 255 ||
                       s.find_first_of(std::string("\0\n", 2)) != std::string::npos))
      error("setup_script", "'" + s.substr(0, 80) + "' is not a file name",
            "name a script in the cluster's setup_scripts_dir (srtctl's configs/), e.g. pip-runtime-deps.sh");
    // srtctl refuses a blank host_setup command: joined with &&, it is a bash syntax error on
    // every node (HostSetupConfig's validation).
    for (const auto& [key, list] : {std::pair<const char*, const std::vector<std::string>*>{"commands", &r_.host_setup.commands},
                                    {"teardown", &r_.host_setup.teardown}})
      for (std::size_t i = 0; i < list->size(); ++i)
        if ((*list)[i].find_first_not_of(" \t\r\n") == std::string::npos)
          error(std::string("host_setup.") + key + "[" + std::to_string(i) + "]", "is empty",
                "remove it, or write the command");
    if (r_.telemetry.exporter)
      if (const auto t = doc_.root.find("telemetry"); t != doc_.root.end() && t->is_object() && t->contains("dcgm_exporter"))
        for (const auto& [key, message] : gpu_exporter_problems(*r_.telemetry.exporter, (*t)["dcgm_exporter"]))
          error("telemetry.dcgm_exporter." + key, message,
                "see srtctl's docs/power-telemetry.md (kind: custom names its command, gpu_labels and gpu_metrics)");
    if (r_.telemetry.enabled && r_.telemetry.cpu_legs)
      warn("telemetry", "the CPU power legs (cpu_power_exporter, cpu_power) do not run here; GPU power does",
           "drop them, or read CPU power elsewhere");
  }

  const Recipe& r_;
  const Document& doc_;
  int gpn_;
  schema::Issues& issues_;
  std::vector<std::string>& unsupported_;
};

}  // namespace

void check_rules(const Recipe& r, int gpus_per_node, schema::Issues& issues, std::vector<std::string>& unsupported) {
  Rules(r, gpus_per_node, issues, unsupported).run();
}

}  // namespace srt::recipe_detail
