// srt-slurm's v1 recipe keys (NVIDIA/srt-slurm c88ef731 src/srtctl/core/schema.py), every one
// srtctl knows, with the tier srt-spank gives it. Engine flag maps are kept as written: srtctl
// renders them verbatim.
#include "schema.hpp"
#include "srt/limits.hpp"

namespace srt::schema {

Field make(std::string key, Kind kind, std::string doc) {
  Field f;
  f.key = std::move(key);
  f.kind = kind;
  f.doc = std::move(doc);
  return f;
}

Field object(std::string key, std::vector<Field> fields, std::string doc) {
  Field f = make(std::move(key), Kind::object, std::move(doc));
  f.fields = std::move(fields);
  return f;
}

namespace {


// <engine>_config: {prefill, decode, aggregated}, each the engine's own CLI flags.
Field engine_config(const std::string& engine, Kind per_role) {
  return object(engine + "_config",
                field_list(make("prefill", per_role, "flags of prefill workers"),
                           make("decode", per_role, "flags of decode workers"),
                           make("aggregated", per_role, "flags of aggregated workers")),
                engine + " flags per worker role; keys are rendered as --key value, sorted");
}

std::vector<Field> role_environments() {
  return field_list(dict("prefill_environment", "environment of prefill workers ({node}, {node_id} substituted)"),
                    dict("decode_environment", "environment of decode workers"),
                    dict("aggregated_environment", "environment of aggregated workers"));
}

Field mooncake_kv_store(bool vllm) {
  std::vector<Field> f = field_list(str("container", "image of the Mooncake master"), dict("env", "its environment"),
                                    any("master_extra_args", "extra mooncake_master arguments"));
  if (vllm) f.push_back(any("store_config", "Mooncake store configuration"));
  return object("mooncake_kv_store", std::move(f), "a Mooncake KV store on the infra node").tier2();
}

Field backend() {
  // srtctl's BackendConfigField: no backend, or one without `type`, is SGLang.
  Field b = make("backend", Kind::variant, "the engine and its per-role configuration (default: sglang)");
  // tilert: the SemiAnalysis fork's engine (InferenceX RECIPES.md), not srtctl v2.2.1's.
  b.fields = field_list(str("type", "engine").def("sglang").one_of({"atom", "sglang", "vllm", "trtllm", "mocker", "tilert", "tokenspeed"},
                                                                   {"trtllm", "mocker", "tilert", "tokenspeed"}));
  for (auto& e : role_environments()) b.fields.push_back(std::move(e));
  b.variants.emplace_back(
      "atom", field_list(engine_config("atom", Kind::flags),
                         str("connector", "KV transfer connector (ATOM: only mooncake)").one_of({"mooncake"}).def("mooncake"),
                         str("mooncake_protocol", "Mooncake transport; unset = ATOM's default (rdma)").one_of({"rdma", "tcp"}),
                         boolean("enable_kv_events", "publish KV-cache events from every DP rank").def("false")));
  b.variants.emplace_back(
      "sglang", field_list(engine_config("sglang", Kind::flags), any("kv_events_config", "bool or per-mode {publisher, topic}"),
                           mooncake_kv_store(false), str("gpu_type", "GPU type hint")));
  b.variants.emplace_back(
      "vllm", field_list(engine_config("vllm", Kind::flags),
                         any("connector", "nixl (default), lmcache, moriio, kvbm, or raw --kv-transfer-config JSON"),
                         any("kv_events_config", "bool or per-mode dict"), mooncake_kv_store(true),
                         str("dp_launch_mode", "one process per node or per GPU").one_of({"per_node", "per_gpu"}, {"per_gpu"}),
                         boolean("set_visible_devices", "mask GPUs per worker"), str("vllm_serve_binary", "vllm binary"),
                         boolean("allow_prefill_decode_colocation", "let decode share a prefill node"),
                         boolean("allow_prefill_decode_colocation_across_nodes", "same, across nodes"),
                         any("failover", "failover settings").tier2()));
  b.variants.emplace_back(
      "trtllm", field_list(engine_config("trtllm", Kind::any), str("served_model_name", "served model name"),
                           boolean("publish_metrics", "publish metrics"),
                           boolean("publish_events_and_metrics", "publish KV events and metrics"),
                           boolean("sequential_node_start", "start nodes one after another"),
                           boolean("numa_memory_bind", "NUMA memory binding"), boolean("numa_cpu_bind", "NUMA CPU binding"),
                           any("prefill_extra_args", "extra prefill args"), any("decode_extra_args", "extra decode args"),
                           any("aggregated_extra_args", "extra aggregated args")));
  // srtctl v2.18 (docs/schema/recipe.schema.json, MockerBackend): the simulated engine's knobs;
  // the type itself is what srt-spank notes.
  std::vector<Field> mocker = field_list(engine_config("mocker", Kind::any));
  for (const char* k : {"block_size", "data_parallel_size", "max_num_batched_tokens", "max_num_seqs", "num_gpu_blocks_override",
                        "num_workers"})
    mocker.push_back(make(k, Kind::integer, "mocker").inert());
  for (const char* k : {"speedup_ratio", "decode_speedup_ratio", "startup_time", "kv_transfer_bandwidth"})
    mocker.push_back(make(k, Kind::number, "mocker").inert());
  for (const char* k : {"enable_chunked_prefill", "enable_prefix_caching"}) mocker.push_back(boolean(k, "mocker").inert());
  for (const char* k : {"engine_type", "preemption_mode", "kv_cache_dtype"}) mocker.push_back(str(k, "mocker").inert());
  b.variants.emplace_back("mocker", std::move(mocker));
  b.variants.emplace_back("tokenspeed", field_list(engine_config("tokenspeed", Kind::any)));
  // The engine-wide knobs InferenceX's TileRT recipe gives (the SemiAnalysisAI/srt-slurm fork only;
  // the list is what the corpus spells, UNCONFIRMED against the fork's code).
  b.variants.emplace_back(
      "tilert", field_list(engine_config("tilert", Kind::any), str("prefill_container", "prefill image"),
                           str("model_profile", "model profile"), str("weight_model_type", "weight layout"),
                           str("weights_dir", "converted weights"), integer("max_seq_len", "context"),
                           str("kv_cache_dtype", "KV cache dtype"), str("prefill_kv_cache_dtype", "prefill KV cache dtype"),
                           str("transport", "KV transfer"), boolean("with_mtp", "multi-token prediction"),
                           integer("speculative_tokens", "draft tokens")));
  return b;
}

Field frontend() {
  return object(
      "frontend",
      field_list(
          str("type", "router in front of the workers")
              .one_of({"atomesh", "dynamo", "sglang", "sglang-router", "vllm-router", "vllm", "trtllm_serve", "smg", "llm-d",
                       "tilert_router", "tilert-router", "none", "atom", "infera"},
                      {"dynamo", "trtllm_serve", "smg", "llm-d",
                       "tilert_router", "tilert-router", "none", "infera"})
              .def("dynamo"),
          boolean("enable_multiple_frontends", "nginx on the head node plus extra routers (srtctl default: true)").def("true"),
          integer("num_additional_frontends", "extra routers behind nginx").def("9").inert(),
          str("nginx_container", "nginx image").inert(), boolean("nginx_raise_ulimit", "raise nginx's ulimit").inert(),
          boolean("nginx_session_affinity", "sticky sessions").inert(),
          str("nginx_session_affinity_header", "header for sticky sessions").inert(),
          any("nginx_keepalive_timeout", "nginx keepalive timeout").inert(),
          flags("args", "router flags: --key value ('_' becomes '-'); a list repeats the flag"),
          dict("env", "router environment"), str("container_image", "router image (default: the model container)"),
          object("placement",
                 field_list(str("node", "where the router runs")
                                .one_of({"head", "first_decode", "dedicated"}, {"first_decode", "dedicated"})),
                 "router placement (2.0 fork)"),
          str("orchestrator_placement", "v1 router placement").tier2(),
          boolean("dedicated_node", "give the router a node of its own").def("false"),
          any("ctx_router", "trtllm-serve only").tier2(), any("gen_router", "trtllm-serve only").tier2(),
          any("server_config_extra", "trtllm-serve only").tier2(),
          // srtctl v2.18 (docs/schema/recipe.schema.json, FrontendConfig): Dynamo's and llm-d's.
          any("worker_selection", "dynamo: router policy (--router-policy-config)").tier2(),
          any("epp_config", "llm-d: endpoint picker configuration").tier2(),
          any("numa_bind", "bind the frontend to a NUMA node").tier2()),
      "the router (default type: dynamo)");
}

Field benchmark() {
  return object(
      "benchmark",
      field_list(str("type", "what runs once the router is ready")
                     .one_of({"manual", "custom", "sa-bench", "sglang-bench", "mmlu", "gpqa", "longbenchv2", "router",
                              "mooncake-router", "trace-replay", "lm-eval", "gsm8k"},
                             {"sa-bench", "sglang-bench", "mmlu", "gpqa", "longbenchv2", "router", "mooncake-router",
                              "trace-replay", "lm-eval", "gsm8k"})
                     .def("manual"),
                 str("command", "custom: run as `bash -lc <command>`, verbatim (no {placeholder} substitution)"),
                 dict("env", "benchmark environment, applied last"), integer("isl", "input sequence length"),
                 integer("osl", "output sequence length"),
                 make("concurrencies", Kind::concurrencies, "a list, one number, or an x-joined string \"4x8x16\""),
                 any("req_rate", "request rate (default inf)"), make("random_range_ratio", Kind::number, "sa-bench: 0.8"),
                 integer("num_prompts_mult", "prompts per unit of concurrency").def("10"),
                 integer("num_warmup_mult", "warm-up requests per unit of concurrency").def("2"), str("dataset_name", "dataset"),
                 str("dataset_path", "dataset file"), boolean("use_chat_template", "chat template"),
                 str("custom_tokenizer", "tokenizer"),
                 // srtctl v2.2.1 knows these two; they only matter to benchmark types srt-spank does not run.
                 str("tokenizer_mode", "sa-bench tokenizer mode").inert(),
                 any("aiperf_server_metrics", "aiperf server metrics").inert(),
                 str("container_image", "benchmark image (default: the model container)"),
                 // srtctl v2.18 (BenchmarkConfig): knobs of the benchmark types srt-spank does not
                 // run (sa-bench, mmlu, gpqa, trace-replay, ...); the type itself is what is noted.
                 integer("num_requests", "requests (router, mooncake-router)").inert(),
                 integer("concurrency", "concurrency (router benchmarks)").inert(),
                 make("max_tokens", Kind::integer, "max tokens (eval types)").inert(),
                 make("temperature", Kind::number, "sampling temperature (eval types)").inert(),
                 make("top_p", Kind::number, "top-p (eval types)").inert(),
                 make("top_k", Kind::integer, "top-k (eval types)").inert(),
                 integer("num_examples", "examples (eval types)").inert(), integer("num_shots", "shots (eval types)").inert(),
                 integer("num_threads", "threads (eval types)").inert(), integer("repeat", "repeats (eval types)").inert(),
                 integer("max_context_length", "context length (eval types)").inert(),
                 any("categories", "eval categories").inert(), any("prefix_ratios", "router: prefix ratios").inert(),
                 str("mooncake_workload", "mooncake-router workload").inert(), str("trace_file", "trace-replay file").inert(),
                 make("ttft_threshold_ms", Kind::number, "trace-replay TTFT threshold").inert(),
                 make("itl_threshold_ms", Kind::number, "trace-replay ITL threshold").inert(),
                 make("slow_down_sleep_time", Kind::number, "router: slow-down sleep").inert(),
                 make("slow_down_wait_time", Kind::number, "router: slow-down wait").inert(),
                 boolean("reuse_http_connections", "sa-bench: keep-alive").inert(),
                 any("aiperf_args", "aiperf arguments").inert(), str("aiperf_package", "aiperf package").inert(),
                 str("agentperf_client_dir", "agentperf client").inert(), any("agentperf_config", "agentperf config").inert(),
                 any("sweep", "sweep the benchmark's own parameters (mode, parameters)").tier2(),
                 str("client_placement", "where the client runs").tier2(),
                 boolean("client_dedicated_node", "give the client a node of its own").def("false"),
                 boolean("colocate_with_frontend", "dedicated roles share one node").def("true"),
                 boolean("stream_output", "the client's output also in the sweep log (srtctl v2.18)").def("false")),
      "the benchmark (default type: manual)");
}

Field resources() {
  return object(
      "resources",
      field_list(str("gpu_type", "GPU model, informational"),
                 integer("gpus_per_node", "GPUs per node (default: the profile's, else 4)").range(1, 64),
                 integer("prefill_nodes", "nodes of prefill workers").range(0, kMaxRoleNodes),
                 integer("decode_nodes", "nodes of decode workers; 0 = share the prefill nodes").range(0, kMaxRoleNodes),
                 integer("prefill_workers", "prefill endpoints").range(0, kMaxRoleWorkers), integer("decode_workers", "decode endpoints").range(0, kMaxRoleWorkers),
                 integer("agg_nodes", "nodes of aggregated workers").range(0, kMaxRoleNodes), integer("agg_workers", "aggregated endpoints").range(0, kMaxRoleWorkers),
                 integer("gpus_per_prefill", "GPUs per prefill endpoint (default: nodes*gpus_per_node // workers)").range(1, kMaxEndpointGpus),
                 integer("gpus_per_decode", "GPUs per decode endpoint").range(1, kMaxEndpointGpus),
                 integer("gpus_per_agg", "GPUs per aggregated endpoint").range(1, kMaxEndpointGpus),
                 boolean("spread_workers", "one partial worker per node"), boolean("het_jobs", "heterogeneous Slurm job").tier2(),
                 boolean("prefill_critical", "a prefill exit ends the job").def("true").tier2(),
                 boolean("decode_critical", "a decode exit ends the job").def("true").tier2(),
                 boolean("agg_critical", "an aggregated exit ends the job").def("true").tier2()),
      "GPU topology");
}

Field build_recipe_schema() {
  Field root = object(
      "",
      field_list(
          str("name", "job name (sbatch --job-name)").req(),
          integer("schema", "layout version; srt-spank reads the v1 layout (1)"),
          object("model",
                 field_list(str("path", "alias (profile model_paths), absolute directory, or hf:<org>/<repo>").req(),
                            str("container", "alias (profile containers), .sqsh path, or registry URI").req(),
                            str("precision", "informational: fp4, fp8, bf16"),
                            str("stage_dir", "copy the model to node-local storage first").tier2()),
                 "the model and its container")
              .req(),
          object("identity",
                 field_list(
                     object("model", field_list(str("repo", "expected model repository"), str("revision", "expected revision")),
                            "expected model"),
                     object("container", field_list(str("image", "expected image")), "expected container"),
                     dict("frameworks", "expected framework versions or commits")),
                 "what should run; compared with the workers' fingerprints"),
          object("slurm",
                 field_list(str("account", "account"), str("partition", "partition"),
                            make("time_limit", Kind::time_limit, "Slurm time limit")),
                 "sbatch account, partition, time"),
          resources(), backend(), frontend(), benchmark(),
          object("health_check",
                 field_list(integer("max_attempts", "polls before giving up").range(1).def("180"),
                            integer("interval_seconds", "seconds between polls").range(1).def("10"),
                            // srtctl v2.18 (HealthCheckConfig): fail at a worker log line the engine
                            // names fatal; srt-spank ends the job when the worker's step ends.
                            boolean("fatal_log_markers", "fail at a fatal line in a worker's log").def("true").tier2(),
                            any("extra_fatal_log_patterns", "more fatal-line regular expressions").tier2()),
                 "wait budget = max_attempts x interval_seconds"),
          object("dynamo",
                 field_list(str("version", "dynamo version"), str("hash", "commit"), str("wheel", "wheel path"),
                            boolean("top_of_tree", "build from main"), boolean("install", "install at run time"),
                            // srtctl v2.2.1 reads these under either layout (default request plane: tcp)
                            str("request_plane", "tcp | nats"), str("event_plane", "nats | zmq"),
                            any("cargo_patches", "patches to the Rust build"), boolean("sidecar", "KV-router sidecar"),
                            // srtctl v2.18 (DynamoConfig): the KV-router sidecar's settings.
                            any("sidecar_args", "sidecar arguments"), str("sidecar_binary", "sidecar binary"),
                            integer("sidecar_context_length", "sidecar context length"), integer("sidecar_port", "sidecar port"),
                            integer("sidecar_startup_timeout", "sidecar startup budget")),
                 "only for the dynamo frontend")
              .inert(),
          object("infra",
                 field_list(boolean("etcd_nats_dedicated_node", "give etcd/NATS a node of their own"),
                            integer("nats_max_payload_mb", "NATS payload limit").inert(),
                            any("etcd_cpu_affinity", "etcd CPU pinning").inert()),
                 "etcd/NATS placement"),
          dict("environment", "environment of every worker and the benchmark"),
          dict("container_mounts", "host -> container bind mounts"),
          make("extra_mount", Kind::string_list, "host:container[:ro] mounts"),
          dict("srun_options", "--key=value (or --key when empty) on every srun").nullable_values(),
          dict("sbatch_directives", "#SBATCH --key=value (or --key when empty)").nullable_values(),
          str("setup_script", "script from configs/ run in the container before the engine"),
          object("profiling",
                 field_list(str("type", "profiler")
                                .one_of({"none", "nsys", "nsys-time", "torch"}, {"nsys", "nsys-time", "torch"})
                                .def("none"),
                            any("prefill", "prefill step window"), any("decode", "decode step window"),
                            any("aggregated", "aggregated step window"),
                            // srtctl v2.18 (ProfilingConfig): nsys's knobs, which matter only under a
                            // profiler srt-spank does not run (the type is what is noted).
                            make("delay_secs", Kind::number, "nsys: delay").inert(),
                            make("duration_secs", Kind::number, "nsys: duration").inert(),
                            make("benchmark_duration_secs", Kind::number, "nsys: benchmark duration").inert(),
                            str("capture_range_end", "nsys: capture range end").inert(),
                            any("extra_nsys_args", "nsys: extra arguments").inert(), str("nsys_trace", "nsys: --trace").inert(),
                            any("nsys_library_paths", "nsys: library paths").inert(),
                            boolean("trace_fork_before_exec", "nsys: trace fork").inert()),
                 "profiling"),
          object("output",
                 field_list(str("log_dir", "log directory"),
                            boolean("record_launch_plan", "save the srun scripts under logs/launch-plan/").def("false").tier2()),
                 "where logs go"),
          any("observability", "observability").tier2().off_when(observability_off),
          telemetry_field(),
          any("reporting", "reporting").tier2(), object("post_eval",
                 field_list(make("passthrough_env", Kind::string_list,
                                 "variables forwarded into the eval (every variable of the job reaches its step)"),
                            make("command", Kind::string_list,
                                 "the eval's argv; {endpoint} (the frontend URL) and {infmax_workspace} filled in")),
                 "the accuracy evaluation after the benchmark (RUN_EVAL=true) or instead of it (EVAL_ONLY=true)"),
          host_setup_field("host_setup", "commands run on the bare host of each node, outside the container, before "
                                         "any worker (the profile's default_host_setup when absent)"),
          services_field(),
          boolean("enable_config_dump", "dump engine configs").tier2(),
          any("sweep", "expand {placeholders} into one job per combination").tier2()),
      "an srt-slurm recipe (v1 layout)");
  return root;
}

}  // namespace

const Field& recipe_schema() {
  static const Field root = build_recipe_schema();
  return root;
}

}  // namespace srt::schema
