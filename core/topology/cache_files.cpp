// The cache directory's files (srt/cache_files.hpp).
#include "srt/cache_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <vector>

#include "srt/error.hpp"
#include "srt/unique_fd.hpp"

namespace srt {
namespace {

std::string cache_errtext() { return std::strerror(errno); }

bool trusted_owner(uid_t uid, CacheOwner owner) {
  return uid == 0 || (owner == CacheOwner::root_or_me && uid == ::geteuid());
}

std::string owners(CacheOwner owner) { return owner == CacheOwner::root_only ? "root" : "root or the current user"; }

// The directory itself (never through a symlink), checked on the open descriptor.
UniqueFd open_cache_dir(const std::string& dir, bool create, CacheOwner owner, const std::string& what) {
  if (create && ::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    fail("cannot create " + what + " directory '" + dir + "': " + cache_errtext());
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT && !create) return UniqueFd();
    fail("cannot open " + what + " directory '" + dir + "': " + cache_errtext());
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail("cannot stat '" + dir + "': " + cache_errtext());
  if (!trusted_owner(st.st_uid, owner))
    fail(what + " directory '" + dir + "' is owned by uid " + std::to_string(st.st_uid),
         "it must belong to " + owners(owner));
  if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
    fail(what + " directory '" + dir + "' is writable by everyone without the sticky bit",
         "chmod o-w (or +t) the directory");
  return fd;
}

}  // namespace

std::optional<std::string> read_cache_file(const std::string& dir, const std::string& name, std::size_t max_bytes,
                                           CacheOwner owner, const std::string& what) {
  UniqueFd dfd = open_cache_dir(dir, false, owner, what);
  if (dfd.get() < 0) return std::nullopt;
  const std::string path = dir + "/" + name;
  UniqueFd fd(::openat(dfd.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    fail("cannot open " + what + " '" + path + "': " + cache_errtext());
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) fail(what + " '" + path + "' is not a regular file");
  if (!trusted_owner(st.st_uid, owner) || (st.st_mode & (S_IWGRP | S_IWOTH)))
    fail(what + " '" + path + "' is owned by uid " + std::to_string(st.st_uid) + " or writable by others",
         "remove it; it must belong to " + owners(owner) + " and be written by srt-helper");
  if (static_cast<std::size_t>(st.st_size) > max_bytes) fail(what + " '" + path + "' is implausibly large");
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::read(fd.get(), &bytes[got], bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot read " + what + " '" + path + "': " + cache_errtext());
    got += static_cast<std::size_t>(n);
  }
  return bytes;
}

void write_cache_file(const std::string& dir, const std::string& name, const std::string& bytes, const std::string& what) {
  UniqueFd dfd = open_cache_dir(dir, true, CacheOwner::root_or_me, what);
  std::random_device rd;
  const std::string tmp = "." + name + "." + std::to_string(::getpid()) + "." + std::to_string(rd());
  UniqueFd fd(::openat(dfd.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (fd.get() < 0) fail("cannot create '" + dir + "/" + tmp + "': " + cache_errtext());
  std::string why;
  // Every job user reads it: root's umask (077 on hardened nodes) must not make it root's only.
  if (::fchmod(fd.get(), 0644) != 0) why = cache_errtext();
  for (std::size_t done = 0; why.empty() && done < bytes.size();) {
    ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) why = n < 0 ? cache_errtext() : "short write";
    else done += static_cast<std::size_t>(n);
  }
  // fsync before rename: after a crash the name must point at the whole file or the old one.
  if (why.empty() && ::fsync(fd.get()) != 0) why = cache_errtext();
  if (::close(fd.release()) != 0 && why.empty()) why = cache_errtext();
  if (why.empty() && ::renameat(dfd.get(), tmp.c_str(), dfd.get(), name.c_str()) != 0) why = cache_errtext();
  if (!why.empty()) {
    ::unlinkat(dfd.get(), tmp.c_str(), 0);
    fail("cannot write " + what + " '" + dir + "/" + name + "': " + why);
  }
}

std::size_t remove_cache_files(const std::string& dir, std::string_view prefix, std::string_view suffix,
                               const std::string& keep, const std::string& what) {
  UniqueFd dfd = open_cache_dir(dir, false, CacheOwner::root_or_me, what);
  if (dfd.get() < 0) return 0;
  // fdopendir takes the descriptor over: give it its own, so dfd stays ours for unlinkat.
  UniqueFd listing(::fcntl(dfd.get(), F_DUPFD_CLOEXEC, 0));
  if (listing.get() < 0) fail("cannot list " + what + " directory '" + dir + "': " + cache_errtext());
  DIR* d = ::fdopendir(listing.get());
  if (!d) fail("cannot list " + what + " directory '" + dir + "': " + cache_errtext());
  listing.release();
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != keep && name.size() > prefix.size() + suffix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      stale.push_back(name);
  }
  ::closedir(d);
  std::size_t removed = 0;
  for (const std::string& name : stale) {
    struct stat st {};
    // Only regular files: a directory of that name is not ours to remove.
    if (::fstatat(dfd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode)) continue;
    if (::unlinkat(dfd.get(), name.c_str(), 0) != 0)
      fail("cannot remove stale " + what + " '" + dir + "/" + name + "': " + cache_errtext());
    ++removed;
  }
  return removed;
}

}  // namespace srt
