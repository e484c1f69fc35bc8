// srt_spank_impl.so's entry point: the submit side (sbatch, salloc, srun as the user). The
// loader dlopens it only there; slurmstepd loads srt_spank_node.so, which has no YAML parser.
#include "impl.hpp"

extern "C" {
__attribute__((visibility("default"))) extern const int srt_impl_abi;
const int srt_impl_abi = SRT_IMPL_ABI;

__attribute__((visibility("default"))) int srt_impl_callback(const char* callback, spank_t sp,
                                                             const srt_loader_state* state);
}

int srt_impl_callback(const char* callback, spank_t sp, const srt_loader_state* state) {
  return srt::spank_impl::guarded_callback(callback, state, [sp](const std::string& cb, const srt_loader_state& s) {
    return srt::spank_impl::submit_dispatch(cb, sp, s);
  });
}
