// GPU <-> NIC pairing on the MI355X fixtures and on small synthetic trees.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "fixtures.hpp"
#include "srt/error.hpp"
#include "srt/topology.hpp"

using srt::test::topology_fixture;

namespace {

struct Expect {
  std::string gpu_bus, rdma, netdev, nic_bus;
};

// The ionic_N order is scrambled in the fixture (4,7,1,0,6,5,3,2), as real Pollara names are
// arbitrary per boot; benic numbers follow slots (1,2,4,3,5,6,8,7), not PCI order.
const std::vector<Expect> kPollara = {
    {"0000:05:00.0", "ionic_4", "benic1p1", "0000:08:00.3"}, {"0000:15:00.0", "ionic_7", "benic2p1", "0000:18:00.3"},
    {"0000:65:00.0", "ionic_1", "benic4p1", "0000:68:00.3"}, {"0000:75:00.0", "ionic_0", "benic3p1", "0000:78:00.3"},
    {"0000:85:00.0", "ionic_6", "benic5p1", "0000:88:00.3"}, {"0000:95:00.0", "ionic_5", "benic6p1", "0000:98:00.3"},
    {"0000:e5:00.0", "ionic_3", "benic8p1", "0000:e8:00.3"}, {"0000:f5:00.0", "ionic_2", "benic7p1", "0000:f8:00.3"}};

const std::vector<Expect> kThor2 = {
    {"0000:05:00.0", "bnxt_re4", "benic1p1", "0000:06:00.0"}, {"0000:15:00.0", "bnxt_re7", "benic2p1", "0000:16:00.0"},
    {"0000:65:00.0", "bnxt_re1", "benic4p1", "0000:66:00.0"}, {"0000:75:00.0", "bnxt_re0", "benic3p1", "0000:76:00.0"},
    {"0000:85:00.0", "bnxt_re6", "benic5p1", "0000:86:00.0"}, {"0000:95:00.0", "bnxt_re5", "benic6p1", "0000:96:00.0"},
    {"0000:e5:00.0", "bnxt_re3", "benic8p1", "0000:e6:00.0"}, {"0000:f5:00.0", "bnxt_re2", "benic7p1", "0000:f6:00.0"}};

const std::vector<Expect> kCx7 = {
    {"0000:05:00.0", "mlx5_6", "enp6s0np0", "0000:06:00.0"},   {"0000:15:00.0", "mlx5_9", "enp22s0np0", "0000:16:00.0"},
    {"0000:65:00.0", "mlx5_3", "enp102s0np0", "0000:66:00.0"}, {"0000:75:00.0", "mlx5_2", "enp118s0np0", "0000:76:00.0"},
    {"0000:85:00.0", "mlx5_8", "enp134s0np0", "0000:86:00.0"}, {"0000:95:00.0", "mlx5_7", "enp150s0np0", "0000:96:00.0"},
    {"0000:e5:00.0", "mlx5_5", "enp230s0np0", "0000:e6:00.0"}, {"0000:f5:00.0", "mlx5_4", "enp246s0np0", "0000:f6:00.0"}};

void check_pairs(const srt::NodeTopology& t, const std::vector<Expect>& want) {
  REQUIRE(t.gpus.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const srt::Gpu& g = t.gpus[i];
    INFO("GPU " << i << " " << g.bus_id);
    CHECK(g.index == static_cast<int>(i));
    CHECK(g.bus_id == want[i].gpu_bus);
    CHECK(g.device_id == 0x75a3);
    REQUIRE(g.nic.has_value());
    CHECK(g.nic->rdma == want[i].rdma);
    CHECK(g.nic->netdev == want[i].netdev);
    CHECK(g.nic->bus_id == want[i].nic_bus);
    CHECK(g.nic->numa == g.numa);
    CHECK_FALSE(g.nic_shared);
  }
}

void check_frontend_cx7(const srt::NodeTopology& t, int numa) {
  REQUIRE(t.frontend_nics.size() == 2);
  CHECK(t.frontend_nics[0].rdma == "mlx5_0");
  CHECK(t.frontend_nics[0].netdev == "enp193s0f0np0");
  CHECK(t.frontend_nics[0].bus_id == "0000:c1:00.0");
  CHECK(t.frontend_nics[0].numa == numa);
  CHECK(t.frontend_nics[1].rdma == "mlx5_1");
}

void check_nps1_locality(const srt::NodeTopology& t) {
  for (const srt::Gpu& g : t.gpus) {
    INFO(g.bus_id);
    CHECK(g.numa == (g.index < 4 ? 0 : 1));
    CHECK(g.cpuset == (g.index < 4 ? "0-63,128-191" : "64-127,192-255"));
  }
}

}  // namespace

TEST_CASE("Pollara NPS1: 8 GPUs, each with the ionic NIC behind its switch", "[topology][pairing]") {
  srt::NodeTopology t = srt::read_topology_xml(topology_fixture("pollara"));
  // 24 Pollara functions are class 0x1200 like the GPU; only vendor 0x1002 + class counts.
  check_pairs(t, kPollara);
  check_nps1_locality(t);
  check_frontend_cx7(t, 1);
  CHECK(t.source == "hwloc:" + topology_fixture("pollara"));
}

