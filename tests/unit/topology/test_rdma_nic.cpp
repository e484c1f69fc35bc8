// The RoCE v2 IPv4 GID a NIC carries (what Mooncake needs as its GID index), and the NIC ATOM's
// connector picks for a rank when none is configured.
#include <catch2/catch.hpp>

#include "srt/rdma_nic.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_rdma_nic {

using srt::GidEntry;

TEST_CASE("the RoCE v2 IPv4 GID index is the first v2 entry holding an IPv4-mapped address") {
  // A RoCE port as show_gids lists it: v1 and v2 of the link-local IPv6, then v1 and v2 of IPv4.
  const std::vector<GidEntry> port = {
      {0, "IB/RoCE v1\n", "fe80:0000:0000:0000:5254:00ff:fe12:3456\n"},
      {1, "RoCE v2\n", "fe80:0000:0000:0000:5254:00ff:fe12:3456\n"},
      {2, "IB/RoCE v1\n", "0000:0000:0000:0000:0000:ffff:0a00:0001\n"},
      {3, "RoCE v2\n", "0000:0000:0000:0000:0000:ffff:0a00:0001\n"},
      {5, "RoCE v2\n", "0000:0000:0000:0000:0000:ffff:0a01:0001\n"}};
  CHECK(srt::roce_v2_ipv4_gid_index(port) == 3);
  // Unused entries (an all-zero GID, no type) and InfiniBand ports have none.
  CHECK_FALSE(srt::roce_v2_ipv4_gid_index({{0, "", "0000:0000:0000:0000:0000:0000:0000:0000"},
                                            {1, "IB/RoCE v1", "fe80:0000:0000:0000:0002:c903:0000:0001"}}));
  CHECK_FALSE(srt::roce_v2_ipv4_gid_index({}));
  // Not an IPv4-mapped GID: a wrong prefix, a short one, junk.
  for (const char* gid : {"0000:0000:0000:0000:0000:fffe:0a00:0001", "0000:0000:0000:0000:0000:ffff:0a00",
                          "0000:0000:0000:0000:0000:ffff:0a00:00zz", "0000:0000:0000:0000:0000:ffff:0a0000001"})
    CHECK_FALSE(srt::roce_v2_ipv4_gid_index({{3, "RoCE v2", gid}}));
}

TEST_CASE("ATOM's own NIC for a rank: rdma<N>, else ionic_<N>, else rdma<N>, N its visibility entry") {
  const std::set<std::string> pollara = {"ionic_0", "ionic_1", "ionic_2", "ionic_3", "ionic_4", "ionic_5", "ionic_6", "ionic_7"};
  CHECK(srt::atom_auto_nic(4, pollara) == "ionic_4");
  CHECK(srt::atom_auto_nic(4, {"rdma4", "ionic_4"}) == "rdma4");
  // Thor2 and ConnectX names are neither: ATOM asks for rdma<N>, which Mooncake cannot open.
  CHECK(srt::atom_auto_nic(2, {"bnxt_re0", "bnxt_re2"}) == "rdma2");
  CHECK(srt::atom_auto_nic(0, {"mlx5_0"}) == "rdma0");
  CHECK(srt::atom_auto_nic(-1, pollara).empty());
}

}  // namespace test_rdma_nic
