#include "srt/safe_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "srt/error.hpp"

namespace srt::helper {
namespace {

constexpr int kMaxCopyDepth = 32;

std::string errtext(int e = errno) { return std::strerror(e); }

std::string octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", unsigned(mode & 07777));
  return buf;
}

std::string user_of(uid_t uid) {
  const passwd* pw = ::getpwuid(uid);
  return "uid " + std::to_string(uid) + (pw && pw->pw_name ? " (" + std::string(pw->pw_name) + ")" : "");
}

bool trusted_owner(uid_t uid, bool trust_root) { return uid == ::geteuid() || (trust_root && uid == 0); }

std::string kind_text(mode_t mode) {
  if (S_ISREG(mode)) return "regular";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISLNK(mode)) return "symlink";
  if (S_ISFIFO(mode)) return "fifo";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "device";
  return "unknown";
}

std::string described(const std::string& kind) {
  if (kind == "symlink") return "a symbolic link (not followed)";
  if (kind == "fifo") return "a FIFO";
  if (kind == "socket") return "a socket";
  if (kind == "device") return "a device";
  return "not a regular file or directory";
}

std::string link_target(int dir_fd, const std::string& name) {
  char buf[4096];
  const ssize_t n = ::readlinkat(dir_fd, name.c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, std::size_t(n)) : "?";
}

std::string random_suffix() {
  std::random_device rd;
  char buf[20];
  std::snprintf(buf, sizeof buf, "%08x%08x", rd(), rd());
  return buf;
}

// mkdir -p by path: the parents of a results directory are the site's (results_root may be a
// symlink to a shared filesystem), so links there are followed.
void make_parents(const std::string& path, const SafeDir::Purpose& purpose) {
  for (std::size_t i = 1; i < path.size(); ++i) {
    if (path[i] != '/') continue;
    const std::string partial = path.substr(0, i);
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST)
      fail("cannot create " + partial + " for the " + purpose.what + " " + path + ": " + errtext(), purpose.remedy);
  }
}

void write_all(int fd, const char* data, std::size_t size, const std::string& path) {
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write " + path + ": " + (n < 0 ? errtext() : "short write"));
    done += std::size_t(n);
  }
}

// `name` in the directory `dir_fd` opened to read when it is a regular file there (never through
// a link), its stat in `st`; an invalid descriptor otherwise.
UniqueFd open_regular(int dir_fd, const std::string& name, struct stat& st) {
  UniqueFd f(::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (f.get() >= 0 && (::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode))) f.reset();
  return f;
}

