#include <catch2/catch.hpp>

#include <string>

#include "srt/digest.hpp"

// FIPS 180-2 appendix B's vectors: the digests every profile and Plan digest is made with.
TEST_CASE("SHA-256 of the FIPS 180-2 messages") {
  CHECK(srt::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(srt::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(srt::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("the incremental digest equals the one-shot digest, however the bytes are cut") {
  // A million 'a' (FIPS 180-2 B.3) in updates of 1, 63, 64, 65 and 4097 bytes: across block
  // boundaries, inside one block and spanning several.
  const std::string million(1000000, 'a');
  const char* want = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  CHECK(srt::sha256_hex(million) == want);
  for (std::size_t cut : {1u, 63u, 64u, 65u, 4097u}) {
    srt::Sha256 h;
    for (std::size_t at = 0; at < million.size(); at += cut)
      h.update(std::string_view(million).substr(at, cut));
    CHECK(h.hex() == want);
  }
}
