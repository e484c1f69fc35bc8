#include "hostlist.hpp"

#include <cstdlib>
#include <memory>
#include <type_traits>

extern "C" {
#include <slurm/slurm.h>
}

#include "srt/error.hpp"

namespace srt::slurmapi {

namespace {

// 23.11 turned hostlist_t from a pointer typedef into the struct itself; holding whatever
// slurm_hostlist_create returns keeps one source for every Slurm release.
using Handle = decltype(slurm_hostlist_create(nullptr));
static_assert(std::is_pointer_v<Handle>, "slurm_hostlist_create returns a pointer");

struct Destroy {
  void operator()(std::remove_pointer_t<Handle>* h) const { slurm_hostlist_destroy(h); }
};

}  // namespace

std::vector<std::string> expand_hostlist(const std::string& hostlist, std::size_t max_hosts) {
  if (hostlist.find_first_not_of(" ,\t\n") == std::string::npos)
    fail("the node list is empty", "pass --nodelist 'node[1-3]' or run inside a Slurm job");
  std::unique_ptr<std::remove_pointer_t<Handle>, Destroy> hl(slurm_hostlist_create(hostlist.c_str()));
  if (!hl) fail("cannot read the node list '" + hostlist + "'", "use Slurm's form, e.g. 'mi355x-[01-03]'");
  const int count = slurm_hostlist_count(hl.get());
  if (count > 0 && std::size_t(count) > max_hosts)
    fail("the node list '" + hostlist.substr(0, 120) + "' names " + std::to_string(count) + " hosts; at most " +
         std::to_string(max_hosts) + " are read here");
  std::vector<std::string> out;
  while (char* host = slurm_hostlist_shift(hl.get())) {
    out.emplace_back(host);
    std::free(host);  // slurm_hostlist_shift hands back malloc'd memory (slurm/slurm.h)
  }
  if (out.empty()) fail("the node list '" + hostlist + "' names no host");
  return out;
}

}  // namespace srt::slurmapi
