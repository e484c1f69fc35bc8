#include "srt/system_plugstack.hpp"

#include <glob.h>

#include "srt/error.hpp"
#include "srt/files.hpp"

namespace srt {
namespace {

// Slurm reads plugstack.conf line by line with no limit; a file this large is not a plugstack.
constexpr std::size_t kMaxPlugstackBytes = std::size_t(1) << 20;

}  // namespace

PlugstackFs system_plugstack_fs() {
  PlugstackFs fs;
  fs.read = [](const std::string& path) -> std::optional<std::string> {
    try {
      return read_text_file(path, kMaxPlugstackBytes);
    } catch (const Error&) {
      return std::nullopt;  // the walk reports the file as unreadable, as slurmd would skip it
    }
  };
  fs.glob = [](const std::string& pattern) {
    std::vector<std::string> out;
    glob_t g{};
    if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
      for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
    ::globfree(&g);
    return out;  // glob(3) sorts unless GLOB_NOSORT, as Slurm relies on
  };
  return fs;
}

}  // namespace srt
