// The node's profile as root read it: the parsed copy a node plans with (docs/security.md
// "Recipes and snapshots").
//
// slurmstepd links no YAML parser (docs/performance.md), so it cannot read the node's profile
// file itself; and the snapshot's copy of the profile is the job user's to rewrite. Root (the
// packages' install step and srt-topology-cache.service: `srt-helper topology --refresh-cache`)
// keeps the file's document, as the submit side reads it, in the node's cache directory under the
// file's digest; when it is missing the node asks the submit side's library to read the file
// (the same bytes, through srt_profile_copy in spank/impl_abi.h). Either way the node plans with
// its own file's meaning, never with the snapshot's.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "srt/document.hpp"

namespace srt {

// The file name of the copy of the profile whose bytes have SHA-256 `digest` (64 hex digits,
// else srt::Error): "profile-<digest>.cbor".
std::string profile_copy_name(const std::string& digest);
inline constexpr std::string_view kProfileCopyPrefix = "profile-", kProfileCopySuffix = ".cbor";
// A profile is a few KB; the submit side refuses files over LoadLimits' size anyway.
inline constexpr std::size_t kMaxProfileCopyBytes = 1 << 20;

// CBOR: the format, the srt-spank version that read the file, its digest and its document.
std::string encode_profile_copy(const std::string& digest, const Json& document, const std::string& package);
// The document of a copy, checked to be of the file with `digest`, read by srt-spank `package`
// (another version may read YAML differently). srt::Error naming `source` otherwise.
Json decode_profile_copy(std::string_view bytes, const std::string& digest, const std::string& package,
                         const std::string& source);

// The built-in cache directory: where the node looks for the copy unless plugstack.conf says
// cache_dir=, and where the packages' install step and boot unit write it.
inline constexpr const char* kDefaultCacheDir = "/var/cache/srt";
// Where the copy is for a plugstack `cache_dir=` (or --cache-dir) of `cache_dir`: that directory,
// else kDefaultCacheDir. One rule for the node that reads it, root's step that writes it and doctor.
inline std::string profile_copy_dir(const std::string& cache_dir) {
  return cache_dir.empty() ? kDefaultCacheDir : cache_dir;
}

// The copy of the profile with `digest` in `dir`, decoded; nothing when there is none. The file
// and directory must be root's (CacheOwner::root_only: the copy is the admin's word); srt::Error
// for a refused or unusable file.
std::optional<Json> read_profile_copy(const std::string& dir, const std::string& digest, const std::string& package);
// Root's step: writes the copy of the profile with `digest` to `dir` (srt/cache_files.hpp) and
// removes the copies of other profiles; the path written.
struct ProfileCopyWrite {
  std::string path;
  std::size_t removed = 0;
};
ProfileCopyWrite write_profile_copy(const std::string& dir, const std::string& digest, const Json& document,
                                    const std::string& package);

}  // namespace srt
