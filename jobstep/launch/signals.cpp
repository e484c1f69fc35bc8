#include "signals.hpp"

#include <signal.h>

#include <initializer_list>

namespace srt::launch {
namespace {

volatile sig_atomic_t g_signal = 0;

extern "C" void on_signal(int sig) {
  if (g_signal == 0) g_signal = sig;
}

}  // namespace

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1}) ::sigaction(sig, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
}

int pending_signal() { return g_signal; }

}  // namespace srt::launch
