#include "ports.hpp"

#include <algorithm>
#include <string>

#include "srt/error.hpp"

namespace srt::plan_detail {

bool is_engine_default_port(int port) {
  switch (port) {
    case 8000:   // ATOM --server-port, srt-slurm's public frontend port
    case 8006:   // ATOM --port (engine MASTER_PORT)
    case 29500:  // ATOM_DP_MASTER_PORT
    case 6301:   // Mooncake handshake_port in ATOM's kv-transfer-config
    case 5557:   // ATOM/vLLM KV-event publisher
    case 30000:  // AToMesh --port
    case 29000:  // AToMesh --prometheus-port
    case 12001:  // Mooncake MC_HANDSHAKE_PORT
    case 8998:   // SGLang --disaggregation-bootstrap-port
    case 8300:   // srtctl's SGLang --dist-init-addr port
      return true;
    default:
      // Mooncake's transfer engine picks random RPC ports in [15000, 17000] (MC_MIN/MAX_RPC_PORT).
      return port >= 15000 && port <= 17000;
  }
}

NodePorts::NodePorts(const Profile& profile, std::uint64_t job_id, std::string node)
    : node_(std::move(node)), begin_(profile.port_range_begin), end_(profile.port_range_end) {
  if (profile.node_sharing == NodeSharing::shared && profile.shared_job_slots > 1) {
    // Jobs sharing a node take disjoint slices of the range, chosen by job id.
    const int width = (end_ - begin_ + 1) / profile.shared_job_slots;
    const int slot = int(job_id % std::uint64_t(profile.shared_job_slots));
    begin_ += slot * width;
    end_ = begin_ + width - 1;
  }
  next_ = begin_;
}

const NodePorts::Taken* NodePorts::holder(int port) const {
  for (const auto& t : taken_)
    if (port >= t.first && port < t.first + t.count) return &t;
  return nullptr;
}

bool NodePorts::usable(int port) const { return !is_engine_default_port(port) && !holder(port); }

std::vector<int> NodePorts::block(int count, const std::string& what) {
  // An empty block would leave its process without the port every caller reads first.
  if (count < 1) fail("node " + node_ + ": " + std::to_string(count) + " port(s) asked for " + what);
  for (int start = next_; start + count - 1 <= end_; ++start) {
    bool ok = true;
    for (int p = start; p < start + count && ok; ++p) ok = usable(p);
    if (!ok) continue;
    std::vector<int> out;
    out.reserve(std::size_t(count));
    for (int p = start; p < start + count; ++p) out.push_back(p);
    taken_.push_back({start, count, what});
    taken_ports_ += count;
    next_ = start + count;
    return out;
  }
  fail("node " + node_ + ": the port range " + std::to_string(begin_) + "-" + std::to_string(end_) +
           " has no room for " + std::to_string(count) + " port(s) for " + what + " (" +
           std::to_string(taken_ports_) + " already assigned on this node)",
       "widen port_range_begin/port_range_end in the cluster profile, or put fewer workers per node");
}

int NodePorts::pattern(const std::vector<std::pair<int, int>>& blocks, const std::string& what) {
  int span = 0;
  for (const auto& [offset, count] : blocks) span = std::max(span, offset + count);
  for (int start = next_; start + span - 1 <= end_; ++start) {
    bool ok = true;
    for (const auto& [offset, count] : blocks)
      for (int p = start + offset; p < start + offset + count && ok; ++p) ok = usable(p);
    if (!ok) continue;
    for (const auto& [offset, count] : blocks) {
      taken_.push_back({start + offset, count, what + (offset == 0 ? "" : " (+" + std::to_string(offset) + ")")});
      taken_ports_ += count;
    }
    next_ = start + blocks.front().second;  // the gaps between the blocks stay free for others
    return start;
  }
  fail("node " + node_ + ": the port range " + std::to_string(begin_) + "-" + std::to_string(end_) +
           " has no room for " + what + " (" + std::to_string(span) + " ports wide, " +
           std::to_string(taken_ports_) + " already assigned on this node)",
       "widen port_range_begin/port_range_end in the cluster profile, or put fewer workers per node");
}

void NodePorts::claim(int port, const std::string& what, const std::string& hint) {
  if (const Taken* t = holder(port))
    fail("node " + node_ + ": port " + std::to_string(port) + " for " + what + " is already used by " + t->what, hint);
  taken_.push_back({port, 1, what});
  taken_ports_ += 1;
}

}  // namespace srt::plan_detail
