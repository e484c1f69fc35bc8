# srt-helper launch on a real lab (label "cluster"): its own 3-node netns lab (fixture
# lab_launch, base ${SRT_LAB_DIR}/launch, ports SRT_LAB_PORT+30..+31) with the project's plugin,
# fake_pyxis.so (pyxis's option names) and the lab profile (bwrap runtime); a second bridge as
# the data network (lab-start.sh --data-network), which the data-network test plans over. The tests share the
# lab one at a time (RESOURCE_LOCK): each runs whole jobs that load the two cores.
add_subdirectory(fake_pyxis)

if(TARGET spank_srt AND TARGET srt_spank_impl)
  set(_launch_base "${SRT_LAB_DIR}/launch")
  math(EXPR _launch_port "${SRT_LAB_PORT} + 30")
  set(_launch_env "SRT_HELPER=$<TARGET_FILE:srt-helper>"
                  "SRT_JOB=${PROJECT_BINARY_DIR}/helper/srt-job")
  add_test(NAME cluster.launch.build
    COMMAND "${CMAKE_COMMAND}" --build "${PROJECT_BINARY_DIR}"
            --target spank_srt srt_spank_impl srt_spank_node srt-helper srt-exec fake_pyxis)
  add_test(NAME cluster.launch.start
    COMMAND "${_lab_scripts}/lab-start.sh" --base "${_launch_base}" --port ${_launch_port} --mode netns
            --nodes 3 --timeout ${SRT_LAB_TIMEOUT} --data-network --epilog "${PROJECT_BINARY_DIR}/helper/srt-epilog"
            --spank "$<TARGET_FILE:spank_srt> impl=$<TARGET_FILE:srt_spank_impl> profile=${_launch_base}/etc/srt/cluster.yaml cache_dir=${_launch_base}/cache"
            --spank "$<TARGET_FILE:fake_pyxis>")
  add_test(NAME cluster.launch.profile COMMAND "${_lab_scripts}/lab-profile.sh" "${_launch_base}")
  add_test(NAME cluster.launch.stop
    COMMAND "${_lab_scripts}/lab-stop.sh" --base "${_launch_base}" --port ${_launch_port})
  set_tests_properties(cluster.launch.build PROPERTIES FIXTURES_SETUP lab_launch_build TIMEOUT 900)
  set_tests_properties(cluster.launch.start PROPERTIES FIXTURES_SETUP lab_launch FIXTURES_REQUIRED lab_launch_build)
  set_tests_properties(cluster.launch.profile PROPERTIES FIXTURES_SETUP lab_launch DEPENDS cluster.launch.start
    ENVIRONMENT "${_launch_env}")
  set_tests_properties(cluster.launch.stop PROPERTIES FIXTURES_CLEANUP lab_launch)
  set(_launch_names cluster.launch.build cluster.launch.start cluster.launch.profile cluster.launch.stop)

  # name -> command line (after the script: one argument, and an optional second after another |);
  # each runs against the fixture's lab.
  set(_launch_tests
    "1p1d|test-launch-run.sh|recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"
    "2p1d|test-launch-run.sh|recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml"
    "smoke-1p1d|test-launch-run.sh|recipes/lab/qwen3/atom/mi355x-bf16/smoke/disagg-1p1d-tp8.yaml"
    "smoke-2p1d|test-launch-run.sh|recipes/lab/qwen3/atom/mi355x-bf16/smoke/disagg-2p1d-tp8.yaml"
    "sglang-agg|test-launch-run.sh|recipes/lab/dsr1/sglang/mi355x-fp8/8k1k/agg-tp8.yaml:base"
    "sglang-dpa|test-launch-run.sh|recipes/lab/dsr1/sglang/mi355x-fp8/8k1k/agg-tp8.yaml:override_tp8_dpa"
    "sglang-dpa2|test-launch-run.sh|recipes/lab/dsr1/sglang/mi355x-fp8/8k1k/agg-tp8.yaml:override_2x_tp4_dpa"
    "agentx-tp8|test-launch-agentx.sh|recipes/lab/dsv4/atom/mi355x-fp4/agentic/agg-tp8.yaml:override_tp8_c4"
    "agentx-dep8|test-launch-agentx.sh|recipes/lab/dsv4/atom/mi355x-fp4/agentic/agg-tp8.yaml:override_dep8_c64"
    "sglang-pd|test-launch-agentx.sh|recipes/lab/dsv4/sglang/mi355x/agentic/disagg-dspark.yaml:override_c4"
    "sglang-pd-dpa|test-launch-agentx.sh|recipes/lab/dsv4/sglang/mi355x/agentic/disagg-dspark.yaml:override_dpa"
    "shm-sweep|test-launch-shm-sweep.sh|"
    "atom-direct|test-launch-agentx.sh|recipes/lab/dsv4/atom/mi355x-fp4/agentic/agg-tp8.yaml:override_tp8_c4|direct"
    "vllm-tp4|test-launch-agentx.sh|recipes/lab/dsv4/vllm/mi355x-fp4/agentic/agg.yaml:override_tp4_c1"
    "vllm-dep8|test-launch-agentx.sh|recipes/lab/dsv4/vllm/mi355x-fp4/agentic/agg.yaml:override_dep8_c64"
    "setup-fail|test-launch-setup-fail.sh|"
    "planted-logs|test-launch-planted-logs.sh|"
    "host-setup|test-launch-host-setup.sh|"
    "services|test-launch-services.sh|"
    "power|test-launch-power.sh|"
    "curve|test-launch-curve.sh|"
    "kv-offset|test-launch-kv.sh|offset"
    "kv-relay|test-launch-kv.sh|relay"
    "kv-seed|test-launch-kv.sh|seed"
    "unhealthy|test-launch-unhealthy.sh|"
    "killed|test-launch-killed.sh|"
    "scancel|test-launch-scancel.sh|"
    "timelimit|test-launch-timelimit.sh|"
    "pyxis-argv|test-launch-pyxis-argv.sh|"
    "run-killed-worker|test-launch-run-killed.sh|worker"
    "run-killed-router|test-launch-run-killed.sh|router"
    "identity|test-launch-identity.sh|"
    "shared-ports|test-launch-shared-ports.sh|"
    "gpu-busy|test-launch-gpu-busy.sh|"
    "mutation-dp-rank|test-launch-mutation.sh|"
    "stall|test-launch-stall.sh|whole"
    "stall-point|test-launch-stall.sh|point"
    "restart|test-launch-restart.sh|"
    "inferencex-driver|test-inferencex-driver.sh|"
    "router-warmup|test-launch-router-warmup.sh|"
    "wedged-rank|test-launch-wedged-rank.sh|"
    "rdma-unready|test-launch-rdma-unready.sh|"
    "data-network|test-launch-data-network.sh|recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml"
    "podman-run|test-launch-containers.sh|run"
    "docker-run|test-launch-containers.sh|docker"
    "podman-scancel|test-launch-containers.sh|scancel"
    "podman-timelimit|test-launch-containers.sh|timelimit"
    "podman-killed|test-launch-containers.sh|killed"
    "podman-launcher|test-launch-containers.sh|launcher"
    "podman-unresolvable|test-launch-containers.sh|unresolvable"
    "podman-rootless|test-launch-containers.sh|rootless"
    "docker-launcher|test-launch-containers.sh|docker-launcher"
    "podman-planted-logs|test-launch-containers.sh|planted"
    "docker-planted-logs|test-launch-containers.sh|docker-planted")
  foreach(entry IN LISTS _launch_tests)
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 name)
    list(GET parts 1 script)
    list(GET parts 2 arg)
    set(extra "")
    list(LENGTH parts count)
    if(count GREATER 3)
      list(GET parts 3 extra)  # a second argument ("name|script|arg|extra")
    endif()
    add_test(NAME cluster.launch.${name} COMMAND "${_lab_scripts}/${script}" "${_launch_base}" ${arg} ${extra})
    set_tests_properties(cluster.launch.${name} PROPERTIES FIXTURES_REQUIRED lab_launch
      RESOURCE_LOCK lab_launch SKIP_RETURN_CODE 77 ENVIRONMENT "${_launch_env}")
    list(APPEND _launch_names cluster.launch.${name})
  endforeach()
  set_tests_properties(${_launch_names} PROPERTIES LABELS cluster)
  set_tests_properties(cluster.launch.1p1d cluster.launch.2p1d cluster.launch.smoke-1p1d cluster.launch.smoke-2p1d
                       cluster.launch.kv-offset cluster.launch.kv-relay cluster.launch.data-network
                       cluster.launch.podman-run PROPERTIES TIMEOUT 600)
  set_tests_properties(cluster.launch.curve PROPERTIES TIMEOUT 900)
  set_tests_properties(cluster.launch.run-killed-worker cluster.launch.run-killed-router PROPERTIES TIMEOUT 300)
endif()
