// Readiness probes over HTTP (cpp-httplib): a worker's /health, the router's /workers.
#pragma once
#include <set>
#include <string>

#include "srt/document.hpp"

namespace srt::launch {

struct ProbeResult {
  bool ok = false;        // connected and got 200
  int status = 0;         // HTTP status, 0 when no answer
  std::string body;
  std::string why;        // "connection refused", "HTTP 503", ...
};

// One GET with short timeouts, so a poll round over all workers stays well under 0.5 s.
ProbeResult http_get(const std::string& host, int port, const std::string& path);

// One TCP connect (a service's tcp probe): ok when something accepts it within 200 ms.
ProbeResult tcp_connect(const std::string& host, int port);

// One POST of a JSON body (a canary completion): the same short connect timeout, and up to
// `read_seconds` for the answer (an engine's first completion may take a while).
ProbeResult http_post_json(const std::string& host, int port, const std::string& path, const std::string& body,
                           int read_seconds);

// AToMesh's /workers gate (srtctl wait_for_model): stats.prefill_count is prefill and
// decode_count + regular_count is decode. `why` says what is still missing, or what is extra.
// `extra` (optional): set when the router lists more workers than that, or, with `planned`
// (planned_worker_urls), an entry that is none of those URLs (srt/readiness.hpp).
bool workers_gate(const ProbeResult& r, int prefill, int decode, std::string& why, bool* extra = nullptr,
                  const std::set<std::string>* planned = nullptr);

}  // namespace srt::launch
