// Per-worker bindings (NICs, NUMA, CPUs, Mooncake topology) on the fixtures.
#include <algorithm>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fixtures.hpp"
#include "srt/error.hpp"
#include "srt/topology.hpp"

using srt::test::topology_fixture;

namespace {

const srt::NodeTopology& pollara() {
  static const srt::NodeTopology t = srt::read_topology_xml(topology_fixture("pollara"));
  return t;
}

const srt::NodeTopology& nps4() {
  static const srt::NodeTopology t = srt::read_topology_xml(topology_fixture("nps4"));
  return t;
}

const std::vector<std::string> kRails = {"ionic_4", "ionic_7", "ionic_1", "ionic_0",
                                         "ionic_6", "ionic_5", "ionic_3", "ionic_2"};

srt::Json mooncake(const srt::WorkerBinding& b) { return srt::Json::parse(b.mooncake_topology); }

}  // namespace

TEST_CASE("1 worker x 8 GPUs", "[topology][binding]") {
  srt::WorkerBinding b = srt::bind_worker(pollara(), {0, 1, 2, 3, 4, 5, 6, 7}, "");
  CHECK(b.gpus == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(b.ib_devices == kRails);
  CHECK(b.numa_nodes == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
  CHECK(b.cpus == "0-255");
  CHECK_FALSE(b.cpus_fell_back);
  srt::Json mc = mooncake(b);
  for (int i = 0; i < 8; ++i) {
    INFO("hip:" << i);
    REQUIRE(mc.contains("hip:" + std::to_string(i)));
    CHECK(mc["hip:" + std::to_string(i)][0] == srt::Json::array({kRails[static_cast<std::size_t>(i)]}));
  }
  CHECK(mc["hip:0"][1] == srt::Json::array({"ionic_7", "ionic_1", "ionic_0"}));  // same NUMA node
  CHECK(mc["cpu:0"][0] == srt::Json::array({"ionic_4", "ionic_7", "ionic_1", "ionic_0"}));
  CHECK(mc.size() == 10);  // hip:0..7, cpu:0, cpu:1
  CHECK(b.mooncake_topology.find("mlx5") == std::string::npos);  // frontend never a KV rail
}

TEST_CASE("2 workers x 4 GPUs: one socket each", "[topology][binding]") {
  srt::WorkerBinding w0 = srt::bind_worker(pollara(), {0, 1, 2, 3}, "0-255");
  srt::WorkerBinding w1 = srt::bind_worker(pollara(), {4, 5, 6, 7}, "0-255");
  CHECK(w0.ib_devices == std::vector<std::string>{"ionic_4", "ionic_7", "ionic_1", "ionic_0"});
  CHECK(w1.ib_devices == std::vector<std::string>{"ionic_6", "ionic_5", "ionic_3", "ionic_2"});
  CHECK(w0.numa_nodes == std::vector<int>{0, 0, 0, 0});
  CHECK(w1.numa_nodes == std::vector<int>{1, 1, 1, 1});
  CHECK(w0.cpus == "0-63,128-191");
  CHECK(w1.cpus == "64-127,192-255");
  srt::Json mc = mooncake(w1);
  // Ordinals restart at 0 in every worker: hip:N is the visible ordinal, not the node index.
  CHECK(mc["hip:0"][0] == srt::Json::array({"ionic_6"}));
  CHECK(mc["hip:3"][0] == srt::Json::array({"ionic_2"}));
  CHECK_FALSE(mc.contains("hip:4"));
  CHECK(mc.contains("cpu:1"));
  CHECK_FALSE(mc.contains("cpu:0"));
}

TEST_CASE("8 workers x 1 GPU, NPS1 and NPS4", "[topology][binding]") {
  for (int i = 0; i < 8; ++i) {
    INFO("worker " << i);
    srt::WorkerBinding b = srt::bind_worker(pollara(), {i}, "");
    CHECK(b.ib_devices == std::vector<std::string>{kRails[static_cast<std::size_t>(i)]});
    CHECK(b.cpus == (i < 4 ? "0-63,128-191" : "64-127,192-255"));

    srt::WorkerBinding q = srt::bind_worker(nps4(), {i}, "");
    CHECK(q.ib_devices == b.ib_devices);
    CHECK(q.numa_nodes == std::vector<int>{i});
    CHECK(q.cpus == std::to_string(16 * i) + "-" + std::to_string(16 * i + 15) + "," +
                        std::to_string(128 + 16 * i) + "-" + std::to_string(143 + 16 * i));
    srt::Json mc = mooncake(q);
    // NPS4: no other rail on this quadrant, so every other rail is a fallback.
    CHECK(mc["hip:0"][1].size() == 7);
  }
}

TEST_CASE("Per rank over RDMA: each rank opens every NIC of its topology file, sends over its GPU's", "[topology][binding]") {
  // 1 worker x 8 GPUs: every rank registers on all 8 rails (Mooncake opens one context per NIC
  // named in the file), and rank r's transfers go over GPU r's switch-mate.
  const std::vector<srt::RankNics> ranks = srt::rank_nics(srt::bind_worker(pollara(), {0, 1, 2, 3, 4, 5, 6, 7}, ""));
  REQUIRE(ranks.size() == 8);
  for (std::size_t r = 0; r < 8; ++r) {
    INFO("rank " << r);
    CHECK(ranks[r].rank == int(r));
    CHECK(ranks[r].gpu == int(r));
    CHECK(ranks[r].location == "hip:" + std::to_string(r));
    CHECK(ranks[r].preferred == std::vector<std::string>{kRails[r]});
    std::vector<std::string> opens = ranks[r].opens, all = kRails;
    std::sort(opens.begin(), opens.end());
    std::sort(all.begin(), all.end());
    CHECK(opens == all);
  }
  // Two GPUs on the second socket: their ranks open their own rails and the fallbacks the file
  // names for them (the socket's other two rails), not the first socket's.
  const auto two = srt::rank_nics(srt::bind_worker(pollara(), {6, 7}, ""));
  REQUIRE(two.size() == 2);
  CHECK(two[1].gpu == 7);
  CHECK(two[1].preferred == std::vector<std::string>{"ionic_2"});
  std::vector<std::string> opens = two[0].opens;
  std::sort(opens.begin(), opens.end());
  CHECK(opens == std::vector<std::string>{"ionic_2", "ionic_3", "ionic_5", "ionic_6"});
}

TEST_CASE("Visible order is the caller's order, not bus order", "[topology][binding]") {
  srt::WorkerBinding b = srt::bind_worker(pollara(), {5, 2}, "");
  CHECK(b.ib_devices == std::vector<std::string>{"ionic_5", "ionic_1"});
  CHECK(b.numa_nodes == std::vector<int>{1, 0});
  CHECK(mooncake(b)["hip:0"][0] == srt::Json::array({"ionic_5"}));
}

TEST_CASE("CPU affinity stays inside the grant", "[topology][binding]") {
  srt::WorkerBinding b = srt::bind_worker(pollara(), {0, 1, 2, 3}, "0-31,128-159,200-210");
  CHECK(b.cpus == "0-31,128-159");
  CHECK_FALSE(b.cpus_fell_back);
}

TEST_CASE("A grant that excludes the GPUs' cores falls back to the grant, flagged", "[topology][binding]") {
  srt::WorkerBinding b = srt::bind_worker(pollara(), {0, 1, 2, 3}, "64-71,192-199");
  CHECK(b.cpus == "64-71,192-199");
  CHECK(b.cpus_fell_back);
  srt::WorkerBinding q = srt::bind_worker(nps4(), {0}, "16-31");  // the neighbouring quadrant
  CHECK(q.cpus == "16-31");
  CHECK(q.cpus_fell_back);
}

TEST_CASE("Bad worker GPU lists are refused", "[topology][binding]") {
  CHECK_THROWS_WITH(srt::bind_worker(pollara(), {8}, ""), Catch::Contains("GPU index 8 does not exist"));
  CHECK_THROWS_WITH(srt::bind_worker(pollara(), {1, 1}, ""), Catch::Contains("given twice"));
  CHECK_THROWS_AS(srt::bind_worker(pollara(), {}, ""), srt::Error);
  CHECK_THROWS_WITH(srt::bind_worker(pollara(), {0}, "0-x"), Catch::Contains("not a CPU list"));
}

TEST_CASE("Compute partition modes are refused", "[topology][binding]") {
  srt::NodeTopology t = pollara();
  t.partition_mode = "CPX";
  CHECK_THROWS_WITH(srt::bind_worker(t, {0}, ""), Catch::Contains("CPX"));
  t.partition_mode = "unknown";  // a fixture or a node without KFD: hwloc alone is enough
  CHECK_NOTHROW(srt::bind_worker(t, {0}, ""));
}

TEST_CASE("A GPU without a rail gets an empty ib_device slot and fallbacks", "[topology][binding]") {
  srt::NodeTopology t = pollara();
  t.gpus[1].nic.reset();
  srt::WorkerBinding b = srt::bind_worker(t, {0, 1}, "");
  CHECK(b.ib_devices == std::vector<std::string>{"ionic_4", ""});
  srt::Json mc = mooncake(b);
  CHECK(mc["hip:1"][0].empty());
  CHECK(mc["hip:1"][1] == srt::Json::array({"ionic_4", "ionic_1", "ionic_0"}));
}

TEST_CASE("CPU list helpers", "[topology]") {
  CHECK(srt::cpulist_union("0-3", "2-5,8") == "0-5,8");
  CHECK(srt::cpulist_union("", "7") == "7");
  CHECK(srt::cpulist_intersection("0-63,128-191", "60-130") == "60-63,128-130");
  CHECK(srt::cpulist_intersection("0-3", "4-7").empty());
  CHECK_THROWS_AS(srt::cpulist_union("5-", "1"), srt::Error);
  CHECK_THROWS_AS(srt::cpulist_union("a", "1"), srt::Error);
}

TEST_CASE("topology_to_json has the documented shape", "[topology]") {
  srt::Json j = srt::topology_to_json(pollara());
  CHECK(j["gpus"].size() == 8);
  CHECK(j["gpus"][0]["bus_id"] == "0000:05:00.0");
  CHECK(j["gpus"][0]["numa"] == 0);
  CHECK(j["gpus"][0]["cpuset"] == "0-63,128-191");
  CHECK(j["gpus"][0]["nic"]["rdma"] == "ionic_4");
  CHECK(j["gpus"][0]["nic"]["netdev"] == "benic1p1");
  CHECK(j["gpus"][0]["nic"]["bus_id"] == "0000:08:00.3");
  CHECK(j["frontend_nics"].size() == 2);
  CHECK(j["frontend_nics"][0]["rdma"] == "mlx5_0");
  CHECK(j["partition_mode"].is_string());
}
