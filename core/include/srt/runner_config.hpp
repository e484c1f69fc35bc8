// A runner's srtslurm.yaml beside the admin's profile. InferenceX's driver renders its own
// srtslurm.yaml into the checkout it runs srtctl in (docs/inferencex.md "A runner's srtslurm.yaml";
// srtctl finds it through $SRTSLURM_CONFIG, else ./, ../, ../../ in core/config.py
// find_cluster_config_path). The plugin plans every job against the admin's profile, whose digest
// every node checks, so a runner's file can never relax it. `apply` takes from it only what srtctl
// lets a run choose and the plugin does not check: model_paths and containers aliases the admin's
// profile does not define (resolved into the recipe it submits) and default_time_limit; every other
// key that differs from the admin's profile is named and ignored.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "srt/document.hpp"

namespace srt {

struct RunnerConfig {
  std::string file;                                       // where it was found
  std::map<std::string, std::string> model_paths;         // aliases the admin's profile lacks
  std::map<std::string, std::string> containers;          // the same for container images
  std::string default_time_limit;                         // "" = none given
  std::vector<std::string> ignored;                       // keys that differ from the admin's ("containers.x" for an alias the admin defines otherwise)
};

// The runner's document (`runner`, read from `file`) against the admin's profile document
// (`admin`; an empty object for the built-in default). Throws srt::Error naming the key when
// model_paths or containers is not a mapping of strings, or default_time_limit is not a string.
RunnerConfig read_runner_config(const Document& runner, const Json& admin);

// The recipe document (one variant, as submitted) with the runner's aliases resolved: model.path
// and model.container, frontend.container_image and benchmark.container_image, where they name an
// alias of `config`; slurm.time_limit from default_time_limit when the recipe sets none. One line
// per change, for the user.
std::vector<std::string> apply_runner_config(Json& recipe_root, const RunnerConfig& config);

}  // namespace srt
