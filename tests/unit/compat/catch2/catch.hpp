// Catch2 3 under Catch2 2's single-header name, for the releases that ship only 3 (Debian trixie
// and sid; bookworm has 2.13): the unit tests are written against 2 and build unchanged with
// either. tests/CMakeLists.txt puts this directory on the include path only when it finds 3.
#pragma once
#include <catch2/catch_all.hpp>

#include <string>

// 2 declares Approx globally and its string matchers in Catch as well as in Catch::Matchers.
using Catch::Approx;

namespace Catch {
namespace Matchers {
// 3 renamed 2's substring matcher ContainsSubstring; its own Contains is a range matcher
// template `Contains(T&&)`. A non-template wins over it when the two match equally well, so there
// is one for each way a string is passed: a literal or a char array, a const or non-const
// std::string, a temporary.
inline StringContainsMatcher Contains(const char* text, CaseSensitive cs = CaseSensitive::Yes) {
  return ContainsSubstring(text, cs);
}
inline StringContainsMatcher Contains(char* text, CaseSensitive cs = CaseSensitive::Yes) {
  return ContainsSubstring(text, cs);
}
inline StringContainsMatcher Contains(const std::string& text, CaseSensitive cs = CaseSensitive::Yes) {
  return ContainsSubstring(text, cs);
}
inline StringContainsMatcher Contains(std::string& text, CaseSensitive cs = CaseSensitive::Yes) {
  return ContainsSubstring(text, cs);
}
inline StringContainsMatcher Contains(std::string&& text, CaseSensitive cs = CaseSensitive::Yes) {
  return ContainsSubstring(text, cs);
}
}  // namespace Matchers
using Matchers::Contains;
using Matchers::EndsWith;
using Matchers::Equals;
using Matchers::StartsWith;
}  // namespace Catch
