// The node decides which NICs an ATOM worker's ranks open over Mooncake RDMA (bind_step, as the
// plugin runs it in the worker's step): ATOM's own pick (rdma<N>, else ionic_<N>, N the rank's
// ROCR_VISIBLE_DEVICES entry) where it is every GPU's paired NIC, else the paired list with a
// console line naming the GPUs that miss.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "../topology/fixtures.hpp"
#include "process_checks.hpp"
#include "srt/contract.hpp"
#include "srt/rdma_nic.hpp"
#include "srt/topology.hpp"

using namespace test_recipes;

namespace test_atom_nic_rule {

std::string set_value(const srt::StepEnvironment& env, const std::string& name) {
  for (const auto& [k, v] : env.set)
    if (k == name) return v;
  return "<unset>";
}

const srt::NodeTopology& fixture(const std::string& name) {
  static std::map<std::string, srt::NodeTopology> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, srt::read_topology_xml(srt::test::topology_fixture(name))).first;
  return it->second;
}

// One worker step of `recipe` bound on a node of topology `topo` with what Slurm granted.
srt::StepEnvironment bound(const srt::Recipe& recipe, const std::string& step, const std::string& topo,
                           const std::string& visible, const std::string& node_gpus,
                           const srt::Profile& profile = srt::default_profile(),
                           const std::map<std::string, int>& gid_index = {}, const std::string& atom_nic_pick = "") {
  static std::vector<srt::Plan> plans;  // the step environment points into its Plan
  plans.push_back(srt::make_plan(recipe, profile, inputs(2)));
  const srt::Plan& plan = plans.back();
  const srt::Process* w = plan.find(step);
  REQUIRE(w);
  srt::StepEnvironment env = srt::step_environment(plan, w->node_index, step);
  srt::NodeGrant grant;
  grant.visible_devices = visible;
  grant.node_gpus = node_gpus;
  grant.roce_gid_index = gid_index;
  grant.atom_nic_pick = atom_nic_pick;
  srt::bind_step(env, fixture(topo), grant, profile);
  return env;
}

srt::Recipe rdma(srt::Recipe r) {
  r.backend.mooncake_protocol = "rdma";
  return r;
}

const std::string kAll = "0,1,2,3,4,5,6,7";

}  // namespace test_atom_nic_rule

using namespace test_atom_nic_rule;

TEST_CASE("where the NIC beside GPU N is ionic_N, ATOM picks: no list, no topology file, one NIC per rank") {
  const srt::StepEnvironment env = bound(rdma(dsv4_1p1d()), "prefill:0", "ionic-follows-gpu", kAll, kAll);
  CHECK(set_value(env, "ATOM_MOONCAKE_IB_DEVICE") == "<unset>");
  CHECK(set_value(env, "MC_CUSTOM_TOPO_JSON") == "<unset>");  // it would make every rank open every NIC
  CHECK(set_value(env, "SRT_MOONCAKE_TOPOLOGY") == "<unset>");
  CHECK(set_value(env, "ROCR_VISIBLE_DEVICES") == kAll);
  REQUIRE(env.notes.size() == 1);
  CHECK(env.notes[0] == "prefill:0 on mi355x-01: each rank opens only its own NIC, as ATOM picks it: GPU 0 ionic_0, "
                        "GPU 1 ionic_1, GPU 2 ionic_2, GPU 3 ionic_3, GPU 4 ionic_4, GPU 5 ionic_5, GPU 6 ionic_6, "
                        "GPU 7 ionic_7");
  // Over TCP the NICs are not Mooncake's business: nothing set, nothing said.
  const srt::StepEnvironment tcp = bound(dsv4_1p1d(), "prefill:0", "ionic-follows-gpu", kAll, kAll);
  CHECK(set_value(tcp, "ATOM_MOONCAKE_IB_DEVICE") == "<unset>");
  CHECK(set_value(tcp, "MC_CUSTOM_TOPO_JSON") == "<unset>");
  CHECK(tcp.notes.empty());
}

