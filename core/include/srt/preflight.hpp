// Preflight: what an image holds (a Fingerprint, from the probe srt-helper runs inside it), what
// a role needs from it, and whether it is what the recipe's `identity` declares
// (srtctl's identity and per-worker srun, src/srtctl/cli/mixins/worker_stage.py). Pure: the probe's
// JSON in, verdicts out.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "srt/document.hpp"
#include "srt/profile.hpp"
#include "srt/recipe.hpp"

namespace srt {

// One role's image as the probe found it, plus where it ran (filled in by the launcher).
struct Fingerprint {
  std::string node, role, step;           // node name, prefill|decode|agg|router|benchmark, process
  std::string image, runtime;             // the image the step ran (pyxis), runtime name
  // engine (the module the profile's engine_command runs)
  std::string engine_module;
  bool engine_found = false;
  std::string engine_error, engine_version, engine_commit;
  std::string kv_events_capability = "unknown";  // offset | connect | none | unknown
  // Under RDMA, how the engine gives Mooncake its NICs (probe.py rdma_nic_selection): per-rank
  // (it can give each rank its own NIC from its GPU: ATOM's rdma<N>/ionic_<N> auto-pick when no
  // list is configured) | all-listed (it only hands ib_device whole to every rank) | unknown.
  std::string rdma_nic_selection = "unknown";
  // The connector's behaviours behind it (probe.py rdma_nic_behaviour), each a word of the
  // probe's vocabulary or "unknown": with nothing configured (own-nic, every-nic), the index an
  // own pick uses (physical, visible), a configured list (whole, split), TCP (no-device,
  // device-passed), matched rails and alternate HCAs available; and the pick the node's NIC rule
  // takes (srt/rdma_nic.hpp parse_atom_nic_pick).
  std::string nic_nothing_configured = "unknown", nic_index = "unknown", nic_configured_list = "unknown",
              nic_tcp = "unknown", nic_pick = "unknown";
  bool nic_matched_rails = false, nic_alternate_hca = false;
  // Mooncake (import mooncake.engine)
  bool mooncake_found = false;
  std::string mooncake_error, mooncake_version;
  // router binary
  std::string router_command, router_path, router_version;
  std::map<std::string, std::string> frameworks;  // other distributions asked for: name -> version
  std::map<std::string, bool> files;              // required paths -> exist
  std::string rocm_version, gpu_model;
  int gpu_count = 0;                      // -1: the probe's answer did not say (or not as a count)
  std::string model_repo, model_revision;
  Json rdma = Json::object();             // dev_infiniband, devices, provider_*, memlock, gid_ok
  std::string python;                     // the interpreter that ran the probe
  Json raw = Json::object();              // the probe's whole answer, kept in fingerprints.json
};

// Throws srt::Error when `probe` is not the probe's JSON (names `where`). A field of another
// type than the probe writes reads as not found; a GPU count that is not one is -1 (unknown).
Fingerprint fingerprint_from_probe(const Json& probe, const std::string& where);
// The probe's answer as it printed it, read as untrusted JSON (srt/untrusted_json.hpp): throws
// srt::Error naming `where` when it is not JSON, nests too deep, or is not the probe's.
Fingerprint read_probe_answer(std::string_view text, const std::string& where);
Json fingerprint_to_json(const Fingerprint& f);

// What a role needs from its image; derived from the recipe and the profile.
struct PreflightNeeds {
  std::string role;
  bool engine = false;                    // prefill/decode/agg: the engine module
  bool mooncake = false;                  // prefill/decode: Mooncake
  bool router = false;                    // router: the router binary or module
  // The profile key of the recipe's engine command (engine_command for ATOM, sglang_command,
  // vllm_command), and its router's command and key (router_command for AToMesh,
  // sglang_router_command, vllm_router_command): the probe looks for them, the message for a
  // missing one names the key.
  std::string engine_key;
  std::vector<std::string> router_command;
  std::string router_key;
  bool rdma = false;                      // RDMA P/D: devices, providers, memlock, GID
  int gid_index = -1;
  std::vector<std::string> files;         // benchmark: the scripts its command runs
};
PreflightNeeds preflight_needs(const Recipe& recipe, const Profile& profile, const std::string& role);

// What the probe found of what the role needs, for the job's console: the engine's module and
// version (commit) on a worker, Mooncake's version where it moves the KV, the router's command and
// version on the router, the scripts on the benchmark ("agg on node1: sglang.launch_server 0.5.20").
std::string found_line(const Fingerprint& f, const PreflightNeeds& needs);

// Every missing piece, one line each ("prefill on node1: the engine module ... is not ...").
std::vector<std::string> missing_pieces(const Fingerprint& f, const PreflightNeeds& needs);

// The probe's arguments for these needs (after `python3 -c SCRIPT`).
std::vector<std::string> probe_arguments(const Recipe* recipe, const Profile& profile,
                                         const std::vector<PreflightNeeds>& needs);

// The interpreter the recipe's engine runs with (ATOM's when there is no recipe): its command up
// to its "-m" (the lab's `env PYTHONPATH=... python3`), else "python3".
std::vector<std::string> probe_interpreter(const Recipe* recipe, const Profile& profile);

// The probe program (core/preflight/probe.py, compiled in).
const char* probe_script();

// Identity: "0.1.4.dev113+g5837907f3" matches the expected commit 5837907f3 (or a longer one
// starting with it); a commit of 7-40 hex digits matches a found commit (from the engine's
// checkout or its version's +g part) when one is a prefix of the other; anything else compares
// exactly. A field not found is "unknown", never a match.
bool framework_matches(const std::string& expected, const std::string& found_version,
                       const std::string& found_commit);

struct IdentityMismatch {
  std::string field;                      // identity.frameworks.atom, identity.container.image
  std::string expected, found;            // found: "unknown" when the image did not tell
  std::string where;                      // "prefill:0 on node1"
  std::string role, node;                 // the fingerprint's, for the job's one-line reason
  std::string line() const;
  std::string cause() const;              // line() without where
};
std::vector<IdentityMismatch> compare_identity(const Identity& identity, const std::vector<Fingerprint>& prints);

// The KV-event capability every engine image has in common (none < connect/offset; unknown
// when no engine was probed or any said unknown).
std::string common_kv_capability(const std::vector<Fingerprint>& prints);

// The RDMA NIC selection every engine image has in common: per-rank only when every engine
// image said so, unknown when none was probed or any said unknown, else all-listed.
std::string common_rdma_nic_selection(const std::vector<Fingerprint>& prints);
// The ATOM NIC pick every engine image has in common (Fingerprint::nic_pick), "unknown" when any
// differs or said unknown, "" when no engine image was probed.
std::string common_atom_nic_pick(const std::vector<Fingerprint>& prints);

}  // namespace srt
