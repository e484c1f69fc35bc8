// The recipe's generic services (srt/recipe.hpp Service), in srtctl's order (NVIDIA/srt-slurm
// v2.18 docs/architecture: `before_workers` services before the workers, `after_frontend` ones
// after the router and before telemetry): every node's instance is started, then each is waited
// for until its probe passes (a TCP connect, an HTTP status, a line of its log), each within its
// own timeout_seconds. An instance that ends before it is ready fails the job, critical or not:
// the launch would wait for it in vain. A critical one that ends later fails the job in check(),
// as a worker does; any other ends with its own log.
#include <map>

#include "machine_impl.hpp"
#include "probe.hpp"
#include "srt/join.hpp"
#include "srt/readiness.hpp"

namespace srt::launch {
namespace {

bool starts_before_workers(const Job& job, const Process& p) {
  return std::size_t(p.index) < job.recipe.services.size() && job.recipe.services[std::size_t(p.index)].before_workers;
}

}  // namespace

bool Launch::service_ready(const Process& p, LogMatcher* log, std::string& why) const {
  const Probe& r = p.readiness;
  const std::string where = "http://" + address(p) + ":" + std::to_string(r.port);
  if (r.kind == "tcp") {
    const ProbeResult t = tcp_connect(address(p), r.port);
    if (!t.ok) why = "tcp " + address(p) + ":" + std::to_string(r.port) + ": " + t.why;
    return t.ok;
  }
  if (r.kind == "http") {
    const ProbeResult h = http_get(address(p), r.port, r.path);
    const bool ok = h.status == r.status;
    if (!ok) why = where + r.path + ": " + (h.status ? "HTTP " + std::to_string(h.status) + ", not " + std::to_string(r.status) : h.why);
    return ok;
  }
  if (r.kind == "log") {
    // Only what the log gained since the last look is read, up to 1 MiB a look.
    bool restarted = false;
    const auto gained = job_.logs && log ? job_.logs->read_file_from(p.log_file, log->offset(), restarted) : std::nullopt;
    if (restarted) log->restart();
    if (gained && log->feed(*gained)) return true;
    why = "no line of " + job_.log_dir + "/" + p.log_file + " matches /" + r.pattern + "/ yet";
    return false;
  }
  return true;  // no probe: started is ready
}

void Launch::start_services(bool before_workers) {
  std::vector<std::pair<const Process*, std::size_t>> mine;  // process, its step in steps_
  for (const auto& p : job_.plan.processes)
    if (p.role == Role::service && starts_before_workers(job_, p) == before_workers) mine.emplace_back(&p, 0);
  if (mine.empty()) return;
  enter(before_workers ? "services" : "services-after-frontend");
  std::vector<std::string> names;
  for (auto& [p, step] : mine) {
    start(*p);
    step = steps_.size() - 1;
    names.push_back(p->step_name + " on " + p->node);
  }
  console_.line("services: started " + join(names, ", ") + (before_workers ? " (before the workers)" : " (after the frontend)"));

  struct Wait {
    std::optional<LogMatcher> log;  // a log probe's matcher and its place in the log
    double last_probe = -1;
    std::string why = "not probed yet";
    bool ready = false;
  };
  std::map<const Process*, Wait> waits;
  for (const auto& [p, step] : mine)
    if (p->readiness.kind == "log") waits[p].log.emplace(p->readiness.pattern);
  const double since = console_.seconds();
  std::size_t ready = 0;
  double longest = 0;
  for (const auto& [p, step] : mine) longest = std::max(longest, double(p->readiness.timeout_seconds));
  sys::poll_until(longest + 1, kPoll, [&] {
    check();  // a critical service's end throws here, as a worker's
    const double now = console_.seconds();
    for (const auto& [p, step] : mine) {
      Wait& w = waits[p];
      if (w.ready) continue;
      const RunningStep& s = steps_[step];
      if (s.ended >= 0)
        throw failed(Cause::service, p->name + " on " + p->node + " ended (" + s.srun.describe() +
                                         ") before it was ready; its log is " + job_.log_dir + "/" + p->log_file,
                     {p->node}, Role::service);
      if (now - w.last_probe < std::max(1, p->readiness.interval_seconds) && w.last_probe >= 0) continue;
      w.last_probe = now;
      if (service_ready(*p, w.log ? &*w.log : nullptr, w.why)) {
        w.ready = true;
        ++ready;
        console_.line("services: " + p->name + " on " + p->node + " ready (" + p->readiness.kind + ") after " +
                      std::to_string(int(now - since)) + " s");
      } else if (now - since > p->readiness.timeout_seconds) {
        console_.tail(*job_.logs, p->log_file, kTailLines);
        throw failed(Cause::service, p->name + " on " + p->node + " not ready within " +
                                         std::to_string(p->readiness.timeout_seconds) + " s (readiness.timeout_seconds): " + w.why,
                     {p->node}, Role::service);
      }
    }
    return ready == mine.size();
  });
  if (ready != mine.size()) {  // the poll's own bound, a second after the longest timeout
    for (const auto& [p, step] : mine)
      if (!waits[p].ready)
        throw failed(Cause::service, p->name + " on " + p->node + " not ready within " +
                                         std::to_string(p->readiness.timeout_seconds) + " s: " + waits[p].why,
                     {p->node}, Role::service);
  }
}

}  // namespace srt::launch
