// sys/safe_dir: directories only this user can change, files made there without following a
// link (planted_files_test.sh drives the commands that use it).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "srt/safe_dir.hpp"
#include "srt/error.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using srt::helper::SafeDir;

namespace {

const SafeDir::Purpose kJobDir{"job directory", "remove it or choose another results_root"};

using Scratch = srt_test::ScratchDir;

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("A job directory is created with its parents and reopened when it is ours", "[helper][safe_dir]") {
  Scratch tmp;
  const std::string path = tmp / "results/4242";
  auto dir = SafeDir::open(path, kJobDir, true);
  REQUIRE(dir);
  CHECK(fs::is_directory(path));
  CHECK(dir->path() == path);
  CHECK(SafeDir::open(path, kJobDir, true));  // a rerun of the same job id
  CHECK_FALSE(SafeDir::open(tmp / "results/missing", kJobDir, false));
  CHECK_FALSE(SafeDir::open(tmp / "nowhere/missing", kJobDir, false));
  auto logs = dir->sub("logs", true);
  REQUIRE(logs);
  CHECK(fs::is_directory(path + "/logs"));
}

TEST_CASE("Directories others made or can write are refused with path and owner and remedy", "[helper][safe_dir]") {
  Scratch tmp;
  const std::string path = tmp / "4242";
  fs::create_directory(path);

  ::chmod(path.c_str(), 0777);
  CHECK_THROWS_WITH(SafeDir::open(path, kJobDir, true),
                    Catch::Contains(path + " is writable by everyone (mode 0777)") &&
                        Catch::Contains("chmod go-w " + path + ", or remove it or choose another results_root"));
  ::chmod(path.c_str(), 0775);
  CHECK_THROWS_WITH(SafeDir::open(path, kJobDir, true), Catch::Contains("writable by its group"));
  ::chmod(path.c_str(), 0755);
  CHECK(SafeDir::open(path, kJobDir, true));

  fs::create_directory_symlink(path, tmp / "link");
  CHECK_THROWS_WITH(SafeDir::open(tmp / "link", kJobDir, true),
                    Catch::Contains(tmp / "link" + " is a symbolic link (to " + path) &&
                        Catch::Contains("remove it or choose another results_root"));
  put(tmp / "file", "x");
  CHECK_THROWS_WITH(SafeDir::open(tmp / "file", kJobDir, true), Catch::Contains("is not a directory"));

  // A parent everyone can write without the sticky bit: the directory could be swapped.
  const std::string open_root = tmp / "open";
  fs::create_directory(open_root);
  ::chmod(open_root.c_str(), 0777);
  CHECK_THROWS_WITH(SafeDir::open(open_root + "/1", kJobDir, true), Catch::Contains("without the sticky bit"));
  ::chmod(open_root.c_str(), 01777);  // sticky, like /tmp: fine
  CHECK(SafeDir::open(open_root + "/1", kJobDir, true));

  if (::geteuid() == 0) {
    REQUIRE(::chown(path.c_str(), 65534, 65534) == 0);
    CHECK_THROWS_WITH(SafeDir::open(path, kJobDir, true),
                      Catch::Contains(path + " is owned by uid 65534") && Catch::Contains("not by this user, uid 0") &&
                          Catch::Contains("remove it or choose another results_root"));
    auto parent = SafeDir::open(tmp / "", kJobDir, false);
    REQUIRE(parent);
    CHECK_THROWS_WITH(parent->sub("4242", false), Catch::Contains("owned by uid 65534"));
  }
}

TEST_CASE("Files are replaced atomically and never written through a planted link", "[helper][safe_dir]") {
  Scratch tmp;
  auto dir = SafeDir::open(tmp / "job", kJobDir, true);
  REQUIRE(dir);
  const std::string victim = tmp / "victim";
  put(victim, "precious");
  fs::create_symlink(victim, dir->path_of("status.json"));
  fs::create_symlink(victim, dir->path_of("status.json.tmp"));  // the old, predictable temporary name

  dir->write_file("status.json", "{}\n");
  CHECK_FALSE(fs::is_symlink(dir->path_of("status.json")));
  CHECK(slurp(dir->path_of("status.json")) == "{}\n");
  CHECK(slurp(victim) == "precious");
  const mode_t mask = ::umask(0);
  ::umask(mask);
  CHECK(fs::status(dir->path_of("status.json")).permissions() == fs::perms(0644 & ~mask));

  // An uncommitted file leaves nothing behind.
  { auto f = dir->new_file("logs.tar.gz"); f.write("partial"); }
  CHECK_FALSE(fs::exists(dir->path_of("logs.tar.gz")));
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir->path())) entries += e.path().filename().string().rfind(".logs.tar.gz", 0) == 0;
  CHECK(entries == 0);
}

