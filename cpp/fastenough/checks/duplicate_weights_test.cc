#include "fastenough/checks/duplicate_weights.h"

#include <gtest/gtest.h>

namespace fastenough::checks {
namespace {

TEST(ChecksDuplicates, GroupsBySizeAndHash) {
  std::vector<StorageRow> rows = {
      {"cpu:0x10", 4096, 7},  {"cpu:0x20", 4096, 7},  // a copy
      {"cpu:0x30", 4096, 8},                          // same size, other content
      {"cpu:0x10", 4096, 7},                          // storage 0x10 reached twice
      {"cpu:0x40", 100, 1},   {"cpu:0x50", 100, 1},   // under min_bytes
      {"cpu:0x60", 8192, 3},  {"cpu:0x70", 8192, 3},  {"cpu:0x80", 8192, 3},
  };
  auto g = DuplicateCandidates(rows, 1024);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0], (std::vector<size_t>{6, 7, 8}));  // largest first
  EXPECT_EQ(g[1], (std::vector<size_t>{0, 1}));
}

TEST(ChecksDuplicates, NoneWhenAllDistinct) {
  EXPECT_TRUE(DuplicateCandidates({{"a", 4096, 1}, {"b", 4096, 2}}, 0).empty());
  EXPECT_TRUE(DuplicateCandidates({}, 0).empty());
}

}  // namespace
}  // namespace fastenough::checks
