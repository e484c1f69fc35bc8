// The loader (spank_srt.so) itself, dlopened fresh for each case into a fake Slurm process
// (fake_spank.hpp; this program exports the fake SPANK API the loader binds to), with the real
// implementation library behind it. Issue 23, findings 7 and 8:
//  - remote context (slurmstepd): an option conflict must not fail init_post_opt or the option
//    callback (a failure there is the path that drains a node); task_init fails the job instead,
//    saying why on the task's stderr;
//  - inside an srt job, the command line's --srt-recipe wins over the value the job's
//    environment re-delivers (SLURM_SPANK__SLURM_SPANK_OPTION_srt_srt_recipe): a nested sbatch
//    runs the recipe it names.
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <slurm/slurm_version.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fake_spank.hpp"
#include "scratch.hpp"
#include "srt/contract.hpp"
#include "srt/digest.hpp"
#include "srt/files.hpp"
#include "srt/profile.hpp"
#include "srt/profile_copy.hpp"
#include "srt/snapshot.hpp"

// Not glue.cpp: the implementation comes in as the library the loader dlopens, so this program
// holds no copy of its objects (two exported srt_impl_abi would be an ODR violation under ASan).
extern "C" {
#include "impl_abi.h"
}

using Catch::Matchers::Contains;
namespace fake = srt::fake;

namespace {

std::vector<spank_option> g_registered;  // what the loader registered, copied as Slurm copies it

using srt::spank_test::capture_stderr;
using srt::spank_test::source_path;
using srt::spank_test::TempDir;

// The lab's profile shape (tests/cluster/lab-profile.sh), enough for the lab recipes.
std::string write_lab_profile(const TempDir& dir) {
  const std::string path = (dir / "cluster.yaml");
  std::ofstream(path) << "cluster: lab\ngpus_per_node: 8\ncontainer_runtime: bwrap\nport_range_begin: 20000\n"
                         "port_range_end: 28999\nresults_root: "
                      << dir.str() << "/results\nfrontend_port: 8000\nkv_events_capability: offset\n"
                                       "engine_command: [/usr/bin/python3, -m, atom.entrypoints.openai_server]\n"
                                       "router_command: [/usr/bin/atomesh]\n";
  return path;
}

std::string log_text() {
  std::string out;
  for (const auto& l : fake::process().log) out += l + "\n";
  return out;
}

}  // namespace

extern "C" spank_err_t spank_option_register(spank_t sp, struct spank_option* opt) {
  if (!sp || !opt || !opt->name) return ESPANK_BAD_ARG;
  g_registered.push_back(*opt);
  return static_cast<spank_err_t>(ESPANK_SUCCESS);
}

namespace {

constexpr const char* kOptionEnv = "SLURM_SPANK__SLURM_SPANK_OPTION_srt_srt_recipe";

struct CleanEnv {
  CleanEnv() { clear(); }
  ~CleanEnv() { clear(); }
  static void clear() {
    for (const char* v : {SRT_SNAPSHOT_JOB_ENV, "SLURM_JOB_ID", kOptionEnv}) ::unsetenv(v);
  }
};

using Callback = int (*)(spank_t, int, char**);

// spank_srt.so loaded for one process's life: its static state starts empty each time.
class Loader {
 public:
  explicit Loader(std::vector<std::string> plugstack) : words_(std::move(plugstack)) {
    g_registered.clear();
    handle_ = ::dlopen(SRT_LOADER_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!handle_) FAIL("dlopen " SRT_LOADER_PATH ": " << ::dlerror());
    for (auto& w : words_) argv_.push_back(&w[0]);
    argv_.push_back(nullptr);
  }
  ~Loader() {
    call("exit");  // Slurm's last callback before it dlcloses the plugin
    ::dlclose(handle_);
    // Gone, so the next case starts with the loader's statics zeroed.
    CHECK(::dlopen(SRT_LOADER_PATH, RTLD_NOW | RTLD_NOLOAD) == nullptr);
  }
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  int call(const char* callback) {
    auto fn = reinterpret_cast<Callback>(::dlsym(handle_, (std::string("slurm_spank_") + callback).c_str()));
    REQUIRE(fn);
    return fn(fake::handle(), int(argv_.size()) - 1, argv_.data());
  }
  // The option callback, as Slurm calls it for --NAME=VALUE (remote: 1 in slurmstepd).
  int option(const char* name, const char* value, int remote) {
    for (const auto& o : g_registered)
      if (std::string(o.name) == name) return o.cb(o.val, value, remote);
    FAIL("--" << name << " was not registered");
    return -2;
  }

