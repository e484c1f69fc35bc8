// The launcher's readiness gate on what the job's router answers. Pure: the HTTP body in, a
// verdict out; any body is safe to give it (read as srt/untrusted_json.hpp reads).
#pragma once
#include <string>
#include <string_view>

namespace srt {

struct Readiness {
  bool ready = false;
  std::string why;  // "router sees prefill 1/2, decode 1/1", or what is wrong with the answer
};

// AToMesh's GET /workers (srtctl wait_for_model): ready when stats.prefill_count >= prefill and
// decode_count + regular_count >= decode. A count that is absent reads as 0; one that is not a
// non-negative integer keeps the gate closed and is named.
Readiness router_workers_ready(std::string_view body, int prefill, int decode);

}  // namespace srt
