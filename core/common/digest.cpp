#include "srt/digest.hpp"

#include <openssl/evp.h>

#include "srt/error.hpp"

namespace srt {

namespace {

constexpr std::size_t kBlock = 64 * 1024;

std::string to_hex(const unsigned char* md, unsigned len) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

[[noreturn]] void refused() { fail("cannot compute a SHA-256 digest (libcrypto refused)"); }

}  // namespace

std::string sha256_hex(const std::string& bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr) != 1) refused();
  return to_hex(md, len);
}

struct Sha256::Ctx {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ~Ctx() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : ctx_(std::make_unique<Ctx>()) {
  if (!ctx_->md || EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1) refused();
  pending_.reserve(kBlock);
}

Sha256::~Sha256() = default;

void Sha256::update(std::string_view bytes) {
  if (pending_.size() + bytes.size() > kBlock) flush();
  if (bytes.size() >= kBlock) {
    if (EVP_DigestUpdate(ctx_->md, bytes.data(), bytes.size()) != 1) refused();
    return;
  }
  pending_.append(bytes);
}

void Sha256::flush() {
  if (pending_.empty()) return;
  if (EVP_DigestUpdate(ctx_->md, pending_.data(), pending_.size()) != 1) refused();
  pending_.clear();
}

std::string Sha256::hex() {
  flush();
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_->md, md, &len) != 1) refused();
  return to_hex(md, len);
}

}  // namespace srt