 private:
  std::vector<std::string> words_;
  std::vector<char*> argv_;
  void* handle_ = nullptr;
};

const std::string kRecipe = source_path("recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml");

// The outer job's snapshot: only its recipe_path matters to a nested submit.
std::string outer_snapshot() {
  srt::Snapshot s;
  s.recipe_path = kRecipe;
  s.recipe = srt::Json{{"name", "outer"}};
  s.package = SRT_VERSION;
  return srt::encode_snapshot(s);
}
const std::string kOther = source_path("recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml");

}  // namespace

TEST_CASE("loader, remote: an option conflict passes init_post_opt and fails the job in task_init",
          "[spank][loader]") {
  CleanEnv env;
  for (const char* name : {"srt-recipe", "srt-step"}) {
    INFO(name);
    fake::reset(S_CTX_REMOTE);
    Loader loader({"impl=/nonexistent/srt_spank_impl.so"});
    REQUIRE(loader.call("init") == 0);
    CHECK(loader.option(name, "prefill:0", 1) == 0);
    CHECK(loader.option(name, "decode:0", 1) == 0);  // Slurm would only log a failure here
    CHECK(loader.call("init_post_opt") == 0);        // a failure here can drain the node
    CHECK(loader.call("user_init") == 0);
    int rc = 0;
    const std::string err = capture_stderr([&] { rc = loader.call("task_init"); });
    CHECK(rc == -1);
    CHECK_THAT(err, Contains(std::string("--") + name) && Contains("'prefill:0'") && Contains("'decode:0'"));
    CHECK_THAT(err, Contains("this job cannot run"));
    CHECK_THAT(log_text(), Contains(std::string("--") + name));  // and in the node's log
    CHECK(loader.call("exit") == 0);
  }
}

TEST_CASE("loader, remote: an empty value fails the job in task_init, not earlier", "[spank][loader]") {
  CleanEnv env;
  fake::reset(S_CTX_REMOTE);
  Loader loader({"impl=/nonexistent/srt_spank_impl.so"});
  REQUIRE(loader.call("init") == 0);
  CHECK(loader.option("srt-recipe", "", 1) == 0);
  CHECK(loader.call("init_post_opt") == 0);
  int rc = 0;
  const std::string err = capture_stderr([&] { rc = loader.call("task_init"); });
  CHECK(rc == -1);
  CHECK_THAT(err, Contains("--srt-recipe needs a value"));
}

TEST_CASE("loader, submit side: a conflict on the command line still fails at once", "[spank][loader]") {
  CleanEnv env;
  for (spank_context_t ctx : {S_CTX_LOCAL, S_CTX_ALLOCATOR}) {
    fake::reset(ctx);
    Loader loader({"impl=/nonexistent/srt_spank_impl.so"});
    REQUIRE(loader.call("init") == 0);
    CHECK(loader.option("srt-recipe", "a.yaml", 0) == 0);
    CHECK(loader.option("srt-recipe", "a.yaml", 0) == 0);  // the same twice is fine
    CHECK(loader.option("srt-recipe", "b.yaml", 0) == -1);
    CHECK(loader.call("init_post_opt") == -1);
    CHECK_THAT(log_text(), Contains("given twice with different values"));
  }
}
TEST_CASE("loader, inside an srt job: the command line's --srt-recipe wins over the job's re-delivered one",
          "[spank][loader]") {
  CleanEnv env;
  TempDir dir;
  const std::string profile = write_lab_profile(dir);
  // The outer job: its snapshot, and its option re-delivered to every srun/sbatch inside it.
  ::setenv(SRT_SNAPSHOT_JOB_ENV, outer_snapshot().c_str(), 1);
  ::setenv("SLURM_JOB_ID", "4242", 1);
  ::setenv(kOptionEnv, kRecipe.c_str(), 1);
  fake::reset(S_CTX_ALLOCATOR);
  Loader loader({"profile=" + profile, "impl=" SRT_IMPL_PATH});
  REQUIRE(loader.call("init") == 0);
  REQUIRE(loader.option("srt-recipe", kRecipe.c_str(), 0) == 0);  // from the environment, first
  CHECK(loader.option("srt-recipe", kOther.c_str(), 0) == 0);     // then the command line
  REQUIRE(loader.call("init_post_opt") == 0);
  INFO(log_text());
  REQUIRE(fake::process().job_control.count(SRT_SNAPSHOT_NAME) == 1);
  CHECK(srt::decode_snapshot(fake::process().job_control.at(SRT_SNAPSHOT_NAME)).recipe_path == kOther);
  CHECK(srt::decode_snapshot(std::getenv(SRT_SNAPSHOT_JOB_ENV)).recipe_path == kOther);

  // Only that one value may be overridden: a second one on the command line is a conflict.
  CHECK(loader.option("srt-recipe", kRecipe.c_str(), 0) == -1);
}

