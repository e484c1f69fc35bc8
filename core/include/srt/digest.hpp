// SHA-256 (libcrypto) as lowercase hex: the Plan's and the profile's digests.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace srt {

std::string sha256_hex(const std::string& bytes);

// Incremental SHA-256 for data that is never materialised in one buffer (the Plan's canonical
// encoding). Small updates are gathered and handed to libcrypto in large blocks: one EVP call
// per field would cost more than the hashing itself.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::string_view bytes);
  std::string hex();  // finishes the digest; the object must not be updated afterwards

 private:
  void flush();
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
  std::string pending_;
};

}  // namespace srt