TEST_CASE("on Pollara and Thor2 nodes ATOM's pick misses: the paired list, and a line naming the GPUs") {
  const srt::StepEnvironment pollara = bound(rdma(dsv4_1p1d()), "decode:0", "pollara", kAll, kAll);
  CHECK(set_value(pollara, "ATOM_MOONCAKE_IB_DEVICE") == "ionic_4,ionic_7,ionic_1,ionic_0,ionic_6,ionic_5,ionic_3,ionic_2");
  CHECK(set_value(pollara, "MC_CUSTOM_TOPO_JSON") == "/tmp/srt-mooncake-4242-decode_0.json");
  REQUIRE(pollara.notes.size() == 1);
  CHECK_THAT(pollara.notes[0], Catch::StartsWith("decode:0 on mi355x-02: ATOM's own NIC pick misses the pairing for "
                                                 "GPU 0 ionic_0 (paired ionic_4), GPU 1 ionic_1 (paired ionic_7), GPU 2 "
                                                 "ionic_2 (paired ionic_1), "));
  CHECK_THAT(pollara.notes[0], Catch::EndsWith("; every rank gets the worker's paired NICs instead "
                                               "(ATOM_MOONCAKE_IB_DEVICE=ionic_4,ionic_7,ionic_1,ionic_0,ionic_6,ionic_5,"
                                               "ionic_3,ionic_2)"));
  CHECK_THAT(pollara.notes[0], !Catch::Contains("GPU 5 "));  // ionic_5 is GPU 5's own NIC there

  // Thor2: no rdma<N> and no ionic_<N>: ATOM would ask Mooncake for rdma<N>, which does not exist.
  const srt::StepEnvironment thor2 = bound(rdma(dsv4_1p1d()), "prefill:0", "thor2", kAll, kAll);
  CHECK_THAT(set_value(thor2, "ATOM_MOONCAKE_IB_DEVICE"), Catch::StartsWith("bnxt_re"));
  REQUIRE(thor2.notes.size() == 1);
  CHECK_THAT(thor2.notes[0], Catch::Contains("misses the pairing for GPU 0 rdma0 (paired bnxt_re"));
}

TEST_CASE("a partial-node worker under ConstrainDevices is predicted from the node's local values") {
  // Two prefill workers of four GPUs on one node; prefill:1 holds GPUs 4-7.
  const srt::Recipe r = rdma(atom_pd(1, 1, 2, 1, 4, 8, false));
  // ConstrainDevices: Slurm numbers the step's four granted GPUs 0-3, so ROCR_VISIBLE_DEVICES is
  // 0,1,2,3 and ATOM would pick ionic_0..3, the NICs beside GPUs 0-3, not its own.
  const srt::StepEnvironment local = bound(r, "prefill:1", "ionic-follows-gpu", "0,1,2,3", "4,5,6,7");
  CHECK(set_value(local, "ROCR_VISIBLE_DEVICES") == "0,1,2,3");
  CHECK(set_value(local, "ATOM_MOONCAKE_IB_DEVICE") == "ionic_4,ionic_5,ionic_6,ionic_7");
  REQUIRE(local.notes.size() == 1);
  CHECK_THAT(local.notes[0], Catch::Contains("misses the pairing for GPU 4 ionic_0 (paired ionic_4), GPU 5 ionic_1 "
                                             "(paired ionic_5), GPU 6 ionic_2 (paired ionic_6), GPU 7 ionic_3 (paired "
                                             "ionic_7);"));
  // Without ConstrainDevices the same worker's entries are its node indices: ATOM's pick holds.
  const srt::StepEnvironment global = bound(r, "prefill:1", "ionic-follows-gpu", "4,5,6,7", "4,5,6,7");
  CHECK(set_value(global, "ROCR_VISIBLE_DEVICES") == "4,5,6,7");
  CHECK(set_value(global, "ATOM_MOONCAKE_IB_DEVICE") == "<unset>");
  REQUIRE(global.notes.size() == 1);
  CHECK_THAT(global.notes[0], Catch::EndsWith("as ATOM picks it: GPU 4 ionic_4, GPU 5 ionic_5, GPU 6 ionic_6, GPU 7 ionic_7"));
}

