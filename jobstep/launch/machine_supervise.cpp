// Workers that come back: the role's restart policy (srt/restart_policy.hpp), as srtctl v2.18's
// supervisor applies it (docs/topology.md "restart", src/srtctl/core/supervisor.py): a worker step
// that ends with an exit its role's policy takes is relaunched in place (the Plan's own process:
// the same node, GPUs, ports, container and environment) as a new Slurm step `<step>_r<n>`, after
// the backoff, its log of the life that ended set aside as `<log>.<n>`; every relaunch is recorded
// in logs/worker_restarts.json. While it is down nothing else moves: check() does the relaunch
// before it returns, so no state goes on, no benchmark point starts, and the router's gate (the
// endpoint healthy, then a canary through the router) is passed again before the job continues.
// What srt-spank chose beyond srtctl's documents: the other processes of a multi-node endpoint are
// stopped and relaunched with it (one rank cannot rejoin a running engine), the node is asked
// about first (a relaunch on a failed node cannot help), and the benchmark step that was running
// is cut and run again (machine_benchmark.cpp).
#include <algorithm>
#include <cstdio>
#include <ctime>

#include "machine_impl.hpp"
#include "probe.hpp"
#include "srt/error.hpp"

namespace srt::launch {
namespace {

std::string utc_iso(double unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return out;
}

std::string seconds_text(double s) {
  char out[32];
  std::snprintf(out, sizeof out, "%.1f", s);
  return out;
}

std::string endpoint_label(Role role, int index) { return std::string(to_string(role)) + "_" + std::to_string(index); }

bool same_endpoint(const Process& p, Role role, int index) { return p.is_worker() && p.role == role && p.index == index; }

// "decode_0 exit 3 at 2026-12-05T10:00:00Z, decode_0_r1 exit 3 at ...": an endpoint's exits.
std::string exit_history(const std::vector<RestartEvent>& events, const std::string& mode, int index) {
  std::string out;
  for (const auto& e : events)
    if (e.mode == mode && e.index == index)
      out += (out.empty() ? "" : ", ") + e.worker + " exit " + std::to_string(e.exit_code) + " at " + e.exited_at;
  return out;
}

}  // namespace

// Called by check() for a worker step that ended by itself (`what` says how). True: the role's
// policy relaunches it, scheduled for relaunch_pending(). False: the policy does not take this
// exit (or the role has none), and `critical` decides as without a policy. An endpoint out of
// restarts fails the job here, with every exit of it in the reason.
bool Launch::supervise(const RunningStep& ended, const std::string& what) {
  const Process& p = *ended.process;
  if (!p.is_worker()) return false;
  const auto policy = job_.recipe.per_role.restart.find(to_string(p.role));
  if (policy == job_.recipe.per_role.restart.end()) return false;
  const std::string label = endpoint_label(p.role, p.index);
  auto ep = std::find_if(restart_endpoints_.begin(), restart_endpoints_.end(),
                         [&](const RestartEndpoint& e) { return e.label == label; });
  if (ep == restart_endpoints_.end()) ep = restart_endpoints_.insert(ep, RestartEndpoint{label, policy->second, 0, false});
  const int code = ended.srun.exit_code();
  const RestartDecision d = decide_restart(ep->policy, code, ep->restarts);
  if (d.action == RestartDecision::Action::release) {
    ep->settled = true;
    write_restarts();
    return false;
  }
  RestartEvent e;
  e.worker = p.step_name;
  e.mode = to_string(p.role);
  e.index = p.index;
  e.node = p.node;
  e.exit_code = code;
  e.exited_at = utc_iso(unix_now());
  if (d.action == RestartDecision::Action::exhausted) {
    ep->settled = true;
    e.attempt = ep->restarts + 1;
    e.outcome = "exhausted";
    restart_events_.push_back(e);
    write_restarts();
    throw failed(Cause::step_ended,
                 what + "; " + label + " has had its " + std::to_string(ep->policy.max_restarts) + " relaunch" +
                     (ep->policy.max_restarts == 1 ? "" : "es") + " (restart: " + to_string(ep->policy.when) +
                     ", max_restarts " + std::to_string(ep->policy.max_restarts) + "): " +
                     exit_history(restart_events_, e.mode, e.index),
                 {p.node}, p.role);
  }
  // The node first: a relaunch on a node Slurm declared failed cannot come back. Asked once,
  // without the settling wait a job's end gets: the backoff is the worker's, and a node failure
  // Slurm marks later ends the job then (its TERM, or the relaunched step failing to start).
  throw_if_node_failure(0);
  ep->restarts = d.attempt;
  e.attempt = d.attempt;
  e.backoff_seconds = d.delay_seconds;
  restart_events_.push_back(e);
  pending_relaunches_.push_back({restart_events_.size() - 1, p.role, ended.ended});
  write_restarts();
  return true;
}

// What check() scheduled, in order. A relaunch may schedule another (its new step ends before it
// is healthy): each is done in its turn, every one bounded by the endpoint's max_restarts.
void Launch::relaunch_pending() {
  while (!pending_relaunches_.empty()) {
    const PendingRelaunch next = pending_relaunches_.front();
    pending_relaunches_.erase(pending_relaunches_.begin());
    relaunch(next);
  }
}

void Launch::relaunch(const PendingRelaunch& pending) {
  // restart_events_ may grow while this runs (check() below): the event is named by its index.
  const std::size_t event = pending.event;
  const Role role = pending.role;
  const int index = restart_events_[event].index, attempt = restart_events_[event].attempt;
  const double backoff = restart_events_[event].backoff_seconds;
  const std::string label = endpoint_label(role, index);
  const double exited = pending.ended;
  ++relaunches_begun_;
  // The rest of a multi-node endpoint cannot serve without the rank that ended: stopped too.
  for (auto& s : steps_)
    if (s.ended < 0 && same_endpoint(*s.process, role, index) && !s.srun.finished())
      stop_step(s, job_.plan.job_id, options_.grace_seconds, console_);
  console_.line(label + ": relaunch " + std::to_string(attempt) + " in " + seconds_text(backoff) + " s (restart: " +
                to_string(job_.recipe.per_role.restart.at(to_string(role)).when) + ")");
  // The backoff counts from the step's end, not from now: what check() and the node's question
  // took is part of it.
  sys::poll_until(std::max(0.0, backoff - (console_.seconds() - exited)), kPoll, [&] {
    check_signal();
    return false;
  });

  std::vector<const Process*> planned;
  for (const auto& p : job_.plan.processes)
    if (same_endpoint(p, role, index)) planned.push_back(&p);
  for (const Process* p : planned) {
    // The life that ended keeps its log: set aside before the new step writes the name afresh.
    const std::string rotated = rotated_log_name(p->log_file, attempt);
    std::string why;
    if (job_.logs && job_.logs->kind_of(p->log_file) != "missing") {
      if (job_.logs->rename_new(p->log_file, rotated, &why)) {
        if (restart_events_[event].crash_log.empty()) restart_events_[event].crash_log = job_.log_dir + "/" + rotated;
      } else {
        console_.line(label + ": " + why + "; the new life appends to the same log");
      }
    }
    Process again = *p;
    again.step_name = relaunch_step_name(p->step_name, attempt);
    relaunched_.push_back(std::move(again));
    start(relaunched_.back());
  }
  restart_events_[event].outcome = "relaunched";
  restart_events_[event].relaunched_at = utc_iso(unix_now());
  console_.line(label + ": relaunched as step " + relaunch_step_name(planned.front()->step_name, attempt) + " on " +
                planned.front()->node + ", " + seconds_text(console_.seconds() - exited) + " s after the step ended (backoff " +
                seconds_text(backoff) + " s)");
  write_restarts();
  write_status(job_, steps_, outcome_, timings_, started_unix_, points_);

  const double relaunched = console_.seconds();
  std::string why;
  if (!wait_endpoint_healthy(role, index, attempt, why)) {
    if (restarts_of(label) != attempt) {  // it ended again meanwhile: that relaunch took over
      restart_events_[event].outcome = "ended_again";
      write_restarts();
      return;
    }
    restart_events_[event].outcome = "not_ready";
    write_restarts();
    throw failed(Cause::not_healthy, label + " relaunch " + std::to_string(attempt) + " not healthy after " +
                                         std::to_string(job_.health_budget_seconds) + " s: " + why,
                 {planned.front()->node}, role);
  }
  // The router's gate again: the endpoint back in the router's view, a completion through it.
  const Process* router = job_.plan.find("router");
  const bool router_running = router && std::any_of(steps_.begin(), steps_.end(), [&](const RunningStep& s) {
                                return s.process == router && s.ended < 0;
                              });
  if (router_running) wait_router_warm(*router);
  restart_events_[event].outcome = "ready";
  restart_events_[event].ready_at = utc_iso(unix_now());
  restart_events_[event].ready_seconds = console_.seconds() - relaunched;
  console_.line(label + ": ready again " + seconds_text(console_.seconds() - relaunched) + " s after relaunch " +
                std::to_string(attempt));
  write_restarts();
}

int Launch::restarts_of(const std::string& label) const {
  for (const auto& e : restart_endpoints_)
    if (e.label == label) return e.restarts;
  return 0;
}

// The relaunched endpoint's readiness (the same probe the healthy state uses), within the health
// budget. False with `why` when it does not answer in time, or at once when the endpoint was
// relaunched again meanwhile (check() saw the new step end and did that relaunch itself).
bool Launch::wait_endpoint_healthy(Role role, int index, int attempt, std::string& why) {
  const std::string label = endpoint_label(role, index);
  std::vector<const Process*> probed;
  for (const auto& p : job_.plan.processes)
    if (same_endpoint(p, role, index) && p.readiness.kind == "http") probed.push_back(&p);
  why = "no answer yet";
  double last_probe = -1;
  return sys::poll_until(job_.health_budget_seconds, kPoll, [&] {
    check();
    if (restarts_of(label) != attempt) return true;  // told apart by the caller
    const double now = console_.seconds();
    if (now - last_probe < kProbeSeconds) return false;
    last_probe = now;
    for (const Process* p : probed)
      if (!probe_ready(*p, why)) return false;
    return true;
  }) && restarts_of(label) == attempt;
}

// logs/worker_restarts.json, rewritten at every change (a job killed outright keeps its last).
void Launch::write_restarts() {
  if (!job_.logs || restart_endpoints_.empty()) return;
  try {
    job_.logs->write_file("worker_restarts.json", worker_restarts_record(restart_endpoints_, restart_events_).dump(2) + "\n");
  } catch (const Error& e) {
    console_.line(std::string("restart record: ") + e.what());
  }
}

}  // namespace srt::launch
