// Internal to core/plan: one port allocator per node. Every port a process on the node binds comes
// from here, so two workers sharing a node (or a worker and the router) can never collide, and
// none lands on an engine default or inside Mooncake's random RPC range.
#pragma once
#include <string>
#include <vector>

#include "srt/profile.hpp"

namespace srt::plan_detail {

class NodePorts {
 public:
  NodePorts(const Profile& profile, std::uint64_t job_id, std::string node);

  // `count` consecutive ports, none forbidden. Throws with the node and the range when full.
  std::vector<int> block(int count, const std::string& what);
  int one(const std::string& what) { return block(1, what).front(); }
  // A base port P whose fixed offsets are free too: {offset, count} blocks at P+offset, the
  // first being {0, 1} (P itself). For programs that derive hidden ports from one they are given
  // (SGLang's DP attention: P+13, P+233..P+239). Returns P; every block is taken.
  int pattern(const std::vector<std::pair<int, int>>& blocks, const std::string& what);
  // A fixed port (the public frontend port, a service's): must not be taken already; `hint` is
  // what the error says to do.
  void claim(int port, const std::string& what,
             const std::string& hint = "choose another frontend_port in the cluster profile");

  int range_begin() const { return begin_; }
  int range_end() const { return end_; }

 private:
  // One entry per block handed out (a node holds a handful), not per port: the Plan for 1024
  // nodes builds and frees these for every node, and a map node per port was a tenth of its time.
  struct Taken {
    int first, count;
    std::string what;
  };
  const Taken* holder(int port) const;
  bool usable(int port) const;
  std::string node_;
  int begin_ = 0, end_ = 0, next_ = 0;
  int taken_ports_ = 0;
  std::vector<Taken> taken_;
};

// Ports that real programs bind by default when a flag or variable is missing (ATOM, Mooncake,
// AToMesh). The allocator never hands them out, so a forgotten override shows up as a collision
// with nothing of ours.
bool is_engine_default_port(int port);

}  // namespace srt::plan_detail
