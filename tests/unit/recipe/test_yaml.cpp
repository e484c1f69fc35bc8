// YAML 1.1 as PyYAML's safe_load reads it: scalars, merge keys, duplicates, marks, python_str.
#include <catch2/catch.hpp>

#include <cmath>

#include "srt/document.hpp"

using srt::Json;

namespace {
Json value_of(const std::string& yaml_scalar) { return srt::parse_yaml("v: " + yaml_scalar + "\n", "t.yaml").root["v"]; }
}  // namespace

TEST_CASE("plain scalars resolve as PyYAML's YAML 1.1 resolver does", "[yaml]") {
  CHECK(value_of("yes") == Json(true));
  CHECK(value_of("Yes") == Json(true));
  CHECK(value_of("ON") == Json(true));
  CHECK(value_of("off") == Json(false));
  CHECK(value_of("NO") == Json(false));
  CHECK(value_of("oFF") == Json("oFF"));  // only PyYAML's exact case variants
  CHECK(value_of("y") == Json("y"));
  CHECK(value_of("~").is_null());
  CHECK(value_of("Null").is_null());
  CHECK(value_of("").is_null());
  CHECK(value_of("0x1F") == Json(31));
  CHECK(value_of("017") == Json(15));
  CHECK(value_of("0o17") == Json("0o17"));  // YAML 1.2 octal is text in 1.1
  CHECK(value_of("0b101") == Json(5));
  CHECK(value_of("1_000") == Json(1000));
  CHECK(value_of("1:30") == Json(90));
  CHECK(value_of("190:20:30") == Json(685230));
  CHECK(value_of("+12") == Json(12));
  // Plain decimals (resolved without a regex) and the edges next to them (with one).
  CHECK(value_of("0") == Json(0));
  CHECK(value_of("-0") == Json(0));
  CHECK(value_of("8192") == Json(8192));
  CHECK(value_of("-45") == Json(-45));
  CHECK(value_of("00") == Json(0));  // octal
  CHECK(value_of("+") == Json("+"));
  CHECK(value_of("12a") == Json("12a"));
  CHECK(value_of("09") == Json("09"));  // not octal, not decimal: text
  CHECK(value_of("1e3") == Json("1e3"));  // PyYAML's float needs a dot
  CHECK(value_of("1.0e3") == Json("1.0e3"));  // ... and a signed exponent
  CHECK(value_of("1.0e+3").get<double>() == 1000.0);
  CHECK(value_of("1.").get<double>() == 1.0);
  CHECK(value_of(".5").get<double>() == 0.5);
  CHECK(std::isinf(value_of("-.Inf").get<double>()));
  CHECK(std::isnan(value_of(".NaN").get<double>()));
  CHECK(value_of("190:20:30.15").get<double>() == Approx(685230.15));
  CHECK(value_of("2026-08-25") == Json("2026-08-25"));
  CHECK(value_of("'yes'") == Json("yes"));
  CHECK(value_of("\"1\"") == Json("1"));
  CHECK(value_of("!!str 12") == Json("12"));
  CHECK(value_of("!!int \"12\"") == Json(12));
  CHECK(value_of("!!float \"3\"").get<double>() == 3.0);
  CHECK(value_of("|\n  a\n  b\n") == Json("a\nb\n"));
  CHECK(value_of("9223372036854775807") == Json(INT64_MAX));
  CHECK(value_of("-9223372036854775808") == Json(INT64_MIN));
}

TEST_CASE("integers beyond int64 are refused at their key path", "[yaml]") {
  try {
    srt::parse_yaml("a:\n  b: 9223372036854775808\n", "big.yaml");
    FAIL("no error");
  } catch (const srt::Error& e) {
    CHECK(e.diagnostics().front().key_path == "a.b");
    CHECK(e.diagnostics().front().mark.line == 2);
    CHECK(std::string(e.what()).find("64-bit") != std::string::npos);
  }
  CHECK_THROWS_AS(srt::parse_yaml("x: 0x1_0000_0000_0000_0000\n", "t"), srt::Error);
  CHECK_THROWS_AS(srt::parse_yaml("x: 9999999999999999:00:00\n", "t"), srt::Error);
}

