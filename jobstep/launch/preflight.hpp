// Preflight in the batch step (docs/design.md "The batch step", preflight): the probe runs in each
// role's image, as that role's step would run (same node, container, mounts, environment), before
// any worker starts; the answers become fingerprints.json and the verdicts below.
#pragma once
#include <string>
#include <vector>

#include "launch.hpp"
#include "srt/preflight.hpp"
#include "srt/reason_line.hpp"

namespace srt::launch {

// One probe step: the first process of a role, and where its answer lands on the host.
struct ProbeStep {
  std::string role;
  const Process* process = nullptr;
  StepCommand command;
  // Names in the job's log directory (Job::logs), read through it: the probe's JSON, and the
  // step's output.
  std::string answer;
  std::string log;
};
std::vector<ProbeStep> probe_steps(const Job& job);

struct PreflightVerdict {
  std::vector<Fingerprint> prints;
  std::vector<std::string> missing;          // one line per missing piece (and unreadable answers)
  std::vector<std::string> silent_logs;      // the step logs of probes that gave no answer (names in Job::logs)
  std::vector<RoleProblem> problems;         // the missing pieces again, per role, for the reason
  std::vector<IdentityMismatch> mismatches;
  std::vector<std::string> notes;            // capability lines for the console
  std::string kv_problem;                    // non-empty: the KV-event plan cannot run on these images
};
// Reads every answer (a missing one is a missing piece naming the step's log), writes
// <job_dir>/fingerprints.json, compares with the recipe's identity and re-checks the Plan's
// KV-event mode with the capability the images have.
PreflightVerdict judge_probes(const Job& job, const std::vector<ProbeStep>& steps);

}  // namespace srt::launch
