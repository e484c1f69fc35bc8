/* spank_srt.so: loaded by every srun, sbatch, salloc and slurmstepd on the cluster, so it does
 * almost nothing: it registers --srt-recipe and --srt-step and, only when a job uses them, dlopens
 * the implementation and hands it each callback. Its only dependencies are libc and libdl, so it
 * loads on login nodes and in slurmd even where ROCm, hwloc or yaml-cpp are missing. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/spank.h>
#include <slurm/slurm_version.h>

#include "../impl_abi.h"

SPANK_PLUGIN(srt, 1);

#if defined(SLURM_VERSION_NUMBER) && SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
/* Slurm 25.05 ("Ticket 20604: Spank error codes were not properly propagated. Fixed in 25.05";
 * spank.h declares this symbol from then on): a plugin says what a failing slurm_spank_init in
 * slurmstepd means. ESPANK_NODE_FAILURE drains the node and requeues the job; nothing this plugin
 * checks is the node's fault (a recipe, a missing implementation: those fail the job in task_init,
 * and init itself only registers options), so it is the job that fails, never the node. */
int slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE;
#endif

#ifndef SRT_DEFAULT_IMPL
#define SRT_DEFAULT_IMPL "/usr/lib64/slurm/srt_spank_impl.so"
#endif

/* One option's value, and whether it is the one Slurm re-delivered from the job's environment. */
struct srt_option_value {
  char *value;
  const char *job_env;  /* SLURM_SPANK_ + Slurm's _SLURM_SPANK_OPTION_<plugin>_<option> */
  int from_job;
};

static struct srt_option_value srt_recipe = {NULL, "SLURM_SPANK__SLURM_SPANK_OPTION_srt_srt_recipe", 0};
static struct srt_option_value srt_step = {NULL, "SLURM_SPANK__SLURM_SPANK_OPTION_srt_srt_step", 0};
static int srt_argc;
static char **srt_argv;
static void *srt_impl_handle;
static srt_impl_callback_fn srt_impl_fn;
/* What is wrong with this process's --srt-* options, once found. In slurmstepd an option callback
 * or init_post_opt that fails is the path that drains a node (docs/design.md "The SPANK plugin"); a
 * user's mistake must not, so there it is kept for task_init to fail the job with. */
static char srt_option_error[512];
/* plugstack argument "timing": log how long each callback took (tests/bench/lab_cost.py). Off,
 * it costs one branch per callback. */
static int srt_timing;

/* Submit side: the callback's failure stops srun/sbatch ("Invalid --srt-recipe argument").
 * Remote: kept (the first one), and 0: Slurm would only log it, and the job fails in task_init. */
static int srt_option_problem(int remote, const char *why) {
  if (!srt_option_error[0]) snprintf(srt_option_error, sizeof srt_option_error, "%s", why);
  slurm_error("srt: %s", why);
  return remote ? 0 : -1;
}

static int srt_store(struct srt_option_value *slot, const char *name, const char *value, int remote) {
  char why[sizeof srt_option_error];
  if (!value || !*value) {
    snprintf(why, sizeof why, "--%s needs a value", name);
    return srt_option_problem(remote, why);
  }
  /* Options arrive from the environment first, then the command line, and again in nested sruns:
   * the same value twice is fine, a different one is a mistake worth stopping for. Except the
   * one the job's environment re-delivers to an srun or sbatch inside it: a command line that
   * names another recipe means that one (docs/security.md). Once. */
  if (slot->value && slot->from_job && !remote) {
    slot->from_job = 0;
    if (strcmp(slot->value, value) != 0) {
      char *mine = strdup(value);
      if (!mine) return -1;
      free(slot->value);
      slot->value = mine;
      return 0;
    }
  }
  if (slot->value && strcmp(slot->value, value) != 0) {
    snprintf(why, sizeof why, "--%s given twice with different values ('%s' and '%s'); give it once", name,
             slot->value, value);
    return srt_option_problem(remote, why);
  }
  if (!slot->value) {
    if (!(slot->value = strdup(value))) return remote ? 0 : -1;
    const char *job = remote ? NULL : getenv(slot->job_env);
    slot->from_job = job && strcmp(job, value) == 0;
  }
  return 0;
}

static int srt_recipe_cb(int val, const char *optarg, int remote) {
  (void)val;
  return srt_store(&srt_recipe, "srt-recipe", optarg, remote);
}

static int srt_step_cb(int val, const char *optarg, int remote) {
  (void)val;
  return srt_store(&srt_step, "srt-step", optarg, remote);
}

