// The states before the benchmark: the nodes and ports checked, every role's image probed, the
// workers started and healthy, the router up with every worker listed.
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "gpu_check.hpp"
#include "machine_impl.hpp"
#include "port_check.hpp"
#include "preflight.hpp"
#include "probe.hpp"
#include "srt/error.hpp"
#include "srt/readiness.hpp"

namespace srt::launch {

// Nothing of the job's runs yet, and its workers' GPUs must be free (gpu_check.hpp): first,
// because what a user's earlier job left holding a GPU usually holds its ports too, and the
// check ends those leftovers.
void Launch::check_gpus() {
  if (job_.profile.gpu_idle_vram_mib < 0) {
    console_.line("gpus: not checked (profile gpu_idle_vram_mib: -1)");
    return;
  }
  const StepCommand cmd = gpu_check_command(job_);
  if (cmd.srun.empty()) return;  // no worker has a GPU
  enter("gpus");
  int status = 0;
  const std::string out = sys::run_capture(cmd.argv(), kPortCheckSeconds, &status, true);
  check_signal();
  const GpuCheckReport r = read_gpu_check(out, job_);
  for (const auto& line : r.lines) console_.line(line);
  if (status == 0 && r.busy.empty()) return;
  std::string why;
  std::vector<std::string> nodes = r.nodes;
  if (!r.busy.empty()) {
    why = r.busy.front();
    if (r.busy.size() > 1) why += " (and " + std::to_string(r.busy.size() - 1) + " more: see the job's output)";
  } else {
    // The step itself failed where a node gave no verdict: that node cannot run the job's steps.
    why = node_step_failure("gpus", "GPU check", "gpu_check", out, status, r.silent);
    nodes = r.silent;
  }
  throw failed(Cause::gpus_busy, "gpus: " + why + " (no worker was started)", nodes);
}

// Nothing of the job's runs yet: its nodes must be its own (exclusive profiles) and every port
// the Plan gives a node free there, or the job stops now naming node and port, rather than a
// worker dying of EADDRINUSE or a probe finding another job's worker (docs/design.md "Ports").
void Launch::check_nodes_and_ports() {
  enter("ports");
  std::string note;
  if (const auto problem = exclusivity_problem(job_, note)) throw failed(Cause::not_exclusive, *problem + " (no worker was started)");
  if (!note.empty()) console_.line("ports: " + note);
  const StepCommand cmd = port_check_command(job_);
  int status = 0;
  const std::string out = sys::run_capture(cmd.argv(), kPortCheckSeconds, &status, true);
  check_signal();
  // Every held port goes to the console; the reason names the first one per node and counts
  // the rest (another job's workers hold dozens).
  std::vector<std::pair<std::string, int>> first_per_node;  // "node X: port P (...) ...", count
  std::size_t from = 0;
  while (from < out.size()) {
    const std::size_t end = std::min(out.find('\n', from), out.size());
    const std::string line = out.substr(from, end - from);
    from = end + 1;
    const std::size_t at = line.find("node ");
    if (line.find("cannot be bound") == std::string::npos || at == std::string::npos) continue;
    console_.line(line);
    const std::string what = line.substr(at), node = what.substr(0, what.find(':'));
    auto same = std::find_if(first_per_node.begin(), first_per_node.end(),
                             [&](const auto& f) { return f.first.rfind(node + ":", 0) == 0; });
    if (same == first_per_node.end()) first_per_node.emplace_back(what, 1);
    else ++same->second;
  }
  std::string busy;
  for (const auto& [line, count] : first_per_node)
    busy += (busy.empty() ? "" : "; ") + line +
            (count > 1 ? " (and " + std::to_string(count - 1) + " more planned port(s) on that node)" : "");
  if (status == 0) {
    console_.line("ports: every planned port is free on all " + std::to_string(job_.plan.nodes.size()) + " nodes");
    return;
  }
  // Those holding a port, else those whose check did not report; in the Plan's node order (the
  // nodes' answers arrive in any order).
  std::vector<std::string> nodes;
  if (busy.empty()) busy = port_check_failure(out, status);
  for (const auto& n : job_.plan.nodes) {
    const bool holds = std::any_of(first_per_node.begin(), first_per_node.end(),
                                   [&](const auto& f) { return f.first.rfind("node " + n.name + ":", 0) == 0; });
    const bool silent = first_per_node.empty() && out.find("port-check: node " + n.name + ": ") == std::string::npos;
    if (holds || silent) nodes.push_back(n.name);
  }
  throw failed(Cause::ports_busy, "ports: " + busy + " (no worker was started)", nodes);
}

std::string Launch::port_check_failure(const std::string& out, int status) {
  std::vector<std::string> silent;
  for (const auto& n : job_.plan.nodes)
    if (out.find("port-check: node " + n.name + ": ") == std::string::npos) silent.push_back(n.name);
  return node_step_failure("ports", "port check", "port_check", out, status, silent);
}

// A per-node check step itself failed (a node that cannot run the job's steps: the plugin's
// task_init refusing, slurmstepd errors) or timed out. Its output is kept as <node>_<file>.out
// for each node that did not report, and the reason names the node, the first "srt:" line
// (what the plugin said: node, library path) and that file, as a failed preflight probe's does;
// the console gets it as "<state>: <why>".
std::string Launch::node_step_failure(const std::string& state, const std::string& what, const std::string& file,
                                      const std::string& out, int status, const std::vector<std::string>& silent) {
  std::string said;
  for (std::size_t at = out.find("srt: "); at != std::string::npos && said.empty(); at = out.find("srt: ", at + 1))
    said = out.substr(at, out.find('\n', at) - at);
  std::string why = "the " + what + " step " + std::string(status == -1 ? "did not finish in " +
                    std::to_string(int(kPortCheckSeconds)) + " s" : "failed (exit code " + std::to_string(status) + ")");
  std::string nodes, logs;
  for (const auto& n : silent) {
    nodes += (nodes.empty() ? "" : ", ") + n;
    const std::string name = n + "_" + file + ".out";
    if (job_.logs) {
      try {
        job_.logs->write_file(name, out);
        logs += (logs.empty() ? "" : ", ") + job_.log_dir + "/" + name;
      } catch (const Error& e) {
        console_.line(state + ": " + std::string(e.what()));
      }
    }
  }
  if (!nodes.empty()) why += " on " + nodes;
  if (!said.empty()) why += ": " + said;
  if (!logs.empty()) why += "; its output is in " + logs;
  console_.line(state + ": " + why);
  return why;
}

// The probe in each role's image, all roles at once, before any worker starts: a missing
// piece or (profile identity_mismatch: stop) an image that is not the recipe's identity ends
// the job here, in seconds rather than after a model load. Bounded by the health budget: a
// first pull of an image under pyxis can take minutes, and the named container is reused.
void Launch::preflight() {
  enter("preflight");
  std::vector<ProbeStep> probes = probe_steps(job_);
  std::vector<sys::Child> running;
  for (const auto& s : probes)
    running.push_back(spawn_logged(s.command.argv(), s.command.env, s.command.unset_env, s.command.log_file));
  console_.line("preflight: probing " + std::to_string(probes.size()) + " role image(s)");
  auto all_done = [&] {
    bool done = true;
    for (auto& c : running) done = c.finished() && done;
    return done;
  };
  try {
    if (!sys::poll_until(job_.health_budget_seconds, kPoll, [&] {
          check_signal();
          return all_done();
        }))
      throw failed(Cause::image, "preflight probes did not finish within " + std::to_string(job_.health_budget_seconds) +
                                     " s (health_check budget)");
  } catch (const Stop&) {
    for (auto& c : running) if (!c.finished()) c.signal(SIGTERM);  // srun passes it to the step
    sleep_s(1);
    throw;  // ~Child kills and reaps what is left
  }
  const PreflightVerdict v = judge_probes(job_, probes);
  if (kv_over_rdma(job_.recipe)) job_.atom_nic_pick = common_atom_nic_pick(v.prints);
  for (const auto& f : v.prints) console_.line("  " + found_line(f, preflight_needs(job_.recipe, job_.profile, f.role)));
  for (const auto& line : v.notes) console_.line("  " + line);
  console_.line("fingerprints in " + job_.job_dir + "/fingerprints.json");
  for (const auto& line : v.missing) console_.line("preflight: missing: " + line);
  // A probe that wrote nothing usually never ran: the container runtime refused the step (a mount
  // source missing on that node, an image it cannot pull), and said why in the step's log.
  for (const auto& log : v.silent_logs) console_.tail(*job_.logs, log, kTailLines);
  std::vector<RoleProblem> problems = v.problems;
  const bool stop_on_identity = job_.profile.identity_mismatch != "warn";
  for (const auto& m : v.mismatches) {
    console_.line(std::string("preflight: ") + (stop_on_identity ? "identity mismatch: " : "warning: identity mismatch: ") +
                  m.line());
    if (stop_on_identity) problems.push_back({m.role, m.node, m.cause()});
  }
  if (!v.kv_problem.empty()) console_.line("preflight: " + v.kv_problem);
  if (problems.empty() && v.kv_problem.empty()) {
    console_.line("preflight: every role's image has what it needs" +
                  std::string(v.mismatches.empty() ? " and is the recipe's identity" : ""));
    return;
  }
  // One line a person reads: each role once with its cause, the log folder once; the console
  // above and the logs keep every detail.
  const std::string logs = "; logs in " + job_.log_dir + " (no worker was started)";
  const std::string kv = v.kv_problem.empty() ? "" : (problems.empty() ? "" : "; ") + v.kv_problem;
  const std::size_t fixed = std::string("preflight: ").size() + logs.size() + kv.size();
  throw failed(Cause::image, "preflight: " + group_problems(problems, kReasonBudget > fixed ? kReasonBudget - fixed : 0) +
                                 kv + logs);
}

// Relay mode: each worker's kv-relay (a host step) is launched before the workers, so the ingress
// its ranks connect to is there, or coming, when they publish their first events.
void Launch::start_workers() {
  enter("workers");
  std::size_t relays = 0, workers = 0;
  for (const auto& p : job_.plan.processes)
    if (p.role == Role::kv_relay) {
      start(p);
      ++relays;
    }
  for (const auto& p : job_.plan.processes)
    if (p.is_worker()) start(p), ++workers;
  console_.line("started " + std::to_string(workers) + " worker steps" +
                (relays ? " after " + std::to_string(relays) + " kv-relay steps" : ""));
}

// One readiness probe of `p` (its Plan's http readiness); false with `why` saying whose probe,
// where and what answered, for the console and the job's reason.
bool Launch::probe_ready(const Process& p, std::string& why) const {
  const ProbeResult r = http_get(address(p), p.readiness.port, p.readiness.path);
  if (!r.ok)
    why = p.name + " on " + p.node + " (http://" + address(p) + ":" + std::to_string(p.readiness.port) +
          p.readiness.path + ": " + r.why + ")";
  return r.ok;
}

void Launch::wait_healthy() {
  enter("healthy");
  std::vector<const Process*> workers;
  for (const auto& p : job_.plan.processes)
    if (p.is_worker() && p.readiness.kind == "http") workers.push_back(&p);
  std::set<const Process*> healthy;
  std::map<const Process*, std::string> why;
  for (const Process* w : workers) why[w] = w->name + " on " + w->node + " (not probed yet)";
  double last_probe = -1, last_print = -1;
  std::size_t printed = std::size_t(-1);
  const bool all_healthy = sys::poll_until(job_.health_budget_seconds, kPoll, [&] {
    check();
    const double now = console_.seconds();
    if (now - last_probe >= kProbeSeconds) {
      last_probe = now;
      for (const Process* w : workers)
        if (!healthy.count(w) && probe_ready(*w, why[w])) healthy.insert(w);
    }
    if (healthy.size() != printed || now - last_print >= kProgressSeconds) {
      console_.line("workers healthy " + std::to_string(healthy.size()) + "/" + std::to_string(workers.size()));
      printed = healthy.size();
      last_print = now;
    }
    return healthy.size() == workers.size();
  });
  if (all_healthy) return;
  std::string missing;
  std::vector<std::string> nodes;
  for (const Process* w : workers)
    if (!healthy.count(w)) {
      missing += (missing.empty() ? "" : "; ") + why[w];
      if (std::find(nodes.begin(), nodes.end(), w->node) == nodes.end()) nodes.push_back(w->node);
    }
  throw failed(Cause::not_healthy, "workers not healthy after " + std::to_string(job_.health_budget_seconds) +
                                       " s (health_check max_attempts x interval_seconds): " + missing, nodes);
}

void Launch::start_router() {
  const Process* router = job_.plan.find("router");
  if (!router) return;
  enter("router");
  start(*router);
  // Under --dp-aware AToMesh (and sglang-router) lists one worker per DP rank ("URL@r") and
  // counts each in its stats (core/worker_registry.rs); the vLLM Router does the same for a URL
  // under --intra-node-data-parallel-size N > 1 (core/plan/vllm_router.cpp). The gate waits for
  // every rank, not one per server, and no more.
  const auto flag = std::find(router->argv.begin(), router->argv.end(), "--intra-node-data-parallel-size");
  const bool per_rank = std::find(router->argv.begin(), router->argv.end(), "--dp-aware") != router->argv.end() ||
                        (flag != router->argv.end() && std::next(flag) != router->argv.end() && *std::next(flag) != "1");
  int prefill = 0, decode = 0;
  for (const auto& p : job_.plan.processes) {
    const int listed = per_rank ? p.dp_ranks : 1;
    if (p.role == Role::prefill) prefill += listed;
    if (p.role == Role::decode || p.role == Role::agg) decode += listed;
  }
  router_urls_ = planned_worker_urls(job_.plan);
  std::string why = "no answer yet";
  double last_probe = -1;
  bool extra = false;
  const bool listed = sys::poll_until(job_.health_budget_seconds, kPoll, [&] {
    check();
    const double now = console_.seconds();
    if (now - last_probe < kProbeSeconds) return false;
    last_probe = now;
    const bool open = workers_gate(http_get(address(*router), router->readiness.port, router->readiness.path), prefill,
                                   decode, why, &extra, &router_urls_);
    if (extra) throw failed(Cause::router_gate, "the router's /workers lists workers the Plan does not have (" + why +
                                                    "); the benchmark would reach an engine that is not the job's",
                            {router->node});
    return open;
  });
  if (!listed)
    throw failed(Cause::router_gate, "the router's /workers did not list every worker within " +
                                         std::to_string(job_.health_budget_seconds) + " s: " + why, {router->node});
  console_.line("router ready: " + why);
  router_counts_ = {prefill, decode};
  wait_router_warm(*router);
}
// A router that lists every worker may still refuse completions until it is warm (503 from
// AToMesh for a while, as InferenceX's runs met): the benchmark's first requests would fail and
// its first point with them. A canary completion (max_tokens 1, the model the router names in
// /v1/models) goes through the router's public port, as the benchmark's requests do, until one
// answers 200, within the health budget. One canary: it is one more request for every engine
// (the lab's SRT_STANDIN_HANG_AFTER_REQUESTS counts it).
// After a benchmark point: the router still lists exactly the Plan's workers. "" when it does (or
// the job has no /workers gate), else what it lists, for the point's reason: a worker that
// registered meanwhile took part of the point's requests.
std::string Launch::router_workers_changed() {
  const Process* router = job_.plan.find("router");
  if (!router || router->readiness.kind != "workers" || router_counts_.first < 0) return "";
  std::string why;
  bool extra = false;
  if (workers_gate(http_get(address(*router), router->readiness.port, router->readiness.path), router_counts_.first,
                   router_counts_.second, why, &extra, &router_urls_) ||
      !extra)
    return "";  // fewer is a worker's end, which check() reports as itself
  return "the router's /workers lists workers the Plan does not have after the point (" + why + ")";
}

void Launch::wait_router_warm(const Process& router) {
  constexpr int kCanaryReadSeconds = 30;  // a first completion; signals wait at most this long
  constexpr std::chrono::seconds kCanaryRetry{1};
  const std::string host = address(router);
  const int port = router.readiness.port;
  const std::string model = model_of(host, port);
  Json body = {{"prompt", "srt-spank canary"}, {"max_tokens", 1}, {"temperature", 0}, {"stream", false}};
  if (!model.empty()) body["model"] = model;
  const double started = console_.seconds();
  int canaries = 0;
  std::string why;
  const bool answered = sys::poll_until(job_.health_budget_seconds, kCanaryRetry, [&] {
    check();
    ++canaries;
    const ProbeResult r = http_post_json(host, port, "/v1/completions", body.dump(), kCanaryReadSeconds);
    if (r.ok) return true;
    why = r.why + (r.body.empty() ? "" : ": " + r.body.substr(0, 200));
    if (canaries == 1) console_.line("router: a canary completion got " + why + "; trying again until it answers");
    return false;
  });
  if (!answered)
    throw failed(Cause::router_gate, "the router listed every worker but did not answer a completion within " +
                                         std::to_string(job_.health_budget_seconds) + " s (" + std::to_string(canaries) +
                                         " canaries; the last: " + why + ")", {router.node});
  char took[32];
  std::snprintf(took, sizeof took, "%.1f", console_.seconds() - started);
  console_.line("router warm: a canary completion answered after " + std::string(took) + " s (" + std::to_string(canaries) +
                " canar" + (canaries == 1 ? "y" : "ies") + (model.empty() ? "" : ", model " + model) + ")");
}

}  // namespace srt::launch
