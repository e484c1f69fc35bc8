// YAML -> Document the way PyYAML's safe_load builds it: yaml-cpp's event parser (not its Node
// API) so that quoted-vs-plain, duplicate keys, anchors and merge keys are all ours to decide.
#include "srt/document.hpp"

#include <algorithm>
#include <memory>
#include <sstream>
#include <unordered_map>
#include <utility>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include "yaml_detail.hpp"

namespace srt {
namespace {

const std::string kCoreTag = "tag:yaml.org,2002:";

// The composed tree (PyYAML's "nodes"): aliases share a node, so an alias bomb stays small here and
// is caught by its expanded weight before anything is copied.
struct Node {
  enum class Kind { scalar, sequence, mapping } kind = Kind::scalar;
  Mark mark;
  Json value;                // scalar, resolved
  std::string error;         // scalar that could not be resolved; reported with its key path
  bool merge_key = false;    // plain `<<`
  std::vector<std::shared_ptr<const Node>> items;  // sequence items, or key, value, key, value...
  std::size_t weight = 1;    // nodes after alias expansion (saturating)
};
using NodePtr = std::shared_ptr<const Node>;

Mark to_mark(const YAML::Mark& m) { return {m.line + 1, m.column + 1}; }

// yaml-cpp decodes the double-quoted escapes \_ (U+00A0) and \N (U+0085) to the single bytes 0xA0
// and 0x85, not to their UTF-8 (fuzz.plan found it: the Plan's JSON could not be written). The text
// was checked to be UTF-8 before yaml-cpp saw it, so a byte that starts no valid sequence here came
// from such an escape: it is that code point, written as UTF-8, as PyYAML reads it.
std::string utf8_scalar(const std::string& v) {
  auto cont = [&](std::size_t i) { return i < v.size() && (static_cast<unsigned char>(v[i]) & 0xC0) == 0x80; };
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    const auto c = static_cast<unsigned char>(v[i]);
    const std::size_t len = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c >= 0xE0 && c <= 0xEF) ? 3 : (c >= 0xF0 && c <= 0xF4) ? 4 : 0;
    bool ok = len > 0;
    for (std::size_t k = 1; ok && k < len; ++k) ok = cont(i + k);
    if (ok) {
      out.append(v, i, len);
      i += len;
    } else {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
      ++i;
    }
  }
  return out;
}

class Composer : public YAML::EventHandler {
 public:
  Composer(std::string file, const LoadLimits& limits) : file_(std::move(file)), limits_(limits) {}

  NodePtr root;

  Mark start;  // where the document begins (a second document is refused there)
  void OnDocumentStart(const YAML::Mark& mark) override { start = to_mark(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto n = std::make_shared<Node>();
    n->mark = to_mark(mark);
    n->value = nullptr;
    finish(n, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end())
      fail_at(to_mark(mark), "alias refers to an anchor that is not complete (a recursive structure)",
              "recipes cannot be recursive");
    add(it->second);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& raw) override {
    const bool ascii = std::all_of(raw.begin(), raw.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    const std::string fixed = ascii ? std::string() : utf8_scalar(raw);
    const std::string& value = ascii ? raw : fixed;
    auto n = std::make_shared<Node>();
    n->mark = to_mark(mark);
    // yaml-cpp: "?" = plain and untagged, "!" = quoted or block scalar (always a string).
    const bool plain = tag == "?";
    if (plain && value == "<<") {
      n->merge_key = true;
      n->value = value;
    } else if (plain && value == "=") {
      // PyYAML resolves a plain `=` to its "value" tag: text as a key, refused as a value.
      n->value = value;
      n->error = "could not determine a constructor for the tag 'tag:yaml.org,2002:value'";
    } else if (auto v = yaml_detail::resolve_tagged(tag, value, plain, n->error)) {
      n->value = std::move(*v);
    }
    finish(n, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, tag, anchor, Node::Kind::sequence, "seq");
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, tag, anchor, Node::Kind::mapping, "map");
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {
    std::shared_ptr<Node> node;
    YAML::anchor_t anchor;
  };

  [[noreturn]] void fail_at(Mark m, std::string message, std::string hint = {}) {
    srt::fail_at(file_, m, std::move(message), std::move(hint));
  }

  void open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, Node::Kind kind,
            const char* tag_name) {
    if (tag != "?" && tag != "!" && tag != kCoreTag + tag_name)
      fail_at(to_mark(mark), "could not determine a constructor for the tag '" + tag + "'",
              "PyYAML's safe_load refuses it too");
    if (static_cast<int>(stack_.size()) >= limits_.max_depth)
      fail_at(to_mark(mark), "nesting is deeper than " + std::to_string(limits_.max_depth) + " levels");
    auto n = std::make_shared<Node>();
    n->kind = kind;
    n->mark = to_mark(mark);
    stack_.push_back({n, anchor});
  }

  void close() {
    Open top = std::move(stack_.back());
    stack_.pop_back();
    finish(top.node, top.anchor);
  }

  // Registers the anchor only now, once the node is complete: an alias inside its own anchor's
  // node is a recursive structure, which JSON cannot hold.
  void finish(const std::shared_ptr<Node>& n, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = n;
    add(n);
  }

  void add(const NodePtr& n) {
    if (stack_.empty()) {
      root = n;
      return;
    }
    Node& parent = *stack_.back().node;
    parent.items.push_back(n);
    parent.weight += n->weight;
    if (parent.weight > limits_.max_nodes)
      fail_at(n->mark, "more than " + std::to_string(limits_.max_nodes) +
                           " values after expanding aliases (an alias bomb?)",
              "a recipe needs a few hundred");
  }

  std::string file_;
  LoadLimits limits_;
  std::vector<Open> stack_;
  std::unordered_map<YAML::anchor_t, NodePtr> anchors_;
};

// Composed tree -> JSON, with PyYAML's constructor rules for mappings (flatten_mapping,
// last duplicate wins) and a mark for every key path.
class Builder {
 public:
  Builder(Document& doc, const ReadOptions& opts) : doc_(doc), opts_(opts) {}

