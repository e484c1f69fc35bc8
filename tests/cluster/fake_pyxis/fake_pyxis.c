/* fake_pyxis.so: a test-only SPANK plugin that registers pyxis's (v0.24) option names and
 * nothing else, so the lab's real srun accepts or refuses a pyxis command line exactly as a
 * site with pyxis would. It starts no container: in each task it exports what it received as
 * FAKE_PYXIS_<OPTION>=<value> ("1" for flags), so a test can check the values srun carried. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

SPANK_PLUGIN(fake_pyxis, 1)

#define N_OPTIONS 15
static const char *names[N_OPTIONS] = {
    "container-image",  "container-mounts",       "container-workdir",     "container-name",
    "container-save",   "container-mount-home",   "no-container-mount-home", "container-remap-root",
    "no-container-remap-root", "container-entrypoint", "no-container-entrypoint",
    "container-entrypoint-log", "container-writable", "container-readonly", "container-env"};
/* 1 = takes a value (as in pyxis's args.c). */
static const int has_arg[N_OPTIONS] = {1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static char *values[N_OPTIONS];

static int on_option(int val, const char *optarg, int remote) {
  (void)remote;
  if (val < 0 || val >= N_OPTIONS) return -1;
  free(values[val]);
  values[val] = strdup(optarg && has_arg[val] ? optarg : "1");
  return values[val] ? 0 : -1;
}

int slurm_spank_init(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  for (int i = 0; i < N_OPTIONS; ++i) {
    struct spank_option opt = {(char *)names[i], has_arg[i] ? "VALUE" : NULL, "pyxis option (test stand-in)",
                               has_arg[i], i, on_option};
    if (spank_option_register(sp, &opt) != ESPANK_SUCCESS) return -1;
  }
  return 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  for (int i = 0; i < N_OPTIONS; ++i) {
    if (!values[i]) continue;
    char name[64] = "FAKE_PYXIS_";
    for (const char *c = names[i]; *c && strlen(name) < sizeof name - 1; ++c) {
      const size_t n = strlen(name);
      name[n] = *c == '-' ? '_' : (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
      name[n + 1] = 0;
    }
    spank_setenv(sp, name, values[i], 1);
  }
  return 0;
}
