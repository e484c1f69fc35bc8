#include <catch2/catch.hpp>

#include "srt/error.hpp"
#include "srt/port_ranges.hpp"

using srt::PortSpan;

TEST_CASE("the kernel's ephemeral range is read as procfs writes it") {
  CHECK(srt::parse_ip_local_port_range("32768\t60999\n") == PortSpan{32768, 60999});
  CHECK(srt::parse_ip_local_port_range(" 1024 65535") == PortSpan{1024, 65535});
  CHECK_THROWS_AS(srt::parse_ip_local_port_range("32768"), srt::Error);
  CHECK_THROWS_AS(srt::parse_ip_local_port_range("60999 32768"), srt::Error);
  CHECK_THROWS_AS(srt::parse_ip_local_port_range("1 2 3"), srt::Error);
  CHECK_THROWS_WITH(srt::parse_ip_local_port_range("x y"), Catch::Contains("ip_local_port_range"));
}

TEST_CASE("reserved ports: empty, single ports and ranges") {
  CHECK(srt::parse_ip_local_reserved_ports("\n").empty());
  const auto r = srt::parse_ip_local_reserved_ports("8000-8010,9000\n");
  REQUIRE(r.size() == 2);
  CHECK(r[0] == PortSpan{8000, 8010});
  CHECK(r[1] == PortSpan{9000, 9000});
  CHECK_THROWS_WITH(srt::parse_ip_local_reserved_ports("8000-7000"), Catch::Contains("'8000-7000'"));
  CHECK_THROWS_AS(srt::parse_ip_local_reserved_ports("70000"), srt::Error);
}

TEST_CASE("the shipped profile's range clears Linux's default ephemeral range") {
  const auto c = srt::check_port_range({20000, 28999}, {32768, 60999}, {});
  CHECK(c.ok());
  CHECK(c.reserved_overlaps.empty());
}

TEST_CASE("a range inside the ephemeral range is a clash, reported as the overlapping ports") {
  const auto c = srt::check_port_range({30000, 40000}, {32768, 60999}, {});
  CHECK_FALSE(c.ok());
  REQUIRE(c.ephemeral_clashes.size() == 1);
  CHECK(srt::to_string(c.ephemeral_clashes[0]) == "32768-40000");
}

TEST_CASE("reserved ports are never ephemeral, so they excuse a clash but are reported") {
  const auto covered = srt::check_port_range({40000, 40999}, {32768, 60999}, {{40000, 40999}});
  CHECK(covered.ok());
  REQUIRE(covered.reserved_overlaps.size() == 1);
  CHECK(covered.reserved_overlaps[0] == PortSpan{40000, 40999});

  const auto partly = srt::check_port_range({40000, 40999}, {32768, 60999}, {{40100, 40199}, {40500, 40500}});
  REQUIRE(partly.ephemeral_clashes.size() == 3);
  CHECK(srt::to_string(partly.ephemeral_clashes[0]) == "40000-40099");
  CHECK(srt::to_string(partly.ephemeral_clashes[1]) == "40200-40499");
  CHECK(srt::to_string(partly.ephemeral_clashes[2]) == "40501-40999");
}

TEST_CASE("subtract handles holes wider than, inside and outside a span") {
  CHECK(srt::subtract({{10, 20}}, {{0, 30}}).empty());
  CHECK(srt::subtract({{10, 20}}, {{30, 40}}) == std::vector<PortSpan>{{10, 20}});
  CHECK(srt::subtract({{10, 20}}, {{10, 10}, {20, 20}}) == std::vector<PortSpan>{{11, 19}});
}
