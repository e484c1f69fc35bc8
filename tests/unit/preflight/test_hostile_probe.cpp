// The probe's answer is written by a program in the user's image: any field
// may have any type. A field of the wrong type reads as "not found" (or unknown), never as an
// exception other than srt::Error, and never as a number that wrapped.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "srt/error.hpp"
#include "srt/preflight.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_hostile_probe {

using namespace srt;

namespace {

Json bare_probe() {
  return Json::parse(R"({
    "probe_version": 1, "python": {"executable": "/usr/bin/python3"},
    "engine": {"module": "atom.entrypoints.openai_server", "found": false, "error": "no module named 'atom'"},
    "mooncake": {"found": false, "error": "no module named 'mooncake'"},
    "router": {"command": "atomesh", "path": null, "version": null},
    "files": {"/bench.py": false}, "frameworks": {}, "gpus": {"count": 8, "model": "MI355X"},
    "rdma": {"dev_infiniband": true, "devices": ["rdma0"], "provider_configs": ["mlx5.driver"],
             "provider_libs": [], "memlock": "unlimited", "gid_ok": ["rdma0"]},
    "model": {"repo": "x/y", "revision": null}})");
}

// The bare probe with `pointer` (a JSON pointer) set to `raw` (JSON text).
Json with(const std::string& pointer, const std::string& raw) {
  Json j = bare_probe();
  j[Json::json_pointer(pointer)] = Json::parse(raw);
  return j;
}

PreflightNeeds rdma_decode() {
  PreflightNeeds n;
  n.role = "decode";
  n.engine = n.mooncake = n.rdma = true;
  n.gid_index = 3;
  n.files = {"/bench.py"};
  return n;
}

const std::vector<std::string> kJunk = {"\"yes\"", "1", "0", "-1", "1e300", "18446744073709551615", "[true]",
                                        "{\"a\": [1, {\"b\": null}]}", "null", "true", "\"8\"", "8.5"};

}  // namespace

TEST_CASE("every field of the probe's answer may hold any type: no type_error, no wrapped number",
          "[preflight][hostile]") {
  const std::vector<std::string> pointers = {
      "/engine/found", "/engine/module", "/engine/version", "/engine/kv_events", "/mooncake/found", "/router/path",
      "/gpus/count", "/gpus/model", "/frameworks", "/files", "/rdma", "/rdma/dev_infiniband", "/rdma/devices",
      "/rdma/provider_configs", "/rdma/memlock", "/rdma/gid_ok", "/python", "/model", "/engine", "/gpus"};
  for (const auto& pointer : pointers)
    for (const auto& raw : kJunk) {
      INFO(pointer << " = " << raw);
      Fingerprint f;
      try {
        f = fingerprint_from_probe(with(pointer, raw), "decode on node2");
      } catch (const Error&) {
        continue;  // refused with a message naming where: fine
      } catch (const std::exception& e) {
        FAIL("escaped: " << e.what());
      }
      CHECK((f.gpu_count == -1 || (f.gpu_count >= 0 && f.gpu_count <= 1024)));
      std::vector<std::string> lines;
      try {
        lines = missing_pieces(f, rdma_decode());
      } catch (const std::exception& e) {
        FAIL("missing_pieces escaped: " << e.what());
      }
      CHECK_NOTHROW(fingerprint_to_json(f).dump());
    }
}

TEST_CASE("a field of the wrong type reads as not found", "[preflight][hostile]") {
  for (const std::string raw : {"\"yes\"", "1", "[true]"}) {
    INFO(raw);
    Fingerprint f;
    REQUIRE_NOTHROW(f = fingerprint_from_probe(with("/engine/found", raw), "here"));
    CHECK_FALSE(f.engine_found);
    REQUIRE_NOTHROW(f = fingerprint_from_probe(with("/mooncake/found", raw), "here"));
    CHECK_FALSE(f.mooncake_found);
  }
  for (const std::string raw : {"\"8\"", "8.5", "1e300", "18446744073709551615", "-1", "true"}) {
    INFO(raw);
    Fingerprint f;
    REQUIRE_NOTHROW(f = fingerprint_from_probe(with("/gpus/count", raw), "here"));
    CHECK(f.gpu_count == -1);  // unknown, not 0 (that would say "no GPU") nor a wrapped value
    CHECK(fingerprint_to_json(f)["gpu"]["count"].is_null());
  }
}

TEST_CASE("RDMA facts of the wrong type are missing pieces, not exceptions", "[preflight][hostile]") {
  for (const std::string pointer : {"/rdma/dev_infiniband", "/rdma/devices", "/rdma/gid_ok"})
    for (const std::string raw : {"\"yes\"", "3", "{\"a\": 1}"}) {
      INFO(pointer << " = " << raw);
      Fingerprint f;
      REQUIRE_NOTHROW(f = fingerprint_from_probe(with(pointer, raw), "decode on node2"));
      std::vector<std::string> lines;
      REQUIRE_NOTHROW(lines = missing_pieces(f, rdma_decode()));
      // The engine, Mooncake and the bench script are missing in the bare probe; the RDMA fact
      // that is not what the probe writes is one more.
      CHECK(lines.size() == 4);
    }
}

TEST_CASE("the RDMA NIC selection is a word of the probe's vocabulary or unknown", "[preflight][hostile]") {
  for (const std::string word : {"all-listed", "per-rank"}) {
    const Fingerprint f = fingerprint_from_probe(with("/engine/rdma_nic_selection", "\"" + word + "\""), "here");
    CHECK(f.rdma_nic_selection == word);
    CHECK(fingerprint_to_json(f)["engine"]["rdma_nic_selection"] == word);
  }
  for (const std::string raw : {"\"PER-RANK\"", "\"per-rank \"", "\"\"", "true", "[\"per-rank\"]", "null"}) {
    INFO(raw);
    Fingerprint f;
    REQUIRE_NOTHROW(f = fingerprint_from_probe(with("/engine/rdma_nic_selection", raw), "here"));
    CHECK(f.rdma_nic_selection == "unknown");
  }
}

}  // namespace test_hostile_probe
