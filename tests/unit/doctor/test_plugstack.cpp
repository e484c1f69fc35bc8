#include <catch2/catch.hpp>

#include <map>

#include "srt/error.hpp"
#include "srt/plugstack.hpp"

namespace {

// An in-memory file system: files by path; glob matches "DIR/*.conf" only, sorted (std::map).
srt::PlugstackFs fake_fs(const std::map<std::string, std::string>& files) {
  srt::PlugstackFs fs;
  fs.read = [files](const std::string& p) -> std::optional<std::string> {
    const auto it = files.find(p);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
  fs.glob = [files](const std::string& pattern) {
    std::vector<std::string> out;
    const auto star = pattern.find('*');
    if (star == std::string::npos) {
      if (files.count(pattern)) out.push_back(pattern);
      return out;
    }
    const std::string prefix = pattern.substr(0, star), suffix = pattern.substr(star + 1);
    for (const auto& [path, text] : files)
      if (path.size() >= prefix.size() + suffix.size() && path.rfind(prefix, 0) == 0 &&
          path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0 &&
          path.find('/', prefix.size()) == std::string::npos)
        out.push_back(path);
    return out;
  };
  return fs;
}

}  // namespace

TEST_CASE("plugstack lines: keywords, arguments and comments anywhere") {
  const auto e = srt::parse_plugstack(
      "# a comment\n\nrequired /usr/lib64/slurm/spank_srt.so profile=/etc/srt/cluster.yaml # why\n"
      "  optional  pyxis.so\ninclude /etc/slurm/plugstack.conf.d/*.conf\n",
      "/etc/slurm/plugstack.conf");
  REQUIRE(e.size() == 3);
  CHECK(e[0].kind == "required");
  CHECK(e[0].path == "/usr/lib64/slurm/spank_srt.so");
  CHECK(e[0].args == std::vector<std::string>{"profile=/etc/srt/cluster.yaml"});
  CHECK(e[0].line == 3);
  CHECK(e[1].kind == "optional");
  CHECK(e[1].args.empty());
  CHECK(e[2].kind == "include");
  CHECK(srt::plugin_argument(e[0], "profile") == std::optional<std::string>("/etc/srt/cluster.yaml"));
  CHECK_FALSE(srt::plugin_argument(e[0], "impl"));
}

TEST_CASE("a line Slurm refuses is an error naming file and line") {
  CHECK_THROWS_WITH(srt::parse_plugstack("required /a.so\nrequire /b.so\n", "p.conf"),
                    Catch::Contains("p.conf:2") && Catch::Contains("'require'"));
  CHECK_THROWS_WITH(srt::parse_plugstack("include\n", "p.conf"), Catch::Contains("without a path"));
}

TEST_CASE("the srt line is found through Debian's include of plugstack.conf.d") {
  const auto fs = fake_fs({
      {"/etc/slurm/plugstack.conf", "include /etc/slurm/plugstack.conf.d/*.conf\n"},
      {"/etc/slurm/plugstack.conf.d/pyxis.conf", "required /usr/lib64/slurm/spank_pyxis.so\n"},
      {"/etc/slurm/plugstack.conf.d/srt.conf", "required /usr/lib64/slurm/spank_srt.so profile=/p.yaml\n"},
      {"/etc/slurm/plugstack.conf.d/srt.conf.rpmnew", "required /old/spank_srt.so\n"},
  });
  const auto walk = srt::walk_plugstack("/etc/slurm/plugstack.conf", fs);
  CHECK(walk.problems.empty());
  CHECK(walk.files.size() == 3);
  REQUIRE(walk.plugins.size() == 2);
  CHECK(walk.plugins[0].path == "/usr/lib64/slurm/spank_pyxis.so");  // glob order is load order
  const auto srt_lines = srt::find_plugin(walk, "spank_srt.so");
  REQUIRE(srt_lines.size() == 1);
  CHECK(srt_lines[0].file == "/etc/slurm/plugstack.conf.d/srt.conf");
  CHECK(srt_lines[0].line == 1);
}

TEST_CASE("no include line: the drop-in is never read") {
  const auto fs = fake_fs({
      {"/etc/slurm/plugstack.conf", "required /usr/lib64/slurm/spank_pyxis.so\n"},
      {"/etc/slurm/plugstack.conf.d/srt.conf", "required /usr/lib64/slurm/spank_srt.so\n"},
  });
  CHECK(srt::find_plugin(srt::walk_plugstack("/etc/slurm/plugstack.conf", fs), "spank_srt.so").empty());
}

TEST_CASE("relative includes resolve against the including file, loops and missing files are problems") {
  const auto fs = fake_fs({
      {"/etc/slurm/plugstack.conf", "include conf.d/*.conf\ninclude /etc/slurm/plugstack.conf\n"},
      {"/etc/slurm/conf.d/srt.conf", "optional spank_srt.so\n"},
  });
  const auto walk = srt::walk_plugstack("/etc/slurm/plugstack.conf", fs);
  REQUIRE(srt::find_plugin(walk, "spank_srt.so").size() == 1);
  REQUIRE(walk.problems.size() == 1);
  CHECK_THAT(walk.problems[0], Catch::Contains("include loop"));

  const auto missing = srt::walk_plugstack("/nowhere/plugstack.conf", fs);
  REQUIRE(missing.problems.size() == 1);
  CHECK_THAT(missing.problems[0], Catch::Contains("cannot be read"));
}
