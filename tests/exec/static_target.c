/* A static program for srt-exec's sandbox test: prints its arguments, the file named by
 * MC_CUSTOM_TOPO_JSON (what srt-exec wrote there) and its memlock limit. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) printf("arg %s\n", argv[i]);
  const char *topo = getenv("MC_CUSTOM_TOPO_JSON");
  if (topo) {
    FILE *f = fopen(topo, "r");
    char buf[256] = {0};
    if (f && fgets(buf, sizeof buf, f)) printf("topology %s\n", buf);
    if (f) fclose(f);
  }
  struct rlimit lim;
  getrlimit(RLIMIT_MEMLOCK, &lim);
  printf("memlock %s\n", lim.rlim_cur == RLIM_INFINITY ? "unlimited" : "limited");
  return 0;
}
