// The profile copy's file in the node's cache directory (srt/profile_copy.hpp), beside this
// boot's topology: the per-node cache is this folder's I/O edge.
#include "srt/cache_files.hpp"
#include "srt/profile_copy.hpp"

namespace srt {
namespace {
constexpr const char* kProfileCopyWhat = "profile copy";
}

std::optional<Json> read_profile_copy(const std::string& dir, const std::string& digest, const std::string& package) {
  const std::string name = profile_copy_name(digest);
  const auto bytes = read_cache_file(dir, name, kMaxProfileCopyBytes, CacheOwner::root_only, kProfileCopyWhat);
  if (!bytes) return std::nullopt;
  return decode_profile_copy(*bytes, digest, package, dir + "/" + name);
}

ProfileCopyWrite write_profile_copy(const std::string& dir, const std::string& digest, const Json& document,
                                    const std::string& package) {
  const std::string name = profile_copy_name(digest);
  write_cache_file(dir, name, encode_profile_copy(digest, document, package), kProfileCopyWhat);
  ProfileCopyWrite w;
  w.path = dir + "/" + name;
  w.removed = remove_cache_files(dir, kProfileCopyPrefix, kProfileCopySuffix, name, kProfileCopyWhat);
  return w;
}

}  // namespace srt
