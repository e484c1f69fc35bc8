# Faults on a real lab (label "cluster"): a node's slurmd killed mid-job, a worker's helper that
# escapes its step with setsid(), the plugin's implementation library missing on one node.
# Fixture lab_fault: its own 3-node netns lab (${SRT_LAB_DIR}/fault, ports SRT_LAB_PORT+50..+51),
# because the tests damage it on purpose (a dead slurmd, a node that sees different files) and
# need a short SlurmdTimeout (10 s) to see a dead slurmd within seconds. The plugin loads its
# implementation from BASE/lib/srt/srt_spank_impl.so and srt_spank_node.so (links to this
# build's, as a package installs them in the plugin directory), so a test can hide that directory from one node only.
if(TARGET spank_srt AND TARGET srt_spank_impl AND TARGET srt_spank_node)
  set(_fault_base "${SRT_LAB_DIR}/fault")
  math(EXPR _fault_port "${SRT_LAB_PORT} + 50")
  set(_fault_impl "${_fault_base}/lib/srt/srt_spank_impl.so")
  add_test(NAME cluster.fault.start
    COMMAND "${_lab_scripts}/lab-start.sh" --base "${_fault_base}" --port ${_fault_port} --mode netns
            --nodes 3 --timeout ${SRT_LAB_TIMEOUT} --slurmd-timeout 10 --srt-profile
            --spank "$<TARGET_FILE:spank_srt> impl=${_fault_impl} profile=${_fault_base}/etc/srt/cluster.yaml cache_dir=${_fault_base}/cache")
  # Both sides' libraries, side by side as a package installs them (the loader finds the node's
  # beside impl=).
  add_test(NAME cluster.fault.impl
    COMMAND sh -c "ln -sfn \"$1\" \"$3/srt_spank_impl.so\" && ln -sfn \"$2\" \"$3/srt_spank_node.so\"" sh
            "$<TARGET_FILE:srt_spank_impl>" "$<TARGET_FILE:srt_spank_node>" "${_fault_base}/lib/srt")
  add_test(NAME cluster.fault.stop
    COMMAND "${_lab_scripts}/lab-stop.sh" --base "${_fault_base}" --port ${_fault_port})
  # lab-start.sh wipes the base: the link is made after it (its directory first).
  add_test(NAME cluster.fault.impl-dir
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${_fault_base}/lib/srt")
  set_tests_properties(cluster.fault.start PROPERTIES FIXTURES_SETUP lab_fault
    FIXTURES_REQUIRED lab_launch_build ENVIRONMENT "SRT_HELPER=$<TARGET_FILE:srt-helper>")
  set_tests_properties(cluster.fault.impl-dir PROPERTIES FIXTURES_SETUP lab_fault
    DEPENDS cluster.fault.start)
  set_tests_properties(cluster.fault.impl PROPERTIES FIXTURES_SETUP lab_fault
    DEPENDS cluster.fault.impl-dir)
  set_tests_properties(cluster.fault.stop PROPERTIES FIXTURES_CLEANUP lab_fault)
  set(_fault_names cluster.fault.start cluster.fault.impl-dir cluster.fault.impl cluster.fault.stop)

  foreach(name IN ITEMS slurmd-killed setsid-escape impl-missing)
    add_test(NAME cluster.fault.${name} COMMAND "${_lab_scripts}/test-fault-${name}.sh" "${_fault_base}")
    set_tests_properties(cluster.fault.${name} PROPERTIES FIXTURES_REQUIRED lab_fault
      RESOURCE_LOCK lab_fault SKIP_RETURN_CODE 77 TIMEOUT 300 ENVIRONMENT "${_launch_env}")
    list(APPEND _fault_names cluster.fault.${name})
  endforeach()
  set_tests_properties(${_fault_names} PROPERTIES LABELS cluster)
endif()
