// The per-point audit (srt/point_audit.hpp): a point is contaminated when the router counted more
// requests than the benchmark sent, or fewer than it completed.
#include <catch2/catch.hpp>

#include "srt/point_audit.hpp"

using Catch::Matchers::Contains;
using srt::launch::point_contamination;
using srt::launch::PointAudit;
using srt::launch::warmups_in_log;

namespace {

PointAudit audit(double seen) {
  PointAudit a;
  a.counter = "the router's mesh_http_requests_total{path=\"/v1/completions\"}";
  a.seen = seen;
  a.requested = 100;
  a.completed = 94;  // 6 failed
  a.warmups = 8;
  return a;
}

}  // namespace

TEST_CASE("a point whose router counted what the benchmark sent, or less down to what it completed, is clean") {
  CHECK(point_contamination(audit(108)).empty());  // every request, warm-ups included
  CHECK(point_contamination(audit(94)).empty());   // the failed ones never reached the router
  CHECK(point_contamination(audit(100)).empty());
}

TEST_CASE("a stranger's requests served during a point contaminate it, saying how many") {
  const std::string why = point_contamination(audit(113));
  CHECK_THAT(why, Contains("mesh_http_requests_total{path=\"/v1/completions\"} grew by 113 during the point") &&
                      Contains("the benchmark sent 108 (100 measured, 8 warm-up) and completed 94") &&
                      Contains("5 request(s) came from another client"));
}

TEST_CASE("requests the benchmark completed that the router never saw went elsewhere") {
  CHECK_THAT(point_contamination(audit(90)), Contains("grew by 90") && Contains("did not go through it"));
}

TEST_CASE("benchmark_serving.py's warm-up line, the last of a point's log") {
  CHECK(warmups_in_log("Starting initial single prompt test run...\nTraffic request rate: inf\n") == 0);
  CHECK(warmups_in_log("Warming up with 8 requests...\nWarmup completed.\n") == 8);
  CHECK(warmups_in_log("Warming up with 8 requests...\n...\nWarming up with 16 requests...\n") == 16);
  CHECK_FALSE(warmups_in_log("Warming up with lots requests...").has_value());
  CHECK_FALSE(warmups_in_log("Warming up with 99999999999 requests...").has_value());
  CHECK_FALSE(warmups_in_log("Warming up with 8 shards").has_value());
}
