// The profile a node plans with: its own file's meaning, never the snapshot's (docs/security.md
// "Recipes and snapshots"). The snapshot is the job user's environment: a user who re-encodes it
// with the node's true digest and another document would otherwise have that document planned.
#include <dlfcn.h>

#include <cstdlib>
#include <memory>

#include "impl.hpp"
#include "srt/digest.hpp"
#include "srt/error.hpp"
#include "srt/files.hpp"
#include "srt/profile_copy.hpp"

namespace srt::spank_impl {
namespace {

struct CFree {
  void operator()(char* p) const { std::free(p); }
};

// The submit side's library reads the file (impl_abi.h, srt_profile_copy). It stays loaded for
// the rest of this process: unloading a C++ library whose static destructors are registered is
// not safe, and a slurmstepd lives for one step.
Json read_with_submit_library(const std::string& impl, const std::string& path, const std::string& digest) {
  void* lib = ::dlopen(impl.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = ::dlerror();
    fail("cannot load the profile reader " + impl + ": " + (e ? e : "dlopen failed"));
  }
  auto read = reinterpret_cast<srt_profile_copy_fn>(::dlsym(lib, SRT_PROFILE_READER_ENTRY));
  if (!read) fail(impl + " has no " SRT_PROFILE_READER_ENTRY ": it is not this srt-spank's submit library");
  char* raw = nullptr;
  std::size_t len = 0;
  const int rc = read(path.c_str(), &raw, &len);
  std::unique_ptr<char, CFree> owned(raw);
  if (!raw) fail(impl + " could not read " + path);
  const std::string bytes(raw, len);
  if (rc != 0) fail(bytes);
  // The file may have changed since it was hashed: the copy says which bytes it read.
  return decode_profile_copy(bytes, digest, kPackageVersion, path + " (as " + impl + " read it)");
}

}  // namespace

Profile node_profile(const PluginConfig& config, const std::string& path, const Snapshot& snap,
                     const std::string& where, std::vector<std::string>& notes) {
  if (path.empty()) return snapshot_profile(snap, "", Json(), path, where);
  const std::string digest = sha256_hex(read_text_file(path, LoadLimits{}.max_bytes));
  // Refused before anything is read for it: the job was checked against another profile.
  if (digest != snap.profile_digest) return snapshot_profile(snap, digest, Json(), path, where);
  const std::string dir = profile_copy_dir(config.cache_dir);
  std::string miss;
  try {
    if (std::optional<Json> doc = read_profile_copy(dir, digest, kPackageVersion))
      return snapshot_profile(snap, digest, *doc, path, where);
    miss = "no parsed copy of " + path + " in " + dir;
  } catch (const Error& e) {
    miss = e.what();
  }
  try {
    Profile p = snapshot_profile(snap, digest, read_with_submit_library(config.impl_path, path, digest), path, where);
    notes.push_back(miss + "; read the file through " + config.impl_path +
                    " instead (milliseconds per step): run 'srt-helper topology --refresh-cache' as root");
    return p;
  } catch (const Error& e) {
    fail(where + " cannot read its own profile " + path + ": " + miss + ", and " + e.what(),
         "run 'srt-helper topology --refresh-cache" + (config.cache_dir.empty() ? std::string() : " --cache-dir " + dir) +
             "' as root on every node (the packages' install step and srt-topology-cache.service do)");
  }
}

}  // namespace srt::spank_impl
