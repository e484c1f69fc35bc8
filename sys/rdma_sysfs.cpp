#include "srt/rdma_sysfs.hpp"

#include <fstream>
#include <optional>

namespace srt {

namespace {

// mlx5, bnxt_re and ionic ports hold a few dozen entries; 256 bounds a hostile or odd tree.
constexpr int kMaxGidEntries = 256;
constexpr std::streamsize kMaxEntryBytes = 128;  // "0000:...:0000\n" is 40 bytes

std::optional<std::string> read_small(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string text(kMaxEntryBytes, '\0');
  in.read(text.data(), kMaxEntryBytes);
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

}  // namespace

std::vector<GidEntry> read_gid_table(const std::string& sysfs_root, const std::string& device) {
  const std::string port = sysfs_root + "/class/infiniband/" + device + "/ports/1";
  std::vector<GidEntry> out;
  for (int i = 0; i < kMaxGidEntries; ++i) {
    const auto gid = read_small(port + "/gids/" + std::to_string(i));
    const auto type = read_small(port + "/gid_attrs/types/" + std::to_string(i));
    if (!gid && !type) break;
    out.push_back({i, type.value_or(""), gid.value_or("")});
  }
  return out;
}

std::map<std::string, int> roce_v2_gid_indexes(const std::string& sysfs_root, const std::set<std::string>& devices) {
  std::map<std::string, int> out;
  for (const std::string& dev : devices)
    if (const auto index = roce_v2_ipv4_gid_index(read_gid_table(sysfs_root, dev))) out[dev] = *index;
  return out;
}

}  // namespace srt
