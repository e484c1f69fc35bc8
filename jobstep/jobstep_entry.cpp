// The entry point of srt-helper-jobstep.so (srt/jobstep_abi.hpp); its version script exports
// this function alone.
#include "commands.hpp"
#include "srt/jobstep_abi.hpp"

extern "C" int* srt_helper_jobstep_add(CLI::App* app) {
  using namespace srt::helper;
  add_launch(*app);
  add_kv_relay(*app);
  add_kv_watch(*app);
  return &exit_code;
}