// Slurm 25.05 and later read slurm_spank_init_failure_mode from the plugin (spank.h declares it
// from then on): a failing slurm_spank_init in slurmstepd drains the node unless it says
// ESPANK_JOB_FAILURE. Built against an older Slurm the symbol must not be there at all (no
// such Slurm reads it, and ESPANK_JOB_FAILURE does not exist in its headers).
TEST_CASE("loader: the init failure mode is the job's, never the node's (Slurm 25.05 and later)", "[spank][loader]") {
  void* handle = ::dlopen(SRT_LOADER_PATH, RTLD_NOW | RTLD_LOCAL);
  REQUIRE(handle);
  const void* mode = ::dlsym(handle, "slurm_spank_init_failure_mode");
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
  REQUIRE(mode);
  CHECK(*static_cast<const int*>(mode) == ESPANK_JOB_FAILURE);
#else
  CHECK(mode == nullptr);
#endif
  ::dlclose(handle);
}

namespace {

// slurmstepd of job 77's step 0 on lab-n2 (of lab-n[1-2]), the job carrying `snapshot`.
fake::Process& stepd_of_lab_n2(const std::string& snapshot) {
  fake::reset(S_CTX_REMOTE);
  auto& p = fake::process();
  p.items[S_JOB_ID] = 77;
  p.items[S_JOB_STEPID] = 0;
  p.items[S_JOB_NODEID] = 1;
  p.items[S_JOB_NNODES] = 2;
  p.job_env[SRT_SNAPSHOT_JOB_ENV] = snapshot;
  p.job_env["SLURM_JOB_NODELIST"] = p.job_env["SLURM_STEP_NODELIST"] = "lab-n[1-2]";
  return p;
}

// What slurmstepd calls in a step, through the loader with plugstack `words`: task_init's
// result, and what it wrote to the task's stderr in `err`.
int node_step(const std::vector<std::string>& words, std::string& err) {
  Loader loader(words);
  REQUIRE(loader.call("init") == 0);
  REQUIRE(loader.call("init_post_opt") == 0);
  REQUIRE(loader.call("user_init") == 0);
  int rc = -2;
  err = capture_stderr([&] { rc = loader.call("task_init"); });
  return rc;
}

bool loaded(const char* path) {
  void* h = ::dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (h) ::dlclose(h);
  return h != nullptr;
}

}  // namespace