TEST_CASE("matched rails keep the recipe's choice - the node says when ATOM's pick misses the pairing") {
  srt::Recipe r = rdma(dsv4_1p1d());
  r.backend.prefill_environment.emplace_back("ATOM_MOONCAKE_MATCHED_RAILS", "auto");
  const srt::StepEnvironment miss = bound(r, "prefill:0", "pollara", kAll, kAll);
  CHECK(set_value(miss, "ATOM_MOONCAKE_IB_DEVICE") == "<unset>");
  CHECK(set_value(miss, "MC_CUSTOM_TOPO_JSON") == "<unset>");
  REQUIRE(miss.notes.size() == 1);
  CHECK_THAT(miss.notes[0], Catch::Contains("ATOM_MOONCAKE_MATCHED_RAILS leaves each rank's NIC to ATOM, whose pick "
                                            "misses the pairing: GPU 0 ionic_0 (paired ionic_4)"));
  const srt::StepEnvironment hit = bound(r, "prefill:0", "ionic-follows-gpu", kAll, kAll);
  CHECK(hit.notes.empty());
  CHECK(set_value(hit, "ATOM_MOONCAKE_IB_DEVICE") == "<unset>");
}

TEST_CASE("mooncake_gid_index: auto: the node sets the RoCE v2 IPv4 GID index the worker's NICs share") {
  srt::Profile profile = srt::default_profile();
  profile.mooncake_gid_index = srt::kMooncakeGidAuto;
  std::map<std::string, int> at3;
  for (int n = 0; n < 8; ++n) at3["ionic_" + std::to_string(n)] = 3;
  const srt::StepEnvironment shared = bound(rdma(dsv4_1p1d()), "prefill:0", "ionic-follows-gpu", kAll, kAll, profile, at3);
  CHECK(set_value(shared, "MC_GID_INDEX") == "3");
  CHECK(set_value(shared, "MC_IB_GID_INDEX") == "3");
  REQUIRE(shared.notes.size() == 2);
  CHECK_THAT(shared.notes[0], Catch::StartsWith("prefill:0 on mi355x-01: MC_GID_INDEX=3 (mooncake_gid_index: auto): "
                                                "the RoCE v2 IPv4 GID index of ionic_0,ionic_1,"));
  // One NIC at another index, one with none: no index at all, and the line says why.
  std::map<std::string, int> mixed = at3;
  mixed["ionic_5"] = 5;
  mixed.erase("ionic_6");
  const srt::StepEnvironment differ = bound(rdma(dsv4_1p1d()), "prefill:0", "ionic-follows-gpu", kAll, kAll, profile, mixed);
  CHECK(set_value(differ, "MC_GID_INDEX") == "<unset>");
  REQUIRE_FALSE(differ.notes.empty());
  CHECK_THAT(differ.notes[0], Catch::Contains("found no RoCE v2 IPv4 GID index every paired NIC shares (") &&
                                  Catch::Contains("ionic_5 5") && Catch::Contains("ionic_6 none") &&
                                  Catch::Contains("Mooncake detects one itself"));
  // Over TCP there is no GID to set.
  CHECK(set_value(bound(dsv4_1p1d(), "prefill:0", "ionic-follows-gpu", kAll, kAll, profile, at3), "MC_GID_INDEX") ==
        "<unset>");
}

