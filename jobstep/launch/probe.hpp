// Readiness probes over HTTP (cpp-httplib): a worker's /health, the router's /workers.
#pragma once
#include <cstddef>
#include <set>
#include <string>

#include "srt/document.hpp"

namespace srt::launch {

struct ProbeResult {
  bool ok = false;        // connected and got 200
  int status = 0;         // HTTP status, 0 when no answer
  std::string body;
  std::string why;        // "connection refused", "HTTP 503", ...
  bool too_big = false;   // the body passed its cap (HttpBounds)
  bool timed_out = false; // no whole answer within the deadline, or httplib's read timeout
};

// What one request may take: every answer comes from a process of the job (or a squatter on its
// port), so its body is capped and the whole request, headers included, has a deadline. A body
// over the cap, or an answer still coming at the deadline, is a failed request; no body is
// decompressed (a gzip bomb stays the bytes it was sent as).
struct HttpBounds {
  std::size_t max_bytes;
  double seconds;
};
// The cap for a launcher's GET of `path`: health and models a few KiB, the router's worker list
// and the engines' server info more, /metrics the most; each within 2 s.
HttpBounds get_bounds(const std::string& path);

// One GET with short timeouts, so a poll round over all workers stays well under 0.5 s, bounded
// by get_bounds(path).
ProbeResult http_get(const std::string& host, int port, const std::string& path);
// One GET within `bounds` (the power collector's scrape).
ProbeResult http_get(const std::string& host, int port, const std::string& path, const HttpBounds& bounds);

// One TCP connect (a service's tcp probe): ok when something accepts it within 200 ms.
ProbeResult tcp_connect(const std::string& host, int port);

// One POST of a JSON body (a canary completion): the same short connect timeout, up to
// `read_seconds` for the answer (an engine's first completion may take a while) and a second
// more for the whole request; at most 256 KiB of answer.
ProbeResult http_post_json(const std::string& host, int port, const std::string& path, const std::string& body,
                           int read_seconds);

// AToMesh's /workers gate (srtctl wait_for_model): stats.prefill_count is prefill and
// decode_count + regular_count is decode. `why` says what is still missing, or what is extra.
// `extra` (optional): set when the router lists more workers than that, or, with `planned`
// (planned_worker_urls), an entry that is none of those URLs (srt/readiness.hpp).
bool workers_gate(const ProbeResult& r, int prefill, int decode, std::string& why, bool* extra = nullptr,
                  const std::set<std::string>* planned = nullptr);

}  // namespace srt::launch
