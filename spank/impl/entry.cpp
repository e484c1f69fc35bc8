// The entry point of both implementation libraries, compiled once into each with its side's
// dispatcher (SRT_IMPL_DISPATCH, spank/CMakeLists.txt): srt_spank_impl.so's submit_dispatch
// (sbatch, salloc, srun as the user) and srt_spank_node.so's node_dispatch (slurmstepd, which
// maps no yaml-cpp and no libcrypto: tests/packaging/check-elf.sh, the lab's spank-submit test
// and lab_cost.py check it). The loader dlopens the one its context needs.
#include "impl.hpp"

#ifndef SRT_IMPL_DISPATCH
#error "SRT_IMPL_DISPATCH names the side's dispatcher: submit_dispatch or node_dispatch"
#endif

extern "C" {
__attribute__((visibility("default"))) extern const int srt_impl_abi;
const int srt_impl_abi = SRT_IMPL_ABI;

__attribute__((visibility("default"))) int srt_impl_callback(const char* callback, spank_t sp,
                                                             const srt_loader_state* state);
}

int srt_impl_callback(const char* callback, spank_t sp, const srt_loader_state* state) {
  return srt::spank_impl::guarded_callback(callback, state, [sp](const std::string& cb, const srt_loader_state& s) {
    return srt::spank_impl::SRT_IMPL_DISPATCH(cb, sp, s);
  });
}