TEST_CASE("python_str renders like Python's str()", "[yaml]") {
  CHECK(srt::python_str(Json(0.84)) == "0.84");
  CHECK(srt::python_str(Json(1.0)) == "1.0");
  CHECK(srt::python_str(Json(1e-05)) == "1e-05");
  CHECK(srt::python_str(Json(0.0001)) == "0.0001");
  CHECK(srt::python_str(Json(1e16)) == "1e+16");
  CHECK(srt::python_str(Json(1e15)) == "1000000000000000.0");
  CHECK(srt::python_str(Json(0.1 + 0.2)) == "0.30000000000000004");
  CHECK(srt::python_str(Json(1.5e300)) == "1.5e+300");
  CHECK(srt::python_str(Json(-0.0)) == "-0.0");
  CHECK(srt::python_str(Json(123456789.125)) == "123456789.125");
  CHECK(srt::python_str(Json(INFINITY)) == "inf");
  CHECK(srt::python_str(Json(-INFINITY)) == "-inf");
  CHECK(srt::python_str(Json(NAN)) == "nan");
  CHECK(srt::python_str(Json(true)) == "True");
  CHECK(srt::python_str(Json(nullptr)) == "None");
  CHECK(srt::python_str(Json(-42)) == "-42");
  CHECK(srt::python_str(Json("text")) == "text");
  CHECK(srt::python_str(Json::parse(R"([1, "a", true, null])")) == "[1, 'a', True, None]");
  CHECK(srt::python_str(Json::parse(R"({"k": "it's"})")) == "{'k': \"it's\"}");
}

TEST_CASE("marks point at keys and list items, mark_of falls back to the nearest ancestor", "[yaml]") {
  auto doc = srt::parse_yaml("a:\n  b: 1\n  c:\n    - x\n    - y\n", "m.yaml");
  CHECK(doc.marks.at("a.b").line == 2);
  CHECK(doc.marks.at("a.b").column == 3);
  CHECK(doc.marks.at("a.c[1]").line == 5);
  CHECK(doc.mark_of("a.b.nothing.deeper").line == 2);
  CHECK(doc.mark_of("zzz").line == 1);  // the document itself
  auto d = doc.at("a.c[1]", "bad", "fix it");
  CHECK(d.str() == "m.yaml:5:7: a.c[1]: bad; fix it");
}

TEST_CASE("duplicate keys: last wins with a warning naming both lines, strict refuses", "[yaml]") {
  const std::string text = "a: 1\nb: 2\na: 3\n";
  auto doc = srt::parse_yaml(text, "d.yaml");
  CHECK(doc.root["a"] == Json(3));
  CHECK(doc.root.begin().key() == "a");  // Python dicts keep the first position
  REQUIRE(doc.warnings.size() == 1);
  CHECK(doc.warnings[0].message.find("line 1") != std::string::npos);
  CHECK(doc.warnings[0].message.find("line 3") != std::string::npos);
  srt::ReadOptions strict;
  strict.strict = true;
  CHECK_THROWS_WITH(srt::parse_yaml(text, "d.yaml", strict), Catch::Contains("d.yaml:3:1: a: duplicate key"));
}

TEST_CASE("merge keys follow PyYAML's flatten_mapping", "[yaml]") {
  auto doc = srt::parse_yaml(
      "base: &b {x: 1, y: 1}\nother: &o {y: 2, z: 2}\n"
      "one: {<<: *b, y: 9}\n"
      "list: {<<: [*b, *o], w: 0}\n"
      "quoted: {'<<': 1}\n",
      "m.yaml");
  CHECK(doc.root["one"] == Json::parse(R"({"x":1,"y":9})"));
  // The first mapping of the list wins; the last one's keys come first (PyYAML's order).
  CHECK(doc.root["list"].dump() == R"({"y":1,"z":2,"x":1,"w":0})");
  CHECK(doc.root["quoted"] == Json::parse(R"({"<<":1})"));
  CHECK_THROWS_WITH(srt::parse_yaml("a: {<<: 1}\n", "t"), Catch::Contains("merge key"));
}

TEST_CASE("non-string keys keep srtctl's str() spelling", "[yaml]") {
  auto doc = srt::parse_yaml("{1: a, true: b, null: c, 2.5: d}", "k");
  CHECK(doc.root.dump() == R"({"1":"a","True":"b","None":"c","2.5":"d"})");
}

TEST_CASE("documents - empty is null and two documents or unknown tags are refused", "[yaml]") {
  CHECK(srt::parse_yaml("# only a comment\n", "e").root.is_null());
  CHECK_THROWS_WITH(srt::parse_yaml("a: 1\n---\nb: 2\n", "t"), Catch::Contains("single document"));
  CHECK_THROWS_WITH(srt::parse_yaml("a: !!python/object:os.system x\n", "t"), Catch::Contains("constructor"));
  CHECK_THROWS_WITH(srt::parse_yaml("a: !custom x\n", "t"), Catch::Contains("constructor"));
  CHECK_THROWS_WITH(srt::parse_yaml("a: [1, 2\n", "t"), Catch::Contains("YAML syntax error"));
  CHECK_THROWS_WITH(srt::parse_yaml("a: =\n", "t"), Catch::Contains("tag:yaml.org,2002:value"));
  CHECK(srt::parse_yaml("=: a\n", "t").root["="] == Json("a"));
}
