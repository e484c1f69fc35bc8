// What a task sees from srt-spank (DESIGN "The environment contract"), and how the validated
// recipe travels from the submit host to every node (the snapshot).
#pragma once
#include <string>
#include <vector>

#include "srt/plan.hpp"

namespace srt {

struct StepEnvironment {
  EnvList set;                       // in order
  std::vector<std::string> unset;
  const Process* worker = nullptr;   // the worker this step runs, for --srt-step steps
};

// Job-level variables for every task on `node_index`; with `step` ("prefill:0") also that
// worker's variables. Throws srt::Error when the step is unknown or belongs to another node.
StepEnvironment step_environment(const Plan& plan, int node_index, const std::string& step);

// "prefill:0" -> ok; anything else -> srt::Error naming the valid form.
void check_step_name(const std::string& step);

struct Snapshot {
  std::string recipe_path;     // as the user gave it (SRT_RECIPE)
  std::string recipe_text;     // the bytes that were validated
  std::string profile_digest;  // sha256 of the submit side's profile ("" = built-in default)
};

// One line of base64 (job environments carry it), well under Slurm's limits for a few-KB recipe.
std::string encode_snapshot(const Snapshot& s);
Snapshot decode_snapshot(const std::string& encoded);  // throws srt::Error on anything malformed

constexpr std::size_t kMaxSnapshotBytes = 96 * 1024;

}  // namespace srt
