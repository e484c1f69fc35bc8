// post_eval as the launcher runs it (srt/post_eval.hpp): when (EVAL_ONLY wins over RUN_EVAL, each
// read as the benchmark step sees it), with which argv (the placeholders filled) and which of the
// variables srtctl always sets (MODEL_NAME, EVAL_CONC).
#include <catch2/catch.hpp>

#include "srt/post_eval.hpp"

namespace test_post_eval {

srt::Recipe eval_recipe() {
  srt::Recipe r;
  r.benchmark.type = "custom";
  r.benchmark.concurrencies = {4, 64, 16};
  r.post_eval.given = true;
  r.post_eval.command = {"bash", "{infmax_workspace}/benchmarks/multi_node/srt_eval.sh", "{endpoint}",
                         "{infmax_workspace}"};
  return r;
}

using Mode = srt::EvalDecision::Mode;

std::string value_of(const srt::EnvList& env, const std::string& name) {
  for (const auto& [k, v] : env)
    if (k == name) return v;
  return "<unset>";
}

TEST_CASE("post_eval: EVAL_ONLY instead of the benchmark, RUN_EVAL after it, as the benchmark sees them") {
  const srt::Recipe r = eval_recipe();
  CHECK(srt::eval_decision(r, nullptr, nullptr).mode == Mode::none);
  CHECK(srt::eval_decision(r, "false", "no").mode == Mode::none);
  const auto after = srt::eval_decision(r, "TRUE", nullptr);  // srtctl: .lower() == "true"
  CHECK(after.mode == Mode::after_benchmark);
  CHECK(after.source == "the job's RUN_EVAL");
  CHECK(after.problem.empty());
  CHECK(srt::eval_decision(r, "true", "true").mode == Mode::only);
  CHECK(srt::eval_decision(r, "1", nullptr).mode == Mode::none);  // only "true" says yes

  // The benchmark's own environment wins over the job's (InferenceX's single-node lanes set
  // benchmark.env.RUN_EVAL/EVAL_ONLY with --set).
  srt::Recipe env = r;
  env.benchmark.env = {{"EVAL_ONLY", "true"}};
  const auto only = srt::eval_decision(env, "true", "false");
  CHECK(only.mode == Mode::only);
  CHECK(only.source == "benchmark.env.EVAL_ONLY");
  env.benchmark.env = {{"RUN_EVAL", "false"}};
  CHECK(srt::eval_decision(env, "true", nullptr).mode == Mode::none);
}

TEST_CASE("post_eval: asked for without a command names what is missing") {
  srt::Recipe r = eval_recipe();
  r.post_eval.command.clear();
  const auto d = srt::eval_decision(r, nullptr, "true");
  CHECK(d.mode == Mode::only);
  CHECK_THAT(d.problem, Catch::StartsWith("the job's EVAL_ONLY=true, but the recipe has no post_eval.command"));
}

TEST_CASE("post_eval: the placeholders, every occurrence, nothing else") {
  CHECK(srt::fill_eval_placeholders("{endpoint}/v1 {endpoint}", "http://h:1", "/w") == "http://h:1/v1 http://h:1");
  CHECK(srt::fill_eval_placeholders("{infmax_workspace}/x{endpoint", "e", "/infmax-workspace") ==
        "/infmax-workspace/x{endpoint");
  // A value that holds a placeholder is not filled again.
  CHECK(srt::fill_eval_placeholders("{endpoint}", "{endpoint}", "/w") == "{endpoint}");
}

TEST_CASE("post_eval: the eval's step is the benchmark's, with its argv, names and variables") {
  const srt::Recipe r = eval_recipe();
  srt::Plan plan;
  srt::Process worker;
  worker.name = "agg:0";
  worker.role = srt::Role::agg;
  worker.argv = {"python3", "-m", "sglang.launch_server", "--model-path", "/models/m", "--served-model-name", "m-served"};
  plan.processes.push_back(worker);
  srt::Process bench;
  bench.name = "benchmark";
  bench.role = srt::Role::benchmark;
  bench.node = "node3";
  bench.step_name = "benchmark";
  bench.log_file = "benchmark.out";
  bench.critical = true;
  bench.argv = {"bash", "-lc", "run"};
  bench.env = {{"SRT_FRONTEND_HOST", "10.0.0.1"}, {"SRT_FRONTEND_PORT", "30000"}, {"EVAL_CONC", "stale"}};
  plan.processes.push_back(bench);

  const srt::Process e = srt::eval_process(r, plan, bench, nullptr, nullptr);
  CHECK(e.name == "benchmark");  // the benchmark's process: its node, container and environment
  CHECK(e.node == "node3");
  CHECK(e.step_name == "post_eval");
  CHECK(e.log_file == "eval.out");
  CHECK_FALSE(e.critical);
  CHECK(e.argv == std::vector<std::string>{"bash", "/infmax-workspace/benchmarks/multi_node/srt_eval.sh",
                                           "http://10.0.0.1:30000", "/infmax-workspace"});
  CHECK(value_of(e.env, "MODEL_NAME") == "m-served");
  CHECK(value_of(e.env, "EVAL_CONC") == "64");  // the largest point, in place of what was there
  CHECK(value_of(srt::eval_process(r, plan, bench, "32", nullptr).env, "EVAL_CONC") == "32");  // the job's wins

  // No grid and no served name: CONC_LIST's largest point, and the model argument.
  srt::Recipe bare = r;
  bare.benchmark.concurrencies.clear();
  plan.processes[0].argv = {"vllm", "serve", "--model", "/models/v"};
  const srt::Process b = srt::eval_process(bare, plan, bench, nullptr, "8 256 16");
  CHECK(value_of(b.env, "EVAL_CONC") == "256");
  CHECK(value_of(b.env, "MODEL_NAME") == "/models/v");
}

}  // namespace test_post_eval
