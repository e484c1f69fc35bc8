// sys/process: children started with posix_spawnp, their environment, stdio and ends.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "srt/process.hpp"

using srt::sys::capture;
using srt::sys::CaptureOptions;
using srt::sys::Child;

namespace {

std::string sh_output(const std::string& script, bool with_stderr = false) {
  CaptureOptions o;
  o.timeout_seconds = 20;
  o.with_stderr = with_stderr;
  const auto c = capture({"/bin/sh", "-c", script}, o);
  REQUIRE(c.exit_code == 0);
  return c.output;
}

}  // namespace

TEST_CASE("a captured child reads /dev/null, has our environment, and its stderr is joined only when asked") {
  ::setenv("SRT_PROCESS_TEST", "ours", 1);
  CHECK(sh_output("cat; echo \"[$SRT_PROCESS_TEST]\"") == "[ours]\n");
  CHECK(sh_output("echo out; echo err >&2", true) == "out\nerr\n");
  CHECK(sh_output("echo out; echo err >&2 2>/dev/null; :", false) == "out\n");
  ::unsetenv("SRT_PROCESS_TEST");
}

TEST_CASE("a captured child's stdin is the descriptor given") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(::write(fds[1], "fed\n", 4) == 4);
  ::close(fds[1]);
  CaptureOptions o;
  o.stdin_fd = fds[0];
  const auto c = capture({"cat"}, o);
  ::close(fds[0]);
  CHECK(c.exit_code == 0);
  CHECK(c.output == "fed\n");
}

TEST_CASE("a program that cannot be started is an exec error and exit code 127, as a shell's child") {
  const auto c = capture({"srt-no-such-program-here"}, CaptureOptions{});
  CHECK(c.exec_error == ENOENT);
  CHECK(c.exit_code == 127);
  CHECK(c.describe() == "could not be run: No such file or directory");
  Child child = Child::spawn({"/nonexistent/srt-program"}, {}, {});
  CHECK(child.finished());
  CHECK(child.exit_code() == 127);
}

TEST_CASE("a spawned child gets `set` over our environment and loses `unset`, with default signal handling") {
  ::setenv("SRT_KEEP", "kept", 1);
  ::setenv("SRT_DROP", "dropped", 1);
  ::setenv("SRT_OVER", "old", 1);
  // SIGTERM ignored and blocked here must be neither in the child.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction before {};
  ::sigaction(SIGTERM, &ignore, &before);
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &block, &old);

  char tmpl[] = "/tmp/srt-process-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  REQUIRE(fd >= 0);
  const std::string out = tmpl;
  Child child = Child::spawn({"/bin/sh", "-c",
                              "echo \"$SRT_KEEP ${SRT_DROP-unset} $SRT_OVER $SRT_NEW\" > " + out +
                                  "; grep -E '^(SigBlk|SigIgn)' /proc/self/status >> " + out + "; exec sleep 30"},
                             {{"SRT_OVER", "new"}, {"SRT_NEW", "added"}}, {"SRT_DROP"});
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
  ::sigaction(SIGTERM, &before, nullptr);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::string text;
  while (std::chrono::steady_clock::now() < end && text.find("SigIgn") == std::string::npos) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    text = sh_output("cat " + out);
  }
  CHECK(text.rfind("kept unset new added\n", 0) == 0);
  // Bit 15 (SIGTERM, 1 << 14) is neither blocked nor ignored in the child.
  for (const char* field : {"SigBlk:", "SigIgn:"}) {
    const auto at = text.find(field);
    REQUIRE(at != std::string::npos);
    const unsigned long long mask = std::stoull(text.substr(at + 7, text.find('\n', at) - at - 7), nullptr, 16);
    CHECK((mask & (1ULL << (SIGTERM - 1))) == 0);
  }
  child.signal(SIGTERM);
  while (!child.finished() && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(child.term_signal() == SIGTERM);
  ::unlink(tmpl);
  ::close(fd);
  ::unsetenv("SRT_KEEP");
  ::unsetenv("SRT_DROP");
  ::unsetenv("SRT_OVER");
}

TEST_CASE("a captured child past its time is killed and reaped") {
  CaptureOptions o;
  o.timeout_seconds = 0.3;
  const auto c = capture({"sleep", "30"}, o);
  CHECK(c.timed_out);
  CHECK(c.term_signal == SIGKILL);
}
