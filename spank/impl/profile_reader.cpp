// srt_profile_copy (impl_abi.h): the submit side's YAML reading of a profile, for a node that has
// no parsed copy of its own from root. Lives in srt_spank_impl.so, which links yaml-cpp anyway;
// srt_spank_node.so dlopens it only then, so slurmstepd maps yaml-cpp only on that miss.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "impl.hpp"
#include "srt/error.hpp"
#include "srt/profile_copy.hpp"
#include "srt/files.hpp"

extern "C" __attribute__((visibility("default"))) int srt_profile_copy(const char* path, char** out, std::size_t* out_len);

namespace {

// malloc'd, so that the other library's C++ runtime never frees what this one allocated.
char* c_copy(const std::string& bytes) {
  char* p = static_cast<char*>(std::malloc(bytes.size() + 1));
  if (p) {
    std::memcpy(p, bytes.data(), bytes.size());
    p[bytes.size()] = '\0';
  }
  return p;
}

}  // namespace

int srt_profile_copy(const char* path, char** out, std::size_t* out_len) {
  if (!out || !out_len) return -1;
  *out = nullptr;
  *out_len = 0;
  std::string result;
  int rc = -1;
  try {
    if (!path || !*path) srt::fail("no profile path given");
    const srt::Profile p = srt::load_profile_file(path);
    result = srt::encode_profile_copy(p.digest, p.source.root, srt::spank_impl::kPackageVersion);
    rc = 0;
  } catch (const srt::Error& e) {
    result = e.what();
  } catch (const std::exception& e) {
    result = std::string("reading the profile failed: ") + e.what();
  } catch (...) {
    result = "reading the profile failed";
  }
  *out = c_copy(result);
  if (!*out) return -1;
  *out_len = result.size();
  return rc;
}
