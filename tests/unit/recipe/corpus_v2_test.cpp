// The corpus test: every plain recipe (no top-level base:) of InferenceX's srt-slurm
// 2.x recipes in ../shared/reference/corpus-v2 is loaded and its node demand compared with
// tests/fixtures/corpus-v2-expected.tsv, derived by hand from reference/srt-slurm-v2.md section 7.
// Variants files (base: + override_*) are another loader's. Exit 77 (ctest SKIP) when the corpus
// is absent; no recipe content lives in this project.
// Usage: corpus_v2_test CORPUS_DIR EXPECTED_TSV PROFILE
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "srt/plan.hpp"
#include "srt/profile.hpp"
#include "srt/recipe.hpp"
#include "srt/files.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR EXPECTED_TSV PROFILE\n", argv[0]);
    return 2;
  }
  const fs::path corpus = argv[1];
  if (!fs::is_directory(corpus)) {
    std::printf("SKIP: no corpus at %s (reference/corpus-v2 is outside the project)\n", corpus.c_str());
    return 77;
  }
  std::map<std::string, std::pair<std::string, std::string>> expected;  // path -> (nodes|refused, fragment)
  std::ifstream tsv(argv[2]);
  for (std::string line; std::getline(tsv, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string path, want, fragment;
    std::getline(in, path, '\t');
    std::getline(in, want, '\t');
    std::getline(in, fragment);
    expected[path] = {want, fragment};
  }
  const srt::Profile profile = srt::load_profile_file(argv[3]);
  srt::RecipeOptions opts;
  opts.default_gpus_per_node = profile.gpus_per_node;
  int total = 0, matched = 0;
  std::map<std::string, bool> seen;
  for (const auto& entry : fs::recursive_directory_iterator(corpus)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
    const std::string rel = fs::relative(entry.path(), corpus).generic_string();
    const srt::Document doc = srt::load_yaml_file(entry.path().string());
    if (doc.root.is_object() && doc.root.contains("base")) continue;  // a variants file
    ++total;
    seen[rel] = true;
    auto want = expected.find(rel);
    if (want == expected.end()) {
      std::printf("FAIL %s: not in the expected table\n", rel.c_str());
      continue;
    }
    std::string got, message;
    try {
      const srt::Recipe r = srt::load_recipe_file(entry.path().string(), opts);
      got = std::to_string(srt::node_demand(r, profile));
    } catch (const srt::Error& e) {
      got = "refused";
      for (const auto& d : e.diagnostics()) message += d.str() + "\n";
    }
    const bool ok = got == want->second.first &&
                    (got != "refused" || message.find(want->second.second) != std::string::npos);
    if (ok) ++matched;
    else
      std::printf("FAIL %s: expected %s%s, got %s\n%s", rel.c_str(), want->second.first.c_str(),
                  want->second.second.empty() ? "" : (" (" + want->second.second + ")").c_str(), got.c_str(), message.c_str());
  }
  for (const auto& [path, want] : expected)
    if (!seen.count(path)) {
      std::printf("FAIL %s: in the expected table but not a plain recipe of the corpus\n", path.c_str());
      ++total;
    }
  std::printf("corpus-v2: %d/%d plain recipes match the expected node demand\n", matched, total);
  return matched == total ? 0 : 1;
}
