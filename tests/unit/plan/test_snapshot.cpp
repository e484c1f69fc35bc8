// The snapshot (srt/snapshot.hpp): what a node plans from must mean what the submit side
// validated, for every recipe we ship and every fixture shape, and a hostile snapshot must end as
// an srt::Error, never a crash.
#include <nettle/base64.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "file_snapshot.hpp"
#include "srt/digest.hpp"
#include "srt/error.hpp"
#include "srt/files.hpp"
#include "srt/job_plan.hpp"
#include "srt/profile_copy.hpp"
#include "srt/snapshot.hpp"
#include "srt/variants.hpp"

using Catch::Matchers::Contains;

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

srt::JobFacts three_nodes(std::size_t n) {
  srt::JobFacts f;
  for (std::size_t i = 0; i < n; ++i) f.nodes.push_back("gpu0" + std::to_string(i + 1));
  f.job_id = 31337;
  return f;
}

std::string base64(const Bytes& raw) {
  std::string out(BASE64_ENCODE_RAW_LENGTH(raw.size()), '\0');
  base64_encode_raw(out.data(), raw.size(), raw.data());
  return out;
}

// An envelope around `body` as the encoder writes it, the digest right unless `digest` says.
std::string envelope(const Bytes& body, int format = srt::kSnapshotFormat, std::string digest = "") {
  if (digest.empty()) digest = srt::sha256_hex(std::string(body.begin(), body.end()));
  return base64(srt::Json::to_cbor(srt::Json{{"format", format}, {"package", "9.9.9"}, {"sha256", digest},
                                             {"body", srt::Json::binary(body)}}));
}

const std::string kProfileText =
    "cluster: t\ngpus_per_node: 8\nport_range_begin: 21000\nport_range_end: 27999\n"
    "node_addresses: {gpu01: 10.3.0.1, gpu02: 10.3.0.2, gpu03: 10.3.0.3, gpu04: 10.3.0.4}\n";

}  // namespace

TEST_CASE("every shipped recipe and fixture plans the same through the snapshot as from its file") {
  const srt::Profile profile = srt::load_profile_text(kProfileText, "cluster.yaml");
  int planned = 0;
  for (const char* dir : {"/recipes", "/tests/fixtures/recipes/good", "/tests/fixtures/recipes/v1",
                          "/tests/fixtures/recipes/variants"}) {
    for (const auto& entry : fs::recursive_directory_iterator(std::string(SRT_SOURCE_DIR) + dir)) {
      if (entry.path().extension() != ".yaml") continue;
      const std::string path = entry.path().string();
      const std::string text = srt::read_text_file(path, 1 << 20);
      std::vector<srt::RecipeSource> sources;
      try {
        sources = srt::open_recipe_text(text, srt::RecipeRef{path, "", path}, srt::job_recipe_options(profile));
      } catch (const srt::Error&) {
        continue;  // a variants file refused as a whole is the variants tests' business
      }
      for (const auto& source : sources) {
        INFO(source.given);
        srt::Recipe from_file;
        try {
          from_file = srt::load_recipe_source(source, srt::job_recipe_options(profile));
        } catch (const srt::Error&) {
          continue;  // refused at submit: never snapshotted
        }
        const srt::Snapshot snap = srt::decode_snapshot(
            srt::encode_snapshot(srt::make_snapshot(source.given, text, source, profile, "0.1.0")));
        CHECK(snap.package == "0.1.0");
        CHECK(snap.variant_selector == source.selector);
        const srt::JobFacts facts = three_nodes(std::size_t(srt::node_demand(from_file, profile)));
        srt::JobPlan direct;
        try {
          direct = srt::plan_job(std::move(from_file), source.given, profile, facts);
        } catch (const srt::Error&) {
          continue;  // validated but not plannable (tier 2): refused at submit, never on a node
        }
        const srt::Profile on_node = srt::snapshot_profile(snap, profile.digest, profile.source.root, "/etc/srt/cluster.yaml", "node gpu01");
        CHECK(on_node.port_range_begin == 21000);
        CHECK(srt::plan_job(snap, on_node, facts).plan.digest == direct.plan.digest);
        ++planned;
      }
    }
  }
  // The eight shipped recipes (schema 2), the fixtures in both layouts and the variants' variants.
  CHECK(planned >= 16);
}

