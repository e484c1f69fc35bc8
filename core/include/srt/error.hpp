// Errors for people: what is wrong, where (file:line:column and the key path), and what to do.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace srt {

struct Mark {
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based; 0 = unknown
};

struct Diagnostic {
  std::string file;      // as the user named it; empty for built-in inputs
  Mark mark;
  std::string key_path;  // "backend.atom_config.prefill.tp"; empty when the whole file is meant
  std::string message;   // what is wrong
  std::string hint;      // what to do; may be empty

  // "file:line:column: key.path: message; hint"
  std::string str() const;
};

// The one error type core/ throws. It carries one or more diagnostics; what() is all of them,
// one per line, so an edge that only prints what() still tells the whole story.
class Error : public std::runtime_error {
 public:
  explicit Error(Diagnostic d);
  explicit Error(std::vector<Diagnostic> ds);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// Shorthand for an error that has no position (a CLI value, a node list, an environment value).
[[noreturn]] void fail(std::string message, std::string hint = {});
// An error at a place in a file: `file`, and `mark` when the line is known ({} when not).
[[noreturn]] void fail_at(std::string file, Mark mark, std::string message, std::string hint = {});

}  // namespace srt
