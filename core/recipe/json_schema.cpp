// JSON Schema (draft 2020-12) of the recipe format, generated from the same table validate uses.
// Tier-2 keys are marked "x-srt-tier": "unsupported" (srtctl knows them, srt-spank cannot launch them yet).
#include "schema.hpp"
#include "srt/recipe.hpp"

namespace srt {
namespace {

Json scalar_schema() { return Json{{"type", Json::array({"string", "number", "boolean", "null"})}}; }

Json object_schema(const std::vector<schema::Field>& fields, const std::string& doc);

Json field_schema(const schema::Field& f) {
  using schema::Kind;
  Json s = Json::object();
  switch (f.kind) {
    case Kind::string:
      s["type"] = "string";
      if (!f.choices.empty()) s["enum"] = f.choices;
      break;
    case Kind::integer:
      s["type"] = Json::array({"integer", "string"});
      s["pattern"] = "^[-+]?[0-9]+$";
      if (f.min) s["minimum"] = *f.min;
      if (f.max) s["maximum"] = *f.max;
      break;
    case Kind::number: s["type"] = "number"; break;
    case Kind::boolean: s["type"] = "boolean"; break;
    case Kind::object: s = object_schema(f.fields, f.doc); break;
    case Kind::variant: {
      Json one_of = Json::array();
      std::string fallback;  // the variant a mapping without `type` is (backend: sglang)
      for (const auto& c : f.fields)
        if (c.key == "type") fallback = c.default_text;
      for (const auto& [type, extra] : f.variants) {
        std::vector<schema::Field> all = f.fields;
        all.insert(all.end(), extra.begin(), extra.end());
        Json v = object_schema(all, f.doc);
        v["properties"]["type"] = Json{{"const", type}};
        // Only the default variant may leave `type` out; otherwise oneOf would match them all.
        if (type != fallback) v["required"].push_back("type");
        one_of.push_back(std::move(v));
      }
      if (f.type_shorthand)  // engine: sglang
        for (const auto& c : f.fields)
          if (c.key == "type") one_of.push_back(Json{{"type", "string"}, {"enum", c.choices}});
      s["oneOf"] = std::move(one_of);
      break;
    }
    case Kind::dict: s = Json{{"type", "object"}, {"additionalProperties", scalar_schema()}}; break;
    case Kind::string_list: s = Json{{"type", "array"}, {"items", scalar_schema()}}; break;
    case Kind::flags:
      s = Json{{"type", "object"},
               {"additionalProperties",
                Json{{"anyOf", Json::array({scalar_schema(), Json{{"type", "array"}, {"items", scalar_schema()}},
                                            Json{{"type", "object"}}})}}}};
      break;
    case Kind::concurrencies:
      s["anyOf"] = Json::array({Json{{"type", "array"}, {"items", Json{{"type", "integer"}, {"minimum", 1}}}, {"minItems", 1}},
                                Json{{"type", "integer"}, {"minimum", 1}},
                                Json{{"type", "string"}, {"pattern", "^[1-9][0-9]*(x[1-9][0-9]*)*$"}}});
      break;
    case Kind::time_limit:
      s["type"] = "string";
      s["pattern"] = "^([0-9]+|[0-9]+:[0-9]{1,2}|[0-9]+:[0-9]{1,2}:[0-9]{1,2}|[0-9]+-[0-9]+(:[0-9]{1,2}(:[0-9]{1,2})?)?|UNLIMITED|INFINITE|unlimited|infinite)$";
      break;
    case Kind::object_list: s = Json{{"type", "array"}, {"items", object_schema(f.fields, f.doc)}}; break;
    case Kind::any: break;
  }
  if (!f.doc.empty() && !s.contains("description")) s["description"] = f.doc;
  if (!f.default_text.empty()) s["x-srt-default"] = f.default_text;
  if (f.tier == schema::Tier::unsupported) s["x-srt-tier"] = "unsupported";
  if (f.tier == schema::Tier::inert) s["x-srt-tier"] = "ignored";
  if (!f.unsupported_choices.empty())
    s["x-srt-unsupported-values"] = Json(std::vector<std::string>(f.unsupported_choices.begin(), f.unsupported_choices.end()));
  return s;
}

Json object_schema(const std::vector<schema::Field>& fields, const std::string& doc) {
  Json props = Json::object();
  Json required = Json::array();
  for (const auto& f : fields) {
    props[f.key] = field_schema(f);
    if (f.required) required.push_back(f.key);
  }
  Json s = {{"type", "object"}, {"properties", std::move(props)}, {"additionalProperties", false}};
  if (!required.empty()) s["required"] = std::move(required);
  if (!doc.empty()) s["description"] = doc;
  return s;
}

}  // namespace

Json recipe_json_schema(int layout) {
  const auto& root = layout == 2 ? schema::recipe_schema_v2() : schema::recipe_schema();
  Json s = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
            {"$id", layout == 2 ? "https://srt-spank/schema/recipe-v2.json" : "https://srt-spank/schema/recipe-v1.json"},
            {"title", layout == 2 ? "srt-slurm 2.x recipe (schema: 2), as srt-spank reads it"
                                  : "srt-slurm recipe (v1 layout), as srt-spank reads it"},
            // Which srtctl's keys these are: tests/unit/recipe/srtctl_schema_test.py compares them.
            {"x-srt-follows", "srtctl v2.18 (NVIDIA/srt-slurm docs/schema/recipe.schema.json); the v1 layout's keys "
                              "as srtctl v2.2.1 still read them"}};
  const Json body = object_schema(root.fields, root.doc);
  for (auto it = body.begin(); it != body.end(); ++it) s[it.key()] = it.value();
  return s;
}

Json profile_json_schema() {
  const auto& root = schema::profile_schema();
  Json s = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
            {"$id", "https://srt-spank/schema/cluster-profile.json"},
            {"title", "cluster profile (srtctl's srtslurm.yaml and srt-spank's own keys), as srt-spank reads it"},
            // tests/unit/recipe/srtctl_schema_test.py compares it with srtctl's cluster schema.
            {"x-srt-follows", "srtctl v2.18 (NVIDIA/srt-slurm docs/schema/cluster.schema.json)"}};
  const Json body = object_schema(root.fields, root.doc);
  for (auto it = body.begin(); it != body.end(); ++it) s[it.key()] = it.value();
  return s;
}

}  // namespace srt
