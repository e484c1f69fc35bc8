// The per-node topology cache: boot-id keyed hwloc XML, atomic writes, refused unsafe places.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

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
  std::string xml = srt::export_topology_xml(srt::test::topology_fixture("thor2"));
  CHECK_FALSE(srt::read_topology_cache(dir, kBoot).has_value());  // no directory yet
  srt::write_topology_cache(dir, kBoot, xml);
  struct stat st {};
  REQUIRE(::stat((dir + "/topology-" + kBoot + ".xml").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);  // no temp left

  auto cached = srt::read_topology_cache(dir, kBoot);
  REQUIRE(cached.has_value());
  CHECK(*cached == xml);
  srt::NodeTopology t = srt::read_topology_xml_buffer(*cached, "cache");
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
  const std::string file = dir + "/topology-" + kBoot + ".xml";
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
  CHECK(second.source.rfind("hwloc:cache:", 0) == 0);
  CHECK(second.gpus.size() == first.gpus.size());
  CHECK(second.frontend_nics.size() == first.frontend_nics.size());

  // A corrupt cache is rediscovered and rewritten, with a note, never a failure.
  write_file(opts.cache_dir + "/topology-" + kBoot + ".xml", "not xml");
  srt::NodeTopology third = srt::load_topology(opts);
  CHECK(third.source == "hwloc:live");
  REQUIRE_FALSE(third.notes.empty());
  CHECK(third.notes[0].find("cache ignored") != std::string::npos);
  CHECK(srt::load_topology(opts).source.rfind("hwloc:cache:", 0) == 0);
}
