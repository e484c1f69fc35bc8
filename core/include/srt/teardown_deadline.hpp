// How the launcher's teardown fits before Slurm ends the job (docs/design.md "The batch step").
// At the time limit slurmctld signals every step and kills what is left after KillWait; the log
// archives are written last, so a teardown that starts late (the time-limit warning, or a failure
// close to the end) gives each of its parts only what leaves the archives their time.
#pragma once
#include <optional>
#include <string>

namespace srt::launch {

// sbatch --signal=B:USR1@120 (srt-job, and every `submit`): the warning comes this long before the end.
inline constexpr int kTimeLimitWarningSeconds = 120;
// Left for the log archives and the last status.json once the steps and containers are gone.
inline constexpr int kArchiveReserveSeconds = 30;
// After the grace, the rest of stopping the steps: KILL and its wait (5 s), srun's own KILL (2 s),
// squeue and scancel (5 s each) for each of the two rounds.
inline constexpr int kKillRoundSeconds = 20;
// Kept after the archives, for the last status.json and the console's last line.
inline constexpr int kLastWordsSeconds = 5;

// The job's end (unix seconds) as the launcher knows it: `end_time_env` is SLURM_JOB_END_TIME
// (unix seconds; empty, 0 or anything but digits: unknown) and `warned_at` when the time-limit
// warning came (the end is then kTimeLimitWarningSeconds later, or sooner: Slurm may send it up
// to a minute early). The earlier of the two; nullopt when neither is known.
std::optional<long long> job_end_time(const std::string& end_time_env, std::optional<long long> warned_at);

// What each part of teardown may take at unix time `now`: what was asked, shortened so that the
// parts after it still fit before `end` (nullopt: no end known, what was asked), at least 1 s.
struct TeardownDeadline {
  std::optional<long long> end;
  // TERM -> KILL for the steps: leaves the KILL round and the archives their time.
  int grace(long long now, int asked) const;
  // A part before the archives (removing containers).
  double before_archives(long long now, double asked) const;
  // One archive: leaves the last words their time.
  double archive(long long now, double asked) const;
};

}  // namespace srt::launch
