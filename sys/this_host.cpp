#include "srt/this_host.hpp"
#include "srt/files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

namespace srt::helper {

std::string find_profile_path(const std::string& explicit_path, const std::string& fallback) {
  const char* env = std::getenv("SRTSLURM_CONFIG");
  struct stat st {};
  const bool exists = !fallback.empty() && ::stat(fallback.c_str(), &st) == 0;
  return choose_profile_path(explicit_path, env ? env : "", fallback, exists);
}

Profile load_profile(const std::string& explicit_path, const ReadOptions& read) {
  const std::string path = find_profile_path(explicit_path);
  if (path.empty()) return default_profile();
  return load_profile_file(path, read);
}

NodeName this_node(const std::string& given) {
  if (!given.empty()) return {given, true};
  if (const char* n = std::getenv("SLURMD_NODENAME"); n && *n) return {n, true};
  char host[256] = "";
  if (::gethostname(host, sizeof host - 1) != 0) return {};
  const std::string h = host;
  return {h.substr(0, h.find('.')), false};
}

std::string this_node_name(const std::string& given) { return this_node(given).name; }

std::string executable_path() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, std::size_t(n)) : "";
}

std::string executable_dir() {
  const std::string path = executable_path();
  return path.substr(0, path.rfind('/'));
}

}  // namespace srt::helper
