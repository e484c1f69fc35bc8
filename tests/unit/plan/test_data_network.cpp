// The data network (srt/data_network.hpp): which address every node is reached at, found by every
// node alone from the profile and the name service, and refused with the node's name when a node
// has none that fits. The resolver is a table here: what /etc/hosts or DNS would answer.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "file_snapshot.hpp"
#include "srt/data_network.hpp"
#include "srt/error.hpp"
#include "srt/files.hpp"
#include "srt/job_plan.hpp"
#include "srt/profile.hpp"

namespace {

using Names = std::map<std::string, std::vector<std::string>>;

srt::NameResolver table(Names names) {
  return [names = std::move(names)](const std::string& name) {
    auto it = names.find(name);
    return it == names.end() ? std::vector<std::string>{} : it->second;
  };
}

srt::Profile profile(const std::string& yaml) { return srt::load_profile_text(yaml, "cluster.yaml"); }

std::string error_of(const std::vector<std::string>& nodes, const srt::Profile& p, const Names& names) {
  try {
    srt::data_addresses(nodes, p, table(names));
  } catch (const srt::Error& e) {
    return e.what();
  }
  return "";
}

// The site docs/design.md "Addresses and the data network" is for: node names resolve to the management network, the data rail has its own.
const Names kTwoNetworks = {
    {"n1", {"192.168.1.11"}},     {"n2", {"192.168.1.12"}},     {"n3", {"192.168.1.13"}},
    {"n1-data", {"10.20.0.11"}},  {"n2-data", {"10.20.0.12"}},  {"n3-data", {"10.20.0.13"}},
};

}  // namespace

TEST_CASE("data_network: the node name by default, the pattern's name when the profile gives one") {
  const std::vector<std::string> nodes = {"n1", "n2", "n3"};
  CHECK(srt::data_addresses(nodes, srt::default_profile(), table(kTwoNetworks)) ==
        std::map<std::string, std::string>{{"n1", "192.168.1.11"}, {"n2", "192.168.1.12"}, {"n3", "192.168.1.13"}});
  const srt::Profile data = profile("data_network: {name_pattern: '{node}-data', cidr: 10.20.0.0/16}\n");
  CHECK(srt::data_network_name(data, "n2") == "n2-data");
  CHECK(srt::data_addresses(nodes, data, table(kTwoNetworks)) ==
        std::map<std::string, std::string>{{"n1", "10.20.0.11"}, {"n2", "10.20.0.12"}, {"n3", "10.20.0.13"}});
}

TEST_CASE("data_network: the first address inside the CIDR of a name with several") {
  const srt::Profile p = profile("data_network: {cidr: 10.20.0.0/16}\n");
  const Names multi = {{"n1", {"192.168.1.11", "10.20.0.11"}}, {"n2", {"10.20.0.12", "10.20.9.12"}}};
  CHECK(srt::data_addresses({"n1", "n2"}, p, table(multi)) ==
        std::map<std::string, std::string>{{"n1", "10.20.0.11"}, {"n2", "10.20.0.12"}});
}

TEST_CASE("data_network: node_addresses wins, and is held to the CIDR too") {
  srt::Profile p = profile("node_addresses: {n2: 10.20.7.2}\ndata_network: {name_pattern: '{node}-data', cidr: 10.20.0.0/16}\n");
  CHECK(srt::data_addresses({"n1", "n2"}, p, table(kTwoNetworks)).at("n2") == "10.20.7.2");
  p = profile("node_addresses: {n2: 192.168.1.12}\ndata_network: {cidr: 10.20.0.0/16}\n");
  const std::string e = error_of({"n2"}, p, kTwoNetworks);
  CHECK_THAT(e, Catch::Contains("node n2: node_addresses gives 192.168.1.12, outside data_network.cidr 10.20.0.0/16"));
  p = profile("node_addresses: {n2: n2.example}\n");
  CHECK_THAT(error_of({"n2"}, p, kTwoNetworks), Catch::Contains("node n2: node_addresses gives 'n2.example', which is no IPv4 address"));
}

