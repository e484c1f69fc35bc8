#include "fields.hpp"

#include "srt/error.hpp"
#include "srt/untrusted_json.hpp"

namespace srt::report::detail {

namespace {
// A result file saved with --save-detailed holds every token time and text of the sweep point:
// hundreds of MB at c2048 are real, a file beyond this is not a result file.
constexpr std::size_t kMaxResultBytes = std::size_t(1) << 30;
}  // namespace

Json read_json_file(const RunFiles& files, const std::string& path) {
  const std::string text = files.read(path, kMaxResultBytes);
  if (nests_deeper_than(text)) {
    Diagnostic d;
    d.file = path;
    d.message = "nests deeper than " + std::to_string(kMaxUntrustedJsonDepth) + " levels: not a file srt or benchmark_serving.py writes";
    d.hint = "remove it or rerun the step that writes it";
    throw Error(std::move(d));
  }
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    Diagnostic d;
    d.file = path;
    d.message = std::string("not valid JSON (") + e.what() + ")";
    d.hint = "the file was cut short or is not a benchmark_serving.py/srt-helper file; rerun that step or remove it";
    throw Error(std::move(d));
  }
}

void bad_field(const std::string& file, const std::string& key, const std::string& message, const std::string& hint) {
  Diagnostic d;
  d.file = file;
  d.key_path = key;
  d.message = message;
  d.hint = hint;
  throw Error(std::move(d));
}

std::string json_type(const Json& v) { return v.type_name(); }

double number_or(const Json& obj, const std::string& key, double fallback, const std::string& file) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_number())
    bad_field(file, key, "expected a number, got " + json_type(*it) + " " + json_excerpt(*it),
              "benchmark_serving.py writes numbers here; the file was edited or comes from another tool");
  return it->get<double>();
}

double required_number(const Json& obj, const std::string& key, const std::string& file) {
  if (!obj.contains(key) || obj.at(key).is_null())
    bad_field(file, key, "missing",
              "not a benchmark_serving.py result (--save-result writes it); remove the file or rerun the point");
  return number_or(obj, key, 0, file);
}

}  // namespace srt::report::detail
