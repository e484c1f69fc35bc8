#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "srt/poll.hpp"
#include "srt/process.hpp"
#include "srt/slurm_job_state.hpp"
#include "srt/cli.hpp"
#include "run.hpp"

namespace srt::run {

namespace {

// Prints what was appended to `file` since `offset` (the launcher's console lines).
void follow(const std::string& file, std::streamoff& offset) {
  if (file.empty()) return;
  std::ifstream in(file);
  if (!in) return;
  in.seekg(offset);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // a partial line: read it whole next time
    std::printf("  | %s\n", line.c_str());
    offset = in.tellg();
  }
  std::fflush(stdout);
}

}  // namespace

JobEnd wait_for_job(std::uint64_t job_id, const std::string& follow_file, double timeout_seconds) {
  const std::string id = std::to_string(job_id);
  std::streamoff offset = 0;
  JobEnd end;
  std::string last_state;
  end.timed_out_waiting = !sys::poll_until(timeout_seconds, std::chrono::milliseconds(500), [&] {
    const std::string state = helper::trim_end(sys::run_capture({"squeue", "-h", "-j", id, "-o", "%T"}, 30));
    follow(follow_file, offset);
    if (state != last_state && !state.empty()) {
      std::printf("job %s: %s\n", id.c_str(), state.c_str());
      last_state = state;
    }
    return state.empty() || (state != "PENDING" && state != "RUNNING" && state != "CONFIGURING" &&
                             state != "COMPLETING" && state != "SUSPENDED");
  });
  follow(follow_file, offset);
  // sacct where accounting exists (the record outlives the job), scontrol otherwise.
  int status = 0;
  const std::string acct = helper::trim_end(sys::run_capture({"sacct", "-X", "-n", "-P", "-j", id, "-o", "State,ExitCode"}, 30, &status));
  if (status == 0 && !acct.empty() && acct.find('|') != std::string::npos) {
    end.state = acct.substr(0, acct.find('|'));
    end.state = end.state.substr(0, end.state.find(' '));  // "CANCELLED by 0"
    end.exit_code = acct.substr(acct.find('|') + 1);
    end.exit_code = end.exit_code.substr(0, end.exit_code.find('\n'));
    return end;
  }
  const std::string show = helper::trim_end(sys::run_capture({"scontrol", "-o", "show", "job", id}, 30));
  end.state = scontrol_field(show, "JobState");
  end.exit_code = scontrol_field(show, "ExitCode");
  if (end.state.empty()) end.state = "UNKNOWN";
  return end;
}

}  // namespace srt::run
