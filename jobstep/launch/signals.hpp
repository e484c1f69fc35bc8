// Signals that end the job from outside: scancel (TERM), the time limit (sbatch
// --signal=B:USR1@<grace>, which srt-job sets), INT and HUP. The handler only records the
// signal; the state machine notices it within one poll (50 ms) and tears down.
#pragma once

namespace srt::launch {

void install_signal_handlers();
int pending_signal();  // 0 when none arrived

}  // namespace srt::launch
