#include "fastenough/report/row_bound.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fastenough/report/json_writer.h"
#include "fastenough/report/report.h"
#include "fastenough/report/report_json.h"

namespace fastenough::report {
namespace {

std::vector<size_t> Range(size_t b, size_t e) {
  std::vector<size_t> out;
  for (size_t i = b; i < e; ++i) out.push_back(i);
  return out;
}

TEST(RowBoundTest, KeepsEveryRowUpToTheLimit) {
  EXPECT_EQ(KeptRows(0, 10), std::vector<size_t>{});
  EXPECT_EQ(KeptRows(10, 10), Range(0, 10));
  const std::vector<size_t> also{7};
  EXPECT_EQ(KeptRows(3, 10, also), Range(0, 3));  // `also` beyond n is ignored
}

TEST(RowBoundTest, KeepsTheFirstAndLastHalvesAndWhatIsPointedAt) {
  std::vector<size_t> want = Range(0, 5);
  for (size_t i : Range(95, 100)) want.push_back(i);
  EXPECT_EQ(KeptRows(100, 10), want);
  // An odd limit gives the tail the extra row.
  std::vector<size_t> odd = Range(0, 5);
  for (size_t i : Range(94, 100)) odd.push_back(i);
  EXPECT_EQ(KeptRows(100, 11), odd);
  // Rows pointed at are kept in their place, once, whether or not inside the halves.
  const std::vector<size_t> also{50, 2, 50, 97, 40, 1000};
  std::vector<size_t> with = Range(0, 5);
  with.push_back(40);
  with.push_back(50);
  for (size_t i : Range(95, 100)) with.push_back(i);
  EXPECT_EQ(KeptRows(100, 10, also), with);
}

TEST(RowBoundTest, RangesOfConsecutiveRows) {
  using R = std::vector<std::pair<size_t, size_t>>;
  EXPECT_EQ(KeptRanges({}), R{});
  EXPECT_EQ(KeptRanges({0, 1, 2, 7, 9, 10}), (R{{0, 3}, {7, 8}, {9, 11}}));
}

TEST(RowBoundTest, HeaviestRowsInTheirOrder) {
  const std::vector<int64_t> w{5, 1, 9, 9, 0, 3};
  EXPECT_EQ(KeptHeaviest(w, 6), Range(0, 6));
  EXPECT_EQ(KeptHeaviest(w, 3), (std::vector<size_t>{0, 2, 3}));
  EXPECT_EQ(KeptHeaviest(w, 1), (std::vector<size_t>{2}));  // a tie: the earlier row
  EXPECT_EQ(KeptHeaviest(w, 0), std::vector<size_t>{});
}

analysis::RankAnalysis Rank(size_t steps, size_t devices) {
  analysis::RankAnalysis ra;
  for (size_t i = 0; i < steps; ++i) {
    analysis::StepRow row;
    row.window.number = static_cast<int64_t>(i) + 100;
    row.window.start_ns = static_cast<int64_t>(i) * 10;
    row.window.end_ns = row.window.start_ns + 5;
    ra.steps.steps.push_back(row);
  }
  for (size_t i = 0; i < devices; ++i) {
    analysis::DeviceBreakdown d;
    d.device = static_cast<int32_t>(i);
    d.busy_ns = static_cast<int64_t>(i % 7);
    d.kernel_count = 1;
    ra.devices.push_back(d);
  }
  return ra;
}

TEST(RowBoundTest, BoundRankKeepsTheWorstStepAndTheBusiestDevices) {
  analysis::RankAnalysis ra = Rank(5000, 1000);
  ra.step_breakdown.steps.resize(5000);
  ra.step_breakdown.worst_step = 2500;
  const RankRows rows = BoundRank(ra);
  EXPECT_EQ(rows.step_count, 5000u);
  EXPECT_EQ(rows.steps.size(), kReportStepRows + 1);
  EXPECT_TRUE(rows.StepsBounded());
  EXPECT_EQ(rows.steps[kReportStepRows / 2], 2500u);
  EXPECT_TRUE(rows.devices_bounded);
  EXPECT_EQ(rows.devices.size(), kReportDeviceRows);
  for (size_t i : rows.devices) EXPECT_GE(ra.devices[i].busy_ns, 5);  // 6s and then 5s
  EXPECT_TRUE(rows.KeepsDevice(6));
  EXPECT_FALSE(rows.KeepsDevice(0));

  const RankRows small = BoundRank(Rank(3, 2));
  EXPECT_FALSE(small.StepsBounded());
  EXPECT_FALSE(small.devices_bounded);
  EXPECT_TRUE(small.KeepsDevice(12345));
}

TEST(RowBoundTest, ReportListsTheKeptStepsAndSaysHowManyAreLeftOut) {
  Report r;
  r.ranks.push_back(Rank(3000, 300));
  std::string json;  // without the writer's indentation
  for (char c : ReportToJson(r)) {
    if (c != ' ' && c != '\n') json.push_back(c);
  }
  EXPECT_NE(json.find("\"omitted\":{\"count\":2000,\"kept\":[[0,500],[2500,3000]]}"),
            std::string::npos)
      << json.substr(0, 2000);
  EXPECT_NE(json.find("\"number\":599"), std::string::npos);    // row 499
  EXPECT_EQ(json.find("\"number\":600,"), std::string::npos);   // row 500: left out
  EXPECT_NE(json.find("\"devices_omitted\":[{\"rank\":0,\"count\":44,"), std::string::npos);

  // A rank summary's writer, given no bound, lists every row.
  JsonWriter w(0);
  WriteRankSteps(w, r.ranks.front());
  const std::string all = w.Take();
  EXPECT_EQ(all.find("omitted"), std::string::npos);
  EXPECT_NE(all.find("\"number\":1600,"), std::string::npos);
}

// A turns split over more devices than the report lists: the listed ones,
// and the others summed in its `omitted` (fields/turns_fields.h, TurnsOmitted).
TEST(RowBoundTest, DeviceTurnsSumTheDevicesTheReportDoesNotList) {
  Report r;
  r.ranks.push_back(Rank(3, 300));  // busy_ns = device % 7: 44 devices of 0-4 left out
  analysis::DeviceTurns& t = r.ranks[0].device_turns;
  int64_t left_busy = 0;
  for (int32_t d = 0; d < 300; ++d) {
    t.devices.push_back(d);
    t.busy_ns.push_back(1000 + d);
    if (!BoundRank(r.ranks[0]).KeepsDevice(d)) left_busy += 1000 + d;
  }
  t.windows = 1;
  t.window_ns = 10;
  std::string json;
  for (char c : ReportToJson(r)) {
    if (c != ' ' && c != '\n') json.push_back(c);
  }
  const std::string omitted =
      "\"omitted\":{\"count\":44,\"busy_ns\":" + std::to_string(left_busy) + "}";
  EXPECT_NE(json.find(omitted), std::string::npos) << omitted;
}

}  // namespace
}  // namespace fastenough::report
