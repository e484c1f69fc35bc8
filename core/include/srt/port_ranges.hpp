// The kernel's port ranges against the profile's allocator range (srt-helper doctor).
// A port the Plan hands out must never be one the kernel may pick as the source port of an
// outgoing connection (ip_local_port_range), or a worker's bind fails at random under load.
// Ports listed in ip_local_reserved_ports are never picked by the kernel, so they are exempt from
// that rule; but an admin reserves them for some service, so they are reported as well.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace srt {

struct PortSpan {
  int first = 0;  // inclusive
  int last = 0;   // inclusive
  bool operator==(const PortSpan& o) const { return first == o.first && last == o.last; }
};

std::string to_string(const PortSpan& span);  // "32768-60999" or "8000"

// /proc/sys/net/ipv4/ip_local_port_range: "32768\t60999\n". Throws srt::Error otherwise.
PortSpan parse_ip_local_port_range(const std::string& text);

// /proc/sys/net/ipv4/ip_local_reserved_ports: "" or "8000-8010,9000\n". Throws srt::Error.
std::vector<PortSpan> parse_ip_local_reserved_ports(const std::string& text);

std::optional<PortSpan> overlap(const PortSpan& a, const PortSpan& b);

// `spans` minus `holes`, in order; spans and holes may be unsorted and overlap each other.
std::vector<PortSpan> subtract(const std::vector<PortSpan>& spans, const std::vector<PortSpan>& holes);

struct PortRangeCheck {
  // Allocator ports the kernel may use as ephemeral ports (ephemeral minus reserved): each one is
  // a possible random bind failure.
  std::vector<PortSpan> ephemeral_clashes;
  // Allocator ports an admin reserved for something (not a failure; see the header comment).
  std::vector<PortSpan> reserved_overlaps;
  bool ok() const { return ephemeral_clashes.empty(); }
};

PortRangeCheck check_port_range(const PortSpan& allocator, const PortSpan& ephemeral,
                                const std::vector<PortSpan>& reserved);

}  // namespace srt
