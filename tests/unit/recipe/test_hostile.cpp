// Hostile files: nothing blocks, nothing crashes, nothing leaks the content, everything is fast.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "srt/document.hpp"
#include "srt/recipe.hpp"
#include "srt/files.hpp"
#include "scratch_dir.hpp"

namespace {

using TempDir = srt_test::ScratchDir;

std::string error_of(const std::string& path, const srt::ReadOptions& opts = {}) {
  try {
    srt::load_yaml_file(path, opts);
  } catch (const srt::Error& e) {
    return e.what();
  }
  return "";
}

std::string parse_error(const std::string& text, const srt::ReadOptions& opts = {}) {
  try {
    srt::parse_yaml(text, "h.yaml", opts);
  } catch (const srt::Error& e) {
    return e.what();
  }
  return "";
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("special files are refused without blocking", "[hostile]") {
  TempDir dir;
  const std::string fifo = dir.str() + "/fifo.yaml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto t0 = std::chrono::steady_clock::now();
  CHECK_THAT(error_of(fifo), Catch::Contains("is a FIFO"));
  CHECK(seconds_since(t0) < 1.0);
  CHECK_THAT(error_of("/dev/zero"), Catch::Contains("character device"));
  CHECK_THAT(error_of(dir.str()), Catch::Contains("is a directory"));
  CHECK_THAT(error_of(dir.str() + "/missing.yaml"), Catch::Contains("cannot open"));
}

TEST_CASE("symlinks to files that are not recipes never leak their content", "[hostile]") {
  TempDir dir;
  const std::string secret = dir.write("secret", "password: [hunter2\n");
  const std::string binary = dir.write("binary", std::string("token=hunter2\0\x01\x02", 16));
  const std::string link1 = dir.str() + "/r1.yaml", link2 = dir.str() + "/r2.yaml", dangling = dir.str() + "/r3.yaml";
  REQUIRE(::symlink(secret.c_str(), link1.c_str()) == 0);
  REQUIRE(::symlink(binary.c_str(), link2.c_str()) == 0);
  REQUIRE(::symlink((dir.str() + "/nowhere").c_str(), dangling.c_str()) == 0);
  for (const auto& p : {link1, link2, dangling}) {
    const std::string msg = error_of(p);
    CHECK(!msg.empty());
    CHECK(msg.find("hunter2") == std::string::npos);
  }
  ::chmod(secret.c_str(), 0);
  CHECK(error_of(link1).find("hunter2") == std::string::npos);
}

TEST_CASE("a 100 MB file is refused by its size before it is read", "[hostile]") {
  TempDir dir;
  const std::string big = dir.str() + "/big.yaml";
  int fd = ::open(big.c_str(), O_CREAT | O_WRONLY, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, 100LL * 1024 * 1024) == 0);
  ::close(fd);
  auto t0 = std::chrono::steady_clock::now();
  CHECK_THAT(error_of(big), Catch::Contains("104857600 bytes; the limit is"));
  CHECK(seconds_since(t0) < 0.5);
  CHECK_THROWS_WITH(srt::parse_yaml(std::string(2u << 20, ' '), "big"), Catch::Contains("limit"));
}

TEST_CASE("nesting 10000 deep is refused before yaml-cpp recurses", "[hostile]") {
  CHECK_THAT(parse_error("a: " + std::string(10000, '[')), Catch::Contains("nesting is deeper than 64"));
  CHECK_THAT(parse_error(std::string(10000, '[') + std::string(10000, ']')), Catch::Contains("nesting"));
  std::string braces;
  for (int i = 0; i < 10000; ++i) braces += "{a: ";
  CHECK_THAT(parse_error(braces), Catch::Contains("nesting"));
  std::string dashes;
  for (int i = 0; i < 10000; ++i) dashes += "- ";
  CHECK_THAT(parse_error(dashes + "x\n"), Catch::Contains("nesting"));
  std::string block;
  for (int i = 0; i < 300; ++i) block += std::string(static_cast<std::size_t>(i), ' ') + "a:\n";
  CHECK_THAT(parse_error(block), Catch::Contains("nesting"));
  // 60 levels is fine; brackets inside quotes, comments and block scalars do not count.
  std::string ok;
  for (int i = 0; i < 60; ++i) ok += "[";
  for (int i = 0; i < 60; ++i) ok += "]";
  CHECK_NOTHROW(srt::parse_yaml("a: " + ok + "\nb: '" + std::string(500, '[') + "'\nc: x # " +
                                    std::string(500, '{') + "\nd: |\n  " + std::string(500, '[') + "\n",
                                "ok.yaml"));
}

TEST_CASE("an alias bomb is refused quickly", "[hostile]") {
  std::string bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  const char* names = "abcdefghij";
  for (int i = 1; i < 10; ++i) {
    bomb += std::string(1, names[i]) + ": &" + names[i] + " [";
    for (int k = 0; k < 9; ++k) bomb += std::string(k ? ", *" : "*") + names[i - 1];
    bomb += "]\n";
  }
  auto t0 = std::chrono::steady_clock::now();
  CHECK_THAT(parse_error(bomb), Catch::Contains("alias bomb"));
  CHECK(seconds_since(t0) < 1.0);
  srt::ReadOptions small;
  small.limits.max_nodes = 50;
  CHECK_THAT(parse_error("a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nb: [*a, *a, *a, *a, *a, *a]\n", small), Catch::Contains("more than 50"));
}

TEST_CASE("text PyYAML refuses is refused with line and column", "[hostile]") {
  CHECK_THAT(parse_error("a: 1\nb: \xC3\x28\n"), Catch::Contains("h.yaml:2:4: invalid UTF-8"));
  CHECK_THAT(parse_error("a: \xC0\xAF\n"), Catch::Contains("invalid UTF-8"));        // overlong '/'
  CHECK_THAT(parse_error("a: \xED\xA0\x80\n"), Catch::Contains("invalid UTF-8"));    // surrogate
  CHECK_THAT(parse_error("a: \xF4\x90\x80\x80\n"), Catch::Contains("invalid UTF-8")); // > U+10FFFF
  CHECK_THAT(parse_error(std::string("a: 1\n  b\0c\n", 11)), Catch::Contains("h.yaml:2:4: NUL byte"));
  CHECK_THAT(parse_error("a: \x01\n"), Catch::Contains("control character #x0001"));
  CHECK_THAT(parse_error("a: \xC2\x80\n"), Catch::Contains("special character"));
  CHECK(parse_error("a: caf\xC3\xA9 \xF0\x9F\x9A\x80\n").empty());
}

TEST_CASE("double-quoted escapes of non-ASCII characters come out as UTF-8, as PyYAML reads them", "[hostile]") {
  // yaml-cpp decodes \_ and \N to the bytes 0xA0 and 0x85; the Plan's JSON could not be written
  // with them (fuzz.plan). PyYAML: "\_" = U+00A0, "\N" = U+0085, "\L" = U+2028, "\xe9" = U+00E9.
  auto doc = srt::parse_yaml("a: \"x\\_y\\Nz\\Lw\\xe9\"\n\"k\\_\": caf\xC3\xA9\n", "u.yaml");
  CHECK(doc.root["a"] == "x\xC2\xA0y\xC2\x85z\xE2\x80\xA8w\xC3\xA9");
  CHECK(doc.root.contains("k\xC2\xA0"));
  CHECK(doc.root["k\xC2\xA0"] == "caf\xC3\xA9");
  CHECK_NOTHROW(doc.root.dump());
}

TEST_CASE("CRLF line ends and a UTF-8 BOM are accepted", "[hostile]") {
  auto doc = srt::parse_yaml("\xEF\xBB\xBFname: x\r\nlist:\r\n  - 1\r\n  - 'two'\r\n", "w.yaml");
  CHECK(doc.root.dump() == R"({"name":"x","list":[1,"two"]})");
  CHECK(doc.marks.at("list[1]").line == 4);
}

TEST_CASE("a recursive alias is refused", "[hostile]") {
  CHECK_THAT(parse_error("a: &x\n  b: *x\n"), Catch::Contains("recursive"));
}
