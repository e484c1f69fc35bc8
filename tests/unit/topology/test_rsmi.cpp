// ROCm SMI join and partition detection without a GPU (the real library on a fake /sys is
// test_rsmi_namespace.cpp).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fixtures.hpp"
#include "srt/topology.hpp"

namespace fs = std::filesystem;

namespace {

struct KfdTree {
  fs::path root;
  KfdTree() {
    std::string tmpl = (fs::temp_directory_path() / "srt-kfd-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    root = tmpl;
  }
  ~KfdTree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  // CPU nodes first, then `gpu_nodes` GPU nodes, as KFD numbers them.
  void add_nodes(int cpu_nodes, int gpu_nodes) {
    fs::path nodes = root / "class/kfd/kfd/topology/nodes";
    for (int n = 0; n < cpu_nodes + gpu_nodes; ++n) {
      fs::create_directories(nodes / std::to_string(n) / "io_links");
      std::ofstream(nodes / std::to_string(n) / "properties")
          << "cpu_cores_count " << (n < cpu_nodes ? 128 : 0) << "\nsimd_count " << (n < cpu_nodes ? 0 : 1024)
          << "\nlocation_id 1280\n";
    }
  }
};

}  // namespace

TEST_CASE("Partition mode from KFD nodes per PCI GPU", "[topology][rsmi]") {
  CHECK(srt::detect_partition_mode("/nonexistent-sysfs", 8) == "unknown");
  CHECK(srt::detect_partition_mode("", 8) == "unknown");
  struct Case {
    int kfd_gpus;
    const char* mode;
  };
  for (Case c : {Case{8, "SPX"}, Case{16, "DPX"}, Case{32, "QPX"}, Case{64, "CPX"}, Case{12, "unknown"}}) {
    KfdTree tree;
    tree.add_nodes(2, c.kfd_gpus);
    INFO(c.kfd_gpus << " KFD GPU nodes");
    CHECK(srt::detect_partition_mode(tree.root.string(), 8) == c.mode);
  }
  KfdTree cpu_only;
  cpu_only.add_nodes(2, 0);
  CHECK(srt::detect_partition_mode(cpu_only.root.string(), 8) == "unknown");
}

TEST_CASE("An absent ROCm SMI library means a message and an hwloc-only inventory", "[topology][rsmi]") {
  srt::RsmiInventory inv = srt::query_rsmi({"libsrt-no-such-rocm-smi.so.1"});
  CHECK_FALSE(inv.available);
  CHECK(inv.message.find("not found") != std::string::npos);
  srt::NodeTopology t = srt::read_topology_xml(srt::test::topology_fixture("pollara"));
  const std::string source = t.source;
  srt::merge_rsmi(t, inv);
  CHECK(t.source == source);
  REQUIRE(t.notes.size() == 1);
  CHECK(t.notes[0] == inv.message);
  CHECK(t.gpus.size() == 8);
}

TEST_CASE("ROCm SMI joins on bus id, whatever its index order", "[topology][rsmi]") {
  srt::NodeTopology t = srt::read_topology_xml(srt::test::topology_fixture("pollara"));
  srt::RsmiInventory inv;
  inv.available = true;
  // rsmi index order follows DRM card order; here deliberately not PCI order.
  inv.gpus = {{"0000:f5:00.0", "f5f5", "AMD Instinct MI355X", 1},
              {"0000:05:00.0", "0505", "AMD Instinct MI355X", 0},
              {"0000:aa:00.0", "aaaa", "AMD Instinct MI355X", 1}};
  srt::merge_rsmi(t, inv);
  CHECK(t.gpus[0].unique_id == "0505");
  CHECK(t.gpus[7].unique_id == "f5f5");
  CHECK(t.gpus[3].unique_id.empty());
  CHECK(t.source.size() > 5);
  CHECK(t.source.substr(t.source.size() - 5) == "+rsmi");
  // One GPU ROCm SMI has that hwloc lacks, six hwloc GPUs ROCm SMI lacks: all said.
  CHECK(t.notes.size() == 7);
  CHECK(t.notes[0].find("0000:aa:00.0") != std::string::npos);
}

TEST_CASE("On a machine without AMD GPUs the real library declines politely", "[topology][rsmi]") {
  srt::RsmiInventory inv = srt::query_rsmi();
  if (inv.available) {
    SUCCEED("ROCm SMI initialised here: " << inv.message);
  } else {
    CHECK_FALSE(inv.message.empty());
    CHECK(inv.gpus.empty());
  }
}