static struct spank_option srt_options[] = {
  {"srt-recipe", "FILE",
   "Run the srt-slurm recipe FILE: checked now, then roles, GPUs, NICs, ports and endpoints "
   "are set on every node", 1, 0, srt_recipe_cb},
  {"srt-step", "ROLE:INDEX",
   "Make this step the recipe's worker ROLE:INDEX (e.g. prefill:0) with its full environment",
   1, 0, srt_step_cb},
  SPANK_OPTIONS_TABLE_END
};

/* Is this an srt job at all? The option, or the snapshot a submit side already took (with
 * sbatch --export=NONE the batch step loses the option but keeps SLURM_SPANK_* variables). */
static int srt_job_present(spank_t sp) {
  if (srt_recipe.value || srt_step.value) return 1;
  if (spank_remote(sp)) {
    char probe[2];
    spank_err_t rc = spank_getenv(sp, SRT_SNAPSHOT_JOB_ENV, probe, sizeof probe);
    return rc == ESPANK_SUCCESS || rc == ESPANK_NOSPACE;
  }
  return getenv(SRT_SNAPSHOT_JOB_ENV) != NULL;
}

#ifndef SRT_NODE_IMPL_NAME
#define SRT_NODE_IMPL_NAME "srt_spank_node.so"
#endif

/* The implementation for this context: impl=PATH (srt_spank_impl.so) on the submit side, and in
 * slurmstepd its sibling srt_spank_node.so, which plans from the job's snapshot without a YAML
 * parser (docs/design.md "The snapshot"): what a job's every slurmstepd maps stays small. */
static const char *srt_impl_path(int remote, char *buf, size_t size) {
  const char *impl = SRT_DEFAULT_IMPL;
  for (int i = 0; i < srt_argc; i++)
    if (strncmp(srt_argv[i], "impl=", 5) == 0) impl = srt_argv[i] + 5;
  if (!remote) return impl;
  const char *slash = strrchr(impl, '/');
  int dir = slash ? (int)(slash - impl + 1) : 0;
  if (snprintf(buf, size, "%.*s%s", dir, impl, SRT_NODE_IMPL_NAME) >= (int)size) return NULL;
  return buf;
}

/* Why the implementation did not load, kept for task_init to tell the job. */
static char srt_load_error[2048];

static int srt_load_impl(int remote) {
  if (srt_impl_fn) return 0;
  char node_path[1024];
  const char *path = srt_impl_path(remote, node_path, sizeof node_path);
  if (!path) {
    snprintf(srt_load_error, sizeof srt_load_error, "the plugstack.conf impl= path is longer than %d bytes",
             (int)sizeof node_path);
    slurm_error("srt: %s", srt_load_error);
    return -1;
  }
  srt_impl_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!srt_impl_handle) {
    snprintf(srt_load_error, sizeof srt_load_error, "cannot load the implementation library %s: %s",
             path, dlerror());
    slurm_error("srt: %s; only jobs using --srt-recipe are affected: ask the cluster admin to install "
                "it on this host", srt_load_error);
    return -1;
  }
  const int *abi = (const int *)dlsym(srt_impl_handle, "srt_impl_abi");
  srt_impl_fn = (srt_impl_callback_fn)dlsym(srt_impl_handle, SRT_IMPL_ENTRY);
  if (!abi || *abi != SRT_IMPL_ABI || !srt_impl_fn) {
    /* The ABI number names the Slurm major.minor too (impl_abi.h): an implementation built for
     * another Slurm release is refused here with both numbers. */
    char found[32] = "none";
    if (abi) snprintf(found, sizeof found, "%d", *abi);
    snprintf(srt_load_error, sizeof srt_load_error,
             "%s is not the implementation this plugin was built with (ABI %d expected, it has %s)", path,
             SRT_IMPL_ABI, found);
    slurm_error("srt: %s; reinstall the srt-spank package on this host", srt_load_error);
    srt_impl_fn = NULL;
    return -1;
  }
  return 0;
}

/* task_init runs in the task itself, whose stderr is the job's: where the user looks. slurm_error
 * only reaches the node's slurmd log. Name the node: the user cannot see which one failed. */
static void srt_node_name(spank_t sp, char *node, size_t size) {
  if (spank_getenv(sp, "SLURMD_NODENAME", node, (int)size) != ESPANK_SUCCESS || !*node)
    snprintf(node, size, "(unknown: SLURMD_NODENAME not set)");
}