TEST_CASE("the snapshot keeps what YAML reads and JSON text cannot: .nan, .inf, big integers, key order") {
  const std::string text = srt::read_text_file(SRT_SOURCE_DIR "/tests/fixtures/recipes/v1/lab-disagg-1p1d-tp8.yaml", 1 << 20);
  srt::Document doc = srt::parse_yaml(text + "extra_weird: {a: .nan, b: -.inf, c: 9007199254740993, z: 1, y: 2}\n", "r.yaml");
  srt::RecipeSource source{"r.yaml", "", "", doc};
  const srt::Snapshot snap =
      srt::decode_snapshot(srt::encode_snapshot(srt::make_snapshot("r.yaml", text, source, srt::default_profile(), "1")));
  const srt::Json& w = snap.recipe.at("extra_weird");
  CHECK(std::isnan(w.at("a").get<double>()));
  CHECK(std::isinf(w.at("b").get<double>()));
  CHECK(w.at("b").get<double>() < 0);
  CHECK(w.at("c").get<std::int64_t>() == 9007199254740993LL);
  std::vector<std::string> keys;
  for (auto it = w.begin(); it != w.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"a", "b", "c", "z", "y"});
  CHECK(snap.recipe_text == text);
  CHECK(snap.profile.is_null());  // the built-in default travels as no document
}

TEST_CASE("a hostile or foreign snapshot is an srt::Error saying what it is") {
  const std::string damaged = "recipe snapshot (SLURM_SPANK_SRT_SNAPSHOT) is damaged";
  CHECK_THROWS_WITH(srt::decode_snapshot(""), Contains(damaged));
  CHECK_THROWS_WITH(srt::decode_snapshot("not base64!"), Contains(damaged));
  CHECK_THROWS_WITH(srt::decode_snapshot(std::string(200 * 1024, 'A')), Contains(damaged));
  CHECK_THROWS_WITH(srt::decode_snapshot(base64({0xa1, 0x61})), Contains(damaged));  // truncated CBOR

  // A million nested arrays in the body: refused by the shape check before any recursion.
  Bytes deep(60001, 0x81);
  deep.back() = 0xf6;  // null, innermost
  CHECK_THROWS_WITH(srt::decode_snapshot(envelope(deep)), Contains("nested deeper than"));
  // Trailing bytes, a body that is not a map, a wrong digest, a missing recipe.
  CHECK_THROWS_WITH(srt::decode_snapshot(envelope({0xa0, 0x00})), Contains(damaged));
  CHECK_THROWS_WITH(srt::decode_snapshot(envelope({0x80})), Contains("its body is not a map"));
  CHECK_THROWS_WITH(srt::decode_snapshot(envelope({0xa0}, srt::kSnapshotFormat, std::string(64, '0'))),
                    Contains("does not match its SHA-256"));
  CHECK_THROWS_WITH(srt::decode_snapshot(envelope(srt::Json::to_cbor(srt::Json{{"recipe_text", "x"}}))),
                    Contains("carries no recipe or no profile"));
  CHECK_THROWS_WITH(srt::decode_snapshot(envelope(srt::Json::to_cbor(srt::Json{{"recipe_text", 5}}))),
                    Contains("'recipe_text' is missing or not text"));

  // Another format: who wrote it, and what to do.
  CHECK_THROWS_WITH(srt::decode_snapshot(envelope({0xa0}, 3)),
                    Contains("format 3, written by srt-spank 9.9.9, and this srt-spank reads format 2") &&
                        Contains("resubmit the job"));
  const std::string v1 = R"({"v":1,"recipe_path":"r.yaml","recipe":"name: x\n","profile_digest":""})";
  CHECK_THROWS_WITH(srt::decode_snapshot(base64(Bytes(v1.begin(), v1.end()))),
                    Contains("written by an older srt-spank (snapshot format 1)"));
}

