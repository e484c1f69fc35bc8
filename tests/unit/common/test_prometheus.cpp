// prometheus_sum: the counters the launcher's stall watch reads from ATOM's and AToMesh's
// /metrics, written as those programs write them (prometheus_client for ATOM, the metrics crate
// for AToMesh), and what a hostile or broken answer may hold.
#include <catch2/catch.hpp>

#include "srt/prometheus.hpp"

TEST_CASE("prometheus_sum adds every label set of one counter", "[prometheus]") {
  const std::string mesh =
      "# HELP mesh_http_responses_total Total HTTP responses\n"
      "# TYPE mesh_http_responses_total counter\n"
      "mesh_http_responses_total{status_code=\"200\",error_code=\"\"} 318\n"
      "mesh_http_responses_total{status_code=\"503\",error_code=\"no_workers\"} 2\n"
      "mesh_http_responses_total_extra 99\n"
      "mesh_router_requests_total{router_type=\"http\",backend_type=\"pd\",model=\"a}b\\\"c\"} 320\n";
  CHECK(srt::prometheus_sum(mesh, "mesh_http_responses_total") == 320.0);
  CHECK(srt::prometheus_sum(mesh, "mesh_router_requests_total") == 320.0);  // '}' and '"' inside a label value
  CHECK_FALSE(srt::prometheus_sum(mesh, "mesh_http_responses"));            // a prefix is not the name
  CHECK_FALSE(srt::prometheus_sum(mesh, "atom:requests_finished_total"));
}

TEST_CASE("prometheus_sum reads ATOM's prometheus_client counters", "[prometheus]") {
  const std::string atom =
      "# HELP atom:requests_finished_total Number of requests completed by the scheduler.\r\n"
      "# TYPE atom:requests_finished_total counter\r\n"
      "atom:requests_finished_total 1.2e3\r\n"
      "atom:generation_tokens_total 65536.0 1700000000000\r\n";
  CHECK(srt::prometheus_sum(atom, "atom:requests_finished_total") == 1200.0);
  CHECK(srt::prometheus_sum(atom, "atom:generation_tokens_total") == 65536.0);  // with a timestamp
}

TEST_CASE("prometheus_sum skips what does not parse", "[prometheus]") {
  CHECK_FALSE(srt::prometheus_sum("", "x"));
  CHECK_FALSE(srt::prometheus_sum("x", "x"));
  CHECK_FALSE(srt::prometheus_sum("x{a=\"1\" 5\n", "x"));  // unterminated label set
  CHECK_FALSE(srt::prometheus_sum("x abc\nx 1x\nx NaN\nx +Inf\n", "x"));
  CHECK(srt::prometheus_sum("x NaN\nx 2\n\n#x 5\nx{a=\"\\\\\"} 3\n", "x") == 5.0);
  CHECK_FALSE(srt::prometheus_sum("x 1\n", ""));
  const std::string junk(1 << 16, '{');
  CHECK_FALSE(srt::prometheus_sum("x" + junk, "x"));
}

// docs/security.md "The network": the stall watch counts the router's 200 answers only.
TEST_CASE("prometheus_sum with a label counts only the samples that hold it", "[prometheus]") {
  const std::string mesh =
      "mesh_http_responses_total{status_code=\"200\",error_code=\"\"} 318\n"
      "mesh_http_responses_total{status_code=\"503\",error_code=\"no_workers\"} 2\n"
      "mesh_http_responses_total{error_code=\"x\",status_code=\"200\"} 1\n"
      "mesh_http_responses_total{status_code=\"2000\"} 50\n"
      "mesh_http_responses_total{xstatus_code=\"200\"} 60\n"
      "mesh_http_responses_total{model=\"a,status_code=\\\"200\\\"\"} 70\n"
      "mesh_http_responses_total 80\n";
  CHECK(srt::prometheus_sum(mesh, "mesh_http_responses_total", "status_code=\"200\"") == 319.0);
  CHECK(srt::prometheus_sum(mesh, "mesh_http_responses_total", "status_code=\"503\"") == 2.0);
  CHECK_FALSE(srt::prometheus_sum(mesh, "mesh_http_responses_total", "status_code=\"404\""));
  CHECK(srt::prometheus_sum(mesh, "mesh_http_responses_total") == 581.0);
}
