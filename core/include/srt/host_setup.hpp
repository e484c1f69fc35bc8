// host_setup as srtctl reads and runs it (srt/recipe.hpp HostSetup): the block read from a
// recipe or the cluster profile, which one a job runs, and on which of its nodes.
#pragma once
#include <string>
#include <vector>

#include "srt/document.hpp"
#include "srt/profile.hpp"
#include "srt/recipe.hpp"

namespace srt {

// The block as the schema checked it (absent or null: not given).
HostSetup read_host_setup(const Json* block);

// The recipe's block when it writes one (whole-block replace, so `host_setup: {commands: []}`
// opts out), else the profile's default_host_setup (resolve_config_with_defaults).
const HostSetup& effective_host_setup(const Recipe& recipe, const Profile& profile);

// "commands" or "teardown" joined as srtctl runs them: one `bash -c` per node.
std::string host_setup_script(const std::vector<std::string>& commands);

}  // namespace srt