  Json build(const Node& n, const std::string& path, int depth) {
    if (depth > opts_.limits.max_depth)
      error(n.mark, path, "nesting is deeper than " + std::to_string(opts_.limits.max_depth) + " levels (through aliases)");
    switch (n.kind) {
      case Node::Kind::scalar:
        if (!n.error.empty()) error(n.mark, path, n.error, "quote it if it is meant as text");
        return n.value;
      case Node::Kind::sequence: {
        Json out = Json::array();
        out.get_ref<Json::array_t&>().reserve(n.items.size());
        for (std::size_t i = 0; i < n.items.size(); ++i) {
          const std::string item_path = index_path(path, i);
          doc_.marks[item_path] = n.items[i]->mark;
          out.push_back(build(*n.items[i], item_path, depth + 1));
        }
        return out;
      }
      case Node::Kind::mapping: return build_mapping(n, path, depth);
    }
    return nullptr;
  }

 private:
  [[noreturn]] void error(Mark m, const std::string& path, std::string message, std::string hint = {}) {
    Diagnostic d;
    d.file = doc_.file;
    d.mark = m;
    d.key_path = path;
    d.message = std::move(message);
    d.hint = std::move(hint);
    throw Error(std::move(d));
  }

  std::string key_text(const Node& key, const std::string& path) {
    if (key.kind != Node::Kind::scalar) error(key.mark, path, "a mapping key must be a plain value, not a list or mapping");
    if (!key.error.empty() && key.value != Json("=")) error(key.mark, path, key.error);
    // srtctl sees non-string keys (1, true) through str(): keep that spelling.
    return key.value.is_string() ? key.value.get<std::string>() : python_str(key.value);
  }

  void merge_into(Json& out, const Node& source, const std::string& path, int depth) {
    if (source.kind != Node::Kind::mapping)
      error(source.mark, path, "a merge key (<<) needs a mapping or a list of mappings");
    Json merged = build_mapping(source, path, depth);
    for (auto it = merged.begin(); it != merged.end(); ++it) out[it.key()] = it.value();
  }

  Json build_mapping(const Node& n, const std::string& path, int depth) {
    Json out = object_of_capacity(n.items.size() / 2);
    // PyYAML puts merged pairs first (for a list, the last mapping's first), then the explicit
    // ones; later pairs overwrite earlier ones, so explicit keys win and the first list item wins.
    for (std::size_t i = 0; i + 1 < n.items.size(); i += 2) {
      if (!n.items[i]->merge_key) continue;
      const Node& value = *n.items[i + 1];
      if (value.kind == Node::Kind::sequence) {
        for (auto it = value.items.rbegin(); it != value.items.rend(); ++it)
          merge_into(out, **it, path, depth + 1);
      } else {
        merge_into(out, value, path, depth + 1);
      }
    }
    std::unordered_map<std::string, Mark> seen;
    for (std::size_t i = 0; i + 1 < n.items.size(); i += 2) {
      const Node& key = *n.items[i];
      if (key.merge_key) continue;
      const std::string name = key_text(key, path);
      const std::string child = join_path(path, name);
      auto [it, fresh] = seen.emplace(name, key.mark);
      if (!fresh) {
        Diagnostic d;
        d.file = doc_.file;
        d.mark = key.mark;
        d.key_path = child;
        d.message = "duplicate key (first at line " + std::to_string(it->second.line) +
                    ", again at line " + std::to_string(key.mark.line) + ")";
        d.hint = opts_.strict ? "remove one of them" : "the last value wins, as in srtctl; remove one of them";
        if (opts_.strict) throw Error(std::move(d));
        doc_.warnings.push_back(std::move(d));
      }
      doc_.marks[child] = key.mark;
      out[name] = build(*n.items[i + 1], child, depth + 1);
    }
    return out;
  }

  Document& doc_;
  const ReadOptions& opts_;
};

}  // namespace

Document parse_yaml(const std::string& raw, const std::string& name, const ReadOptions& opts) {
  Document doc;
  doc.file = name;
  if (raw.size() > opts.limits.max_bytes) {
    Diagnostic d;
    d.file = name;
    d.message = "is " + std::to_string(raw.size()) + " bytes; the limit is " + std::to_string(opts.limits.max_bytes);
    throw Error(std::move(d));
  }
  const std::string text = yaml_detail::normalize_text(raw, name);
  yaml_detail::check_nesting(text, name, opts.limits.max_depth);
  std::istringstream in(text);
  Composer composer(name, opts.limits);
  try {
    YAML::Parser parser(in);
    if (parser.HandleNextDocument(composer)) {
      Composer second(name, opts.limits);
      if (parser.HandleNextDocument(second)) {
        Diagnostic d;
        d.file = name;
        d.mark = second.start;
        d.message = "expected a single document, found more than one (---)";
        d.hint = "keep one recipe per file";
        throw Error(std::move(d));
      }
    }
  } catch (const YAML::Exception& e) {
    Diagnostic d;
    d.file = name;
    if (!e.mark.is_null()) d.mark = to_mark(e.mark);
    d.message = "YAML syntax error: " + e.msg;
    throw Error(std::move(d));
  }
  if (composer.root) {
    doc.marks[""] = composer.root->mark;
    Builder builder(doc, opts);
    doc.root = builder.build(*composer.root, "", 0);
  }
  return doc;
}

}  // namespace srt