// Up to `limit` bytes of `f` from `offset` on into `bytes`; false on a read error.
bool read_up_to(int f, std::uint64_t offset, std::size_t limit, std::string& bytes) {
  char buf[65536];
  while (bytes.size() < limit) {
    const ssize_t n = ::pread(f, buf, std::min(sizeof buf, limit - bytes.size()), off_t(offset + bytes.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    bytes.append(buf, std::size_t(n));
  }
  return true;
}

}  // namespace

NewFile::NewFile(int dir_fd, std::string dir_path, std::string name, mode_t mode)
    : dir_fd_(dir_fd), dir_path_(std::move(dir_path)), name_(std::move(name)) {
  tmp_ = "." + name_ + ".tmp." + random_suffix();
  fd_ = UniqueFd(::openat(dir_fd_, tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (fd_.get() < 0) fail("cannot create " + dir_path_ + "/" + tmp_ + ": " + errtext());
}

NewFile::NewFile(NewFile&& other) noexcept
    : dir_fd_(other.dir_fd_), dir_path_(std::move(other.dir_path_)), name_(std::move(other.name_)),
      tmp_(std::move(other.tmp_)), fd_(std::move(other.fd_)), done_(other.done_) {
  other.done_ = true;
}

NewFile::~NewFile() {
  if (done_) return;
  fd_ = UniqueFd();
  ::unlinkat(dir_fd_, tmp_.c_str(), 0);
}

void NewFile::write(const std::string& bytes) { write_all(fd_.get(), bytes.data(), bytes.size(), dir_path_ + "/" + tmp_); }

void NewFile::commit() {
  const std::string path = dir_path_ + "/" + name_;
  if (::close(fd_.release()) != 0) fail("cannot write " + path + ": " + errtext());
  // rename replaces whatever `name` was, a symlink included, and never writes through it.
  if (::renameat(dir_fd_, tmp_.c_str(), dir_fd_, name_.c_str()) != 0) fail("cannot write " + path + ": " + errtext());
  done_ = true;
}

std::optional<SafeDir> SafeDir::open(const std::string& given, const Purpose& purpose, bool create, mode_t mode) {
  std::string path = given;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const std::size_t slash = path.rfind('/');
  const std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") fail(purpose.what + " '" + given + "' is not a directory name");
  if (create) make_parents(path, purpose);
  UniqueFd parent_fd(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (parent_fd.get() < 0) {
    if (errno == ENOENT && !create) return std::nullopt;
    fail("cannot open " + parent + " (where the " + purpose.what + " " + path + " is): " + errtext(), purpose.remedy);
  }
  struct stat st {};
  if (::fstat(parent_fd.get(), &st) != 0) fail("cannot stat " + parent + ": " + errtext());
  if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
    fail(parent + " (where the " + purpose.what + " " + path + " is) is writable by everyone without the sticky bit "
             "(mode " + octal(st.st_mode) + "): anyone could rename the directory away and put their own in its place",
         "chmod +t or o-w " + parent + ", or " + purpose.remedy);
  return open_at(parent_fd.get(), name, path, purpose, create, mode);
}

std::optional<SafeDir> SafeDir::sub(const std::string& name, bool create, mode_t mode) const {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    fail("internal: '" + name + "' is not a name in " + path_);
  return open_at(fd(), name, path_of(name), purpose_, create, mode);
}

std::optional<SafeDir> SafeDir::open_at(int parent_fd, const std::string& name, const std::string& path,
                                        const Purpose& purpose, bool create, mode_t mode) {
  if (create && ::mkdirat(parent_fd, name.c_str(), mode) != 0 && errno != EEXIST)
    fail("cannot create the " + purpose.what + " " + path + ": " + errtext(), purpose.remedy);
  UniqueFd fd(::openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    const int e = errno;
    if (e == ENOENT && !create) return std::nullopt;
    struct stat lst {};
    if (::fstatat(parent_fd, name.c_str(), &lst, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISLNK(lst.st_mode))
        fail("the " + purpose.what + " " + path + " is a symbolic link (to " + link_target(parent_fd, name) + ", owned by " +
                 user_of(lst.st_uid) + "); it is not followed",
             purpose.remedy);
      if (!S_ISDIR(lst.st_mode))
        fail("the " + purpose.what + " " + path + " is not a directory (owned by " + user_of(lst.st_uid) + ")", purpose.remedy);
    }
    fail("cannot open the " + purpose.what + " " + path + ": " + errtext(e), purpose.remedy);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail("cannot stat " + path + ": " + errtext());
  if (!trusted_owner(st.st_uid, purpose.trust_root))
    fail("the " + purpose.what + " " + path + " is owned by " + user_of(st.st_uid) + ", not by this user, " +
             user_of(::geteuid()) + ": someone else made it, so nothing in it can be trusted and nothing is written there",
         purpose.remedy);
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    fail("the " + purpose.what + " " + path + " is writable by " +
             std::string((st.st_mode & S_IWOTH) ? "everyone" : "its group") + " (mode " + octal(st.st_mode) +
             "): others could plant files in it",
         "chmod go-w " + path + ", or " + purpose.remedy);
  SafeDir dir(path, std::move(fd));
  dir.purpose_ = purpose;
  return dir;
}

void SafeDir::write_file(const std::string& name, const std::string& bytes, mode_t mode) const {
  NewFile f = new_file(name, mode);
  f.write(bytes);
  f.commit();
}

NewFile SafeDir::new_file(const std::string& name, mode_t mode) const { return NewFile(fd(), path_, name, mode); }

UniqueFd SafeDir::append_file(const std::string& name) const {
  const std::string path = path_of(name);
  UniqueFd f(::openat(fd(), name.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644));
  if (f.get() < 0) {
    if (errno == ELOOP) fail(path + " is a symbolic link (to " + link_target(fd(), name) + "); it is not followed", purpose_.remedy);
    fail("cannot open " + path + ": " + errtext());
  }
  struct stat st {};
  if (::fstat(f.get(), &st) != 0) fail("cannot stat " + path + ": " + errtext());
  if (!S_ISREG(st.st_mode)) fail(path + " is not a regular file", purpose_.remedy);
  if (st.st_uid != ::geteuid() || st.st_nlink != 1)
    fail(path + " is owned by " + user_of(st.st_uid) + " or has other links (" + std::to_string(st.st_nlink) + ")",
         purpose_.remedy);
  return f;
}

std::optional<std::uint64_t> SafeDir::size_of(const std::string& name) const {
  struct stat st {};
  const UniqueFd f = open_regular(fd(), name, st);
  if (f.get() < 0) return std::nullopt;
  return std::uint64_t(st.st_size);
}

std::optional<std::string> SafeDir::tail_of(const std::string& name, std::size_t max_bytes, bool& cut) const {
  struct stat st {};
  const UniqueFd f = open_regular(fd(), name, st);
  if (f.get() < 0) return std::nullopt;
  const std::uint64_t size = std::uint64_t(st.st_size);
  cut = size > max_bytes;
  std::string bytes;
  if (!read_up_to(f.get(), cut ? size - max_bytes : 0, max_bytes, bytes)) return std::nullopt;
  return bytes;
}

std::optional<std::string> SafeDir::read_file(const std::string& name, std::size_t max_bytes) const {
  struct stat st {};
  const UniqueFd f = open_regular(fd(), name, st);
  if (f.get() < 0 || std::size_t(st.st_size) > max_bytes) return std::nullopt;
  // One byte past the bound tells a file that grew beyond it while it was read.
  std::string bytes;
  const std::size_t limit = max_bytes == SIZE_MAX ? max_bytes : max_bytes + 1;
  if (!read_up_to(f.get(), 0, limit, bytes) || bytes.size() > max_bytes) return std::nullopt;
  return bytes;
}

std::optional<std::string> SafeDir::read_file_from(const std::string& name, std::uint64_t offset, bool& restarted,
                                                   std::size_t max_bytes) const {
  restarted = false;
  struct stat st {};
  const UniqueFd f = open_regular(fd(), name, st);
  if (f.get() < 0) return std::nullopt;
  if (std::uint64_t(st.st_size) < offset) restarted = true, offset = 0;
  std::string bytes;
  if (!read_up_to(f.get(), offset, max_bytes, bytes)) return std::nullopt;
  return bytes;
}

bool SafeDir::rename_new(const std::string& from, const std::string& to, std::string* why) const {
  if (::renameat2(fd(), from.c_str(), fd(), to.c_str(), RENAME_NOREPLACE) == 0) return true;
  if (why) *why = "cannot rename " + path_of(from) + " to " + to + ": " + errtext();
  return false;
}

std::string SafeDir::kind_of(const std::string& name) const {
  struct stat st {};
  if (::fstatat(fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return "missing";
  return kind_text(st.st_mode);
}

std::vector<std::string> SafeDir::names() const {
  std::vector<std::string> out;
  // A descriptor of its own: readdir moves the offset, which a dup() would share.
  const int own = ::openat(fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (own < 0) fail("cannot list " + path_ + ": " + errtext());
  DIR* d = ::fdopendir(own);
  if (!d) {
    ::close(own);
    fail("cannot list " + path_ + ": " + errtext());
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool copy_file(const SafeDir& from, const std::string& from_name, const SafeDir& to, const std::string& to_name,
               std::string* why) {
  const auto refuse = [&](const std::string& text) {
    if (why) *why = text;
    return false;
  };
  UniqueFd src(::openat(from.fd(), from_name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (src.get() < 0) return refuse(errno == ELOOP ? described("symlink") : errtext());
  struct stat st {};
  if (::fstat(src.get(), &st) != 0) return refuse(errtext());
  if (!S_ISREG(st.st_mode)) return refuse(described(kind_text(st.st_mode)));
  NewFile out = to.new_file(to_name, (st.st_mode & 0755) | 0600);
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(src.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return refuse("cannot read it: " + errtext());
    if (n == 0) break;
    write_all(out.fd(), buf, std::size_t(n), to.path_of(to_name));
  }
  out.commit();
  return true;
}

namespace {

void copy_level(const SafeDir& from, const SafeDir& to, int depth, std::vector<std::string>& left_out) {
  for (const std::string& name : from.names()) {
    const std::string kind = from.kind_of(name);
    const std::string path = from.path_of(name);
    if (kind == "regular") {
      std::string why;
      if (!copy_file(from, name, to, name, &why)) left_out.push_back(path + ": " + why);
    } else if (kind == "directory") {
      if (depth >= kMaxCopyDepth) {
        left_out.push_back(path + ": deeper than " + std::to_string(kMaxCopyDepth) + " levels");
        continue;
      }
      try {
        const std::optional<SafeDir> src = from.sub(name, false);
        const std::optional<SafeDir> dst = to.sub(name, true);
        if (src && dst) copy_level(*src, *dst, depth + 1, left_out);
      } catch (const Error& e) {
        left_out.push_back(path + ": " + e.what());
      }
    } else if (kind != "missing") {
      left_out.push_back(path + ": " + described(kind));
    }
  }
}

}  // namespace

std::vector<std::string> copy_tree(const SafeDir& from, const SafeDir& to) {
  std::vector<std::string> left_out;
  copy_level(from, to, 0, left_out);
  return left_out;
}

TempDir::TempDir(const std::string& prefix) {
  const char* env = std::getenv("TMPDIR");
  std::string base = env && env[0] == '/' ? env : "/tmp";
  struct stat st {};
  if (::stat(base.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) base = "/tmp";
  std::string pattern = base + "/" + prefix + "XXXXXX";
  if (!::mkdtemp(pattern.data()))
    fail("cannot create a private directory under " + base + ": " + errtext(), "set TMPDIR to a directory you can write");
  dir_ = SafeDir::open(pattern, {"private directory", "set TMPDIR to a directory of your own"}, false);
  if (!dir_) fail("the private directory " + pattern + " disappeared");
}

TempDir::~TempDir() {
  if (!dir_) return;
  try {
    for (const std::string& name : dir_->names()) ::unlinkat(dir_->fd(), name.c_str(), 0);
  } catch (const Error&) {
  }
  ::rmdir(dir_->path().c_str());
}

bool only_this_user_writes(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  return st.st_uid == ::geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH)) && ::access(path.c_str(), W_OK) == 0;
}

}  // namespace srt::helper
