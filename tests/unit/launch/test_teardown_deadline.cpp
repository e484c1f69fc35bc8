// L7: the launcher's teardown fits before the job's end (srt/teardown_deadline.hpp).
#include <catch2/catch.hpp>

#include "srt/teardown_deadline.hpp"

using srt::launch::job_end_time;
using srt::launch::TeardownDeadline;

TEST_CASE("L7: the job's end from SLURM_JOB_END_TIME and the time-limit warning, the earlier") {
  CHECK_FALSE(job_end_time("", std::nullopt));
  CHECK_FALSE(job_end_time("0", std::nullopt));
  CHECK_FALSE(job_end_time("17e8", std::nullopt));
  CHECK_FALSE(job_end_time("-5", std::nullopt));
  CHECK_FALSE(job_end_time("99999999999999999999999", std::nullopt));  // no overflow
  CHECK(job_end_time("1764900000", std::nullopt) == 1764900000);
  CHECK(job_end_time("", 1764900000) == 1764900000 + 120);  // --signal=B:USR1@120
  CHECK(job_end_time("1764900060", 1764900000) == 1764900060);  // the warning came early
  CHECK(job_end_time("1764990000", 1764900000) == 1764900120);  // an end time that moved
}

TEST_CASE("L7: the teardown's parts shrink so that the log archives finish before the end") {
  const long long now = 1764900000;
  const TeardownDeadline unknown{std::nullopt};
  CHECK(unknown.grace(now, 300) == 300);
  CHECK(unknown.before_archives(now, 120) == 120);
  CHECK(unknown.archive(now, 60) == 60);

  // The time-limit warning: 120 s left. 10 s of grace is kept, 300 s are not.
  const TeardownDeadline warned{now + 120};
  CHECK(warned.grace(now, 10) == 10);
  CHECK(warned.grace(now, 300) == 120 - 20 - 30);
  // Removing containers may take 120 s (one srun on every node): what leaves the archives 30 s.
  CHECK(warned.before_archives(now + 40, 120) == 120 - 40 - 30);
  CHECK(warned.archive(now + 90, 60) == 120 - 90 - 5);
  // Whatever the time, each part is still tried, briefly.
  CHECK(warned.grace(now + 119, 10) == 1);
  CHECK(warned.before_archives(now + 500, 120) == 1);
  CHECK(warned.archive(now + 500, 60) == 1);
  // Everything asked, in order, fits: the archives end before the job does.
  long long t = now;
  t += warned.grace(t, 300) + 20;
  t += static_cast<long long>(warned.before_archives(t, 120));
  t += static_cast<long long>(warned.archive(t, 60));
  CHECK(t <= now + 120 - 5);
}
