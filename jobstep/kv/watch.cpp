#include "watch.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <memory>
#include <string_view>

#include <zmq_addon.hpp>

#include "event_batch.hpp"
#include "srt/error.hpp"

namespace srt::kv {

namespace {

void tally(EndpointTally& t, const std::vector<zmq::message_t>& parts) {
  std::vector<std::string_view> frames;
  for (const auto& p : parts) frames.emplace_back(static_cast<const char*>(p.data()), p.size());
  std::string error;
  const auto batch = decode_kv_message(frames, error);
  if (!batch) {
    ++t.undecodable;
    t.last_error = error;
    return;
  }
  RankTally& r = t.ranks[batch->data_parallel_rank.value_or(kNoRank)];
  ++r.batches;
  r.events += batch->events;
  if (batch->seq) {
    if (r.last_seq && *batch->seq > *r.last_seq + 1) r.seq_gaps += *batch->seq - *r.last_seq - 1;
    r.last_seq = batch->seq;
  }
}

bool met(const WatchResult& result, int expect) {
  for (const auto& e : result.endpoints)
    if (int(e.ranks.size()) < expect) return false;
  return true;
}

}  // namespace

std::string connectable(const std::string& endpoint) {
  for (const std::string wildcard : {"tcp://*:", "tcp://0.0.0.0:"})
    if (endpoint.compare(0, wildcard.size(), wildcard) == 0)
      return "tcp://127.0.0.1:" + endpoint.substr(wildcard.size());
  return endpoint;
}

WatchResult watch(zmq::context_t& context, const WatchOptions& options) {
  WatchResult result;
  std::vector<std::unique_ptr<zmq::socket_t>> sockets;
  std::vector<std::unique_ptr<zmq::socket_t>> monitors;  // one per socket, same order
  for (const auto& endpoint : options.endpoints) {
    auto s = std::make_unique<zmq::socket_t>(context, zmq::socket_type::sub);
    s->set(zmq::sockopt::linger, 0);
    s->set(zmq::sockopt::rcvhwm, 100000);
    s->set(zmq::sockopt::maxmsgsize, kMaxEventMessageBytes);  // a larger frame drops the peer; it reconnects
    s->set(zmq::sockopt::subscribe, "");  // every topic: ATOM's default topic is empty
    try {
      s->connect(connectable(endpoint));
    } catch (const zmq::error_t& e) {
      fail("kv-watch: cannot connect to " + endpoint + ": " + e.what(),
           "give endpoints as tcp://HOST:PORT (as in SRT_KV_EVENT_ENDPOINTS) or ipc:///path");
    }
    // Its disconnections, to connect again (EndpointTally::reconnects).
    const std::string monitor = "inproc://srt-kv-watch-" + std::to_string(sockets.size());
    if (zmq_socket_monitor(s->handle(), monitor.c_str(), ZMQ_EVENT_DISCONNECTED) != 0) throw zmq::error_t();
    auto m = std::make_unique<zmq::socket_t>(context, zmq::socket_type::pair);
    m->set(zmq::sockopt::linger, 0);
    m->connect(monitor);
    sockets.push_back(std::move(s));
    monitors.push_back(std::move(m));
    result.endpoints.push_back(EndpointTally{endpoint, {}, 0, {}, 0});
  }
  std::vector<zmq::pollitem_t> items;
  for (auto& s : sockets) items.push_back({s->handle(), 0, ZMQ_POLLIN, 0});
  for (auto& m : monitors) items.push_back({m->handle(), 0, ZMQ_POLLIN, 0});

  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(options.seconds);
  result.expectation_met = options.expect_ranks <= 0;
  while (true) {
    const auto now = std::chrono::steady_clock::now();
    if (options.expect_ranks > 0 && met(result, options.expect_ranks)) {
      result.expectation_met = true;
      break;
    }
    if (now >= deadline) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    zmq::poll(items, std::min(left, std::chrono::milliseconds(100)));
    for (std::size_t i = 0; i < monitors.size(); ++i) {
      if (!(items[sockets.size() + i].revents & ZMQ_POLLIN)) continue;
      std::vector<zmq::message_t> event;  // [event id + value, endpoint]
      if (!zmq::recv_multipart(*monitors[i], std::back_inserter(event), zmq::recv_flags::dontwait)) continue;
      const std::string endpoint = connectable(options.endpoints[i]);
      try {
        sockets[i]->disconnect(endpoint);
      } catch (const zmq::error_t&) {
        // libzmq may have forgotten the endpoint already; connecting again is what matters
      }
      sockets[i]->connect(endpoint);
      ++result.endpoints[i].reconnects;
    }
    for (std::size_t i = 0; i < sockets.size(); ++i) {
      if (!(items[i].revents & ZMQ_POLLIN)) continue;
      // Drain what is queued, bounded so one busy endpoint cannot starve the deadline check.
      for (int n = 0; n < 10000; ++n) {
        std::vector<zmq::message_t> parts;
        if (!zmq::recv_multipart(*sockets[i], std::back_inserter(parts), zmq::recv_flags::dontwait)) break;
        tally(result.endpoints[i], parts);
      }
    }
  }
  result.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace srt::kv
