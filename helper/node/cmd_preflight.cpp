// srt-helper preflight: run the image probe on this machine (by hand: on a node, or in a shell
// inside a container) and judge it for the roles asked; launch runs the same probe in each
// role's image itself. Exit 0 when every role has what
// it needs, 1 when something is missing (or, with identity_mismatch: stop, the identity
// differs), 2 on usage errors or a probe that did not answer.
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "srt/cli.hpp"
#include "srt/process.hpp"
#include "srt/error.hpp"
#include "srt/preflight.hpp"

namespace srt::helper {
namespace {

constexpr double kProbeTimeoutSeconds = 120;

struct PreflightArgs {
  RecipeFlags flags;
  std::string recipe;
  std::vector<std::string> roles;
  std::string python;  // replaces the interpreter taken from engine_command
  bool json = false;
};

// The roles a recipe runs (launch probes exactly these); without a recipe, a P/D pair and the
// router, as the shipped recipes have.
std::vector<std::string> recipe_roles(const Recipe* r) {
  if (!r) return {"prefill", "decode", "router"};
  std::vector<std::string> out;
  if (r->resources.disaggregated()) out = {"prefill", "decode"};
  else out = {"agg"};
  if (r->frontend.type == "atomesh") out.push_back("router");
  if (r->benchmark.type != "manual") out.push_back("benchmark");
  return out;
}

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

void run(const PreflightArgs& a) {
  Profile profile;
  if (!load_profile_or_usage_error(a.flags.profile, profile)) return;
  std::unique_ptr<Recipe> recipe;
  if (!a.recipe.empty()) recipe = std::make_unique<Recipe>(load_one_recipe(a.recipe, recipe_options(a.flags, profile), "preflight").recipe);
  const std::vector<std::string> roles = a.roles.empty() ? recipe_roles(recipe.get()) : a.roles;

  const Recipe none;  // no recipe: RDMA, scripts and identity are not judged
  const Recipe& r = recipe ? *recipe : none;
  std::vector<PreflightNeeds> needs;
  for (const auto& role : roles) {
    needs.push_back(preflight_needs(r, profile, role));
    if (!recipe) {
      needs.back().rdma = false;
      needs.back().router_command = profile.router_command;  // no frontend named: the profile's AToMesh
      needs.back().router_key = "router_command";
    }
  }
  std::vector<std::string> argv =
      a.python.empty() ? probe_interpreter(recipe.get(), profile) : std::vector<std::string>{a.python};
  argv.insert(argv.end(), {"-c", probe_script()});
  const auto args = probe_arguments(recipe.get(), profile, needs);
  argv.insert(argv.end(), args.begin(), args.end());
  int status = 0;
  const std::string out = sys::run_capture(argv, kProbeTimeoutSeconds, &status);
  if (status != 0) {
    std::fprintf(stderr, "srt-helper: preflight: the probe (%s) %s\n", argv.front().c_str(),
                 status == -1 ? "did not finish in 120 s or was killed" : ("exited " + std::to_string(status)).c_str());
    exit_code = 2;
    return;
  }
  char host[256] = "";
  ::gethostname(host, sizeof host - 1);
  Fingerprint f;
  try {
    f = read_probe_answer(out, "this machine");
  } catch (const Error& e) {
    std::fprintf(stderr, "srt-helper: preflight: %s\n", e.what());
    exit_code = 2;
    return;
  }
  f.node = host;
  f.runtime = "host";

  std::vector<std::string> missing;
  for (const auto& n : needs)
    for (auto& line : missing_pieces(f, n)) missing.push_back(std::move(line));
  std::vector<IdentityMismatch> mismatches;
  if (recipe) {
    // The image reference is what launch ran; here there is none to compare.
    Identity id = recipe->identity;
    id.container_image.clear();
    for (const auto& role : roles) {
      Fingerprint as = f;
      as.role = role;
      as.step = role;
      for (auto& m : compare_identity(id, {as})) mismatches.push_back(std::move(m));
    }
  }
  const bool identity_stops = !mismatches.empty() && profile.identity_mismatch != "warn";
  exit_code = missing.empty() && !identity_stops ? 0 : 1;

  if (a.json) {
    Json m = Json::array();
    for (const auto& x : mismatches) m.push_back({{"field", x.field}, {"expected", x.expected}, {"found", x.found}, {"where", x.where}});
    Json doc = {{"roles", roles}, {"fingerprint", fingerprint_to_json(f)}, {"missing", missing},
                {"identity_mismatches", m}, {"ok", exit_code == 0}};
    std::printf("%s\n", doc.dump(2).c_str());
    return;
  }
  std::printf("preflight on %s with %s for %zu role(s)\n", host, or_dash(f.python).c_str(), roles.size());
  std::printf("  engine   %s: %s%s, KV events: %s, RDMA NICs: %s\n", f.engine_module.c_str(),
              f.engine_found ? or_dash(f.engine_version).c_str() : "not found",
              f.engine_commit.empty() ? "" : (" (commit " + f.engine_commit + ")").c_str(), f.kv_events_capability.c_str(),
              f.rdma_nic_selection.c_str());
  std::printf("  NIC pick %s (nothing configured: %s, a list: %s, TCP: %s, matched rails: %s, alternate HCAs: %s)\n",
              f.nic_pick.c_str(), f.nic_nothing_configured.c_str(), f.nic_configured_list.c_str(), f.nic_tcp.c_str(),
              f.nic_matched_rails ? "yes" : "no", f.nic_alternate_hca ? "yes" : "no");
  std::printf("  mooncake %s\n", f.mooncake_found ? or_dash(f.mooncake_version).c_str() : "not found");
  if (!f.router_command.empty())
    std::printf("  router   %s %s\n", f.router_command.c_str(),
                f.router_path.empty() ? "not found" : or_dash(f.router_version).c_str());
  std::printf("  rocm     %s, GPUs %s%s\n", or_dash(f.rocm_version).c_str(),
              f.gpu_count < 0 ? "unknown" : std::to_string(f.gpu_count).c_str(),
              f.gpu_model.empty() ? "" : (" (" + f.gpu_model + ")").c_str());
  for (const auto& line : missing) std::printf("missing: %s\n", line.c_str());
  for (const auto& x : mismatches)
    std::printf("%s: %s\n", profile.identity_mismatch == "warn" ? "warning: identity" : "identity", x.line().c_str());
  if (!recipe) std::printf("note: no --recipe: RDMA, benchmark scripts and identity not checked\n");
  std::printf("preflight: %s\n", exit_code == 0 ? "ok" : "not ready (see the lines above)");
}

}  // namespace

void add_preflight(CLI::App& app) {
  auto a = std::make_shared<PreflightArgs>();
  CLI::App* cmd = app.add_subcommand(
      "preflight", "run the image probe here and say what each role is missing (launch runs it in every role's image)");
  add_recipe_flags(cmd, a->flags);
  cmd->add_option("--recipe", a->recipe, "the recipe whose roles, scripts, RDMA and identity to check");
  cmd->add_option("--role", a->roles, "prefill, decode, agg, router or benchmark (repeatable; default: the recipe's roles)")
      ->check(CLI::IsMember({"prefill", "decode", "agg", "router", "benchmark"}));
  cmd->add_option("--python", a->python, "the interpreter to probe with (default: engine_command up to its -m)");
  cmd->add_flag("--json", a->json, "print the fingerprint and the verdict as JSON");
  cmd->callback([a] { run(*a); });
}

}  // namespace srt::helper