TEST_CASE("NPS4: each GPU local to its quadrant", "[topology][pairing]") {
  srt::NodeTopology t = srt::read_topology_xml(topology_fixture("nps4"));
  check_pairs(t, kPollara);
  for (const srt::Gpu& g : t.gpus) {
    INFO(g.bus_id);
    int q = g.index;
    CHECK(g.numa == q);
    CHECK(g.cpuset == std::to_string(16 * q) + "-" + std::to_string(16 * q + 15) + "," +
                          std::to_string(128 + 16 * q) + "-" + std::to_string(128 + 16 * q + 15));
  }
}

TEST_CASE("Thor2 bnxt_re: NIC 3 bridges deep, GPU 5 (hwloc's own LCA would crash)", "[topology][pairing]") {
  srt::NodeTopology t = srt::read_topology_xml(topology_fixture("thor2"));
  check_pairs(t, kThor2);
  check_nps1_locality(t);
  check_frontend_cx7(t, 1);
}

TEST_CASE("ConnectX-7 rails: mlx5 names never decide, the frontend mlx5_0/1 stay frontend", "[topology][pairing]") {
  srt::NodeTopology t = srt::read_topology_xml(topology_fixture("cx7"));
  check_pairs(t, kCx7);
  check_frontend_cx7(t, 1);
}

TEST_CASE("Two GPUs and two NICs per switch: bus-order zip, not document order", "[topology][pairing]") {
  srt::NodeTopology t = srt::read_topology_xml(topology_fixture("shared-switch"));
  check_pairs(t, kPollara);
  check_nps1_locality(t);
}

TEST_CASE("A fixture that does not exist is a clear error", "[topology]") {
  CHECK_THROWS_WITH(srt::read_topology_xml("/nonexistent/topo.xml"), Catch::Contains("/nonexistent/topo.xml"));
}

// ---- pair_nics on hand-made paths ----------------------------------------------------------

namespace {

constexpr std::uint64_t kPackage = 1, kHost = 2, kRoot = 3, kUsp = 4;

srt::PciAncestor bridge(std::uint64_t id, int depth) { return {id, depth, true}; }

// GPU/NIC under switch USP kUsp, through downstream port `dsp` (+ extra inner bridges).
srt::PciEndpoint under_switch(const std::string& bus, std::uint64_t dsp, std::vector<srt::PciAncestor> inner = {}) {
  srt::PciEndpoint e{bus, std::move(inner)};
  e.path.push_back(bridge(dsp, 3));
  e.path.push_back(bridge(kUsp, 2));
  e.path.push_back(bridge(kRoot, 1));
  e.path.push_back({kHost, 0, false});
  e.path.push_back({kPackage, -1, false});
  return e;
}

}  // namespace

TEST_CASE("pair_nics: a NIC on the GPU's own downstream port beats bus-order zip", "[topology][pairing]") {
  // A and nic_a share DSP 10 (depth 3); B meets both NICs only at the USP (depth 2). A plain
  // zip at the USP would give B(10)-nic_a(05) and A(20)-nic_b(30).
  std::vector<srt::PciEndpoint> gpus = {under_switch("0000:20:00.0", 10, {bridge(50, 4)}),
                                        under_switch("0000:10:00.0", 11)};
  std::vector<srt::PciEndpoint> nics = {under_switch("0000:05:00.0", 10), under_switch("0000:30:00.0", 12)};
  srt::NicPairing p = srt::pair_nics(gpus, nics);
  CHECK(p.nic_of_gpu == std::vector<int>{0, 1});
  CHECK(p.shared == std::vector<bool>{false, false});
}

TEST_CASE("pair_nics: zip is by bus id whatever the input order", "[topology][pairing]") {
  std::vector<srt::PciEndpoint> gpus = {under_switch("0000:15:00.0", 11), under_switch("0000:05:00.0", 10)};
  std::vector<srt::PciEndpoint> nics = {under_switch("0000:18:00.0", 13), under_switch("0000:08:00.0", 12)};
  srt::NicPairing p = srt::pair_nics(gpus, nics);
  CHECK(p.nic_of_gpu == std::vector<int>{0, 1});  // 15 -> 18, 05 -> 08
}

TEST_CASE("pair_nics: one NIC for two GPUs is shared, not dropped", "[topology][pairing]") {
  std::vector<srt::PciEndpoint> gpus = {under_switch("0000:05:00.0", 10), under_switch("0000:15:00.0", 11)};
  std::vector<srt::PciEndpoint> nics = {under_switch("0000:08:00.0", 12)};
  srt::NicPairing p = srt::pair_nics(gpus, nics);
  CHECK(p.nic_of_gpu == std::vector<int>{0, 0});
  CHECK(p.shared == std::vector<bool>{true, true});
}

TEST_CASE("pair_nics: a NIC meeting the GPU only at the host bridge is never paired", "[topology][pairing]") {
  std::vector<srt::PciEndpoint> gpus = {under_switch("0000:05:00.0", 10)};
  srt::PciEndpoint frontend{"0000:c1:00.0", {bridge(90, 1), {kHost, 0, false}, {kPackage, -1, false}}};
  srt::NicPairing p = srt::pair_nics(gpus, {frontend});
  CHECK(p.nic_of_gpu == std::vector<int>{-1});
  CHECK(srt::pair_nics({}, {frontend}).nic_of_gpu.empty());
}
