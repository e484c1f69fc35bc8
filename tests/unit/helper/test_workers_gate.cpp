// The router's /workers answer is read by the launcher's gate: whatever the
// body holds (counts of the wrong type, numbers beyond int, deep nesting, junk), the gate is open
// or closed with a reason, and no exception leaves it.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "launch/probe.hpp"

using srt::launch::ProbeResult;
using srt::launch::workers_gate;

namespace {

ProbeResult answer(const std::string& body) {
  ProbeResult r;
  r.ok = true;
  r.status = 200;
  r.body = body;
  return r;
}

// The gate for 1 prefill and 1 decode worker; `why` is returned through `reason`.
bool gate(const std::string& body, std::string& reason) { return workers_gate(answer(body), 1, 1, reason); }

}  // namespace

TEST_CASE("workers gate: AToMesh's counts open it, fewer keep it closed", "[launch][hostile]") {
  std::string why;
  CHECK(gate(R"({"stats": {"prefill_count": 1, "decode_count": 1, "regular_count": 0}})", why));
  CHECK(why == "router sees prefill 1/1, decode 1/1");
  CHECK_FALSE(gate(R"({"stats": {"prefill_count": 1, "decode_count": 0}})", why));
  CHECK(why == "router sees prefill 1/1, decode 0/1");
  CHECK(gate(R"({"stats": {"prefill_count": 1, "regular_count": 1}})", why));
}

TEST_CASE("workers gate: aggregated workers are the router's regular ones, one per DP rank", "[launch]") {
  std::string why;
  CHECK(workers_gate(answer(R"({"stats": {"prefill_count": 0, "decode_count": 0, "regular_count": 8}})"), 0, 8, why));
  CHECK(why == "router sees 8/8 aggregated worker(s) (DP ranks)");
  CHECK_FALSE(workers_gate(answer(R"({"stats": {"regular_count": 7}})"), 0, 8, why));
  CHECK(why == "router sees 7/8 aggregated worker(s) (DP ranks)");
}

TEST_CASE("workers gate: counts of any wrong type keep it closed and say which", "[launch][hostile]") {
  for (const std::string raw : {"\"1\"", "true", "[1]", "{\"n\": 1}", "1.5", "1e300", "-1", "18446744073709551615",
                                "9223372036854775807", "-9223372036854775808"}) {
    for (const std::string key : {"prefill_count", "decode_count", "regular_count"}) {
      const std::string body = R"({"stats": {"prefill_count": 1, "decode_count": 1, ")" + key + "\": " + raw + "}}";
      INFO(body);
      std::string why;
      bool open = true;
      REQUIRE_NOTHROW(open = gate(body, why));
      CHECK_FALSE(open);
      CHECK_THAT(why, Catch::Contains(key));
    }
  }
}

TEST_CASE("workers gate: bodies that are not AToMesh's answer keep it closed", "[launch][hostile]") {
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  for (const std::string& body : {std::string(""), std::string("not json"), std::string("[]"), std::string("{\"stats\": 3}"),
                                 std::string("{\"stats\": {\"prefill_count\": ") + deep + "}}", deep,
                                 std::string("{\"stats\": ") + deep + "}"}) {
    INFO(body.substr(0, 80));
    std::string why;
    bool open = true;
    REQUIRE_NOTHROW(open = gate(body, why));
    CHECK_FALSE(open);
    CHECK_FALSE(why.empty());
  }
}

// The router's registration is unauthenticated: anyone on the network can add a worker, and the
// benchmark's requests would reach it. More workers than planned keep the gate closed and say so.
TEST_CASE("workers gate: more workers than the Plan has keep it closed, as a stranger's", "[launch][hostile]") {
  std::string why;
  bool extra = false;
  CHECK_FALSE(workers_gate(answer(R"({"stats": {"prefill_count": 2, "decode_count": 1}})"), 1, 1, why, &extra));
  CHECK(extra);
  CHECK_THAT(why, Catch::Contains("prefill 2/1") && Catch::Contains("something else registered"));
  CHECK_FALSE(workers_gate(answer(R"({"stats": {"regular_count": 9}})"), 0, 8, why, &extra));
  CHECK(extra);
  CHECK(workers_gate(answer(R"({"stats": {"regular_count": 8}})"), 0, 8, why, &extra));
  CHECK_FALSE(extra);
  CHECK_FALSE(workers_gate(answer(R"({"stats": {"regular_count": 7}})"), 0, 8, why, &extra));
  CHECK_FALSE(extra);  // fewer: still starting, not a stranger
}

TEST_CASE("workers gate: with the Plan's URLs, a stranger's entry closes it though the counts match", "[launch][hostile]") {
  const std::set<std::string> planned = {"http://10.0.0.1:20000", "http://10.0.0.2:20000"};
  auto listed = [](const std::string& a, const std::string& b) {
    return R"({"workers": [{"url": ")" + a + R"("}, {"url": ")" + b +
           R"("}], "stats": {"prefill_count": 1, "decode_count": 1}})";
  };
  std::string why;
  bool extra = true;
  CHECK(workers_gate(answer(listed("http://10.0.0.1:20000", "http://10.0.0.2:20000")), 1, 1, why, &extra, &planned));
  CHECK_FALSE(extra);
  // A DP-aware router lists each rank as URL@rank: the URL is the Plan's.
  CHECK(workers_gate(answer(listed("http://10.0.0.1:20000@0", "http://10.0.0.2:20000@7")), 1, 1, why, &extra, &planned));
  // One planned worker not yet registered and a stranger in its place: two of two, one not the job's.
  CHECK_FALSE(workers_gate(answer(listed("http://10.0.0.1:20000", "http://10.9.9.9:20000")), 1, 1, why, &extra, &planned));
  CHECK(extra);
  CHECK_THAT(why, Catch::Contains("http://10.9.9.9:20000") && Catch::Contains("none of the Plan's workers"));
  // A rank suffix is only digits: "@evil" is another URL.
  CHECK_FALSE(workers_gate(answer(listed("http://10.0.0.1:20000@evil", "http://10.0.0.2:20000")), 1, 1, why, &extra, &planned));
  CHECK(extra);
  // Entries the gate cannot read are not the job's either; none of it throws.
  for (const std::string entry : {R"({"id": 1})", R"({"url": 5})", R"("http://10.0.0.1:20000")", "null"}) {
    INFO(entry);
    const std::string body = R"({"workers": [)" + entry + R"(], "stats": {"prefill_count": 1}})";
    REQUIRE_NOTHROW(workers_gate(answer(body), 1, 0, why, &extra, &planned));
    CHECK(extra);
  }
  // Without the Plan's URLs (as before): counts only.
  CHECK(workers_gate(answer(listed("http://10.9.9.9:1", "http://10.9.9.9:2")), 1, 1, why, &extra));
}
