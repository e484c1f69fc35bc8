// srt-helper kv-watch: subscribe to KV-event endpoints and report, per endpoint, which DP ranks
// publish and how many events arrive. For admins checking a running job and for the tests.
// Exit 0 when --expect-ranks is met (or not asked), 1 when it is not within --seconds, 2 usage.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "kv/event_batch.hpp"
#include "kv/watch.hpp"
#include "srt/document.hpp"
#include "srt/error.hpp"

namespace srt::helper {

namespace {

struct KvWatchArgs {
  kv::WatchOptions watch;
  std::vector<std::string> endpoints;  // as given: each may be a comma list
  bool json = false;
};

std::vector<std::string> split_commas(const std::vector<std::string>& lists) {
  std::vector<std::string> out;
  for (const auto& list : lists) {
    std::size_t begin = 0;
    while (begin <= list.size()) {
      const std::size_t comma = std::min(list.find(',', begin), list.size());
      if (comma > begin) out.push_back(list.substr(begin, comma - begin));
      begin = comma + 1;
    }
  }
  return out;
}

std::string rank_name(int rank) { return rank == kv::kNoRank ? "?" : std::to_string(rank); }

Json to_json(const kv::WatchResult& r, int expect) {
  Json j = {{"elapsed_seconds", r.elapsed_seconds}, {"expect_ranks", expect}, {"expectation_met", r.expectation_met}};
  j["endpoints"] = Json::array();
  for (const auto& e : r.endpoints) {
    Json ranks = Json::object();
    for (const auto& [rank, t] : e.ranks)
      ranks[rank_name(rank)] = {{"batches", t.batches}, {"events", t.events}, {"seq_gaps", t.seq_gaps}};
    j["endpoints"].push_back({{"endpoint", e.endpoint}, {"ranks", ranks}, {"undecodable", e.undecodable},
                              {"last_error", e.last_error}, {"reconnects", e.reconnects}});
  }
  return j;
}

void print_table(const kv::WatchResult& r) {
  std::printf("%-32s %-5s %10s %10s %9s\n", "ENDPOINT", "RANK", "BATCHES", "EVENTS", "SEQ_GAPS");
  for (const auto& e : r.endpoints) {
    if (e.ranks.empty()) std::printf("%-32s %-5s %s\n", e.endpoint.c_str(), "-", "nothing received");
    for (const auto& [rank, t] : e.ranks)
      std::printf("%-32s %-5s %10llu %10llu %9llu\n", e.endpoint.c_str(), rank_name(rank).c_str(),
                  static_cast<unsigned long long>(t.batches), static_cast<unsigned long long>(t.events),
                  static_cast<unsigned long long>(t.seq_gaps));
    if (e.undecodable)
      std::printf("%-32s %llu undecodable message(s), last: %s\n", e.endpoint.c_str(),
                  static_cast<unsigned long long>(e.undecodable), e.last_error.c_str());
    if (e.reconnects)
      std::printf("%-32s the connection ended %llu time(s) and was made again (a message over %lld MiB ends it)\n",
                  e.endpoint.c_str(), static_cast<unsigned long long>(e.reconnects),
                  static_cast<long long>(kv::kMaxEventMessageBytes >> 20));
  }
}

void run(KvWatchArgs& a) {
  a.watch.endpoints = split_commas(a.endpoints);
  if (a.watch.endpoints.empty()) {
    const char* env = std::getenv("SRT_KV_EVENT_ENDPOINTS");
    if (env) a.watch.endpoints = split_commas({env});
  }
  if (a.watch.endpoints.empty()) {
    exit_code = 2;
    fail("kv-watch: no endpoint to watch", "name them (tcp://HOST:PORT ...) or run inside a job with SRT_KV_EVENT_ENDPOINTS set");
  }
  zmq::context_t context(1);
  const kv::WatchResult result = kv::watch(context, a.watch);
  if (a.json) std::cout << to_json(result, a.watch.expect_ranks).dump(2) << "\n";
  else print_table(result);
  if (!result.expectation_met) {
    std::string short_of;
    for (const auto& e : result.endpoints)
      if (int(e.ranks.size()) < a.watch.expect_ranks)
        short_of += "\n  " + e.endpoint + ": " + std::to_string(e.ranks.size()) + " rank(s)";
    std::fprintf(stderr, "kv-watch: expected %d rank(s) on every endpoint within %g s; short:%s\n",
                 a.watch.expect_ranks, a.watch.seconds, short_of.c_str());
    exit_code = 1;
  }
}

}  // namespace

void add_kv_watch(CLI::App& app) {
  auto args = std::make_shared<KvWatchArgs>();
  CLI::App* cmd = app.add_subcommand("kv-watch", "Subscribe to KV-event endpoints and report which DP ranks publish");
  cmd->add_option("endpoints", args->endpoints, "Endpoints (tcp://HOST:PORT, comma lists too; default $SRT_KV_EVENT_ENDPOINTS)");
  cmd->add_option("--seconds", args->watch.seconds, "Watch this long at most (default 10)")->check(CLI::PositiveNumber);
  cmd->add_option("--expect-ranks", args->watch.expect_ranks,
                  "Succeed as soon as every endpoint delivered this many distinct ranks; exit 1 if not in time")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", args->json, "Print the tallies as JSON");
  cmd->callback([args] { run(*args); });
}

}  // namespace srt::helper