TEST_CASE("Appending refuses a symlink or FIFO or hard link and reading takes regular files only", "[helper][safe_dir]") {
  Scratch tmp;
  auto dir = SafeDir::open(tmp / "logs", kJobDir, true);
  REQUIRE(dir);
  const std::string victim = tmp / "authorized_keys";
  put(victim, "ssh-ed25519 AAAA victim");
  fs::create_symlink(victim, dir->path_of("sweep_1.log"));
  CHECK_THROWS_WITH(dir->append_file("sweep_1.log"), Catch::Contains("is a symbolic link (to " + victim));
  CHECK_FALSE(dir->read_file("sweep_1.log"));
  REQUIRE(::mkfifo(dir->path_of("fifo").c_str(), 0644) == 0);
  CHECK_THROWS_AS(dir->append_file("fifo"), srt::Error);
  CHECK_FALSE(dir->read_file("fifo"));
  fs::create_hard_link(victim, dir->path_of("hard.log"));
  CHECK_THROWS_WITH(dir->append_file("hard.log"), Catch::Contains("other links (2)"));
  CHECK(slurp(victim) == "ssh-ed25519 AAAA victim");

  {
    srt::UniqueFd log = dir->append_file("sweep_2.log");
    REQUIRE(::write(log.get(), "a\n", 2) == 2);
  }
  {
    srt::UniqueFd log = dir->append_file("sweep_2.log");
    REQUIRE(::write(log.get(), "b\n", 2) == 2);
  }
  CHECK(*dir->read_file("sweep_2.log") == "a\nb\n");
  CHECK_FALSE(dir->read_file("missing"));
  CHECK_FALSE(dir->read_file("sweep_2.log", 3));  // over the limit
}

TEST_CASE("A tree is copied without following links and says what it left out", "[helper][safe_dir]") {
  Scratch tmp;
  const std::string home = tmp / "home";
  fs::create_directories(home + "/.ssh");
  put(home + "/.ssh/authorized_keys", "key");
  put(home + "/secret", "secret");

  auto from = SafeDir::open(tmp / "results/7", kJobDir, true);
  REQUIRE(from);
  fs::create_directories(from->path_of("fixed-seq"));
  put(from->path_of("fixed-seq/run-c4.json"), "{\"completed\": 4}");
  put(from->path_of("status.json"), "{}");
  fs::create_directory_symlink(home, from->path_of("home"));
  fs::create_symlink(home + "/secret", from->path_of("fixed-seq/run-c8.json"));
  REQUIRE(::mkfifo(from->path_of("pipe").c_str(), 0644) == 0);

  auto to = SafeDir::open(tmp / "pub/7", kJobDir, true);
  REQUIRE(to);
  // A link already at the destination is replaced, not written through.
  fs::create_symlink(home + "/secret", to->path_of("status.json"));
  const auto left_out = srt::helper::copy_tree(*from, *to);

  CHECK(slurp(to->path_of("fixed-seq/run-c4.json")) == "{\"completed\": 4}");
  CHECK(slurp(to->path_of("status.json")) == "{}");
  CHECK_FALSE(fs::is_symlink(to->path_of("status.json")));
  CHECK(slurp(home + "/secret") == "secret");
  CHECK_FALSE(fs::exists(fs::symlink_status(to->path_of("home"))));
  CHECK_FALSE(fs::exists(fs::symlink_status(to->path_of("fixed-seq/run-c8.json"))));
  CHECK_FALSE(fs::exists(fs::symlink_status(to->path_of("pipe"))));
  REQUIRE(left_out.size() == 3);
  CHECK(left_out[0] == from->path_of("fixed-seq") + "/run-c8.json: a symbolic link (not followed)");
  CHECK(left_out[1] == from->path_of("home") + ": a symbolic link (not followed)");
  CHECK(left_out[2] == from->path_of("pipe") + ": a FIFO");
}

