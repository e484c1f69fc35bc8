// Probe steps and their verdict. The probe is the worker's own step with another command: the
// plugin wires it as it would wire the worker (--srt-step), srt-exec runs it with the same
// checks, so what it finds is what the engine would find.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <set>

#include "console.hpp"
#include "preflight.hpp"
#include "srt/engines.hpp"
#include "srt/error.hpp"
#include "srt/job_plan.hpp"
#include "srt/files.hpp"
#include "srt/safe_dir.hpp"

namespace srt::launch {
namespace {

// A probe's answer is a few KB; the image's program may write anything there.
constexpr std::size_t kMaxProbeAnswerBytes = 4 << 20;
// The lines of a silent probe's log searched for the runtime's own words.
constexpr int kReasonLines = 20;

std::string runtime_name(ContainerRuntime r) {
  return container_runtime_name(r);
}

// The image a role's step runs: what container.cpp gives pyxis. bwrap stands in for that image
// (the lab); `none` runs on the host, which is no image at all.
std::string probed_image(const Job& job, const Process& p) {
  return job.profile.container_runtime == ContainerRuntime::none ? std::string() : p.container.image;
}

}  // namespace

std::vector<ProbeStep> probe_steps(const Job& job) {
  std::vector<ProbeStep> out;
  std::set<std::string> seen;
  // Inside a container the log directory is /logs (the Plan's container mounts); on the host, itself.
  const std::string logs_inside = job.profile.container_runtime == ContainerRuntime::none ? job.log_dir : "/logs";
  for (const auto& p : job.plan.processes) {
    // A kv-relay runs srt-helper on the host; a GPU exporter's image is the exporter's, with no
    // python in it to probe (a distroless DCGM image): its readiness is the telemetry state's. A
    // service's image is the user's own program, which its readiness probe judges.
    if (p.role == Role::kv_relay || p.role == Role::gpu_exporter || p.role == Role::service ||
        !seen.insert(to_string(p.role)).second)
      continue;
    ProbeStep s;
    s.role = to_string(p.role);  // the probe's answer and fingerprints.json name it
    s.process = &p;
    Process q = p;
    q.step_name = "preflight_" + s.role;
    q.log_file = p.node + "_preflight_" + s.role + ".out";
    const std::string answer = "preflight_" + s.role + ".json";
    q.argv = probe_interpreter(&job.recipe, job.profile);
    q.argv.insert(q.argv.end(), {"-c", probe_script()});
    const auto args = probe_arguments(&job.recipe, job.profile, {preflight_needs(job.recipe, job.profile, s.role)});
    q.argv.insert(q.argv.end(), args.begin(), args.end());
    q.argv.insert(q.argv.end(), {"--out", logs_inside + "/" + answer});
    s.command = step_command(job, q);
    s.answer = answer;
    s.log = q.log_file;
    // An answer from an earlier attempt must not count (unlinkat: a link planted there goes, its
    // target stays).
    if (job.logs) ::unlinkat(job.logs->fd(), answer.c_str(), 0);
    out.push_back(std::move(s));
  }
  return out;
}

PreflightVerdict judge_probes(const Job& job, const std::vector<ProbeStep>& steps) {
  PreflightVerdict v;
  for (const auto& s : steps) {
    const std::string where = s.role + " (" + s.process->name + " on " + s.process->node + ")";
    // Written in the container: read as a regular file of the log directory, never through a link.
    const std::string answer = job.logs ? job.logs->read_file(s.answer, kMaxProbeAnswerBytes).value_or("") : "";
    if (answer.empty()) {
      v.missing.push_back(s.role + " on " + s.process->node + ": the preflight probe gave no answer (" +
                          job.log_dir + "/" + s.answer + "); its output is in " + job.log_dir + "/" + s.log);
      v.silent_logs.push_back(s.log);  // the console shows its last lines: often the runtime's own error
      // A probe that wrote nothing usually never ran: the container runtime refused the step and
      // said why as the last thing in the step's log.
      const std::string words = job.logs ? runtime_words(last_lines(*job.logs, s.log, kReasonLines)) : "";
      v.problems.push_back({s.role, s.process->node, "the preflight probe gave no answer" + (words.empty() ? "" : ": " + words)});
      continue;
    }
    Fingerprint f;
    try {
      f = read_probe_answer(answer, where);
    } catch (const Error& e) {
      v.missing.push_back(e.what());
      v.problems.push_back({s.role, s.process->node, e.what()});
      continue;
    }
    f.node = s.process->node;
    f.role = s.role;
    f.step = s.process->name;
    f.image = probed_image(job, *s.process);
    f.runtime = runtime_name(job.profile.container_runtime);
    // missing_pieces' lines start "ROLE on NODE: "; the reason names the role once itself.
    const std::string where_prefix = s.role + " on " + f.node + ": ";
    for (auto& line : missing_pieces(f, preflight_needs(job.recipe, job.profile, s.role))) {
      v.problems.push_back({s.role, f.node, line.rfind(where_prefix, 0) == 0 ? line.substr(where_prefix.size()) : line});
      v.missing.push_back(line);
    }
    v.prints.push_back(std::move(f));
  }
  v.mismatches = compare_identity(job.recipe.identity, v.prints);

  Json doc = Json::array();
  for (const auto& f : v.prints) doc.push_back(fingerprint_to_json(f));
  Json mismatches = Json::array();
  for (const auto& m : v.mismatches)
    mismatches.push_back({{"field", m.field}, {"expected", m.expected}, {"found", m.found}, {"where", m.where}});
  const Json out = {{"job_id", job.plan.job_id}, {"recipe", job.recipe.name}, {"fingerprints", doc},
                    {"identity_mismatches", mismatches}, {"identity_mismatch_policy", job.profile.identity_mismatch}};
  if (job.dir) {
    try {
      job.dir->write_file("fingerprints.json", out.dump(2) + "\n");  // never through a planted link
    } catch (const Error& e) {
      std::fprintf(stderr, "srt-helper launch: %s\n", e.what());
    }
  }

  // KV events: the profile may pin what the images can do; `auto` takes what preflight found.
  const std::string found = common_kv_capability(v.prints);
  const std::string& pinned = job.profile.kv_events_capability;
  v.notes.push_back("KV-event capability of the engine images: " + found +
                    (pinned == "auto" ? "" : " (the profile pins kv_events_capability: " + pinned + ")"));
  // RDMA: what the images' connector does with a rank's NICs, and the pick each worker step gets
  // for the node's NIC rule (docs/design.md "ATOM's NIC choice").
  if (kv_over_rdma(job.recipe)) {
    const std::string nics = common_rdma_nic_selection(v.prints);
    const std::string pick = common_atom_nic_pick(v.prints);
    v.notes.push_back("RDMA NIC selection of the engine images: " + nics + (pick.empty() ? "" : ", pick " + pick) +
                      (nics == "all-listed"   ? " (every rank opens every NIC of its worker; data leaves by its GPU's NIC)"
                       : nics == "per-rank" ? " (with no list each rank takes its own NIC by its GPU: where that is "
                                              "its paired NIC the node names none, else it lists the worker's paired "
                                              "NICs and each rank opens them all)"
                                            : ""));
  }
  if (job.recipe.backend.enable_kv_events && pinned == "auto") {
    if (found == "unknown") {
      v.kv_problem = "KV events are on, but preflight could not tell what the engine images can do";
      return v;
    }
    try {
      const Plan replanned = replan(job.recipe, job.plan_inputs, job.profile, found);
      if (replanned.kv_events_mode != job.plan.kv_events_mode)
        v.kv_problem = "the engine images can do KV events as '" + found + "' (mode " + to_string(replanned.kv_events_mode) +
                       "), but the job's Plan assumed mode " + to_string(job.plan.kv_events_mode) +
                       "; set kv_events_capability: " + found + " in the cluster profile";
    } catch (const Error& e) {
      v.kv_problem = e.what();
    }
  }
  return v;
}

}  // namespace srt::launch
