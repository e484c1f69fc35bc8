#include <catch2/catch.hpp>

#include "srt/slurm_job_state.hpp"

// Lines as `scontrol -o show job` prints them on the lab (Slurm 22.05.8), shortened.
static const char* kNodeFail =
    "JobId=7 JobName=srt-job UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=1 Nice=0 "
    "Account=(null) QOS=(null) JobState=COMPLETING Reason=NodeDown Dependency=(null) Requeue=0 "
    "Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 NodeList=node[1-2] BatchHost=node1\n";
static const char* kCancelled =
    "JobId=8 JobName=srt-job UserId=root(0) JobState=CANCELLED Reason=None Dependency=(null) "
    "ExitCode=0:15 NodeList=node[1-2]\n";

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

TEST_CASE("a node failure is told from a cancel, while completing and after") {
  CHECK(srt::ended_by_node_failure(kNodeFail));
  CHECK(srt::ended_by_node_failure("JobId=7 JobState=NODE_FAIL Reason=None"));
  CHECK_FALSE(srt::ended_by_node_failure(kCancelled));
  CHECK_FALSE(srt::ended_by_node_failure("JobId=9 JobState=RUNNING Reason=None"));
  CHECK_FALSE(srt::ended_by_node_failure("slurm_load_jobs error: Invalid job id specified"));
}

TEST_CASE("sinfo node lines: state and reason, failed nodes") {
  const auto nodes = srt::parse_sinfo_nodes("node1|allocated|none\nnode2|down*|Not responding\n"
                                            "garbage\n|x|y\nnode3|idle*|none\nnode4|fail|bad disk \n");
  REQUIRE(nodes.size() == 4);
  CHECK(nodes[1].node == "node2");
  CHECK(nodes[1].state == "down*");
  CHECK(nodes[1].reason == "Not responding");
  CHECK(nodes[3].reason == "bad disk");
  CHECK_FALSE(srt::node_failed(nodes[0]));
  CHECK(srt::node_failed(nodes[1]));
  CHECK(srt::node_failed(nodes[2]));  // not responding, even while idle
  CHECK(srt::node_failed(nodes[3]));
  CHECK(srt::parse_sinfo_nodes("").empty());
}
