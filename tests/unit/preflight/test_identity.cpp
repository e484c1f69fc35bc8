// The identity rules: versions, commits and their prefixes, unknown values, and which field of
// which role is compared, with the field path, expected and found value in every mismatch.
#include <catch2/catch.hpp>

#include "srt/preflight.hpp"

using namespace srt;

namespace {

Fingerprint engine_print(const std::string& role = "prefill") {
  Fingerprint f;
  f.role = role;
  f.step = role + ":0";
  f.node = "node1";
  f.image = "rocm/atom-dev:nightly_202608251555";
  f.engine_found = true;
  f.engine_version = "0.1.4.dev113+g4e0848dcd";
  f.engine_commit = "4e0848dcd";
  f.kv_events_capability = "offset";
  f.mooncake_found = true;
  f.mooncake_version = "0.3.6";
  f.model_repo = "deepseek-ai/DeepSeek-V4-Pro";
  return f;
}

const std::string kFull = "4e0848dcdf94f3d4be0c1e3ce51db99bc93f8b8c";

}  // namespace

TEST_CASE("a setuptools_scm version matches the commit it was built from") {
  CHECK(framework_matches("5837907f3", "0.1.4.dev113+g5837907f3", ""));
  CHECK(framework_matches("5837907f3aa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4", "0.1.4.dev113+g5837907f3", ""));
  CHECK(framework_matches("5837907f3", "0.1.4.dev113+g5837907f3.d20260825", ""));  // dirty tree suffix
  CHECK_FALSE(framework_matches("5837907f4", "0.1.4.dev113+g5837907f3", ""));
  CHECK_FALSE(framework_matches(kFull, "0.1.4.dev113+g5837907f3", ""));
}

TEST_CASE("a full commit matches a found commit by prefix either way") {
  CHECK(framework_matches(kFull, "", kFull));
  CHECK(framework_matches(kFull, "", "4e0848dcdf94"));        // short found, full expected
  CHECK(framework_matches("4e0848dcdf94", "", kFull));        // short expected, full found
  CHECK_FALSE(framework_matches(kFull, "", "4e0848dcdf95"));
  CHECK_FALSE(framework_matches(kFull, "", "4e0848"));        // below 7 digits proves nothing
  CHECK(framework_matches(kFull, "0.1.0", kFull));            // the checkout's commit counts too
}

TEST_CASE("plain versions compare exactly, missing is unknown, not a match") {
  CHECK(framework_matches("0.3.6", "0.3.6", ""));
  CHECK_FALSE(framework_matches("0.3.6", "0.3.6.post1", ""));
  CHECK_FALSE(framework_matches("0.3", "0.3.6", ""));
  CHECK_FALSE(framework_matches("0.3.6", "", ""));
  CHECK_FALSE(framework_matches(kFull, "", ""));
  CHECK(framework_matches("", "anything", ""));  // nothing expected: nothing to compare
}

TEST_CASE("compare_identity names the field, the expected and the found value") {
  Identity id;
  id.container_image = "rocm/atom-dev:nightly_202608251555";
  id.model_repo = "deepseek-ai/DeepSeek-V4-Pro";
  id.frameworks = {{"atom", kFull}};
  CHECK(compare_identity(id, {engine_print("prefill"), engine_print("decode")}).empty());

  id.frameworks = {{"atom", "5837907f3aa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4"}};
  const auto m = compare_identity(id, {engine_print("prefill")});
  REQUIRE(m.size() == 1);
  CHECK(m[0].field == "identity.frameworks.atom");
  CHECK(m[0].expected == "5837907f3aa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4");
  CHECK(m[0].found == "0.1.4.dev113+g4e0848dcd");
  CHECK(m[0].where == "prefill:0 on node1");
  CHECK(m[0].line() ==
        "identity.frameworks.atom: expected 5837907f3aa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4, found 0.1.4.dev113+g4e0848dcd "
        "(prefill:0 on node1)");
}

TEST_CASE("compare_identity: unknown values, images and per-role frameworks") {
  Fingerprint p = engine_print("prefill");
  p.engine_version.clear();
  p.engine_commit.clear();
  p.image.clear();
  Identity id;
  id.container_image = "rocm/atom-dev:nightly_202608251555";
  id.frameworks = {{"atom", kFull}};
  const auto m = compare_identity(id, {p});
  REQUIRE(m.size() == 2);
  CHECK(m[0].field == "identity.container.image");
  CHECK(m[0].found == "unknown");
  CHECK(m[1].field == "identity.frameworks.atom");
  CHECK(m[1].found == "unknown");

  // The router's version is compared on the router, Mooncake's on P/D, others by distribution.
  Fingerprint router;
  router.role = "router";
  router.step = "router";
  router.router_version = "0.1.0";
  Fingerprint decode = engine_print("decode");
  decode.frameworks["aiter"] = "0.1.5";
  id = Identity{};
  id.frameworks = {{"atomesh", "0.2.0"}, {"mooncake", "0.3.6"}, {"aiter", "0.1.4"}};
  const auto n = compare_identity(id, {router, decode});
  REQUIRE(n.size() == 2);
  CHECK(n[0].line() == "identity.frameworks.atomesh: expected 0.2.0, found 0.1.0 (router)");
  CHECK(n[1].line() == "identity.frameworks.aiter: expected 0.1.4, found 0.1.5 (decode:0 on node1)");
}

TEST_CASE("a found version and a different checkout commit are both shown") {
  Fingerprint p = engine_print();
  p.engine_version = "0.1.0";
  p.engine_commit = "abcdef1234567";
  Identity id;
  id.frameworks = {{"atom", kFull}};
  const auto m = compare_identity(id, {p});
  REQUIRE(m.size() == 1);
  CHECK(m[0].found == "0.1.0 (commit abcdef1234567)");
}

TEST_CASE("the KV-event capability all engine images share") {
  Fingerprint a = engine_print("prefill"), b = engine_print("decode");
  Fingerprint r;
  r.role = "router";  // no engine: not counted
  CHECK(common_kv_capability({a, b, r}) == "offset");
  b.kv_events_capability = "none";
  CHECK(common_kv_capability({a, b}) == "none");
  b.kv_events_capability = "unknown";
  CHECK(common_kv_capability({a, b}) == "unknown");
  CHECK(common_kv_capability({r}) == "unknown");
}

TEST_CASE("the RDMA NIC selection all engine images share") {
  Fingerprint a = engine_print("prefill"), b = engine_print("decode");
  Fingerprint r;
  r.role = "router";  // no engine: not counted
  CHECK(common_rdma_nic_selection({a, b, r}) == "unknown");  // the probe did not say
  a.rdma_nic_selection = b.rdma_nic_selection = "per-rank";
  CHECK(common_rdma_nic_selection({a, b, r}) == "per-rank");
  b.rdma_nic_selection = "all-listed";  // one image gives every rank every NIC: the job's truth
  CHECK(common_rdma_nic_selection({a, b}) == "all-listed");
  b.rdma_nic_selection = "unknown";
  CHECK(common_rdma_nic_selection({a, b}) == "unknown");
  CHECK(common_rdma_nic_selection({r}) == "unknown");
}
