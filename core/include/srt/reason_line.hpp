// A failed job's one-line reason (status.json "reason", the last line on the job's output): each
// failed role named once with its cause, in the runtime's or engine's own words, and nothing
// twice. The details (every path, every log line) stay in the logs and on the console.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace srt {

struct RoleProblem {
  std::string role;   // prefill, decode, router, benchmark
  std::string node;   // where its step ran ("" when not known)
  std::string cause;  // what went wrong, without the role or the node
};

// "prefill on node1, decode on node2: CAUSE; router on node1: OTHER": roles whose causes are the
// same share one clause, a role with several causes has them joined with ", ", clauses and roles
// in the order first seen. At most `budget` characters: each cause is cut (ending "...") to fit,
// never below 40 characters.
std::string group_problems(const std::vector<RoleProblem>& problems, std::size_t budget);

// The runtime's own words among the last lines of a step that failed to start: the last line
// that reads as an error (podman's "Error: ...", bwrap's "bwrap: ...", pyxis's "pyxis: ..."),
// never Slurm's own "srun: error: ... Exited with exit code N" when the runtime said more; else
// the last line that is not Slurm's; else the last line. Control characters are dropped and the
// line is cut at 200 characters. "" when there is no line at all.
std::string runtime_words(const std::vector<std::string>& last_lines);

}  // namespace srt