TEST_CASE("a node plans only from its own version's snapshot, with its own profile") {
  srt::Snapshot s;
  s.package = "0.1.0";
  CHECK_NOTHROW(srt::check_snapshot_package(s, "0.1.0", "node gpu02"));
  CHECK_THROWS_WITH(srt::check_snapshot_package(s, "0.2.0", "node gpu02"),
                    Contains("submitted with srt-spank 0.1.0 and node gpu02 runs srt-spank 0.2.0"));

  const srt::Profile profile = srt::load_profile_text(kProfileText, "cluster.yaml");
  s.profile_digest = profile.digest;
  s.profile = profile.source.root;
  const srt::Json& mine = profile.source.root;
  CHECK_THROWS_WITH(srt::snapshot_profile(s, srt::sha256_hex(kProfileText + "# edited\n"), mine, "/etc/srt/cluster.yaml", "gpu02"),
                    Contains("the cluster profile on gpu02 differs") && Contains("/etc/srt/cluster.yaml"));
  CHECK_THROWS_WITH(srt::snapshot_profile(s, "", srt::Json(), "", "gpu02"), Contains("none: the built-in default here"));
  // L4: same digest, another document (the snapshot is the user's environment): the node plans
  // with its own file's document, whatever the snapshot carries.
  s.profile = srt::Json{{"port_range_begin", 30000}, {"port_range_end", 30999}};
  CHECK(srt::snapshot_profile(s, profile.digest, mine, "/etc/srt/cluster.yaml", "gpu02").port_range_begin == 21000);
  // A document that is not a profile is refused by the node's own checks.
  CHECK_THROWS_AS(srt::snapshot_profile(s, profile.digest, srt::Json{{"port_range_begin", "lots"}}, "/etc/srt/cluster.yaml", "gpu02"),
                  srt::Error);
  s.profile_digest.clear();
  CHECK(srt::snapshot_profile(s, "", srt::Json(), "", "gpu02").digest.empty());
}

TEST_CASE("L4: root's parsed copy of the node's profile: named by digest, checked on the way back") {
  const srt::Profile profile = srt::load_profile_text(kProfileText, "cluster.yaml");
  const std::string copy = srt::encode_profile_copy(profile.digest, profile.source.root, "0.1.0");
  CHECK(srt::decode_profile_copy(copy, profile.digest, "0.1.0", "c") == profile.source.root);
  CHECK(srt::profile_copy_name(profile.digest) == "profile-" + profile.digest + ".cbor");
  CHECK_THROWS_WITH(srt::profile_copy_name("../../etc/passwd"), Contains("is not a SHA-256 digest"));
  const std::string other = srt::sha256_hex(kProfileText + "# edited\n");
  CHECK_THROWS_WITH(srt::decode_profile_copy(copy, other, "0.1.0", "/c/x"),
                    Contains("/c/x: not a profile copy this srt-spank can use (a copy of another profile file)") &&
                        Contains("srt-helper topology --refresh-cache"));
  CHECK_THROWS_WITH(srt::decode_profile_copy(copy, profile.digest, "0.2.0", "c"),
                    Contains("written by srt-spank 0.1.0, this is 0.2.0"));
  CHECK_THROWS_WITH(srt::decode_profile_copy("not cbor at all", profile.digest, "0.1.0", "c"), Contains("not CBOR"));
  // Nested deeper than a profile can be: refused before nlohmann's recursive reader runs.
  std::string deep(100000, '\x81');  // CBOR: an array of one element, a hundred thousand times
  deep += '\x00';
  CHECK_THROWS_WITH(srt::decode_profile_copy(deep, profile.digest, "0.1.0", "c"), Contains("not CBOR"));
}
