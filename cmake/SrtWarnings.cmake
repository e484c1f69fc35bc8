# One place for the project's compiler flags, applied per target with srt_apply_flags().
function(srt_apply_flags target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wshadow -Wformat=2 -Wundef)
  # GCC 12 reports maybe-uninitialized inside nlohmann::json's iterators after inlining (a known
  # false positive of that compiler and header pair); the sanitizer build still checks for real.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wno-maybe-uninitialized>)
  endif()
  if(SRT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(SRT_SANITIZE)
    # Every UBSan finding aborts, except vptr: a vptr report must stay suppressible, because an
    # uninstrumented library (ROCm SMI) releasing its shared_ptrs through our instrumented
    # libstdc++ code is reported as "invalid vptr" (tests/unit/topology/rocm_smi.ubsan.supp).
    # halt_on_error=1 (scripts/test.sh) still makes any unsuppressed vptr report fatal.
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer
                           -fno-sanitize-recover=undefined -fsanitize-recover=vptr)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
    # Executables of this build are linked without PIE. At -O0, UBSan's check data (a source
    # location and type descriptors per check, in .data.rel.local, one copy per object file for
    # every inline template it instantiates) made srt-helper 229 MB with 3.4 million relative
    # relocations, which ld.so applied at every start: 0.75 s per run of `srt-helper --version`,
    # half of it page faults, and most of the sanitizer test phase (helper_sweep alone starts it
    # about 300 times). Without PIE the linker resolves them: 0.27 s (docs/testing.md). Shared
    # objects stay PIC; the shipped build keeps PIE.
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      target_link_options(${target} PRIVATE -no-pie)
    endif()
  endif()
  if(SRT_FUZZ)
    # Coverage feedback for libFuzzer in every object; only fuzz_* executables link its main.
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endfunction()
