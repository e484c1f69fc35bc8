#include "probe.hpp"

#include <httplib.h>

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

bool workers_gate(const ProbeResult& r, int prefill, int decode, std::string& why) {
  if (!r.ok) {
    why = r.why;
    return false;
  }
  const Json body = Json::parse(r.body, nullptr, false);
  if (body.is_discarded() || !body.is_object() || !body.contains("stats") || !body["stats"].is_object()) {
    why = "/workers answered without a stats object";
    return false;
  }
  const Json& s = body["stats"];
  const int p = s.value("prefill_count", 0);
  const int d = s.value("decode_count", 0) + s.value("regular_count", 0);
  why = "router sees prefill " + std::to_string(p) + "/" + std::to_string(prefill) + ", decode " +
        std::to_string(d) + "/" + std::to_string(decode);
  return p >= prefill && d >= decode;
}

}  // namespace srt::launch