TEST_CASE("A private temporary directory is the user's alone and goes with what it holds", "[helper][safe_dir]") {
  std::string path;
  {
    srt::helper::TempDir tmp("srt-safe-dir-test.");
    path = tmp.dir().path();
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    CHECK(st.st_uid == ::geteuid());
    tmp.dir().write_file("recipe.yaml", "name: x\n");
    CHECK(slurp(path + "/recipe.yaml") == "name: x\n");
  }
  CHECK_FALSE(fs::exists(path));
}

TEST_CASE("only_this_user_writes: our own directory and not a shared one", "[helper][safe_dir]") {
  Scratch tmp;
  const std::string dir = tmp / "root";
  fs::create_directory(dir);
  ::chmod(dir.c_str(), 0755);
  CHECK(srt::helper::only_this_user_writes(dir));
  ::chmod(dir.c_str(), 01777);
  CHECK_FALSE(srt::helper::only_this_user_writes(dir));
  ::chmod(dir.c_str(), 0775);
  CHECK_FALSE(srt::helper::only_this_user_writes(dir));
  CHECK_FALSE(srt::helper::only_this_user_writes(tmp / "missing"));
}

// docs/security.md "Files other users plant": where the profile's runtime gives job users root
// (a trusted rootful docker), a directory root owns may have been planted by any of them.
TEST_CASE("H1: a root-owned directory is trusted only where users cannot be root", "[helper][safe_dir]") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root to make a root-owned directory and then be another user");
    return;
  }
  Scratch tmp;
  ::chmod(tmp.path().c_str(), 0755);
  const std::string planted = tmp / "4242";
  fs::create_directory(planted);
  ::chmod(planted.c_str(), 0755);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int code = 0;
    if (::setegid(65534) != 0 || ::seteuid(65534) != 0) ::_exit(10);
    try {
      if (!SafeDir::open(planted, kJobDir, false)) code |= 1;  // root trusted by default
    } catch (const srt::Error&) {
      code |= 2;
    }
    SafeDir::Purpose no_root = kJobDir;
    no_root.trust_root = false;
    try {
      SafeDir::open(planted, no_root, false);
      code |= 4;
    } catch (const srt::Error& e) {
      if (std::string(e.what()).find("is owned by uid 0") == std::string::npos) code |= 8;
    }
    ::_exit(code);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("A file is read from an offset, from its start when it shrank, and never through a link", "[helper][safe_dir]") {
  Scratch tmp;
  auto dir = SafeDir::open(tmp / "logs", kJobDir, true);
  REQUIRE(dir);
  put(dir->path_of("service.out"), "starting\nready\n");
  bool restarted = true;
  CHECK(dir->read_file_from("service.out", 9, restarted) == std::optional<std::string>("ready\n"));
  CHECK_FALSE(restarted);
  CHECK(dir->read_file_from("service.out", 15, restarted) == std::optional<std::string>(""));
  CHECK(dir->read_file_from("service.out", 0, restarted, 4) == std::optional<std::string>("star"));
  put(dir->path_of("service.out"), "new\n");  // replaced by a shorter file
  CHECK(dir->read_file_from("service.out", 15, restarted) == std::optional<std::string>("new\n"));
  CHECK(restarted);
  const std::string victim = tmp / "secret";
  put(victim, "precious");
  fs::create_symlink(victim, dir->path_of("link.out"));
  CHECK_FALSE(dir->read_file_from("link.out", 0, restarted).has_value());
  CHECK_FALSE(dir->read_file_from("missing.out", 0, restarted).has_value());
}
