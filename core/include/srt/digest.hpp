// SHA-256 (Nettle) as lowercase hex: the Plan's and the profile's digests.
#pragma once
#include <memory>
#include <string>
#include <string_view>

namespace srt {

std::string sha256_hex(std::string_view bytes);

// Incremental SHA-256 for data that is never materialised in one buffer (the Plan's canonical
// encoding). Nettle, not libcrypto: the implementation is loaded into every slurmstepd of a
// recipe job, and Nettle's 300 KiB map where libcrypto's 4.5 MiB did (docs/performance.md). Nettle
// buffers a partial block itself, so one call per field costs a call and a copy, no more.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::string_view bytes);
  std::string hex();  // finishes the digest; the object must not be updated afterwards

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

}  // namespace srt
