#include "fastenough/sample/npu_smi.h"

#include <gtest/gtest.h>

#include "fastenough/rundir/run_files.h"

namespace fastenough::sample {
namespace {

std::string Data(const std::string& name) {
  auto text = rundir::ReadFile(std::string(FASTENOUGH_TEST_DATA) + "/npu-smi/" + name);
  EXPECT_TRUE(text.has_value()) << name;
  return text.value_or("");
}

TEST(SampleNpuSmi, Parses910bWithHbmAndProcesses) {
  auto t = ParseNpuSmiInfo(Data("910b_two_chips.txt"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->devices.size(), 2u);
  EXPECT_EQ(t->devices[0].index, 0);
  EXPECT_EQ(t->devices[0].name, "910B3");
  EXPECT_EQ(t->devices[0].bus_id, "0000:C1:00.0");
  EXPECT_EQ(t->devices[1].index, 1);
  const DeviceReading& r0 = t->readings[0];
  EXPECT_DOUBLE_EQ(r0.power_w.value(), 93.5);
  EXPECT_DOUBLE_EQ(r0.util_pct.value(), 37);
  // HBM-Usage (3161 / 65536 MB), not the 0 / 0 Memory-Usage column.
  EXPECT_EQ(r0.mem_used_bytes.value(), 3161LL * 1024 * 1024);
  EXPECT_EQ(r0.mem_total_bytes.value(), 65536LL * 1024 * 1024);
  ASSERT_EQ(r0.processes.size(), 1u);
  EXPECT_EQ(r0.processes[0].pid, 4242);
  EXPECT_EQ(r0.processes[0].used_bytes.value(), 2048LL * 1024 * 1024);
  EXPECT_TRUE(t->readings[1].processes.empty());
  EXPECT_DOUBLE_EQ(t->readings[1].util_pct.value(), 0);
}

TEST(SampleNpuSmi, NaPowerIsAbsentAndMemoryUsageUsedWithoutHbm) {
  auto t = ParseNpuSmiInfo(Data("310p_na_power.txt"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->devices.size(), 1u);
  EXPECT_EQ(t->devices[0].index, 8);
  EXPECT_EQ(t->devices[0].name, "310P3");
  EXPECT_FALSE(t->readings[0].power_w.has_value());
  EXPECT_EQ(t->readings[0].mem_used_bytes.value(), 1526LL * 1024 * 1024);
  EXPECT_EQ(t->readings[0].mem_total_bytes.value(), 21527LL * 1024 * 1024);
}

TEST(SampleNpuSmi, NoDeviceRowsIsDataLoss) {
  auto t = ParseNpuSmiInfo("npu-smi: command not found\n");
  EXPECT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kDataLoss);
  EXPECT_FALSE(ParseNpuSmiInfo("").ok());
}

TEST(SampleNpuSmi, BackendRunsTheCommand) {
  std::string cmd = "cat " + std::string(FASTENOUGH_TEST_DATA) + "/npu-smi/910b_two_chips.txt";
  auto b = NpuSmiBackend::Load(cmd);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ((*b)->devices().size(), 2u);
  auto readings = (*b)->Read();
  ASSERT_EQ(readings.size(), 2u);
  EXPECT_DOUBLE_EQ(readings[1].power_w.value(), 91.0);
  EXPECT_FALSE(NpuSmiBackend::Load("false").ok());
  EXPECT_FALSE(NpuSmiBackend::Load("/nonexistent/npu-smi info").ok());
}

}  // namespace
}  // namespace fastenough::sample
