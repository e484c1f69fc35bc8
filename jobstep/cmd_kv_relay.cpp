// srt-helper kv-relay: one worker's KV-event relay (Plan process role "kv-relay"). Its ranks'
// PUB sockets connect to --ingress; subscribers connect to --bind. Runs until SIGTERM/SIGINT
// (or --max-seconds), then stops the proxy, prints its counters and removes an ipc ingress file.
// Exit 0 after a clean stop, 1 when an endpoint cannot be bound, 2 on usage errors.
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <thread>

#include <unistd.h>

#include <spdlog/logger.h>
#include <spdlog/sinks/stdout_sinks.h>

#include "commands.hpp"
#include "kv/relay.hpp"
#include "srt/error.hpp"

namespace srt::helper {

namespace {

struct KvRelayArgs {
  kv::RelayOptions relay;
  double max_seconds = 0;  // 0: until a signal
};

// The signals that end the relay. They are blocked in every thread (libzmq's I/O threads
// inherit the mask of the thread that makes the context) and taken with sigtimedwait, so no
// handler ever touches a ZeroMQ socket.
sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

// "kv-relay: ..." on stderr, flushed per line: the step's .out file shows the relay's endpoints
// while it runs and its counters when it stops.
std::shared_ptr<spdlog::logger> relay_logger() {
  auto log = std::make_shared<spdlog::logger>("kv-relay", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  log->set_pattern("kv-relay: %v");
  log->flush_on(spdlog::level::info);
  return log;
}

void run(const KvRelayArgs& a) {
  const sigset_t signals = stop_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  zmq::context_t context(1);
  kv::Relay relay(context, a.relay);
  const auto log = relay_logger();
  log->info("{} -> {} (hwm {}), pid {}", a.relay.ingress, a.relay.bind, a.relay.hwm, int(getpid()));

  std::atomic<bool> proxy_ended{false};
  std::string proxy_error;
  std::thread proxy([&] {
    try {
      relay.run();
    } catch (const std::exception& e) {
      proxy_error = e.what();
    }
    proxy_ended = true;
  });

  const auto start = std::chrono::steady_clock::now();
  std::string reason = "max-seconds reached";
  while (!proxy_ended) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (a.max_seconds > 0 && elapsed >= a.max_seconds) break;
    const timespec tick{0, 200 * 1000 * 1000};  // notice a dead proxy or the deadline within 0.2 s
    const int sig = sigtimedwait(&signals, nullptr, &tick);
    if (sig > 0) {
      reason = std::string("signal ") + sigabbrev_np(sig);
      break;
    }
  }
  kv::RelayStats stats;
  if (!proxy_ended) stats = relay.stop();
  proxy.join();
  if (!proxy_error.empty())
    fail("kv-relay: the proxy stopped: " + proxy_error, "see the ingress and bind endpoints above");
  log->info("stopped ({}): {} messages in, {} out", reason, stats.ingress_messages, stats.egress_messages);
}

}  // namespace

void add_kv_relay(CLI::App& app) {
  auto args = std::make_shared<KvRelayArgs>();
  CLI::App* cmd = app.add_subcommand("kv-relay", "Relay a worker's per-rank KV events (XSUB ingress -> XPUB endpoint)");
  cmd->add_option("--ingress", args->relay.ingress, "Endpoint the ranks connect to, e.g. tcp://127.0.0.1:20013 (the Plan's: loopback TCP, which a container with a private /tmp reaches)")
      ->required();
  cmd->add_option("--bind", args->relay.bind, "Advertised endpoint subscribers connect to, e.g. tcp://*:20130")->required();
  cmd->add_option("--hwm", args->relay.hwm, "Messages queued per pipe before dropping (default 100000)")
      ->check(CLI::Range(1, 10000000));
  cmd->add_option("--max-seconds", args->max_seconds, "Stop after this many seconds (default: run until signalled)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([args] { run(*args); });
}

}  // namespace srt::helper