static void srt_tell_job_load_failed(spank_t sp) {
  char node[256] = "";
  srt_node_name(sp, node, sizeof node);
  fprintf(stderr, "srt: this job cannot run: node %s %s; jobs without --srt-recipe still run there: "
          "the cluster admin must install srt-spank on %s (or exclude it: sbatch --exclude=%s)\n",
          node, srt_load_error, node, node);
  fflush(stderr);
}

static void srt_tell_job_option_error(spank_t sp) {
  char node[256] = "";
  srt_node_name(sp, node, sizeof node);
  fprintf(stderr, "srt: this job cannot run: its step reached node %s with %s\n", node, srt_option_error);
  fflush(stderr);
}

static int srt_forward(const char *callback, spank_t sp) {
  if (srt_option_error[0]) {
    /* Submit side: the option callback already stopped the command; this says so again. Remote:
     * nothing until task_init, which fails the job (never init/user_init: that drains nodes). */
    if (!spank_remote(sp)) return -1;
    if (strcmp(callback, "task_init") != 0) return 0;
    srt_tell_job_option_error(sp);
    return -1;
  }
  if (!srt_job_present(sp)) return 0;
  if (srt_load_impl(spank_remote(sp)) != 0) {
    /* Remote: never fail init/user_init (that drains nodes); task_init reports it to the job. */
    if (!spank_remote(sp)) return -1;
    if (strcmp(callback, "task_init") != 0) return 0;
    srt_tell_job_load_failed(sp);
    return -1;
  }
  struct srt_loader_state state = {SRT_IMPL_ABI, srt_recipe.value, srt_step.value, srt_argc, srt_argv};
  return srt_impl_fn(callback, sp, &state);
}

static long long srt_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* slurm_info: srun prints it on stderr, slurmstepd writes it to the node's slurmd log. */
static int srt_timed_result(spank_t sp, const char *callback, long long t0, int rc) {
  if (srt_timing) {
    long long ns = srt_now_ns() - t0;
    slurm_info("srt: timing %s %s %lld.%03lld us", spank_remote(sp) ? "remote" : "local", callback,
               ns / 1000, ns % 1000);
  }
  return rc;
}
#define SRT_START() (srt_timing ? srt_now_ns() : 0)

static int srt_init(spank_t sp, int ac, char **av) {
  srt_argc = ac;
  srt_argv = av;  /* owned by Slurm for the plugin's lifetime */
  if (spank_context() == S_CTX_SLURMD || spank_context() == S_CTX_JOB_SCRIPT) return 0;
  /* Registered dynamically: sbatch and salloc ignore a static spank_options table. */
  for (struct spank_option *o = srt_options; o->name; o++) {
    spank_err_t rc = spank_option_register(sp, o);
    if (rc != ESPANK_SUCCESS) {
      slurm_error("srt: cannot register --%s: %s", o->name, spank_strerror(rc));
      /* Remote: a failure here would drain the node; the option simply stays unknown. */
      return spank_remote(sp) ? 0 : -1;
    }
  }
  return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av) {
  for (int i = 0; i < ac; i++)
    if (strcmp(av[i], "timing") == 0) srt_timing = 1;
  long long t0 = SRT_START();
  return srt_timed_result(sp, "init", t0, srt_init(sp, ac, av));
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av) {
  (void)ac; (void)av;
  long long t0 = SRT_START();
  return srt_timed_result(sp, "init_post_opt", t0, srt_forward("init_post_opt", sp));
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av) {
  (void)ac; (void)av;
  long long t0 = SRT_START();
  return srt_timed_result(sp, "local_user_init", t0, srt_forward("local_user_init", sp));
}

int slurm_spank_user_init(spank_t sp, int ac, char **av) {
  (void)ac; (void)av;
  long long t0 = SRT_START();
  return srt_timed_result(sp, "user_init", t0, srt_forward("user_init", sp));
}

int slurm_spank_task_init(spank_t sp, int ac, char **av) {
  (void)ac; (void)av;
  long long t0 = SRT_START();
  return srt_timed_result(sp, "task_init", t0, srt_forward("task_init", sp));
}

int slurm_spank_exit(spank_t sp, int ac, char **av) {
  (void)ac; (void)av;
  long long t0 = SRT_START();
  if (srt_impl_fn) srt_forward("exit", sp);  /* exit failures are ignored by Slurm anyway */
  /* The last callback in every context, before Slurm dlcloses the plugin. */
  free(srt_recipe.value);
  free(srt_step.value);
  srt_recipe.value = srt_step.value = NULL;
  return srt_timed_result(sp, "exit", t0, 0);
}
