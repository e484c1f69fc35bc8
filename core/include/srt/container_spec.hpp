// Each process's container as the Plan decides it, independent of the runtime that starts it:
// the image, what is mounted where, which devices, which limits. The helper only renders it as
// pyxis, bwrap or none flags (jobstep/launch/container.cpp). Being in the Plan, an image, mount
// or device that changes changes the digest every node and the launcher compare.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace srt {

struct Mount {
  std::string host;
  std::string container;
  bool read_only = false;
  // A device node or a directory of them (/dev/kfd, /dev/dri, /dev/infiniband): pyxis binds it
  // like any mount, bwrap already shows all of /dev, docker would pass --device.
  bool device = false;
};

// A recipe's extra_mount entry, "SRC:DST[:FLAGS]": DST defaults to SRC as pyxis does, FLAGS
// holding "ro" make it read-only.
Mount parse_mount(const std::string& spec);

struct ContainerSpec {
  bool on_host = false;        // never in a container (kv-relay: a host helper on the host network)
  std::string image;           // after the profile's `containers` aliases; "" = the recipe gave none
  // srtctl's order: /logs, /results, the local model, the GPU devices, the profile's
  // default_mounts, the recipe's extra_mount and container_mounts, RDMA devices and providers
  // (workers). A later mount of a container path replaces the earlier one in place.
  std::vector<Mount> mounts;
  // RDMA workers: Mooncake registers the KV cache with the NIC, which needs an unlimited
  // RLIMIT_MEMLOCK inside the container (the legacy launcher's --ulimit memlock=-1).
  bool unlimited_memlock = false;
};

// srtctl's job directory: <output_dir>/<job id>, or beside the results without output_dir. Its
// logs/ is every step's .out file and, inside a container, /logs.
struct Profile;
std::string job_directory(const Profile& profile, std::uint64_t job_id);

}  // namespace srt
