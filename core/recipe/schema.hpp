// The declarative schema of srt-slurm's v1 recipe layout (and of the cluster profile): one table
// drives the key check, the type check, the tier-2 list and the JSON Schema, so they cannot drift.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "srt/document.hpp"

namespace srt::schema {

enum class Kind {
  string,         // text; numbers are not silently turned into text (srtctl's marshmallow Str)
  integer,        // int, integral float or a numeric string (marshmallow Integer, not strict)
  number,         // int or float
  boolean,        // bool, or marshmallow's truthy/falsy spellings
  object,         // a mapping with the fields listed
  variant,        // an object whose `type` selects extra fields (backend)
  dict,           // free keys -> scalar values (environment, srun_options)
  string_list,    // list of scalars
  flags,          // engine flags: key -> scalar or list of scalars (rendered --key value)
  concurrencies,  // positive ints as a list, one int, or an "x"-joined string "4x8x16"
  time_limit,     // Slurm time format
  object_list,    // a list of mappings, each with the fields listed (schema 2's services:)
  any,            // kept as written
};

enum class Tier {
  launch,       // srt-spank implements it
  unsupported,  // srtctl knows it, srt-spank cannot launch it yet: recorded in unsupported_keys
  inert,        // srtctl knows it and it changes nothing for the processes srt-spank starts
};

struct Field {
  std::string key;
  Kind kind = Kind::any;
  Tier tier = Tier::launch;
  std::string doc;
  bool required = false;
  std::vector<std::string> choices;            // allowed text values (string)
  std::set<std::string> unsupported_choices;   // allowed, but recorded as tier 2 ("key=value")
  std::optional<long long> min, max;
  std::vector<Field> fields;                   // object / variant (the common part)
  std::vector<std::pair<std::string, std::vector<Field>>> variants;  // variant: type -> fields
  std::string default_text;                    // for the docs and the JSON Schema only
  bool null_values = false;                    // dict: `key:` with no value is meaningful (--flag)
  bool type_shorthand = false;                 // variant: a bare string is its `type` (schema 2's engine: sglang)
  // A block of feature switches (observability, telemetry): true when what is written turns
  // every feature off, so a tier-2 key set that way changes nothing and is not recorded.
  bool (*switched_off)(const Json&) = nullptr;

  // The tables are written as chains on temporaries (str(...).one_of(...).def(...)): each step
  // moves the Field on rather than copying it with its doc, choices and sub-fields, which the
  // first load in every process (sbatch's) pays for.
  Field req() && { required = true; return std::move(*this); }
  Field tier2() && { tier = Tier::unsupported; return std::move(*this); }
  Field inert() && { tier = Tier::inert; return std::move(*this); }
  Field one_of(std::vector<std::string> c, std::set<std::string> unsupported = {}) && {
    choices = std::move(c);
    unsupported_choices = std::move(unsupported);
    return std::move(*this);
  }
  Field range(long long lo, std::optional<long long> hi = std::nullopt) && {
    min = lo;
    max = hi;
    return std::move(*this);
  }
  Field def(std::string d) && { default_text = std::move(d); return std::move(*this); }
  Field nullable_values() && { null_values = true; return std::move(*this); }
  Field shorthand() && { type_shorthand = true; return std::move(*this); }
  Field off_when(bool (*off)(const Json&)) && { switched_off = off; return std::move(*this); }
};

Field make(std::string key, Kind kind, std::string doc);
Field object(std::string key, std::vector<Field> fields, std::string doc);
// A leaf of each kind, as both tables write them (integers are counts: 0 or more).
inline Field str(std::string k, std::string doc) { return make(std::move(k), Kind::string, std::move(doc)); }
inline Field integer(std::string k, std::string doc) {
  return make(std::move(k), Kind::integer, std::move(doc)).range(0);
}
inline Field boolean(std::string k, std::string doc) { return make(std::move(k), Kind::boolean, std::move(doc)); }
inline Field dict(std::string k, std::string doc) { return make(std::move(k), Kind::dict, std::move(doc)); }
inline Field any(std::string k, std::string doc) { return make(std::move(k), Kind::any, std::move(doc)); }
inline Field flags(std::string k, std::string doc) { return make(std::move(k), Kind::flags, std::move(doc)); }

// The fields of an object, each moved in. A braced list would be a std::initializer_list, whose
// elements can only be copied, and a Field's copy is deep: the tables are nested, so each level
// copied its subtree again (two thirds of building the v1 table, on the first load of every process).
template <typename... F>
std::vector<Field> field_list(F&&... f) {
  std::vector<Field> v;
  v.reserve(sizeof...(f));
  (v.push_back(std::forward<F>(f)), ...);
  return v;
}

// srtctl's HostSetupConfig, as the recipe's host_setup and the profile's default_host_setup.
Field host_setup_field(std::string key, std::string doc);
// srtctl's TelemetryExporterConfig (a recipe's telemetry.dcgm_exporter, the profile's
// default_gpu_exporter) and TelemetryConfig (core/recipe/telemetry.cpp).
Field gpu_exporter_field(std::string key, std::string doc);
Field telemetry_field();
// srtctl v2.18's ServiceConfig list (`services:`), in both layouts: srtctl 2.x loads a v1-layout
// recipe's services as a schema-2 one's (schema2_table.cpp; their checks: schema2_services.cpp).
Field services_field();

const Field& recipe_schema();   // the root object
const Field& recipe_schema_v2();  // the root object of srt-slurm 2.x's `schema: 2` layout
const Field* find_field(const Field& parent, const std::string& key);
const Field& profile_schema();  // the root object of a cluster profile

// Collects every diagnostic; later stages ask whether a path already has one, so one mistake
// is reported once rather than again by every rule that reads it.
struct Issues {
  std::vector<Diagnostic> errors;
  std::vector<Diagnostic> warnings;
  std::set<std::string> bad_paths;

  void error(Diagnostic d);
  bool bad(const std::string& path) const;  // path, an ancestor or a descendant has an error
};

// Walks `doc` against `root`: unknown keys (with "did you mean"), types, ranges, choices.
// Appends tier-2 paths found to `unsupported`.
void check(const Document& doc, const Field& root, Issues& issues, std::vector<std::string>& unsupported);
// The same walk for one value at `path` against field `f` (`root`: for "did you mean" elsewhere).
void check_value(const Document& doc, const Field& root, const Field& f, const Json& value, const std::string& path,
                 Issues& issues, std::vector<std::string>& unsupported);

// check_value's walk of the mapping `v` (field `f`, a variant whose `type` is given) for the keys
// `keys` only, for a caller that knows the mapping's other keys were checked already. When one of
// them is no key of `f`, the whole mapping is walked instead, so it is reported as check_value
// reports it.
void check_keys(const Document& doc, const Field& root, const Field& f, const std::string& type, const Json& v,
                const std::string& path, const std::vector<std::string>& keys, Issues& issues,
                std::vector<std::string>& unsupported);

// Levenshtein distance, for "did you mean".
std::size_t edit_distance(const std::string& a, const std::string& b);

// Value coercions shared with the typed extraction (the same rules check() enforces).
std::optional<long long> as_integer(const Json& v);
std::optional<bool> as_boolean(const Json& v);
// srtctl's observability and telemetry blocks, read as its recipe schema defines their switches
// (docs/schema/recipe.schema.json in NVIDIA/srt-slurm v2.18: ObservabilityConfig,
// TachometerConfig, TelemetryConfig): true when the block turns nothing on.
bool observability_off(const Json& v);
bool telemetry_off(const Json& v);
std::string type_name(const Json& v);

}  // namespace srt::schema
