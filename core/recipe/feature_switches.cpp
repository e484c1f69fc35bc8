// When srtctl's observability and telemetry blocks turn nothing on. Defaults from srtctl's recipe
// schema (NVIDIA/srt-slurm v2.18, docs/schema/recipe.schema.json): ObservabilityConfig.enabled and
// enable_otel default to false, nsys runs only under the master switch, and Tachometer
// "collects on every run, independent of `enabled`, unless `tachometer.enabled: false`";
// TelemetryConfig.enabled defaults to false and its other keys only shape a collection it starts.
// A block left out entirely is not asked for, so a tachometer block left out is not either.
#include "schema.hpp"

namespace srt::schema {
namespace {

// The switch KEY of mapping V: true, false, or unset (absent or null).
std::optional<bool> switch_of(const Json& v, const char* key) {
  if (!v.is_object()) return std::nullopt;
  auto it = v.find(key);
  if (it == v.end() || it->is_null()) return std::nullopt;
  return as_boolean(*it);
}

bool is_false(const Json& v, const char* key) {
  const auto s = switch_of(v, key);
  return s.has_value() && !*s;
}

bool not_true(const Json& v, const char* key) {
  if (!v.is_object() || v.find(key) == v.end() || v[key].is_null()) return true;
  return is_false(v, key);
}

}  // namespace

bool observability_off(const Json& v) {
  if (v.is_null()) return true;
  if (!v.is_object()) return false;  // the type check reports it
  if (!not_true(v, "enabled") || !not_true(v, "enable_otel")) return false;
  auto tacho = v.find("tachometer");
  return tacho == v.end() || tacho->is_null() || is_false(*tacho, "enabled");
}

bool telemetry_off(const Json& v) {
  if (v.is_null()) return true;
  return v.is_object() && not_true(v, "enabled");
}

}  // namespace srt::schema
