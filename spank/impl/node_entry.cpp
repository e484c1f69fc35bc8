// srt_spank_node.so's entry point: slurmstepd (the remote context). What it links is what every
// slurmstepd of a recipe job maps: no yaml-cpp, no libcrypto (issue 25; tests/unit/spank
// library_closure and the lab's lab_cost.py check it).
#include "impl.hpp"

extern "C" {
__attribute__((visibility("default"))) extern const int srt_impl_abi;
const int srt_impl_abi = SRT_IMPL_ABI;

__attribute__((visibility("default"))) int srt_impl_callback(const char* callback, spank_t sp,
                                                             const srt_loader_state* state);
}

int srt_impl_callback(const char* callback, spank_t sp, const srt_loader_state* state) {
  return srt::spank_impl::guarded_callback(callback, state, [sp](const std::string& cb, const srt_loader_state& s) {
    return srt::spank_impl::node_dispatch(cb, sp, s);
  });
}
