#include "probe.hpp"

#include <httplib.h>

#include "srt/readiness.hpp"

namespace srt::launch {
namespace {

// A request's outcome, said for a person: httplib's error names are terse ("Connection").
ProbeResult result_of(const httplib::Result& res) {
  ProbeResult r;
  if (!res) {
    switch (res.error()) {
      case httplib::Error::Connection: r.why = "nothing listening yet (connection refused or unreachable)"; break;
      case httplib::Error::Read: r.why = "no answer within the read timeout (or the connection closed)"; break;
      default: r.why = httplib::to_string(res.error());
    }
    return r;
  }
  r.status = res->status;
  r.body = res->body;
  r.ok = res->status == 200;
  if (!r.ok) r.why = "HTTP " + std::to_string(res->status);
  return r;
}

}  // namespace

ProbeResult http_get(const std::string& host, int port, const std::string& path) {
  httplib::Client client(host, port);
  client.set_connection_timeout(0, 200 * 1000);
  client.set_read_timeout(1, 0);
  client.set_write_timeout(1, 0);
  return result_of(client.Get(path));
}

ProbeResult http_post_json(const std::string& host, int port, const std::string& path, const std::string& body,
                           int read_seconds) {
  httplib::Client client(host, port);
  client.set_connection_timeout(0, 200 * 1000);
  client.set_read_timeout(read_seconds, 0);
  client.set_write_timeout(1, 0);
  return result_of(client.Post(path, body, "application/json"));
}

bool workers_gate(const ProbeResult& r, int prefill, int decode, std::string& why, bool* extra,
                  const std::set<std::string>* planned) {
  if (extra) *extra = false;
  if (!r.ok) {
    why = r.why;
    return false;
  }
  const Readiness gate = router_workers_ready(r.body, prefill, decode, planned);
  why = gate.why;
  if (extra) *extra = gate.extra;
  return gate.ready;
}

}  // namespace srt::launch