TEST_CASE("the NIC rule follows what preflight read the image's connector picks") {
  const auto with_pick = [](const std::string& pick) {
    return bound(rdma(dsv4_1p1d()), "prefill:0", "ionic-follows-gpu", kAll, kAll, srt::default_profile(), {}, pick);
  };
  // Since July 2026: rdma<N>, else ionic_<N>: on this node each rank's own pick is its GPU's NIC.
  for (const std::string pick : {"", "rdma+ionic_:physical", "not a pick; ATOM_MOONCAKE_IB_DEVICE=x"}) {
    INFO(pick);
    const srt::StepEnvironment env = with_pick(pick);
    CHECK(set_value(env, "ATOM_MOONCAKE_IB_DEVICE") == "<unset>");
    REQUIRE(env.notes.size() == 1);
    CHECK_THAT(env.notes[0], Catch::Contains("each rank opens only its own NIC, as ATOM picks it: GPU 0 ionic_0"));
  }
  // June 2026: rdma<N> only, which this node does not have: the paired list, saying why.
  const srt::StepEnvironment june = with_pick("rdma:physical");
  CHECK(set_value(june, "ATOM_MOONCAKE_IB_DEVICE") == "ionic_0,ionic_1,ionic_2,ionic_3,ionic_4,ionic_5,ionic_6,ionic_7");
  REQUIRE(june.notes.size() == 1);
  CHECK_THAT(june.notes[0], Catch::Contains("ATOM's own NIC pick (rdma:physical) misses the pairing for GPU 0 rdma0 (paired ionic_0)"));
  // A connector that picks no NIC of a rank's own, and one preflight could not read: never left
  // to the engine.
  const srt::StepEnvironment every = with_pick("every-nic");
  CHECK(set_value(every, "ATOM_MOONCAKE_IB_DEVICE") == "ionic_0,ionic_1,ionic_2,ionic_3,ionic_4,ionic_5,ionic_6,ionic_7");
  CHECK_THAT(every.notes.at(0), Catch::Contains("picks no NIC of a rank's own (every-nic); every rank gets the worker's paired NICs"));
  const srt::StepEnvironment unknown = with_pick("unknown");
  CHECK(set_value(unknown, "ATOM_MOONCAKE_IB_DEVICE") != "<unset>");
  CHECK_THAT(unknown.notes.at(0), Catch::Contains("preflight could not tell how the image's ATOM picks a rank's NIC"));
}

TEST_CASE("a connector that names the NIC by the rank's ordinal misses on a partial-node worker") {
  // May 2026: rdma<ordinal>. A worker on GPUs 4-7 sees them as 0-3: its ranks would open the NICs
  // of GPUs 0-3; the physical pick of later versions opens GPU 4's own.
  const srt::Recipe r = rdma(atom_pd(1, 1, 2, 1, 4, 8, false));  // prefill:1 holds GPUs 4-7
  const auto partial = [&](const std::string& pick) {
    return bound(r, "prefill:1", "ionic-follows-gpu", "4,5,6,7", "4,5,6,7", srt::default_profile(), {}, pick);
  };
  const srt::StepEnvironment visible = partial("rdma+ionic_:visible");
  CHECK(set_value(visible, "ATOM_MOONCAKE_IB_DEVICE") == "ionic_4,ionic_5,ionic_6,ionic_7");
  CHECK_THAT(visible.notes.at(0), Catch::Contains("GPU 4 ionic_0 (paired ionic_4)"));
  const srt::StepEnvironment physical = partial("rdma+ionic_:physical");
  CHECK(set_value(physical, "ATOM_MOONCAKE_IB_DEVICE") == "<unset>");
}

TEST_CASE("an ATOM NIC pick reads only the probe's words") {
  for (const std::string word : {"rdma+ionic_:physical", "rdma:visible", "ionic_:physical", "every-nic", "unknown"}) {
    INFO(word);
    const auto pick = srt::parse_atom_nic_pick(word);
    REQUIRE(pick);
    CHECK(srt::to_string(*pick) == word);
  }
  for (const std::string bad : {"", "rdma", "rdma:", ":physical", "rdma+rdma:physical", "mlx5_:physical", "rdma:PHYSICAL",
                                "rdma+ionic_:physical ", "every-nic\n"}) {
    INFO(bad);
    CHECK_FALSE(srt::parse_atom_nic_pick(bad));
  }
  CHECK(srt::to_string(srt::newest_atom_nic_pick()) == "rdma+ionic_:physical");
}
