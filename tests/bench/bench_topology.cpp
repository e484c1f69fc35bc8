// How long a node takes to know its topology: cold (hwloc XML parse + walk of a fixture, and a
// live discovery of this machine) versus from the per-node cache of the derived inventory, which
// is what every srt task pays in slurmstepd. Target: < 20 ms from the cache.
//   bench_topology [RUNS] [FIXTURE.xml]
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "srt/error.hpp"
#include "srt/topology.hpp"

namespace fs = std::filesystem;

namespace {

struct Row {
  std::string name;
  double median_ms, min_ms, max_ms;
};

Row measure(const std::string& name, int runs, const std::function<void()>& body) {
  std::vector<double> ms;
  body();  // warm the page cache and the allocator: "cold" means no cache file, not a cold disk
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    body();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return {name, ms[ms.size() / 2], ms.front(), ms.back()};
}

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 21;
  std::string fixture = argc > 2 ? argv[2] : std::string(SRT_SOURCE_DIR) + "/tests/fixtures/topology/mi355x-8gpu-pollara.xml";
  if (runs < 1) runs = 1;
  try {
    std::string tmpl = (fs::temp_directory_path() / "srt-bench-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    const std::string cache_dir = tmpl + "/cache";
    const std::string boot = "00000000-0000-4000-8000-00000000beef";
    srt::write_topology_cache(cache_dir, boot, srt::encode_topology_cache(srt::read_topology_xml(fixture)));
    const auto cached_size = fs::file_size(cache_dir + "/topology-" + boot + ".json");

    std::size_t gpus = 0;
    std::vector<Row> rows;
    rows.push_back(measure("cold: fixture XML parse + walk", runs, [&] { gpus = srt::read_topology_xml(fixture).gpus.size(); }));
    rows.push_back(measure("cache: read + decode the inventory", runs, [&] {
      auto bytes = srt::read_topology_cache(cache_dir, boot);
      gpus = srt::decode_topology_cache(*bytes, "cache").gpus.size();
    }));
    rows.push_back(measure("cold: live hwloc discovery (this host)", runs, [&] {
      srt::TopologyOptions opts;
      opts.sysfs_root = "";
      srt::load_topology(opts);
    }));
    srt::NodeTopology topo = srt::read_topology_xml(fixture);
    rows.push_back(measure("bind_worker 1x8 (pure)", runs, [&] { srt::bind_worker(topo, {0, 1, 2, 3, 4, 5, 6, 7}, ""); }));

    std::printf("fixture: %s (%zu GPUs), cache file %ju bytes, %d runs each\n\n", fixture.c_str(), gpus,
                static_cast<std::uintmax_t>(cached_size), runs);
    std::printf("%-42s %10s %10s %10s\n", "what", "median ms", "min ms", "max ms");
    for (const Row& r : rows) std::printf("%-42s %10.3f %10.3f %10.3f\n", r.name.c_str(), r.median_ms, r.min_ms, r.max_ms);
    const double cache_ms = rows[1].median_ms;
    std::printf("\nfrom cache: %.3f ms median, target < 20 ms: %s\n", cache_ms, cache_ms < 20.0 ? "met" : "MISSED");
    std::error_code ec;
    fs::remove_all(tmpl, ec);
    return cache_ms < 20.0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_topology: %s\n", e.what());
    return 2;
  }
}
