/* The contract between spank_srt.so (the loader, C, libc/libdl only) and the implementation
 * library it dlopens only for srt jobs. Both come from one build: the ABI number must match. */
#ifndef SRT_IMPL_ABI_H
#define SRT_IMPL_ABI_H

#include <slurm/spank.h>
#include <stddef.h>

/* The ABI number: this contract's revision and the Slurm major.minor both sides were built
 * against (slurm_version.h, through spank.h), as REVISION * 1000000 + MAJOR * 100 + MINOR, e.g.
 * 1002411 for revision 1 built with Slurm 24.11. A loader and an implementation from builds for
 * different Slurm releases refuse each other (docs/INSTALL.md, section 5): the implementation
 * calls libslurm and spank_* of the release it was compiled against, and Slurm loads the loader
 * only when its own major.minor is the one the loader was built for (plugin_version), so the pair
 * must agree. */
#define SRT_IMPL_ABI_REVISION 1
#define SRT_IMPL_ABI                                                             \
  (SRT_IMPL_ABI_REVISION * 1000000 + SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER) * 100 + \
   SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER))
#define SRT_IMPL_ENTRY "srt_impl_callback"

/* What the loader collected: plugstack arguments and the option values seen so far. */
struct srt_loader_state {
  int abi;
  const char *recipe;      /* --srt-recipe value, or NULL */
  const char *step;        /* --srt-step value, or NULL */
  int argc;                /* plugstack.conf words after the plugin path */
  char **argv;
};

/* callback: "init_post_opt", "local_user_init", "user_init", "task_init", "exit".
 * Returns 0 or -1, never throws. */
typedef int (*srt_impl_callback_fn)(const char *callback, spank_t sp,
                                    const struct srt_loader_state *state);

/* The submit side's profile reader, which srt_spank_node.so borrows when the node has no parsed
 * copy of its profile from root (srt/profile_copy.hpp): reads the YAML file at `path` as the
 * submit side does and returns 0 with *out (malloc'd, *out_len bytes) that copy's bytes, or -1
 * with *out a malloc'd, NUL-terminated line saying why. The caller frees *out. A C interface: each
 * library has its own C++ runtime (srt_spank_node.so a private libstdc++), so only bytes cross. */
#define SRT_PROFILE_READER_ENTRY "srt_profile_copy"
typedef int (*srt_profile_copy_fn)(const char *path, char **out, size_t *out_len);

/* The job-control variable that carries the recipe snapshot (SRT_SNAPSHOT_NAME, SRT_SNAPSHOT_JOB_ENV). */
#include "srt/snapshot_env.h"

#endif
