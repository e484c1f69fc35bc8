#include "srt/error.hpp"

#include <utility>

namespace srt {

std::string Diagnostic::str() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (mark.line > 0) {
      out += ':' + std::to_string(mark.line);
      if (mark.column > 0) out += ':' + std::to_string(mark.column);
    }
    out += ": ";
  }
  if (!key_path.empty()) out += key_path + ": ";
  out += message;
  if (!hint.empty()) out += "; " + hint;
  return out;
}

namespace {
std::string join(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const auto& d : ds) {
    if (!out.empty()) out += '\n';
    out += d.str();
  }
  return out;
}
}  // namespace

Error::Error(Diagnostic d) : Error(std::vector<Diagnostic>{std::move(d)}) {}

Error::Error(std::vector<Diagnostic> ds) : std::runtime_error(join(ds)), diagnostics_(std::move(ds)) {}

void fail(std::string message, std::string hint) {
  Diagnostic d;
  d.message = std::move(message);
  d.hint = std::move(hint);
  throw Error(std::move(d));
}

}  // namespace srt
