// The implementation's single entry point: one function per SPANK context, behind a dispatcher
// that lets no exception cross into Slurm (an escaping exception aborts srun or slurmstepd).
#include <cstring>
#include <exception>
#include <string>

#include "impl.hpp"

extern "C" {
__attribute__((visibility("default"))) extern const int srt_impl_abi;
const int srt_impl_abi = SRT_IMPL_ABI;

__attribute__((visibility("default"))) int srt_impl_callback(const char* callback, spank_t sp,
                                                             const srt_loader_state* state);
}

namespace {

int dispatch(const std::string& cb, spank_t sp, const srt_loader_state& state) {
  using namespace srt::spank_impl;
  const spank_context_t ctx = spank_context();
  if (cb == "init_post_opt" && (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR)) return submit_side(sp, state);
  if (cb == "user_init" && ctx == S_CTX_REMOTE) return node_user_init(sp, state);
  if (cb == "task_init" && ctx == S_CTX_REMOTE) return node_task_init(sp, state);
  return 0;
}

}  // namespace

int srt_impl_callback(const char* callback, spank_t sp, const srt_loader_state* state) {
  try {
    if (!callback || !state || state->abi != SRT_IMPL_ABI) return -1;
    return dispatch(callback, sp, *state);
  } catch (const std::exception& e) {
    srt::spank_impl::error_lines(std::string("internal error in ") + callback + ": " + e.what());
  } catch (...) {
    srt::spank_impl::error_lines(std::string("internal error in ") + callback);
  }
  return -1;
}
