# Install rules for everything that is not a compiled target: the plugstack drop-in, the cluster
# profile, the shipped recipes and the man pages. Packaging (packaging/) only chooses the paths:
#   RPM: SRT_PLUGIN_DIR=%{_libdir}/slurm                      (/usr/lib64/slurm)
#   deb: SRT_PLUGIN_DIR=/usr/lib/x86_64-linux-gnu/slurm-wlm   (Debian's PluginDir)
# SRT_PLUGIN_DIR is also compiled into the loader (its default implementation path), so a package
# must be built with the directory it installs into.
set(SRT_PLUGSTACK_DIR "${CMAKE_INSTALL_FULL_SYSCONFDIR}/slurm/plugstack.conf.d" CACHE PATH
  "Where srt.conf is installed (plugstack.conf must include it)")
# SRT_RECIPE_DIR (where the shipped recipes go) is set in the top-level CMakeLists.txt: srt-helper
# doctor names the smoke recipe by its installed path.

# The drop-in in the source tree is written for the RPM layout; other layouts get their paths.
# srt_plugstack_conf(OUTPUT PLUGIN_DIR): that drop-in for a plugin installed in PLUGIN_DIR
# (packaging/CMakeLists.txt makes the .deb's with it).
function(srt_plugstack_conf output plugin_dir)
  file(READ "${PROJECT_SOURCE_DIR}/etc/plugstack.conf.d/srt.conf" _srt_conf)
  string(REPLACE "/usr/lib64/slurm/spank_srt.so" "${plugin_dir}/spank_srt.so" _srt_conf "${_srt_conf}")
  string(REPLACE "profile=/etc/srt/cluster.yaml" "profile=${SRT_PROFILE_PATH}" _srt_conf "${_srt_conf}")
  file(GENERATE OUTPUT "${output}" CONTENT "${_srt_conf}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/etc/plugstack.conf.d/srt.conf")
endfunction()
srt_plugstack_conf("${PROJECT_BINARY_DIR}/etc/plugstack.conf.d/srt.conf" "${SRT_PLUGIN_DIR}")
install(FILES "${PROJECT_BINARY_DIR}/etc/plugstack.conf.d/srt.conf" DESTINATION "${SRT_PLUGSTACK_DIR}")

get_filename_component(_srt_profile_dir "${SRT_PROFILE_PATH}" DIRECTORY)
get_filename_component(_srt_profile_name "${SRT_PROFILE_PATH}" NAME)
install(FILES "${PROJECT_SOURCE_DIR}/etc/srt/cluster.yaml" DESTINATION "${_srt_profile_dir}"
  RENAME "${_srt_profile_name}")

install(DIRECTORY "${PROJECT_SOURCE_DIR}/recipes/" DESTINATION "${SRT_RECIPE_DIR}"
  FILES_MATCHING PATTERN "*.yaml")

foreach(_srt_page srt-helper.1 srt-recipe.5 spank_srt.8)
  string(REGEX REPLACE ".*\\.([0-9])$" "\\1" _srt_section "${_srt_page}")
  install(FILES "${PROJECT_SOURCE_DIR}/docs/man/${_srt_page}" DESTINATION "${CMAKE_INSTALL_MANDIR}/man${_srt_section}")
endforeach()

# srt-job (the batch script users give sbatch) goes to the bindir and srt-exec to SRT_LIBEXECDIR;
# their targets and install rules belong to the launch work (helper/). packaging/ lists them.
