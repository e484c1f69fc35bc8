#include "srt/post_eval.hpp"

#include <algorithm>
#include <cctype>

#include "srt/expected_points.hpp"
#include "srt/workspace.hpp"

namespace srt {

namespace {

bool says_true(const std::optional<SeenVariable>& v) {
  if (!v) return false;
  std::string lower = v->value;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return lower == "true";
}

std::string env_value(const EnvList& env, const std::string& name) {
  std::string out;
  for (const auto& [k, v] : env)
    if (k == name) out = v;
  return out;
}

// The model name the workers serve, as /v1/models lists it: --served-model-name where the argv
// gives one, else the model argument (--model for ATOM and vLLM, --model-path for SGLang), which
// each engine serves under its own name by default. "" when no worker's argv says.
std::string served_model_name_of(const Plan& plan) {
  for (const char* flag : {"--served-model-name", "--model", "--model-path"})
    for (const Process& p : plan.processes) {
      if (!p.is_worker()) continue;
      for (std::size_t i = 0; i + 1 < p.argv.size(); ++i)
        if (p.argv[i] == flag) return p.argv[i + 1];
    }
  return "";
}

}  // namespace

EvalDecision eval_decision(const Recipe& recipe, const char* run_eval, const char* eval_only) {
  EvalDecision d;
  const auto only = benchmark_variable(recipe, "EVAL_ONLY", eval_only);
  const auto after = benchmark_variable(recipe, "RUN_EVAL", run_eval);
  if (says_true(only)) d.mode = EvalDecision::Mode::only, d.source = only->source;
  else if (says_true(after)) d.mode = EvalDecision::Mode::after_benchmark, d.source = after->source;
  else return d;
  if (recipe.post_eval.command.empty())
    d.problem = d.source + "=true, but the recipe has no post_eval.command: srtctl's built-in lm-eval runner is not "
                "part of srt-spank; give post_eval.command (InferenceX's lanes pass its srt_eval.sh)";
  return d;
}

std::string fill_eval_placeholders(std::string arg, const std::string& endpoint, const std::string& workspace) {
  for (const auto& [token, value] : {std::pair<std::string, const std::string*>{"{endpoint}", &endpoint},
                                     std::pair<std::string, const std::string*>{"{infmax_workspace}", &workspace}})
    for (std::size_t at = 0; (at = arg.find(token, at)) != std::string::npos; at += value->size())
      arg.replace(at, token.size(), *value);
  return arg;
}

Process eval_process(const Recipe& recipe, const Plan& plan, const Process& bench, const char* inherited_eval_conc,
                     const char* inherited_conc_list) {
  Process e = bench;
  e.step_name = "post_eval";
  e.log_file = "eval.out";
  e.critical = false;
  const std::string endpoint =
      "http://" + env_value(bench.env, "SRT_FRONTEND_HOST") + ":" + env_value(bench.env, "SRT_FRONTEND_PORT");
  e.argv.clear();
  for (const auto& a : recipe.post_eval.command) e.argv.push_back(fill_eval_placeholders(a, endpoint, kWorkspaceInContainer));
  if (const std::string served = served_model_name_of(plan); !served.empty()) set_env(e.env, "MODEL_NAME", served);
  if (const auto conc = benchmark_variable(recipe, "EVAL_CONC", inherited_eval_conc)) {
    set_env(e.env, "EVAL_CONC", conc->value);
  } else {
    const std::vector<int> points = expected_points(recipe, inherited_conc_list).points;
    if (!points.empty()) set_env(e.env, "EVAL_CONC", std::to_string(*std::max_element(points.begin(), points.end())));
  }
  return e;
}

}  // namespace srt
