/* The contract between spank_srt.so (the loader, C, libc/libdl only) and the implementation
 * library it dlopens only for srt jobs. Both come from one build: the ABI number must match. */
#ifndef SRT_IMPL_ABI_H
#define SRT_IMPL_ABI_H

#include <slurm/spank.h>

#define SRT_IMPL_ABI 1
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

/* The job-control variable that carries the recipe snapshot; the job sees it as SLURM_SPANK_<name>. */
#define SRT_SNAPSHOT_NAME "SRT_SNAPSHOT"
#define SRT_SNAPSHOT_JOB_ENV "SLURM_SPANK_SRT_SNAPSHOT"

#endif
