// Paths of the topology fixtures (tests/fixtures/topology, tests/fixtures/rsmi).
#pragma once
#include <string>

namespace srt::test {

inline std::string topology_fixture(const std::string& name) {
  return std::string(SRT_SOURCE_DIR) + "/tests/fixtures/topology/mi355x-8gpu-" + name + ".xml";
}

inline std::string fake_sysfs_builder() {
  return std::string(SRT_SOURCE_DIR) + "/tests/fixtures/rsmi/make-fake-sysfs.py";
}

}  // namespace srt::test