// Issue 25: slurmstepd loads srt_spank_node.so (found beside impl=), which plans from the
// snapshot's documents; the submit side's srt_spank_impl.so, with yaml-cpp, stays on the submit
// host. Each ctest case is a process of its own, so nothing else loaded either library here.
TEST_CASE("loader: slurmstepd loads the node side's library, the submit host the submit side's", "[spank][loader]") {
  CleanEnv env;
  TempDir dir;
  const std::string profile = dir.write("cluster.yaml", "cluster: lab\ngpus_per_node: 8\ncontainer_runtime: bwrap\n"
                                                        "node_addresses: {lab-n1: 127.0.0.1, lab-n2: 127.0.0.1}\n");
  REQUIRE_FALSE(loaded(SRT_IMPL_PATH));
  REQUIRE_FALSE(loaded(SRT_NODE_PATH));
  {
    fake::reset(S_CTX_ALLOCATOR);
    Loader loader({"profile=" + profile, "impl=" SRT_IMPL_PATH});
    REQUIRE(loader.call("init") == 0);
    REQUIRE(loader.option("srt-recipe", kRecipe.c_str(), 0) == 0);
    REQUIRE(loader.call("init_post_opt") == 0);
    INFO(log_text());
    CHECK(loaded(SRT_IMPL_PATH));
    CHECK_FALSE(loaded(SRT_NODE_PATH));
  }
  const std::string snapshot = std::getenv(SRT_SNAPSHOT_JOB_ENV);
  CleanEnv::clear();
  auto& p = stepd_of_lab_n2(snapshot);
  std::string err;
  const int rc = node_step({"profile=" + profile, "impl=" SRT_IMPL_PATH}, err);
  INFO(err << log_text());
  CHECK(rc == 0);
  CHECK(loaded(SRT_NODE_PATH));
  CHECK(p.job_env["SRT_NODE_INDEX"] == "1");
  CHECK(p.job_env["SRT_RECIPE"] == kRecipe);
}

// docs/security.md "Recipes and snapshots": the snapshot is the job user's environment. A user
// who re-encodes it with the node's true profile digest and another document had that document
// planned; now the node plans with its own file: root's parsed copy, else the file read through
// the submit side's library (srt_profile_copy), which the real srt_spank_node.so dlopens here.
TEST_CASE("L4: a node plans with its own profile, never the snapshot's: root's copy, else the file itself",
          "[spank][loader]") {
  CleanEnv env;
  TempDir dir;
  const std::string profile = dir.write("cluster.yaml", "cluster: lab\ngpus_per_node: 8\ncontainer_runtime: bwrap\n"
                                                        "node_addresses: {lab-n1: 127.0.0.1, lab-n2: 127.0.0.1}\n");
  const std::string cache = dir.str() + "/cache";
  const std::vector<std::string> words{"profile=" + profile, "impl=" SRT_IMPL_PATH, "cache_dir=" + cache};
  {
    fake::reset(S_CTX_ALLOCATOR);
    Loader loader(words);
    REQUIRE(loader.call("init") == 0);
    REQUIRE(loader.option("srt-recipe", kRecipe.c_str(), 0) == 0);
    REQUIRE(loader.call("init_post_opt") == 0);
  }
  srt::Snapshot forged = srt::decode_snapshot(std::getenv(SRT_SNAPSHOT_JOB_ENV));
  CleanEnv::clear();
  forged.profile["node_addresses"] = {{"lab-n1", "10.9.9.1"}, {"lab-n2", "10.9.9.2"}};
  const std::string snapshot = srt::encode_snapshot(forged);

  // One slurmstepd of step 0 on lab-n2: the head's address it plans, and what it logged.
  const auto stepd = [&] {
    auto& p = stepd_of_lab_n2(snapshot);
    std::string err;
    const int rc = node_step(words, err);
    INFO(err << log_text());
    REQUIRE(rc == 0);
    return std::make_pair(p.job_env["SRT_FRONTEND_HOST"], log_text());
  };

  // No copy from root: the node reads its file through the submit library, and tells the admin.
  auto [head, log] = stepd();
  CHECK(head == "127.0.0.1");
  CHECK_THAT(log, Contains("no parsed copy of " + profile + " in " + cache) &&
                      Contains("read the file through " SRT_IMPL_PATH) && Contains("srt-helper topology --refresh-cache"));

  // Root's copy (what `srt-helper topology --refresh-cache` writes): used, nothing to say.
  const std::string text = srt::read_text_file(profile, 1 << 20);
  const srt::Profile parsed = srt::load_profile_text(text, profile);
  srt::write_profile_copy(cache, srt::sha256_hex(text), parsed.source.root, SRT_VERSION);
  std::tie(head, log) = stepd();
  CHECK(head == "127.0.0.1");
  CHECK_THAT(log, !Contains("read the file through"));
}
