// Pairing and the summary: missing/extra keys, the overall verdict, the worst
// keys first, and mismatches of shape or dtype reported per key.
#include "fastenough/compare/compare_sets.h"

#include <gtest/gtest.h>

#include <deque>
#include <vector>

namespace fastenough::compare {
namespace {

// Keeps the element vectors alive for the views.
struct Sets {
  std::deque<std::vector<float>> data;
  TensorRef F32(const std::string& key, std::vector<float> v) {
    data.push_back(std::move(v));
    TensorRef t;
    t.key = key;
    t.dtype = DType::kF32;
    t.shape = {static_cast<int64_t>(data.back().size())};
    t.data = reinterpret_cast<const uint8_t*>(data.back().data());
    t.bytes = data.back().size() * 4;
    t.file = key + ".safetensors";
    return t;
  }
};

TEST(CompareSets, EqualAggregatesDoNotHideItems) {
  Sets s;
  TensorSet a, b;
  for (int i = 0; i < 100; ++i) {
    const std::string key = "item" + std::to_string(i);
    a.tensors.push_back(s.F32(key, {1.0f * i, 2.0f}));
    // Items 10 and 11 trade 1.0 between them: the sum over all items is unchanged.
    float d = i == 10 ? 1.0f : i == 11 ? -1.0f : 0.0f;
    b.tensors.push_back(s.F32(key, {1.0f * i + d, 2.0f}));
  }
  CompareResult r = CompareSets(a, b, CompareOptions{});
  EXPECT_EQ(r.verdict, Verdict::kDiffers);
  ASSERT_EQ(r.worst.size(), 2u);
  EXPECT_EQ(r.keys[r.worst[0]].key, "item10");  // equal badness: by key
  EXPECT_EQ(r.keys[r.worst[1]].key, "item11");
  EXPECT_EQ(r.keys[r.worst[0]].stats.worst_index, 0);
}

TEST(CompareSets, MissingExtraAndMismatches) {
  Sets s;
  TensorSet a, b;
  a.tensors.push_back(s.F32("only_a", {1}));
  a.tensors.push_back(s.F32("shape", {1, 2}));
  a.tensors.push_back(s.F32("close", {1.0f}));
  b.tensors.push_back(s.F32("only_b", {1}));
  b.tensors.push_back(s.F32("shape", {1, 2, 3}));
  b.tensors.push_back(s.F32("close", {1.000001f}));
  CompareResult r = CompareSets(a, b, CompareOptions{});
  EXPECT_EQ(r.missing, std::vector<std::string>{"only_a"});
  EXPECT_EQ(r.extra, std::vector<std::string>{"only_b"});
  ASSERT_EQ(r.keys.size(), 2u);
  EXPECT_EQ(r.keys[0].key, "close");
  EXPECT_EQ(r.keys[0].verdict, Verdict::kWithinTolerance);
  EXPECT_EQ(r.keys[1].mismatch, "shape");
  EXPECT_EQ(r.verdict, Verdict::kDiffers);
  // The shape mismatch is worse than the within-tolerance key.
  ASSERT_EQ(r.worst.size(), 2u);
  EXPECT_EQ(r.keys[r.worst[0]].key, "shape");
}

TEST(CompareSets, WithinToleranceOnlyWhenNothingDiffers) {
  Sets s;
  TensorSet a, b;
  a.tensors.push_back(s.F32("x", {0.0f, 1.0f}));
  b.tensors.push_back(s.F32("x", {-0.0f, 1.0f}));
  EXPECT_EQ(CompareSets(a, b, CompareOptions{}).verdict, Verdict::kWithinTolerance);
  CompareOptions exact;
  exact.exact = true;
  EXPECT_EQ(CompareSets(a, b, exact).verdict, Verdict::kDiffers);
  EXPECT_EQ(CompareSets(a, a, CompareOptions{}).verdict, Verdict::kBitwiseEqual);
}

}  // namespace
}  // namespace fastenough::compare
