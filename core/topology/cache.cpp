// Per-node topology cache: the derived inventory (inventory_cache.cpp) keyed by boot id.
// slurmstepd reads it for every task of every srt job, so a full hwloc discovery (sysfs walk,
// tens of ms) happens once per boot.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

#include "srt/cache_files.hpp"
#include "srt/error.hpp"
#include "srt/topology.hpp"
#include "srt/unique_fd.hpp"

namespace srt {
namespace {

std::string errtext() { return std::strerror(errno); }

// Hex digits and dashes only: the id becomes part of a file name.
std::string checked_boot_id(const std::string& id) {
  if (id.empty() || id.size() > 64 || id.find_first_not_of("0123456789abcdef-") != std::string::npos)
    fail("boot id '" + id + "' is not a UUID");
  return id;
}

// topology-<boot id>.json: every boot's file has this prefix and suffix.
constexpr std::string_view kCachePrefix = "topology-", kCacheSuffix = ".json";

std::string cache_name(const std::string& boot_id) {
  return std::string(kCachePrefix) + checked_boot_id(boot_id) + std::string(kCacheSuffix);
}

constexpr const char* kTopologyCacheWhat = "topology cache";
// An 8-GPU node's inventory is ~3 KB, 1024 devices ~250 KB.
constexpr std::size_t kTopologyCacheMaxBytes = 1 << 20;

}  // namespace

std::string topology_cache_path(const std::string& dir, const std::string& boot_id) {
  return dir + "/" + cache_name(boot_id);
}

std::string read_boot_id(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) fail("cannot read boot id from '" + path + "': " + errtext());
  char buf[128];
  ssize_t n = ::read(fd.get(), buf, sizeof buf - 1);
  if (n <= 0) fail("cannot read boot id from '" + path + "'");
  std::string id(buf, static_cast<std::size_t>(n));
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return checked_boot_id(id);
}

std::optional<std::string> read_topology_cache(const std::string& dir, const std::string& boot_id) {
  return read_cache_file(dir, cache_name(boot_id), kTopologyCacheMaxBytes, CacheOwner::root_or_me, kTopologyCacheWhat);
}

void write_topology_cache(const std::string& dir, const std::string& boot_id, const std::string& bytes) {
  write_cache_file(dir, cache_name(boot_id), bytes, kTopologyCacheWhat);
}

std::size_t remove_stale_topology_caches(const std::string& dir, const std::string& boot_id) {
  return remove_cache_files(dir, kCachePrefix, kCacheSuffix, cache_name(boot_id), kTopologyCacheWhat);
}

}  // namespace srt
