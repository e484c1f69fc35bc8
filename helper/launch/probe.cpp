#include "probe.hpp"

#include <httplib.h>

#include "srt/readiness.hpp"

namespace srt::launch {

ProbeResult http_get(const std::string& host, int port, const std::string& path) {
  ProbeResult r;
  httplib::Client client(host, port);
  client.set_connection_timeout(0, 200 * 1000);
  client.set_read_timeout(1, 0);
  client.set_write_timeout(1, 0);
  auto res = client.Get(path);
  if (!res) {
    // httplib's names are terse ("Connection"): say what it means for a worker.
    r.why = res.error() == httplib::Error::Connection ? "nothing listening yet (connection refused or unreachable)"
                                                      : httplib::to_string(res.error());
    return r;
  }
  r.status = res->status;
  r.body = res->body;
  r.ok = res->status == 200;
  if (!r.ok) r.why = "HTTP " + std::to_string(res->status);
  return r;
}

ProbeResult http_post_json(const std::string& host, int port, const std::string& path, const std::string& body,
                           int read_seconds) {
  ProbeResult r;
  httplib::Client client(host, port);
  client.set_connection_timeout(0, 200 * 1000);
  client.set_read_timeout(read_seconds, 0);
  client.set_write_timeout(1, 0);
  auto res = client.Post(path, body, "application/json");
  if (!res) {
    r.why = res.error() == httplib::Error::Connection ? "nothing listening (connection refused or unreachable)"
                                                      : httplib::to_string(res.error());
    return r;
  }
  r.status = res->status;
  r.body = res->body;
  r.ok = res->status == 200;
  if (!r.ok) r.why = "HTTP " + std::to_string(res->status);
  return r;
}

bool workers_gate(const ProbeResult& r, int prefill, int decode, std::string& why) {
  if (!r.ok) {
    why = r.why;
    return false;
  }
  const Readiness gate = router_workers_ready(r.body, prefill, decode);
  why = gate.why;
  return gate.ready;
}

}  // namespace srt::launch