TEST_CASE("data_network: never a silent host name - every node without an address is named") {
  const srt::Profile data = profile("data_network: {name_pattern: '{node}-data'}\n");
  const std::string e = error_of({"n1", "n4", "n5"}, data, kTwoNetworks);
  CHECK_THAT(e, Catch::Contains("node n4: its data-network name 'n4-data' does not resolve to an IPv4 address"));
  CHECK_THAT(e, Catch::Contains("node n5: its data-network name 'n5-data' does not resolve"));
  CHECK_THAT(e, Catch::Contains("node_addresses"));  // what to do
  CHECK_THAT(e, !Catch::Contains("node n1"));
  CHECK_THAT(error_of({"n9"}, srt::default_profile(), kTwoNetworks), Catch::Contains("node n9: its name does not resolve"));
}

TEST_CASE("data_network: names that resolve only to the management network are refused by the CIDR") {
  const srt::Profile p = profile("data_network: {cidr: 10.20.0.0/16}\n");
  CHECK_THAT(error_of({"n1", "n2"}, p, kTwoNetworks),
             Catch::Contains("node n1: its name resolves to 192.168.1.11, none inside data_network.cidr 10.20.0.0/16 "
                             "(the management network?)"));
}

TEST_CASE("data_network: a loopback address is refused in a job of more than one node, unless the admin wrote it") {
  const Names debian = {{"n1", {"127.0.1.1"}}, {"n2", {"192.168.1.12"}}};
  CHECK_THAT(error_of({"n1", "n2"}, srt::default_profile(), debian),
             Catch::Contains("node n1: its name resolves to 127.0.1.1, a loopback address other nodes cannot reach"));
  CHECK(srt::data_addresses({"n1"}, srt::default_profile(), table(debian)).at("n1") == "127.0.1.1");
  const srt::Profile lab = profile("node_addresses: {n1: 127.0.0.1, n2: 127.0.0.1}\n");
  CHECK(srt::data_addresses({"n1", "n2"}, lab, table({})).at("n2") == "127.0.0.1");
}

TEST_CASE("data_network: the profile's keys are checked where they are written") {
  auto refused = [](const std::string& yaml) {
    try {
      profile(yaml);
    } catch (const srt::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(refused("data_network: {name_pattern: data-net}\n"), Catch::Contains("cluster.yaml:1:"));
  CHECK_THAT(refused("data_network: {name_pattern: data-net}\n"),
             Catch::Contains("data_network.name_pattern: 'data-net' has no {node}"));
  CHECK_THAT(refused("data_network: {cidr: 10.20.0.0}\n"), Catch::Contains("data_network.cidr: '10.20.0.0' is not an IPv4 network"));
  CHECK_THAT(refused("data_network: {cidr: 10.20.0.0/33}\n"), Catch::Contains("prefix length"));
  CHECK_THAT(refused("data_network: {cidr: 10.20.0.1/16}\n"), Catch::Contains("host bits"));
  CHECK_THAT(refused("data_network: {cidrs: 10.20.0.0/16}\n"), Catch::Contains("data_network.cidrs"));
  CHECK(refused("data_network: {name_pattern: '{node}-ib', cidr: 0.0.0.0/0}\n").empty());
}

TEST_CASE("data_network: networks and addresses parse with the C library's rules") {
  const auto net = srt::parse_ipv4_network("10.20.0.0/16");
  REQUIRE(net);
  CHECK(net->contains("10.20.255.1"));
  CHECK_FALSE(net->contains("10.21.0.1"));
  CHECK_FALSE(net->contains("n1"));
  CHECK(srt::parse_ipv4_network("0.0.0.0/0")->contains("192.168.1.1"));
  CHECK(srt::parse_ipv4_network("10.20.0.11/32")->contains("10.20.0.11"));
  CHECK_FALSE(srt::parse_ipv4_network("10.20.0.0/"));
  CHECK_FALSE(srt::parse_ipv4_network("10.20.0.0/x"));
  CHECK_FALSE(srt::parse_ipv4_network("10.20.0/16"));
  CHECK(srt::is_loopback_ipv4("127.0.1.1"));
  CHECK_FALSE(srt::is_loopback_ipv4("128.0.0.1"));
}

TEST_CASE("data_network: on its own node, the planned address must be one of the node's, on network_interface") {
  const std::vector<srt::LocalInterface> here = {{"lo", "127.0.0.1", true, -1},
                                                 {"eth0", "192.168.1.12", true, 25000},
                                                 {"eth1", "10.20.0.12", true, 100000}};
  CHECK(srt::own_data_interface("n2", "10.20.0.12", srt::default_profile(), here).name == "eth1");
  CHECK(srt::own_data_interface("n2", "10.20.0.12", profile("network_interface: eth1\n"), here).name == "eth1");
  try {
    srt::own_data_interface("n2", "10.20.0.13", srt::default_profile(), here);
    FAIL("another node's address was accepted as n2's");
  } catch (const srt::Error& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("node n2: the address every node plans for it, 10.20.0.13, is on none of its "
                                                      "interfaces (lo 127.0.0.1, eth0 192.168.1.12, eth1 10.20.0.12)"));
  }
  try {
    srt::own_data_interface("n2", "10.20.0.12", profile("network_interface: eth0\n"), here);
    FAIL("an address off network_interface was accepted");
  } catch (const srt::Error& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("network_interface: node n2: its data address 10.20.0.12 is on eth1, "
                                                      "not on the profile's network_interface eth0"));
  }
}

