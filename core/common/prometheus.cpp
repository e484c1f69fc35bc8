// The text exposition format, only as far as a sample line goes:
//   name{label="value",...} value [timestamp]
// Comments (# HELP, # TYPE) and blank lines are skipped; a label value may hold '}' or '"'
// (escaped), so the label set is scanned with its quoting rather than cut at the first '}'.
#include "srt/prometheus.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

namespace srt {
namespace {

// Index just past the closing '}' of a label set opening at `open`, or npos.
std::size_t end_of_labels(std::string_view line, std::size_t open) {
  bool quoted = false;
  for (std::size_t i = open + 1; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == '}') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// Whether the label set `labels` ("{a="1",b="2"}") holds the pair `label` (`b="2"`) whole.
bool holds_label(std::string_view labels, std::string_view label) {
  for (std::size_t at = labels.find(label); at != std::string_view::npos; at = labels.find(label, at + 1)) {
    const std::size_t after = at + label.size();
    if ((labels[at - 1] == '{' || labels[at - 1] == ',') && after < labels.size() &&
        (labels[after] == ',' || labels[after] == '}'))
      return true;
  }
  return false;
}

std::optional<double> sample_value(std::string_view line, std::string_view metric, std::string_view label) {
  if (line.size() <= metric.size() || line.compare(0, metric.size(), metric) != 0) return std::nullopt;
  std::size_t at = metric.size();
  if (line[at] == '{') {
    const std::size_t open = at;
    at = end_of_labels(line, at);
    if (at == std::string_view::npos) return std::nullopt;
    if (!label.empty() && !holds_label(line.substr(open, at - open), label)) return std::nullopt;
  } else if (line[at] != ' ' && line[at] != '\t') {
    return std::nullopt;  // a longer name that starts with this one
  } else if (!label.empty()) {
    return std::nullopt;  // no labels at all
  }
  while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
  const std::size_t end = line.find_first_of(" \t", at);
  const std::string number(line.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
  if (number.empty()) return std::nullopt;
  char* stop = nullptr;
  const double v = std::strtod(number.c_str(), &stop);
  if (stop != number.c_str() + number.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// The labels of a set `{a="1",b="x\"y"}` (braces included); nullopt when it does not parse.
std::optional<std::map<std::string, std::string>> parse_labels(std::string_view set) {
  std::map<std::string, std::string> out;
  std::size_t at = 1;
  const std::size_t close = set.size() - 1;
  while (at < close) {
    while (at < close && (set[at] == ' ' || set[at] == ',')) ++at;
    if (at >= close) break;
    const std::size_t eq = set.find('=', at);
    if (eq == std::string_view::npos || eq >= close || eq + 1 >= close || set[eq + 1] != '"') return std::nullopt;
    std::string name(set.substr(at, eq - at));
    while (!name.empty() && name.back() == ' ') name.pop_back();
    std::string value;
    std::size_t i = eq + 2;
    for (; i < close && set[i] != '"'; ++i) {
      if (set[i] == '\\' && i + 1 < close) {
        ++i;
        value += set[i] == 'n' ? '\n' : set[i];
      } else {
        value += set[i];
      }
    }
    if (i >= close) return std::nullopt;  // unterminated value
    out[std::move(name)] = std::move(value);
    at = i + 1;
  }
  return out;
}

// f(line) for each line of `text` that is not blank or a comment, a trailing '\r' removed.
template <typename F>
void each_sample_line(std::string_view text, F&& f) {
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t end = text.find('\n', from);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(from, end - from);
    from = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty() && line.front() != '#') f(line);
  }
}

}  // namespace

std::vector<PrometheusSample> prometheus_samples(std::string_view text, std::string_view metric) {
  std::vector<PrometheusSample> out;
  if (metric.empty()) return out;
  each_sample_line(text, [&](std::string_view line) {
    if (line.size() <= metric.size() || line.compare(0, metric.size(), metric) != 0) return;
    std::size_t at = metric.size();
    PrometheusSample sample;
    if (line[at] == '{') {
      const std::size_t close = end_of_labels(line, at);
      if (close == std::string_view::npos) return;
      auto labels = parse_labels(line.substr(at, close - at));
      if (!labels) return;
      sample.labels = std::move(*labels);
      at = close;
    } else if (line[at] != ' ' && line[at] != '\t') {
      return;  // a longer name that starts with this one
    }
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    const std::size_t stop_at = line.find_first_of(" \t", at);
    const std::string number(line.substr(at, stop_at == std::string_view::npos ? std::string_view::npos : stop_at - at));
    if (number.empty()) return;
    char* stop = nullptr;
    sample.value = std::strtod(number.c_str(), &stop);
    if (stop == number.c_str() + number.size()) out.push_back(std::move(sample));
  });
  return out;
}

std::optional<double> prometheus_sum(std::string_view text, std::string_view metric, std::string_view label) {
  std::optional<double> sum;
  if (metric.empty()) return sum;
  each_sample_line(text, [&](std::string_view line) {
    if (const auto v = sample_value(line, metric, label)) sum = sum.value_or(0) + *v;
  });
  return sum;
}

}  // namespace srt
