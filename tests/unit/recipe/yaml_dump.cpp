// yaml_dump FILE...: prints each file's Document root as one JSON line, the way compare_pyyaml.py
// expects it (non-finite floats as {"$float": "inf"}, since JSON has no spelling for them).
#include <cmath>
#include <cstdio>

#include "srt/document.hpp"
#include "srt/files.hpp"

namespace {

srt::Json encode(const srt::Json& v) {
  if (v.is_number_float() && !std::isfinite(v.get<double>()))
    return srt::Json{{"$float", srt::python_str(v)}};
  if (v.is_array()) {
    srt::Json out = srt::Json::array();
    for (const auto& x : v) out.push_back(encode(x));
    return out;
  }
  if (v.is_object()) {
    srt::Json out = srt::Json::object();
    for (auto it = v.begin(); it != v.end(); ++it) out[it.key()] = encode(it.value());
    return out;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  int rc = 0;
  for (int i = 1; i < argc; ++i) {
    try {
      std::printf("%s\n", encode(srt::load_yaml_file(argv[i]).root).dump().c_str());
    } catch (const srt::Error& e) {
      std::printf("{\"$error\": %s}\n", srt::Json(e.what()).dump().c_str());
      rc = 1;
    }
  }
  return rc;
}
