// srt-exec: the exec shim in front of every engine, router and benchmark, inside the container.
//   srt-exec [--require PATH]... [--rdma] -- PROGRAM [ARGS...]
// Before it execs PROGRAM it checks what would otherwise fail late or silently:
//   - every --require PATH (a local model the Plan names) exists here, inside the container;
//   - MC_CUSTOM_TOPO_JSON: Mooncake silently ignores a topology file it cannot read, so the
//     file is written here from SRT_MOONCAKE_TOPOLOGY (the Plan's per-worker topology), and
//     its directory must exist;
//   - --rdma: the memlock limit is raised to unlimited (Mooncake registers all KV memory).
// Fully static (-static): it must run in any image, whatever libc the image has.
//
//   srt-exec --container [--as-step-user] [--pass NAME]... -- RUNTIME [OPTIONS...] run [OPTIONS...] IMAGE ...
// runs on the host in front of podman or docker: it names the container for the job and step
// and passes the step's environment into it (container_front.cpp), then execs RUNTIME.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "container_front.hpp"

extern char** environ;

namespace {

std::string where() {
  const char* node = std::getenv("SLURMD_NODENAME");
  return node && *node ? std::string(" on ") + node : std::string();
}

[[noreturn]] void die(const std::string& what, const std::string& hint) {
  std::fprintf(stderr, "srt-exec: %s%s\nsrt-exec: %s\n", what.c_str(), where().c_str(), hint.c_str());
  std::exit(126);
}

void require_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    die(path + " does not exist inside the container (" + std::strerror(errno) + ")",
        "the Plan names it (model.path); mount it with the recipe's container_mounts or the profile's default_mounts");
}

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

void write_topology() {
  const char* path = std::getenv("MC_CUSTOM_TOPO_JSON");
  if (!path || !*path) return;
  const std::string dir = dir_of(path);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    die("MC_CUSTOM_TOPO_JSON=" + std::string(path) + ": its directory " + dir + " does not exist",
        "Mooncake would silently ignore the topology; mount " + dir + " into the container");
  const char* topology = std::getenv("SRT_MOONCAKE_TOPOLOGY");
  if (!topology || !*topology) {
    if (::access(path, R_OK) != 0)
      die("MC_CUSTOM_TOPO_JSON=" + std::string(path) + " cannot be read (" + std::strerror(errno) + ")",
          "Mooncake would silently ignore it; set SRT_MOONCAKE_TOPOLOGY or provide the file");
    return;
  }
  // /tmp may be the node's, shared with every other job and user: the file is written under a
  // name nobody can have planted (mkstemp: O_CREAT|O_EXCL, so never through a symlink), then
  // renamed over the path (rename replaces a planted link itself, never what it points to).
  std::string tmp = std::string(path) + ".XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0)
    die("cannot create a file beside " + std::string(path) + ": " + std::strerror(errno),
        "check that " + dir + " is writable inside the container");
  const std::size_t len = std::strlen(topology);
  std::size_t done = 0;
  while (done < len) {
    const ssize_t n = ::write(fd, topology + done, len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += std::size_t(n);
  }
  const bool closed = ::close(fd) == 0;
  const bool written = done == len && closed;
  if (written && std::rename(tmp.c_str(), path) == 0) return;
  // The name is taken by what we cannot replace: in a sticky /tmp another user's file, or
  // anyone's directory, holds it (the job ids and step names are public). The file goes into a
  // directory of our own instead (mkdtemp: 0700, a fresh name) and Mooncake is told so.
  int err = errno;
  if (written) {
    std::string own = dir + "/srt-mooncake-XXXXXX";
    const char* base = std::strrchr(path, '/');
    if (::mkdtemp(own.data()) != nullptr) {
      const std::string moved = own + "/" + (base ? base + 1 : path);
      if (std::rename(tmp.c_str(), moved.c_str()) == 0 && ::setenv("MC_CUSTOM_TOPO_JSON", moved.c_str(), 1) == 0) return;
      err = errno;
      ::rmdir(own.c_str());
    } else {
      err = errno;
    }
  }
  ::unlink(tmp.c_str());
  die("cannot write the Mooncake topology to " + std::string(path) + ": " + std::strerror(err),
      "check that " + dir + " is writable inside the container");
}

void raise_memlock() {
  rlimit lim{};
  ::getrlimit(RLIMIT_MEMLOCK, &lim);
  if (lim.rlim_cur == RLIM_INFINITY) return;
  rlimit want{RLIM_INFINITY, RLIM_INFINITY};
  if (::setrlimit(RLIMIT_MEMLOCK, &want) == 0) return;
  const int err = errno;
  const std::string hard = lim.rlim_max == RLIM_INFINITY ? "unlimited" : std::to_string(lim.rlim_max / 1024) + " KiB";
  die("cannot raise the memlock limit to unlimited (" + std::string(std::strerror(err)) + "; hard limit " + hard +
          "): Mooncake cannot register KV memory for RDMA",
      "the admin must run slurmd with LimitMEMLOCK=infinity (and PropagateResourceLimits must not lower it), "
      "or use backend.mooncake_protocol: tcp");
}

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: srt-exec [--require PATH]... [--rdma] -- PROGRAM [ARGS...]\n"
               "       srt-exec --container [--as-step-user] [--pass NAME]... -- RUNTIME [OPTIONS...] run [OPTIONS...] IMAGE ...\n");
  std::exit(2);
}

[[noreturn]] void exec_or_die(const std::vector<std::string>& args, const char* where_hint) {
  std::vector<char*> raw;
  for (const auto& a : args) raw.push_back(const_cast<char*>(a.c_str()));
  raw.push_back(nullptr);
  ::execvp(raw[0], raw.data());
  const int err = errno;
  const char* path = std::getenv("PATH");
  die(std::string("cannot run ") + args[0] + ": " + std::strerror(err),
      std::string("PATH is ") + (path ? path : "(unset)") + "; " + where_hint);
}

[[noreturn]] void run_container(const std::vector<std::string>& pass, bool as_step_user, int argc, char** argv, int i) {
  std::vector<std::string> environment;
  for (char** e = environ; e && *e; ++e) environment.emplace_back(*e);
  try {
    // The step's own uid and gid: the job's user, as pyxis runs the container.
    const std::string user = as_step_user ? std::to_string(::getuid()) + ":" + std::to_string(::getgid()) : "";
    exec_or_die(srt_exec::container_argv(std::vector<std::string>(argv + i, argv + argc), pass, environment, user,
                                         ::getuid() != 0),
                "is the container runtime installed on this node (profile container_runtime)?");
  } catch (const std::runtime_error& e) {
    die(e.what(), "run it as the launcher does: in a job step");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> required, pass;
  bool rdma = false, container = false, as_step_user = false;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") { ++i; break; }
    if (a == "--require" && i + 1 < argc) required.push_back(argv[++i]);
    else if (a == "--pass" && i + 1 < argc) pass.push_back(argv[++i]);
    else if (a == "--rdma") rdma = true;
    else if (a == "--container") container = true;
    else if (a == "--as-step-user") as_step_user = true;
    else usage();
  }
  if (i >= argc) usage();
  if (container) run_container(pass, as_step_user, argc, argv, i);
  for (const auto& path : required) require_path(path);
  write_topology();
  if (rdma) raise_memlock();
  exec_or_die(std::vector<std::string>(argv + i, argv + argc), "is the program in the container image?");
}
