#include "srt/report_files.hpp"

#include <algorithm>
#include <system_error>

#include "srt/error.hpp"
#include "srt/files.hpp"

namespace srt::report {

namespace fs = std::filesystem;

namespace {

// Errors of a status query (a permission denied on the way) read as "not there": the report then
// says what it expected to find, which is the message a user can act on.
class DiskRunFiles final : public RunFiles {
 public:
  bool exists(const fs::path& path) const override {
    std::error_code ec;
    return fs::exists(path, ec);
  }
  bool is_directory(const fs::path& path) const override {
    std::error_code ec;
    return fs::is_directory(path, ec);
  }
  bool is_regular_file(const fs::path& path) const override {
    std::error_code ec;
    return fs::is_regular_file(path, ec);
  }
  std::vector<std::string> regular_files(const fs::path& dir) const override {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec;
      if (it->is_regular_file(type_ec)) names.push_back(it->path().filename().string());
    }
    if (ec) {
      Diagnostic d;
      d.file = dir.string();
      d.message = "cannot list: " + ec.message();
      throw Error(std::move(d));
    }
    std::sort(names.begin(), names.end());  // the directory's order is the file system's
    return names;
  }
  std::vector<std::string> directories(const fs::path& dir) const override {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (std::error_code type_ec; it->symlink_status(type_ec).type() == fs::file_type::directory)
        names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string read(const fs::path& file, std::size_t max_bytes) const override {
    return read_text_file(file.string(), max_bytes);
  }
};

}  // namespace

const RunFiles& disk_files() {
  static const DiskRunFiles disk;
  return disk;
}

std::vector<Run> load_runs(const fs::path& dir, const LoadOptions& options) {
  return load_runs(disk_files(), dir, options);
}

}  // namespace srt::report