TEST_CASE("data_network: doctor's faster interface is up, not loopback, and faster than a known carrier speed") {
  const std::vector<srt::LocalInterface> here = {{"lo", "127.0.0.1", true, 400000},
                                                 {"eth0", "192.168.1.12", true, 25000},
                                                 {"ib0", "10.30.0.12", false, 400000},
                                                 {"eth1", "10.20.0.12", true, 100000},
                                                 {"eth2", "10.40.0.12", true, 200000}};
  CHECK(srt::faster_interface(here[1], here)->name == "eth2");
  CHECK(srt::faster_interface(here[4], here) == nullptr);
  srt::LocalInterface unknown{"veth0", "10.50.0.1", true, -1};
  CHECK(srt::faster_interface(unknown, here) == nullptr);
}

TEST_CASE("data_network: every cross-node endpoint of the Plan is a data address") {
  // The 2P1D seed on the two-network site: router to workers, Mooncake bootstrap, the DP master
  // and ATOM_HOST_IP all use 10.20.0.x, and no management address appears anywhere in the Plan.
  const srt::Profile p = profile("data_network: {name_pattern: '{node}-data', cidr: 10.20.0.0/16}\n");
  srt::JobFacts facts;
  facts.nodes = {"n1", "n2", "n3"};
  facts.job_id = 7;
  facts.addresses = srt::data_addresses(facts.nodes, p, table(kTwoNetworks));
  const srt::Snapshot snap = test_recipes::file_snapshot(
      SRT_SOURCE_DIR "/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml", p, "disagg-2p1d-dpa-tp8.yaml");
  const srt::Plan plan = srt::plan_job(snap, p, facts).plan;
  const std::string text = srt::plan_to_json(plan).dump();
  CHECK(text.find("192.168.1.") == std::string::npos);
  for (const auto& proc : plan.processes) {
    if (!proc.is_worker()) continue;
    INFO(proc.name);
    bool host_ip = false;
    for (const auto& [k, v] : proc.env)
      if (k == "ATOM_HOST_IP") host_ip = v.rfind("10.20.0.", 0) == 0;
    CHECK(host_ip);
  }
  const srt::Process* router = plan.find("router");
  REQUIRE(router);
  std::string argv;
  for (const auto& a : router->argv) argv += a + " ";
  CHECK_THAT(argv, Catch::Contains("http://10.20.0.11:") && Catch::Contains("http://10.20.0.13:"));
}
