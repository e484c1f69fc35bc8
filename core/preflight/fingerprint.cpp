// The probe's JSON (core/preflight/probe.py) <-> Fingerprint, and the fingerprint as it is
// recorded in fingerprints.json. A value the probe could not find stays "" here and is written
// as null: "unknown" is a verdict for identity (identity.cpp), not a value.
#include "srt/error.hpp"
#include "srt/preflight.hpp"
#include "srt/rdma_nic.hpp"
#include "srt/untrusted_json.hpp"

namespace srt {
namespace {

// The probe writes every field; one of another type is one it did not write (a different
// program answered, or the image's python printed something else): read as not found.
std::string text(const Json& obj, const char* key) { return json_field::text(obj, key).value_or(""); }
bool flag(const Json& obj, const char* key) { return json_field::boolean(obj, key).value_or(false); }
const Json& part(const Json& obj, const char* key) { return json_field::object(obj, key); }

// GPUs a node may have; -1 (unknown) for anything that is not such a count.
constexpr long long kMaxGpus = 1024;

Json or_null(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

}  // namespace

Fingerprint fingerprint_from_probe(const Json& probe, const std::string& where) {
  if (!probe.is_object() || !probe.contains("probe_version") || !probe.contains("engine"))
    fail("the preflight probe's answer from " + where + " is not the probe's JSON",
         "look at the probe's log beside it: the image's python3 may be missing or too old (3.8+ needed)");
  Fingerprint f;
  f.raw = probe;
  const Json& engine = part(probe, "engine");
  f.engine_module = text(engine, "module");
  f.engine_found = flag(engine, "found");
  f.engine_error = text(engine, "error");
  f.engine_version = text(engine, "version");
  f.engine_commit = text(engine, "commit");
  if (const std::string kv = text(engine, "kv_events"); !kv.empty()) f.kv_events_capability = kv;
  // A word of the probe's vocabulary, or unknown: the answer comes from inside a user's image.
  if (const std::string nic = text(engine, "rdma_nic_selection"); nic == "all-listed" || nic == "per-rank")
    f.rdma_nic_selection = nic;
  const Json& nic = part(engine, "rdma_nic");
  const auto word = [&nic](const char* key, std::initializer_list<const char*> allowed) {
    const std::string v = text(nic, key);
    for (const char* a : allowed)
      if (v == a) return v;
    return std::string("unknown");
  };
  f.nic_nothing_configured = word("nothing_configured", {"own-nic", "every-nic"});
  f.nic_index = word("index", {"physical", "visible"});
  f.nic_configured_list = word("configured_list", {"whole", "split"});
  f.nic_tcp = word("tcp", {"no-device", "device-passed"});
  f.nic_matched_rails = flag(nic, "matched_rails");
  f.nic_alternate_hca = flag(nic, "alternate_hca");
  if (const auto pick = parse_atom_nic_pick(text(nic, "pick"))) f.nic_pick = to_string(*pick);
  const Json& mooncake = part(probe, "mooncake");
  f.mooncake_found = flag(mooncake, "found");
  f.mooncake_error = text(mooncake, "error");
  f.mooncake_version = text(mooncake, "version");
  const Json& router = part(probe, "router");
  f.router_command = text(router, "command");
  f.router_path = text(router, "path");
  f.router_version = text(router, "version");
  for (const auto& [name, version] : part(probe, "frameworks").items())
    f.frameworks[name] = version.is_string() ? version.get<std::string>() : "";
  for (const auto& [path, exists] : part(probe, "files").items()) f.files[path] = exists.is_boolean() && exists.get<bool>();
  f.rocm_version = text(probe, "rocm_version");
  const Json& gpus = part(probe, "gpus");
  f.gpu_model = text(gpus, "model");
  f.gpu_count = int(json_field::integer(gpus, "count", 0, kMaxGpus).value_or(-1));
  const Json& model = part(probe, "model");
  f.model_repo = text(model, "repo");
  f.model_revision = text(model, "revision");
  f.rdma = part(probe, "rdma");
  f.python = text(part(probe, "python"), "executable");
  return f;
}

Fingerprint read_probe_answer(std::string_view text, const std::string& where) {
  const Json answer = parse_untrusted_json(text);
  if (answer.is_discarded())
    fail("the preflight probe's answer from " + where + " is not JSON (or nests deeper than " +
             std::to_string(kMaxUntrustedJsonDepth) + " levels)",
         "look at the probe's log beside it: something else wrote to its output");
  return fingerprint_from_probe(answer, where);
}

Json fingerprint_to_json(const Fingerprint& f) {
  Json frameworks = Json::object();
  for (const auto& [name, version] : f.frameworks) frameworks[name] = or_null(version);
  return Json{{"node", f.node},
              {"role", f.role},
              {"step", f.step},
              {"image", or_null(f.image)},
              {"runtime", f.runtime},
              {"engine", {{"module", f.engine_module}, {"found", f.engine_found}, {"version", or_null(f.engine_version)},
                          {"commit", or_null(f.engine_commit)}, {"kv_events_capability", f.kv_events_capability},
                          {"rdma_nic_selection", f.rdma_nic_selection},
                          {"rdma_nic", {{"nothing_configured", f.nic_nothing_configured}, {"index", f.nic_index},
                                        {"configured_list", f.nic_configured_list}, {"tcp", f.nic_tcp},
                                        {"matched_rails", f.nic_matched_rails}, {"alternate_hca", f.nic_alternate_hca},
                                        {"pick", f.nic_pick}}}}},
              {"mooncake", {{"found", f.mooncake_found}, {"version", or_null(f.mooncake_version)}}},
              {"router", {{"command", or_null(f.router_command)}, {"path", or_null(f.router_path)},
                          {"version", or_null(f.router_version)}}},
              {"frameworks", frameworks},
              {"rocm_version", or_null(f.rocm_version)},
              {"gpu", {{"model", or_null(f.gpu_model)}, {"count", f.gpu_count < 0 ? Json(nullptr) : Json(f.gpu_count)}}},
              {"model", {{"repo", or_null(f.model_repo)}, {"revision", or_null(f.model_revision)}}},
              {"rdma", f.rdma},
              {"python", or_null(f.python)},
              {"probe", f.raw}};
}

}  // namespace srt
