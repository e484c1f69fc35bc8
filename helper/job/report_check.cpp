#include "report_check.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "srt/collector_rules.hpp"

namespace srt::helper {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxResultBytes = 64 << 20;

// Regular files only, never through a link: the tree may be a shared results root's.
void add_file(const fs::path& file, const fs::path& root, std::vector<report::TreeFile>& out) {
  std::error_code ec;
  if (fs::symlink_status(file, ec).type() != fs::file_type::regular) return;
  if (fs::file_size(file, ec) > kMaxResultBytes || ec) return;
  std::ifstream in(file, std::ios::binary);
  out.push_back({fs::relative(file, root, ec).string(), std::string(std::istreambuf_iterator<char>(in), {})});
}

// Every *.json under `dir`, directories followed only when they are not links.
void walk(const fs::path& dir, const fs::path& root, std::vector<report::TreeFile>& out) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::none, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->path().extension() == ".json") add_file(it->path(), root, out);
}

}  // namespace

bool check_results_tree(const std::string& dir, const std::vector<int>& expected) {
  const fs::path root(dir);
  std::vector<report::TreeFile> files;
  std::error_code ec;
  // srtctl's layout: directories named *isl*osl* directly in logs/ (or the tree itself), not links.
  for (const fs::path& logs : {root / "logs", root}) {
    if (fs::symlink_status(logs, ec).type() != fs::file_type::directory) continue;
    for (const auto& e : fs::directory_iterator(logs, ec)) {
      const std::string name = e.path().filename().string();
      const auto isl = name.find("isl");
      if (isl != std::string::npos && name.find("osl", isl) != std::string::npos &&
          fs::symlink_status(e.path(), ec).type() == fs::file_type::directory)
        walk(e.path(), root, files);
    }
  }
  // The AMD contract's fixed-seq/.
  if (fs::symlink_status(root / "fixed-seq", ec).type() == fs::file_type::directory)
    for (const auto& e : fs::directory_iterator(root / "fixed-seq", ec)) add_file(e.path(), root, files);

  const report::CollectorVerdict v = report::judge_collector_tree(files, expected);
  std::string points;
  for (int c : v.expected) points += " " + std::to_string(c);
  std::printf("%s: %s (%zu result files; expected points:%s)\n", dir.c_str(), v.valid ? "passes" : "FAILS",
              v.points.size(), points.empty() ? " none" : points.c_str());
  for (const auto& p : v.problems()) std::printf("  %s\n", p.c_str());
  return v.valid;
}

}  // namespace srt::helper
