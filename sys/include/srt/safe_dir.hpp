// Directories only this user can change, and files made in them without ever following a link.
// A job's directory lives in a shared results_root where anyone can create <jobid> first (job
// ids are sequential and squeue shows them) and fill it with symlinks into the user's home
// (docs/security.md "Files other users plant"). So a directory is opened without following a
// symlink in its last component and checked on the open descriptor (ours or root's, writable by
// nobody else), and every file is created O_EXCL|O_NOFOLLOW relative to that descriptor and renamed
// into place.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "srt/unique_fd.hpp"

namespace srt::helper {

class SafeDir;

// A file being written under a temporary name beside `name` (O_EXCL, never through a link);
// commit() renames it over `name`, and a NewFile dropped uncommitted removes itself. Its
// directory (the SafeDir that made it) must outlive it.
class NewFile {
 public:
  NewFile(NewFile&& other) noexcept;
  NewFile& operator=(NewFile&&) = delete;
  NewFile(const NewFile&) = delete;
  NewFile& operator=(const NewFile&) = delete;
  ~NewFile();
  int fd() const { return fd_.get(); }
  void write(const std::string& bytes);  // all of it; throws srt::Error
  void commit();                          // close and rename into place; throws srt::Error

 private:
  friend class SafeDir;
  NewFile(int dir_fd, std::string dir_path, std::string name, mode_t mode);
  int dir_fd_;
  std::string dir_path_, name_, tmp_;
  UniqueFd fd_;
  bool done_ = false;
};

class SafeDir {
 public:
  // `what` names the directory in messages ("job directory"); `remedy` says what to do about
  // one we refuse ("remove it or choose another results_root").
  // `trust_root`: a directory root owns is trusted as ours, unless the profile's runtime lets
  // every job user be root (srt/mount_policy.hpp `runtime_gives_users_root`).
  struct Purpose {
    std::string what, remedy;
    bool trust_root = true;
  };

  // Opens `path` (its parents are the site's: symlinks there are followed), creating it with
  // `mode` when missing (and its parents, 0755) if `create`. Refuses, with srt::Error naming the
  // path, why and `remedy`: a symlink, not a directory, owned by another user than this one or
  // root, writable by group or others. Also refuses a parent that everyone can write without
  // the sticky bit (anyone could rename the directory away and put another in its place).
  // Without `create` a missing directory is nullopt.
  static std::optional<SafeDir> open(const std::string& path, const Purpose& purpose, bool create,
                                     mode_t mode = 0755);

  // The subdirectory `name` (no '/'), opened and checked as open() does.
  std::optional<SafeDir> sub(const std::string& name, bool create, mode_t mode = 0755) const;

  SafeDir(SafeDir&&) noexcept = default;
  SafeDir& operator=(SafeDir&&) noexcept = default;
  const std::string& path() const { return path_; }
  int fd() const { return fd_.get(); }
  std::string path_of(const std::string& name) const { return path_ + "/" + name; }

  // `name` replaced atomically by a new file holding `bytes` (a symlink there is replaced, its
  // target left alone).
  void write_file(const std::string& name, const std::string& bytes, mode_t mode = 0644) const;
  NewFile new_file(const std::string& name, mode_t mode = 0644) const;
  // `name` opened to append, created when missing; refused when it is a symlink, not a regular
  // file, not ours, or has other hard links.
  UniqueFd append_file(const std::string& name) const;
  // The bytes of `name` when it is a regular file here (never through a link); nullopt when it
  // is missing, a symlink or anything but a regular file, or larger than max_bytes.
  std::optional<std::string> read_file(const std::string& name, std::size_t max_bytes = 64 << 20) const;
  // What `name` (a regular file here, as read_file) holds past byte `offset`, at most max_bytes
  // of it. When the file is now shorter than `offset` (replaced or truncated), from its start,
  // with `restarted` set.
  std::optional<std::string> read_file_from(const std::string& name, std::uint64_t offset, bool& restarted,
                                            std::size_t max_bytes = 1 << 20) const;
  // The size of `name` when it is a regular file here (never through a link), else nullopt.
  std::optional<std::uint64_t> size_of(const std::string& name) const;
  // The last `max_bytes` of `name` (a regular file here, as read_file); `cut` says whether the
  // file held more, so that the first line may be partial.
  std::optional<std::string> tail_of(const std::string& name, std::size_t max_bytes, bool& cut) const;
  // `from` renamed to `to` in this directory, never over an existing `to` (renameat2
  // RENAME_NOREPLACE; a symlink is moved as the link it is). False, with `why`, when it cannot be.
  bool rename_new(const std::string& from, const std::string& to, std::string* why = nullptr) const;
  // "regular", "directory", "symlink", "missing" or another kind (fstatat, no link followed).
  std::string kind_of(const std::string& name) const;
  // Names in this directory (not "." or ".."), sorted.
  std::vector<std::string> names() const;

 private:
  SafeDir(std::string path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  static std::optional<SafeDir> open_at(int parent_fd, const std::string& name, const std::string& path,
                                        const Purpose& purpose, bool create, mode_t mode);
  std::string path_;
  UniqueFd fd_;
  Purpose purpose_;
};

// Copies the regular file `from_name` of `from` (never through a link) to `to_name` in `to`,
// replacing it atomically. False, with `why`, when it is not a regular file or cannot be read.
bool copy_file(const SafeDir& from, const std::string& from_name, const SafeDir& to, const std::string& to_name,
               std::string* why = nullptr);

// Copies the tree `from` into `to`: directories and regular files only. Symlinks are not
// followed and not copied, nor are FIFOs, sockets and devices, nor a subdirectory we would
// refuse; each one left out is returned as "PATH: why".
std::vector<std::string> copy_tree(const SafeDir& from, const SafeDir& to);

// A fresh directory of this user's alone (mkdtemp, 0700) under $TMPDIR or /tmp, removed with
// what it holds (one level) on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  const SafeDir& dir() const { return *dir_; }

 private:
  std::optional<SafeDir> dir_;
};

// True when `path` is a directory that this user owns (or root, as root) and nobody else can
// write: a file sbatch or slurmstepd creates there by path cannot have been planted.
bool only_this_user_writes(const std::string& path);

}  // namespace srt::helper
