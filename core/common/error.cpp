#include "srt/error.hpp"
#include "srt/join.hpp"

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


Error::Error(Diagnostic d) : Error(std::vector<Diagnostic>{std::move(d)}) {}

Error::Error(std::vector<Diagnostic> ds) : std::runtime_error(join(ds, "\n", [](const Diagnostic& d) { return d.str(); })), diagnostics_(std::move(ds)) {}

void fail(std::string message, std::string hint) {
  Diagnostic d;
  d.message = std::move(message);
  d.hint = std::move(hint);
  throw Error(std::move(d));
}

void fail_at(std::string file, Mark mark, std::string message, std::string hint) {
  Diagnostic d;
  d.file = std::move(file);
  d.mark = mark;
  d.message = std::move(message);
  d.hint = std::move(hint);
  throw Error(std::move(d));
}

}  // namespace srt
