// SHA-256 (libcrypto) as lowercase hex: the Plan's and the profile's digests.
#pragma once
#include <string>

namespace srt {
std::string sha256_hex(const std::string& bytes);
}
