// The real ROCm SMI library (Debian's rocm_smi 5.2.3, dlopened by srt_core) on a fake /sys in a
// private mount namespace (reference/mi355x-topology.md §4.4). main() builds the tree, enters
// the namespace and binds it over /sys before any test runs; everything else in /sys is hidden
// from this process only. Exit 77 = skipped (ctest SKIP_RETURN_CODE): not root, or no unshare.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <sched.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "srt/topology.hpp"

extern char** environ;

namespace fs = std::filesystem;

namespace {

fs::path g_scratch;

constexpr int kSkip = 77;

// Debian's python3: the one on PATH may be another interpreter without the same stdlib state.
bool build_fake_sysfs(const std::string& out, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"/usr/bin/python3", srt::test::fake_sysfs_builder()};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(out);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return false;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string expected_uid(int gpu) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llx", 0x5A17C0DE00000000ULL + 0x1111ULL * static_cast<unsigned>(gpu + 1));
  return buf;
}

}  // namespace

TEST_CASE("Real ROCm SMI sees 8 MI355X on the fake /sys", "[rsmi]") {
  srt::RsmiInventory inv = srt::query_rsmi();
  INFO(inv.message);
  REQUIRE(inv.available);
  REQUIRE(inv.gpus.size() == 8);
  for (const srt::RsmiGpu& g : inv.gpus) {
    CHECK(g.name == "AMD Instinct MI355X");
    CHECK((g.numa == 0 || g.numa == 1));
  }
  // Card order is scrambled in the fake tree: rsmi index 0 is the GPU at bus 75.
  CHECK(inv.gpus[0].bus_id == "0000:75:00.0");
  CHECK(inv.gpus[0].unique_id == expected_uid(3));
}

TEST_CASE("ROCm SMI joins the hwloc fixture on bus id", "[rsmi]") {
  srt::TopologyOptions opts;
  opts.xml_path = srt::test::topology_fixture("pollara");
  opts.use_rsmi = true;
  opts.sysfs_root = "/sys";
  srt::NodeTopology t = srt::load_topology(opts);
  INFO(srt::topology_to_json(t).dump(2));
  CHECK(t.notes.empty());
  CHECK(t.partition_mode == "SPX");
  CHECK(t.source == "hwloc:" + opts.xml_path + "+rsmi");
  REQUIRE(t.gpus.size() == 8);
  for (const srt::Gpu& g : t.gpus) {
    INFO(g.bus_id);
    CHECK(g.unique_id == expected_uid(g.index));
    CHECK(g.numa == (g.index < 4 ? 0 : 1));
  }
}

TEST_CASE("CPX on the fake KFD tree is detected and refused", "[rsmi]") {
  const std::string cpx = (g_scratch / "cpx").string();
  REQUIRE(build_fake_sysfs(cpx, {"--xcp", "8"}));
  CHECK(srt::detect_partition_mode(cpx, 8) == "CPX");
  srt::NodeTopology t = srt::read_topology_xml(srt::test::topology_fixture("pollara"));
  t.partition_mode = srt::detect_partition_mode(cpx, t.gpus.size());
  CHECK_THROWS_WITH(srt::bind_worker(t, {0}, ""), Catch::Contains("CPX"));
}

// The same library and tree, with this test process holding GPU 3 (bus 75, rsmi index 0 in the
// scrambled order) with 160 GiB, and 5000 MiB on GPU 6 that no process holds: what gpu-check
// reads before any worker starts.
TEST_CASE("Real ROCm SMI sees the busy GPU: its PID, its GPU and the VRAM in use", "[rsmi]") {
  srt::RsmiUsage u = srt::query_rsmi_usage();
  INFO(u.message);
  REQUIRE(u.available);
  REQUIRE(u.gpus.size() == 8);
  REQUIRE(u.processes.size() == 1);
  const srt::RsmiProcess& p = u.processes[0];
  CHECK(p.pid == static_cast<int>(::getpid()));
  CHECK(p.bus_ids == std::vector<std::string>{"0000:75:00.0"});
  // The holder opened GPU 3 alone, as a worker with ROCR_VISIBLE_DEVICES does; 5.2.3 then
  // cannot sum its VRAM (see RsmiProcess), and gpu-check names the GPU's memory instead.
  CHECK((!p.vram_known || p.vram == 160ull << 30));
  for (const srt::RsmiGpuMemory& g : u.gpus) {
    INFO(g.bus_id);
    REQUIRE(g.known);
    CHECK(g.total == 288ull << 30);
    const std::uint64_t idle = 300ull << 20;
    CHECK(g.used == (g.bus_id == "0000:75:00.0" ? idle + (160ull << 30)
                     : g.bus_id == "0000:e5:00.0" ? idle + (5000ull << 20) : idle));
  }
}

int main(int argc, char** argv) {
  if (::geteuid() != 0) {
    std::puts("SKIP: needs root for a private mount namespace and a bind mount over /sys");
    return kSkip;
  }
  std::string tmpl = (fs::temp_directory_path() / "srt-fakesys-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) {
    std::perror("mkdtemp");
    return 1;
  }
  g_scratch = tmpl;
  const std::string sys = (g_scratch / "sys").string();
  int rc = 1;
  const std::string busy = std::to_string(::getpid()) + ":3:" + std::to_string(160 * 1024);
  if (!build_fake_sysfs(sys, {"--cards-order", "scrambled", "--busy", busy, "--vram-used", "6:5000"})) {
    std::fprintf(stderr, "cannot build the fake sysfs with %s\n", srt::test::fake_sysfs_builder().c_str());
  } else if (::unshare(CLONE_NEWNS) != 0) {
    std::printf("SKIP: unshare(CLONE_NEWNS): %s\n", std::strerror(errno));
    rc = kSkip;
  } else if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
             ::mount(sys.c_str(), "/sys", nullptr, MS_BIND, nullptr) != 0) {
    bool denied = errno == EPERM || errno == EACCES;
    std::printf("%s: mount in the private namespace: %s\n", denied ? "SKIP" : "FAIL", std::strerror(errno));
    rc = denied ? kSkip : 1;
  } else {
    rc = Catch::Session().run(argc, argv);
    ::umount2("/sys", MNT_DETACH);
  }
  std::error_code ec;
  fs::remove_all(g_scratch, ec);
  return rc;
}
