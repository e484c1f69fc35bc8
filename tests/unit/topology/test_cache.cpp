// The per-node topology cache: the derived inventory keyed by boot id, atomic writes, refused
// unsafe places, and any file this version did not write refused before it can bind anything.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "fixtures.hpp"
#include "scratch_dir.hpp"
#include "srt/error.hpp"
#include "srt/topology.hpp"

namespace fs = std::filesystem;

namespace {

using TempDir = srt_test::ScratchDir;

const std::string kBoot = "503afb4b-00a2-4024-954f-af9cd4e26e7c";

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("Cache round trip keeps the inventory", "[topology][cache]") {
  TempDir tmp;
  const std::string dir = tmp / "cache";
  std::string bytes = srt::encode_topology_cache(srt::read_topology_xml(srt::test::topology_fixture("thor2")));
  CHECK_FALSE(srt::read_topology_cache(dir, kBoot).has_value());  // no directory yet
  srt::write_topology_cache(dir, kBoot, bytes);
  struct stat st {};
  REQUIRE(::stat((dir + "/topology-" + kBoot + ".json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);  // no temp left

  auto cached = srt::read_topology_cache(dir, kBoot);
  REQUIRE(cached.has_value());
  CHECK(*cached == bytes);
  srt::NodeTopology t = srt::decode_topology_cache(*cached, "cache");
  REQUIRE(t.gpus.size() == 8);
  CHECK(t.gpus[7].nic->rdma == "bnxt_re2");
  CHECK_FALSE(srt::read_topology_cache(dir, "00000000-0000-0000-0000-000000000000").has_value());

  srt::write_topology_cache(dir, kBoot, "<replaced/>");  // rename over the old file
  CHECK(*srt::read_topology_cache(dir, kBoot) == "<replaced/>");
}

TEST_CASE("Unsafe cache directories and files are refused", "[topology][cache]") {
  TempDir tmp;
  const std::string dir = tmp / "cache";
  srt::write_topology_cache(dir, kBoot, "<x/>");

  ::chmod(dir.c_str(), 0777);
  CHECK_THROWS_WITH(srt::read_topology_cache(dir, kBoot), Catch::Contains("writable by everyone"));
  CHECK_THROWS_WITH(srt::write_topology_cache(dir, kBoot, "<y/>"), Catch::Contains("writable by everyone"));
  ::chmod(dir.c_str(), 01777);  // sticky, like /tmp: fine
  CHECK(srt::read_topology_cache(dir, kBoot).has_value());
  ::chmod(dir.c_str(), 0755);

  fs::create_directory_symlink(dir, tmp / "link");
  CHECK_THROWS_AS(srt::read_topology_cache(tmp / "link", kBoot), srt::Error);

  if (::geteuid() == 0) {
    REQUIRE(::chown(dir.c_str(), 65534, 65534) == 0);
    CHECK_THROWS_WITH(srt::read_topology_cache(dir, kBoot), Catch::Contains("owned by uid 65534"));
    REQUIRE(::chown(dir.c_str(), 0, 0) == 0);
  }

  // A planted symlink in place of the cache file is not followed for reading, and a write
  // replaces the link itself, leaving its target alone.
  const std::string file = dir + "/topology-" + kBoot + ".json";
  write_file(tmp / "victim", "precious");
  fs::remove(file);
  fs::create_symlink(tmp / "victim", file);
  CHECK_THROWS_AS(srt::read_topology_cache(dir, kBoot), srt::Error);
  srt::write_topology_cache(dir, kBoot, "<z/>");
  CHECK_FALSE(fs::is_symlink(file));
  std::ifstream victim(tmp / "victim");
  std::string content((std::istreambuf_iterator<char>(victim)), std::istreambuf_iterator<char>());
  CHECK(content == "precious");

  CHECK_THROWS_WITH(srt::read_topology_cache(dir, "../../etc/passwd"), Catch::Contains("not a UUID"));
}

TEST_CASE("Boot id is read and checked", "[topology][cache]") {
  TempDir tmp;
  write_file(tmp / "boot_id", kBoot + "\n");
  CHECK(srt::read_boot_id(tmp / "boot_id") == kBoot);
  write_file(tmp / "bad", "../evil\n");
  CHECK_THROWS_AS(srt::read_boot_id(tmp / "bad"), srt::Error);
  CHECK_THROWS_AS(srt::read_boot_id(tmp / "missing"), srt::Error);
}

TEST_CASE("load_topology discovers once per boot, then reads the cache", "[topology][cache]") {
  TempDir tmp;
  write_file(tmp / "boot_id", kBoot + "\n");
  srt::TopologyOptions opts;
  opts.cache_dir = tmp / "cache";
  opts.boot_id_path = tmp / "boot_id";
  opts.sysfs_root = "";
  srt::NodeTopology first = srt::load_topology(opts);
  CHECK(first.source == "hwloc:live");
  CHECK(first.partition_mode == "unknown");
  srt::NodeTopology second = srt::load_topology(opts);
  CHECK(second.source.rfind("cache:", 0) == 0);
  CHECK(second.gpus.size() == first.gpus.size());
  CHECK(second.frontend_nics.size() == first.frontend_nics.size());

  // A corrupt cache is rediscovered and rewritten, with a note, never a failure.
  write_file(opts.cache_dir + "/topology-" + kBoot + ".json", "not json");
  srt::NodeTopology third = srt::load_topology(opts);
  CHECK(third.source == "hwloc:live");
  REQUIRE_FALSE(third.notes.empty());
  CHECK(third.notes[0].find("cache ignored") != std::string::npos);
  CHECK(srt::load_topology(opts).source.rfind("cache:", 0) == 0);
}

namespace {

bool same_nic(const srt::Nic& a, const srt::Nic& b) {
  return a.rdma == b.rdma && a.netdev == b.netdev && a.bus_id == b.bus_id && a.numa == b.numa;
}

}  // namespace

TEST_CASE("The cache gives back every fixture's inventory, and the same bindings", "[topology][cache]") {
  for (const char* name : {"pollara", "thor2", "cx7", "nps4", "shared-switch"}) {
    INFO(name);
    const srt::NodeTopology from_xml = srt::read_topology_xml(srt::test::topology_fixture(name));
    const srt::NodeTopology back = srt::decode_topology_cache(srt::encode_topology_cache(from_xml), "c");
    REQUIRE(back.gpus.size() == from_xml.gpus.size());
    for (std::size_t i = 0; i < back.gpus.size(); ++i) {
      const srt::Gpu& a = from_xml.gpus[i];
      const srt::Gpu& b = back.gpus[i];
      CHECK(b.index == a.index);
      CHECK(b.bus_id == a.bus_id);
      CHECK(b.device_id == a.device_id);
      CHECK(b.numa == a.numa);
      CHECK(b.cpuset == a.cpuset);
      CHECK(b.nic_shared == a.nic_shared);
      REQUIRE(b.nic.has_value() == a.nic.has_value());
      if (a.nic) CHECK(same_nic(*b.nic, *a.nic));
    }
    REQUIRE(back.frontend_nics.size() == from_xml.frontend_nics.size());
    for (std::size_t i = 0; i < back.frontend_nics.size(); ++i) CHECK(same_nic(back.frontend_nics[i], from_xml.frontend_nics[i]));
    const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7};
    CHECK(srt::bind_worker(back, all, "").mooncake_topology == srt::bind_worker(from_xml, all, "").mooncake_topology);
    CHECK(back.source == "c");
  }
}

TEST_CASE("A cache file this version did not write is refused, never bound", "[topology][cache][hostile]") {
  const std::string good = srt::encode_topology_cache(srt::read_topology_xml(srt::test::topology_fixture("pollara")));
  auto edited = [&](const std::function<void(srt::Json&)>& edit) {
    srt::Json j = srt::Json::parse(good);
    edit(j);
    return j.dump();
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"<?xml version=\"1.0\"?><topology/>", "not a JSON object"},  // an old cache (hwloc XML)
      {"[]", "not a JSON object"},
      {std::string(100, '[') + std::string(100, ']'), "not a JSON object"},
      {edited([](srt::Json& j) { j["format"] = "hwloc"; }), "no format"},
      {edited([](srt::Json& j) { j["version"] = 2; }), "version 2, this srt-spank reads 1"},
      {edited([](srt::Json& j) { j.erase("version"); }), "version missing"},
      {edited([](srt::Json& j) { j["gpus"] = srt::Json::object(); }), "gpus is not an array"},
      {edited([](srt::Json& j) { j["gpus"][3]["index"] = 7; }), "gpus[3].index is not 3"},
      {edited([](srt::Json& j) { j["gpus"][0]["index"] = -1; }), "gpus[0].index is not 0"},
      {edited([](srt::Json& j) { j["gpus"][0]["numa"] = 4294967296LL; }), "gpus[0].numa is not an integer"},
      {edited([](srt::Json& j) { j["gpus"][0]["numa"] = 1.5; }), "gpus[0].numa is not an integer"},
      {edited([](srt::Json& j) { j["gpus"][1]["device_id"] = "0x75a3"; }), "gpus[1].device_id is not a PCI device id"},
      {edited([](srt::Json& j) { j["gpus"][2]["cpuset"] = 5; }), "gpus[2].cpuset is not a string"},
      {edited([](srt::Json& j) { j["gpus"][2].erase("nic"); }), "gpus[2].nic is missing"},
      {edited([](srt::Json& j) { j["gpus"][2]["nic"]["rdma"] = nullptr; }), "gpus[2].nic.rdma is not a string"},
      {edited([](srt::Json& j) { j["gpus"][2]["nic_shared"] = "no"; }), "gpus[2].nic_shared is not a boolean"},
      {edited([](srt::Json& j) { j["frontend_nics"] = 1; }), "frontend_nics is not an array"},
      {edited([](srt::Json& j) { j["gpus"] = srt::Json(std::vector<int>(2000, 0)); }), "more than 1024 entries"},
  };
  for (const auto& [bytes, why] : cases) {
    INFO(why);
    CHECK_THROWS_WITH(srt::decode_topology_cache(bytes, "/c/topology-x.json"),
                      Catch::Contains("/c/topology-x.json: not a topology cache srt-spank wrote (") && Catch::Contains(why));
  }
}
