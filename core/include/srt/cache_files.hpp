// Files of a node's cache directory (/var/cache/srt): this boot's topology and the parsed copy of
// the node's profile. Root writes them (the packages' install step and srt-topology-cache.service);
// slurmstepd reads them as the job's user. Every open is of the directory itself (O_NOFOLLOW) and
// then of the name inside it (openat), and every check is on the open descriptor, so a check and
// a later use cannot refer to different files.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace srt {

// Who may own a cache file (and its directory) for a reader to use it.
enum class CacheOwner {
  root_or_me,  // root or the reading process's user: what it holds only changes that user's work
  root_only,   // root: what it holds is the admin's word (the node's profile)
};

// The file DIR/NAME (at most max_bytes), or nothing when the directory or the file does not exist.
// srt::Error naming `what` ("topology cache") when the directory or the file belongs to another
// user, may be written by others (a directory: unless sticky), is not a regular file or is larger.
std::optional<std::string> read_cache_file(const std::string& dir, const std::string& name, std::size_t max_bytes,
                                           CacheOwner owner, const std::string& what);
// Temp file + fsync + rename in the same directory, O_NOFOLLOW|O_EXCL, mode 0644 whatever the
// umask: a reader sees the old file or the whole new one, every job user can read it, and a
// planted symlink is never followed. Creates `dir` (0755) if missing.
void write_cache_file(const std::string& dir, const std::string& name, const std::string& bytes, const std::string& what);
// Removes the regular files PREFIX*SUFFIX of `dir` but `keep`; how many.
std::size_t remove_cache_files(const std::string& dir, std::string_view prefix, std::string_view suffix,
                               const std::string& keep, const std::string& what);

}  // namespace srt
