#include <catch2/catch.hpp>

#include "srt/error.hpp"

TEST_CASE("a diagnostic names file, position, key path, problem and remedy") {
  srt::Diagnostic d{"r.yaml", {12, 5}, "resources.prefill_nodes", "must be >= 0, got -1",
                    "use 0 or a positive count"};
  CHECK(d.str() == "r.yaml:12:5: resources.prefill_nodes: must be >= 0, got -1; use 0 or a positive count");
}

TEST_CASE("a diagnostic without a position or key still reads well") {
  srt::Diagnostic d;
  d.message = "no node list";
  CHECK(d.str() == "no node list");
  d.file = "x.yaml";
  CHECK(d.str() == "x.yaml: no node list");
}

TEST_CASE("an error carries every diagnostic, one per line") {
  srt::Error e(std::vector<srt::Diagnostic>{{"a", {1, 1}, "k", "one", ""}, {"a", {2, 1}, "j", "two", ""}});
  CHECK(std::string(e.what()) == "a:1:1: k: one\na:2:1: j: two");
  CHECK(e.diagnostics().size() == 2);
  CHECK_THROWS_AS(srt::fail("bad"), srt::Error);
}
