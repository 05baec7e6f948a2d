#include "fastenough/sample/nvml_backend.h"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace fastenough::sample {
namespace {

TEST(SampleNvml, MissingLibraryIsNotFound) {
  auto b = NvmlBackend::Load("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kNotFound);
}

TEST(SampleNvml, LibraryWithoutNvmlSymbolsIsUnimplemented) {
  auto b = NvmlBackend::Load("libz.so.1");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kUnimplemented);
}

TEST(SampleNvml, StandInDevicesAndAbsentFields) {
  unsetenv("FAKE_NVML_DEVICES");
  setenv("FAKE_NVML_PID", "4321", 1);
  auto b = NvmlBackend::Load(FASTENOUGH_FAKE_NVML);
  ASSERT_TRUE(b.ok()) << b.status().message();
  const auto& devs = (*b)->devices();
  ASSERT_EQ(devs.size(), 2u);
  EXPECT_EQ(devs[0].name, "Fake GPU 0");
  EXPECT_EQ(devs[1].uuid, "GPU-fake-0001");
  EXPECT_EQ(devs[0].mem_total_bytes.value(), 80LL << 30);

  auto r = (*b)->Read();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(r[0].util_pct.value(), 50);
  EXPECT_DOUBLE_EQ(r[0].power_w.value(), 250.0);  // 250000 mW
  EXPECT_EQ(r[0].sm_clock_mhz.value(), 1980);
  EXPECT_EQ(r[0].mem_used_bytes.value(), 1LL << 30);
  ASSERT_EQ(r[0].processes.size(), 2u);
  EXPECT_EQ(r[0].processes[0].pid, 4321);
  EXPECT_EQ(r[0].processes[1].pid, 999999);
  EXPECT_EQ(r[0].processes[1].used_bytes.value(), 256LL << 20);
  // Device 1 does not support utilisation or power: absent, not zero.
  EXPECT_FALSE(r[1].util_pct.has_value());
  EXPECT_FALSE(r[1].power_w.has_value());
  EXPECT_EQ(r[1].mem_used_bytes.value(), 2LL << 30);
}

TEST(SampleNvml, InitFailureIsReported) {
  setenv("FAKE_NVML_INIT_FAIL", "1", 1);
  auto b = NvmlBackend::Load(FASTENOUGH_FAKE_NVML);
  unsetenv("FAKE_NVML_INIT_FAIL");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kInternal);
}

TEST(SampleNvml, EnvOverridesLibraryPath) {
  setenv("FASTENOUGH_NVML_LIBRARY", "/x/libfake.so", 1);
  EXPECT_EQ(NvmlBackend::DefaultLibraryPath(), "/x/libfake.so");
  unsetenv("FASTENOUGH_NVML_LIBRARY");
  EXPECT_EQ(NvmlBackend::DefaultLibraryPath(), "libnvidia-ml.so.1");
}

}  // namespace
}  // namespace fastenough::sample
