#include "srt/port_ranges.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "srt/error.hpp"

namespace srt {
namespace {

bool parse_port(const std::string& s, int& out) {
  if (s.empty() || s.size() > 5 || !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }))
    return false;
  out = std::stoi(s);
  return out <= 65535;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

}  // namespace

std::string to_string(const PortSpan& span) {
  return span.first == span.last ? std::to_string(span.first)
                                 : std::to_string(span.first) + "-" + std::to_string(span.last);
}

PortSpan parse_ip_local_port_range(const std::string& text) {
  std::istringstream in(text);
  std::string a, b, extra;
  PortSpan span;
  if (!(in >> a >> b) || (in >> extra) || !parse_port(a, span.first) || !parse_port(b, span.last) ||
      span.first > span.last)
    fail("ip_local_port_range reads '" + trim(text) + "', not two ports 'LOW HIGH'",
         "check /proc/sys/net/ipv4/ip_local_port_range on this node");
  return span;
}

std::vector<PortSpan> parse_ip_local_reserved_ports(const std::string& text) {
  std::vector<PortSpan> spans;
  std::istringstream in(trim(text));
  std::string item;
  while (std::getline(in, item, ',')) {
    item = trim(item);
    const auto dash = item.find('-');
    PortSpan span;
    const bool good = dash == std::string::npos
                          ? parse_port(item, span.first) && parse_port(item, span.last)
                          : parse_port(item.substr(0, dash), span.first) &&
                                parse_port(item.substr(dash + 1), span.last) && span.first <= span.last;
    if (!good)
      fail("ip_local_reserved_ports has '" + item + "', not a port or a range 'LOW-HIGH'",
           "check /proc/sys/net/ipv4/ip_local_reserved_ports on this node");
    spans.push_back(span);
  }
  return spans;
}

std::optional<PortSpan> overlap(const PortSpan& a, const PortSpan& b) {
  const PortSpan o{std::max(a.first, b.first), std::min(a.last, b.last)};
  if (o.first > o.last) return std::nullopt;
  return o;
}

std::vector<PortSpan> subtract(const std::vector<PortSpan>& spans, const std::vector<PortSpan>& holes) {
  std::vector<PortSpan> out = spans;
  for (const PortSpan& hole : holes) {
    std::vector<PortSpan> next;
    for (const PortSpan& s : out) {
      if (!overlap(s, hole)) {
        next.push_back(s);
        continue;
      }
      if (s.first < hole.first) next.push_back({s.first, hole.first - 1});
      if (s.last > hole.last) next.push_back({hole.last + 1, s.last});
    }
    out = std::move(next);
  }
  return out;
}

PortRangeCheck check_port_range(const PortSpan& allocator, const PortSpan& ephemeral,
                                const std::vector<PortSpan>& reserved) {
  PortRangeCheck check;
  if (const auto o = overlap(allocator, ephemeral)) check.ephemeral_clashes = subtract({*o}, reserved);
  for (const PortSpan& r : reserved)
    if (const auto o = overlap(allocator, r)) check.reserved_overlaps.push_back(*o);
  return check;
}

}  // namespace srt
