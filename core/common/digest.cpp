#include "srt/digest.hpp"

#include <nettle/sha2.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace srt {

namespace {

std::string to_hex(const std::uint8_t* md, std::size_t len) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (std::size_t i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

}  // namespace

struct Sha256::Ctx {
  sha256_ctx state;
};

Sha256::Sha256() : ctx_(std::make_unique<Ctx>()) { sha256_init(&ctx_->state); }

Sha256::~Sha256() = default;

void Sha256::update(std::string_view bytes) {
  sha256_update(&ctx_->state, bytes.size(), reinterpret_cast<const std::uint8_t*>(bytes.data()));
}

std::string Sha256::hex() {
  std::uint8_t md[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx_->state, sizeof md, md);
  return to_hex(md, sizeof md);
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes);
  return h.hex();
}

}  // namespace srt
