// The ATOM engine (docs/design.md "How ATOM runs"): one `atom.entrypoints.openai_server`
// per worker, whose EngineCores (one per DP rank under DP attention) inherit its environment, so
// every per-rank wire (ports, NICs, KV events) is handed over as a base or a list.
#include <algorithm>
#include <set>
#include <string>

#include "adapters.hpp"
#include "flags.hpp"
#include "srt/error.hpp"
#include "srt/join.hpp"
#include "srt/rdma_nic.hpp"

namespace srt::plan_detail {

namespace {

const char* kv_role(WorkerMode m) {
  return m == WorkerMode::prefill ? "kv_producer" : "kv_consumer";
}

// public_port: the worker is the job's endpoint (frontend.type: atom) and serves on it.
Process atom_worker(const WorkerContext& ctx, const Endpoint& e, const PlanNode& node, NodePorts& ports,
                    const Process* relay, int public_port) {
  const Recipe& r = ctx.recipe;
  const ModeParts& parts = ctx.of(e.mode);
  const WorkerShape shape = parts.shape(int(e.gpus.size()));
  const bool pd = e.mode != WorkerMode::agg;
  const std::string mode = to_string(e.mode);
  const std::string name = mode + ":" + std::to_string(e.index);

  Process w = worker_process(e, node, "atom");
  w.ranks = rank_count(shape.world(), "ATOM " + name, "ranks");
  w.dp_ranks = shape.dp_attention ? rank_count(std::int64_t(shape.tp) * shape.dp, "ATOM " + name, "DP ranks") : shape.dp;
  const int engine_cores = rank_count(shape.engine_cores(), "ATOM " + name, "EngineCores");

  const int http = public_port > 0 ? public_port : ports.one(name + " http");
  const int engine = ports.one(name + " engine --port");
  w.ports.http = {http};
  w.ports.engine = {engine};
  const bool multi_rank_dp = engine_cores > 1 && (shape.dp_attention || shape.dp > 1);
  if (multi_rank_dp) {
    w.ports.dp_master = {ports.one(name + " ATOM_DP_MASTER_PORT")};
    w.ports.dp_base = {ports.one(name + " ATOM_DP_BASE_PORT")};
  }
  if (pd) w.ports.handshake = ports.block(w.ranks, name + " Mooncake handshake block");
  if (ctx.kv_mode == KvMode::offset)
    w.ports.kv_events = ports.block(engine_cores, name + " KV-event block");
  w.readiness = {"http", http, "/health"};

  // argv: the profile's engine command (the lab runs a stand-in), then srtctl's order.
  w.argv = ctx.profile.engine_command;
  w.argv.insert(w.argv.end(), {"--model", parts.model});
  if (!parts.served.empty()) w.argv.insert(w.argv.end(), {"--served-model-name", parts.served});
  w.argv.insert(w.argv.end(), {"--host", listen_host(ctx.profile, node.address), "--server-port", std::to_string(http), "--port",
                               std::to_string(engine), "-tp", std::to_string(shape.tp)});
  if (pd) {
    Json kv = Json::object();
    kv["kv_role"] = kv_role(e.mode);
    kv["kv_connector"] = r.backend.connector.empty() ? "mooncake" : r.backend.connector;
    kv["handshake_port"] = w.ports.handshake.front();
    if (!r.backend.mooncake_protocol.empty()) kv["protocol"] = r.backend.mooncake_protocol;
    kv["http_port"] = http;  // only informational in ATOM; keep it true
    w.argv.insert(w.argv.end(), {"--kv-transfer-config", kv.dump()});
  }
  w.argv.insert(w.argv.end(), parts.flags.begin(), parts.flags.end());

  // Environment, in srtctl's merge order: role env, global env, then ours (SemiAnalysisAI/srt-slurm
  // src/srtctl/cli/mixins/worker_stage.py @ 01bc9f04, start_worker).
  for (const auto& [k, v] : r.backend.environment(e.mode))
    set_env(w.env, k, substitute_node(v, node.name, node.index));
  for (const auto& [k, v] : r.environment) set_env(w.env, k, substitute_node(v, node.name, node.index));
  const int gpn = plan_detail::gpus_per_node(r, ctx.profile);
  if (int(e.gpus.size()) < gpn) set_env(w.env, ctx.profile.visible_devices_env, join(e.gpus));
  set_env(w.env, "ATOM_HOST_IP", node.address);
  if (multi_rank_dp) {
    set_env(w.env, "ATOM_DP_MASTER_IP", "127.0.0.1");
    set_env(w.env, "ATOM_DP_MASTER_PORT", std::to_string(w.ports.dp_master.front()));
    set_env(w.env, "ATOM_DP_BASE_PORT", std::to_string(w.ports.dp_base.front()));
  }
  if (pd && r.backend.mooncake_over_rdma() && ctx.profile.mooncake_gid_index >= 0) {
    // ATOM's GID helper reads MC_IB_GID_INDEX, Mooncake itself MC_GID_INDEX: set both.
    set_env(w.env, "MC_GID_INDEX", std::to_string(ctx.profile.mooncake_gid_index));
    set_env(w.env, "MC_IB_GID_INDEX", std::to_string(ctx.profile.mooncake_gid_index));
  }
  if (ctx.kv_mode == KvMode::offset) {
    set_env(w.env, "ATOM_KV_EVENTS_ENABLE", "1");
    set_env(w.env, "ATOM_KV_EVENTS_PUBLISHER", "zmq");
    // `*` makes vLLM/SGLang-style publishers bind; ranks add their DP rank to the port.
    set_env(w.env, "ATOM_KV_EVENTS_ENDPOINT", "tcp://*:" + std::to_string(w.ports.kv_events.front()));
  } else if (ctx.kv_mode == KvMode::relay) {
    if (!relay) fail("internal: a relay-mode worker planned without its kv-relay");
    set_env(w.env, "ATOM_KV_EVENTS_ENABLE", "1");
    set_env(w.env, "ATOM_KV_EVENTS_PUBLISHER", "zmq");
    // ATOM's own publisher always binds its endpoint, in every rank: a fixed one (the ingress
    // above all) is taken by the first rank and the others die; a wildcard port gives each rank
    // a kernel-chosen loopback port nobody reads. Infera's hook connects every rank to the relay.
    set_env(w.env, "ATOM_KV_EVENTS_ENDPOINT", "tcp://127.0.0.1:*");
    set_env(w.env, "INFERA_ATOM_KV_EVENTS_ENDPOINT", kv_relay_ingress(*relay));
    set_env(w.env, "INFERA_ATOM_KV_EVENTS_CONNECT", "1");
  }
  set_worker_identity_env(w);
  // In that mode ATOM's openai_server treats --port as the HTTP port (docs/design.md
  // "How ATOM runs").
  w.unset_env = {"USE_ATOMESH_ENTRYPOINTS"};
  return w;
}

// ATOM_MOONCAKE_MATCHED_RAILS is "auto" or a list of rail NICs; only empty (after strip) is off.
bool rails_on(const std::string& v) { return v.find_first_not_of(" \t\r\n") != std::string::npos; }

// The kv-transfer-config of an RDMA worker, or nullptr (TCP, or no KV transfer).
std::string* rdma_kv_config(Process& w) {
  for (std::size_t i = 0; i + 1 < w.argv.size(); ++i) {
    if (w.argv[i] != "--kv-transfer-config") continue;
    const Json kv = Json::parse(w.argv[i + 1]);
    return kv.value("protocol", std::string("rdma")) == "rdma" ? &w.argv[i + 1] : nullptr;
  }
  return nullptr;
}

// mooncake_gid_index: auto: the RoCE v2 IPv4 GID index the worker's paired NICs share on this
// node, as MC_GID_INDEX (Mooncake) and MC_IB_GID_INDEX (ATOM's GID helper); none when they do
// not share one, and Mooncake detects an index itself.
std::string auto_gid_index(Process& w, const WorkerBinding& b, const std::string& where) {
  std::set<int> indexes;
  std::vector<std::string> found, none;
  for (const std::string& nic : b.ib_devices) {
    if (nic.empty() || std::find(found.begin(), found.end(), nic) != found.end()) continue;
    const auto it = b.roce_gid_index.find(nic);
    if (it == b.roce_gid_index.end()) {
      if (std::find(none.begin(), none.end(), nic) == none.end()) none.push_back(nic);
      continue;
    }
    indexes.insert(it->second);
    found.push_back(nic);
  }
  if (found.empty() && none.empty()) return {};
  if (none.empty() && indexes.size() == 1) {
    const std::string index = std::to_string(*indexes.begin());
    set_env(w.env, "MC_GID_INDEX", index);
    set_env(w.env, "MC_IB_GID_INDEX", index);
    return where + "MC_GID_INDEX=" + index + " (mooncake_gid_index: auto): the RoCE v2 IPv4 GID index of " + join(found);
  }
  std::string detail;
  for (const std::string& nic : found) detail += (detail.empty() ? "" : ", ") + nic + " " + std::to_string(b.roce_gid_index.at(nic));
  for (const std::string& nic : none) detail += (detail.empty() ? "" : ", ") + nic + " none";
  return where + "mooncake_gid_index: auto found no RoCE v2 IPv4 GID index every paired NIC shares (" + detail +
         "): no MC_GID_INDEX, Mooncake detects one itself";
}

// The pick in a console line when it is not the newest ATOM's (which every line so far assumed).
std::string pick_shown(const AtomNicPick& pick) {
  const std::string word = to_string(pick);
  return word == to_string(newest_atom_nic_pick()) ? std::string() : " (" + word + ")";
}

std::vector<std::string> atom_bind(Process& w, const WorkerBinding& b, const std::string& host_ip, const Profile& profile,
                                   std::uint64_t job_id) {
  if (!host_ip.empty()) set_env(w.env, "ATOM_HOST_IP", host_ip);
  if (!b.numa_nodes.empty()) {
    set_env(w.env, "ATOM_NUMA_BIND", "1");
    set_env(w.env, "ATOM_NUMA_NODE", join(b.numa_nodes));
  }
  if (!b.cpus.empty()) set_env(w.env, "SRT_WORKER_CPUS", b.cpus);
  std::string* kv = rdma_kv_config(w);
  if (!kv) return {};
  const std::vector<AtomNicGuess> guesses = atom_nic_guesses(b);
  const std::string where = w.name + " on " + w.node + ": ";
  std::vector<std::string> notes;
  if (profile.mooncake_gid_index == kMooncakeGidAuto)
    if (std::string line = auto_gid_index(w, b, where); !line.empty()) notes.push_back(std::move(line));
  const auto said = [&notes](std::vector<std::string> more) {
    notes.insert(notes.end(), more.begin(), more.end());
    return notes;
  };
  // A recipe that chose the NICs itself (ATOM_MOONCAKE_IB_DEVICE) or matched rails (which need one
  // primary HCA per rank, ATOM's own pick or one configured device) keeps what it wrote: no list
  // of ours, and no topology file, which inside Mooncake overrides any device filter.
  for (const auto& [k, v] : w.env) {
    if (k == "ATOM_MOONCAKE_IB_DEVICE") return notes;
    if (k == "ATOM_MOONCAKE_MATCHED_RAILS" && rails_on(v)) {
      if (atom_guesses_follow_pairing(guesses)) return notes;
      return said({where + "ATOM_MOONCAKE_MATCHED_RAILS leaves each rank's NIC to ATOM, whose pick misses the pairing: " +
              atom_guess_misses(guesses) + " (the recipe's choice is kept)"});
    }
  }
  // ATOM's own pick (rdma<N>/ionic_<N> from the rank's ROCR_VISIBLE_DEVICES entry) gives each rank
  // its own NIC and only that one (ROCm/ATOM mooncake_connector.py _auto_select_ib_device). Where
  // it names every GPU's paired NIC, leave it to ATOM: no list, and no topology file, which inside
  // Mooncake would make every rank open every NIC it names.
  if (atom_guesses_follow_pairing(guesses)) {
    std::string own;
    for (const AtomNicGuess& g : guesses) own += (own.empty() ? "" : ", ") + std::string("GPU ") + std::to_string(g.gpu) + " " + g.guess;
    return said({where + "each rank opens only its own NIC, as ATOM picks it" + pick_shown(b.atom_nic_pick) + ": " + own});
  }
  // Otherwise name the paired NICs explicitly: ATOM's pick would open a NIC far from the GPU, or
  // one the node lacks (bnxt_re and mlx5 devices are never picked).
  std::vector<std::string> nics;
  for (const auto& d : b.ib_devices)
    if (!d.empty()) nics.push_back(d);
  if (nics.empty()) return notes;
  if (!b.mooncake_topology.empty()) {
    // Mooncake silently ignores a topology file it cannot read, so the file must exist inside the
    // container: srt-exec writes SRT_MOONCAKE_TOPOLOGY to this path before it execs the engine.
    // Named for the job and the step: /tmp may be the node's, shared by every job on it.
    set_env(w.env, "MC_CUSTOM_TOPO_JSON",
            "/tmp/srt-mooncake-" + std::to_string(job_id) + "-" + w.step_name + ".json");
    set_env(w.env, "SRT_MOONCAKE_TOPOLOGY", b.mooncake_topology);
  }
  Json config = Json::parse(*kv);
  config["ib_device"] = join(nics);
  *kv = config.dump();
  // The same list through ATOM's fallback variable: the launcher renders argv on the head node,
  // which cannot know this node's NICs, while this environment is set on the node itself.
  set_env(w.env, "ATOM_MOONCAKE_IB_DEVICE", join(nics));
  // Every version of ATOM's connector hands a configured list whole to every rank (none splits
  // it by rank; docs/design.md "ATOM's NIC choice"), so each rank opens every NIC listed.
  const std::string why = b.atom_nic_pick.kind == AtomNicPick::Kind::own_nic
                              ? "ATOM's own NIC pick" + pick_shown(b.atom_nic_pick) + " misses the pairing for " +
                                    atom_guess_misses(guesses)
                              : b.atom_nic_pick.kind == AtomNicPick::Kind::every_nic
                                    ? std::string("the image's ATOM picks no NIC of a rank's own (every-nic)")
                                    : std::string("preflight could not tell how the image's ATOM picks a rank's NIC");
  return said({where + why + "; every rank gets the worker's paired NICs instead (ATOM_MOONCAKE_IB_DEVICE=" +
               join(nics) + ")"});
}

class AtomEngine final : public EngineAdapter {
 public:
  const char* name() const override { return "atom"; }
  // One process per endpoint: ATOM's server owns every GPU of its worker on the leader's node.
  std::vector<Process> workers(const WorkerContext& ctx, const EndpointSite& site) const override {
    return {atom_worker(ctx, site.endpoint, *site.nodes.front(), *site.ports.front(), site.relay, site.public_port)};
  }
  std::vector<std::string> bind(Process& w, const WorkerBinding& b, const std::string& host_ip, const Profile& profile,
                                std::uint64_t job_id) const override {
    return atom_bind(w, b, host_ip, profile, job_id);
  }
  const char* progress_metric() const override { return "atom:requests_finished_total"; }  // ATOM metrics.py
  // ATOM's server refreshes its metrics every 5 s (metrics.py), not as each request finishes.
  bool progress_metric_is_live() const override { return false; }
};

}  // namespace

const EngineAdapter& atom_engine() {
  static const AtomEngine engine;
  return engine;
}

}  // namespace srt::plan_detail
