#include <catch2/catch.hpp>

#include "srt/slurm_job_state.hpp"

// Lines as `scontrol -o show job` prints them on the lab (Slurm 22.05.8), shortened.
static const char* kNodeFail =
    "JobId=7 JobName=srt-job UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=1 Nice=0 "
    "Account=(null) QOS=(null) JobState=COMPLETING Reason=NodeDown Dependency=(null) Requeue=0 "
    "Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 NodeList=node[1-2] BatchHost=node1\n";

TEST_CASE("scontrol fields are read by whole key") {
  CHECK(srt::scontrol_field(kNodeFail, "JobState") == "COMPLETING");
  CHECK(srt::scontrol_field(kNodeFail, "Reason") == "NodeDown");
  CHECK(srt::scontrol_field(kNodeFail, "NodeList") == "node[1-2]");
  CHECK(srt::scontrol_field(kNodeFail, "BatchHost") == "node1");
  CHECK(srt::scontrol_field(kNodeFail, "Missing").empty());
  // "ArrayJobState=" must not be read as JobState.
  CHECK(srt::scontrol_field("ArrayJobState=X JobState=RUNNING", "JobState") == "RUNNING");
  CHECK(srt::scontrol_field("", "JobState").empty());
}

TEST_CASE("node states Slurm considers failed") {
  using srt::NodeHealth;
  CHECK_FALSE(srt::node_failed(NodeHealth{"node1", "allocated", "none"}));
  CHECK_FALSE(srt::node_failed(NodeHealth{"node1", "idle", "none"}));
  CHECK(srt::node_failed(NodeHealth{"node2", "down*", "Not responding"}));
  CHECK(srt::node_failed(NodeHealth{"node2", "down", "admin"}));
  CHECK(srt::node_failed(NodeHealth{"node3", "idle*", "none"}));  // not responding, even while idle
  CHECK(srt::node_failed(NodeHealth{"node4", "fail", "bad disk"}));
  CHECK_FALSE(srt::node_failed(NodeHealth{"node5", "", ""}));
}
