// Per-node topology cache: the derived inventory (inventory_cache.cpp) keyed by boot id.
// slurmstepd reads it for every task of every srt job, so a full hwloc discovery (sysfs walk,
// tens of ms) happens once per boot.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

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

bool trusted_owner(uid_t uid) { return uid == 0 || uid == ::geteuid(); }

// Opens the directory itself (never through a symlink) and checks it on the open descriptor,
// so a check and a later use cannot refer to different directories.
UniqueFd open_cache_dir(const std::string& dir, bool create) {
  if (create && ::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    fail("cannot create topology cache directory '" + dir + "': " + errtext());
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT && !create) return UniqueFd();
    fail("cannot open topology cache directory '" + dir + "': " + errtext());
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail("cannot stat '" + dir + "': " + errtext());
  if (!trusted_owner(st.st_uid))
    fail("topology cache directory '" + dir + "' is owned by uid " + std::to_string(st.st_uid),
         "it must belong to root or the current user");
  if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
    fail("topology cache directory '" + dir + "' is writable by everyone without the sticky bit",
         "chmod o-w (or +t) the directory");
  return fd;
}

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
  UniqueFd dfd = open_cache_dir(dir, false);
  if (dfd.get() < 0) return std::nullopt;
  const std::string name = cache_name(boot_id);
  UniqueFd fd(::openat(dfd.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    fail("cannot open topology cache '" + dir + "/" + name + "': " + errtext());
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    fail("topology cache '" + dir + "/" + name + "' is not a regular file");
  if (!trusted_owner(st.st_uid) || (st.st_mode & (S_IWGRP | S_IWOTH)))
    fail("topology cache '" + dir + "/" + name + "' is owned by uid " + std::to_string(st.st_uid) +
         " or writable by others", "remove it; it is rebuilt on the next discovery");
  constexpr off_t max_bytes = 1 << 20;  // an 8-GPU node's inventory is ~3 KB, 1024 devices ~250 KB
  if (st.st_size > max_bytes) fail("topology cache '" + dir + "/" + name + "' is implausibly large");
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::read(fd.get(), &bytes[got], bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot read topology cache '" + dir + "/" + name + "': " + errtext());
    got += static_cast<std::size_t>(n);
  }
  return bytes;
}

void write_topology_cache(const std::string& dir, const std::string& boot_id, const std::string& bytes) {
  UniqueFd dfd = open_cache_dir(dir, true);
  const std::string name = cache_name(boot_id);
  std::random_device rd;
  const std::string tmp = "." + name + "." + std::to_string(::getpid()) + "." + std::to_string(rd());
  UniqueFd fd(::openat(dfd.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (fd.get() < 0) fail("cannot create '" + dir + "/" + tmp + "': " + errtext());
  std::string why;
  // Every job user reads it: root's umask (077 on hardened nodes) must not make it root's only.
  if (::fchmod(fd.get(), 0644) != 0) why = errtext();
  for (std::size_t done = 0; why.empty() && done < bytes.size();) {
    ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) why = n < 0 ? errtext() : "short write";
    else done += static_cast<std::size_t>(n);
  }
  // fsync before rename: after a crash the name must point at the whole file or the old one.
  if (why.empty() && ::fsync(fd.get()) != 0) why = errtext();
  if (::close(fd.release()) != 0 && why.empty()) why = errtext();
  if (why.empty() && ::renameat(dfd.get(), tmp.c_str(), dfd.get(), name.c_str()) != 0) why = errtext();
  if (!why.empty()) {
    ::unlinkat(dfd.get(), tmp.c_str(), 0);
    fail("cannot write topology cache '" + dir + "/" + name + "': " + why);
  }
}

std::size_t remove_stale_topology_caches(const std::string& dir, const std::string& boot_id) {
  UniqueFd dfd = open_cache_dir(dir, false);
  if (dfd.get() < 0) return 0;
  const std::string keep = cache_name(boot_id);
  // fdopendir takes the descriptor over: give it its own, so dfd stays ours for unlinkat.
  UniqueFd listing(::fcntl(dfd.get(), F_DUPFD_CLOEXEC, 0));
  if (listing.get() < 0) fail("cannot list topology cache directory '" + dir + "': " + errtext());
  DIR* d = ::fdopendir(listing.get());
  if (!d) fail("cannot list topology cache directory '" + dir + "': " + errtext());
  listing.release();
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const std::size_t affixes = kCachePrefix.size() + kCacheSuffix.size();
    if (name != keep && name.size() > affixes && name.compare(0, kCachePrefix.size(), kCachePrefix) == 0 &&
        name.compare(name.size() - kCacheSuffix.size(), kCacheSuffix.size(), kCacheSuffix) == 0)
      stale.push_back(name);
  }
  ::closedir(d);
  std::size_t removed = 0;
  for (const std::string& name : stale) {
    struct stat st {};
    // Only regular files: a directory of that name is not ours to remove.
    if (::fstatat(dfd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode)) continue;
    if (::unlinkat(dfd.get(), name.c_str(), 0) != 0)
      fail("cannot remove stale topology cache '" + dir + "/" + name + "': " + errtext());
    ++removed;
  }
  return removed;
}

}  // namespace srt
