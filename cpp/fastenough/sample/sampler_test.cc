#include "fastenough/sample/sampler.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "fastenough/rundir/run_files.h"

namespace fastenough::sample {
namespace {

std::string TempPath(const char* name) {
  return ::testing::TempDir() + "/" + name + std::to_string(getpid()) + ".csv";
}

TEST(SampleSampler, WritesDeviceAndProcessRows) {
  pid_t child = fork();
  if (child == 0) {
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    volatile uint64_t x = 0;
    while (std::chrono::steady_clock::now() < end) x = x + 1;
    _exit(0);
  }
  setenv("FAKE_NVML_PID", std::to_string(child).c_str(), 1);
  SamplerOptions o;
  o.csv_path = TempPath("sampler");
  o.hz = 20;
  o.nvml_library = FASTENOUGH_FAKE_NVML;
  o.npu_smi_command = "cat " + std::string(FASTENOUGH_TEST_DATA) + "/npu-smi/910b_two_chips.txt";
  Sampler s(o);
  ASSERT_TRUE(s.Start().ok());
  s.SetRootPid(child);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  ASSERT_TRUE(s.Stop().ok());
  ASSERT_TRUE(s.Stop().ok());  // idempotent
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);

  ASSERT_EQ(s.backends().size(), 3u);
  for (const auto& b : s.backends()) EXPECT_TRUE(b.present) << b.name << ": " << b.detail;
  EXPECT_EQ(s.Devices().size(), 4u);  // 2 fake GPUs + 2 NPUs

  rundir::RunFiles f;
  rundir::ReadSamples(o.csv_path, &f);
  EXPECT_TRUE(f.problems.empty());
  int nvml0 = 0, nvml1 = 0, npu = 0, proc = 0, proc_cpu = 0;
  for (const auto& r : f.samples) {
    if (r.source == "nvml" && r.device == 0) {
      ++nvml0;
      EXPECT_DOUBLE_EQ(r.util_pct.value_or(-1), 50);
      EXPECT_DOUBLE_EQ(r.power_w.value_or(-1), 250);
      EXPECT_FALSE(r.cpu_pct.has_value());
    } else if (r.source == "nvml" && r.device == 1) {
      ++nvml1;
      EXPECT_FALSE(r.util_pct.has_value());  // NOT_SUPPORTED stays empty
    } else if (r.source == "npu-smi") {
      ++npu;
    } else if (r.source == "proc") {
      ++proc;
      EXPECT_EQ(r.device, -1);
      EXPECT_GT(r.rss_bytes.value_or(0), 0);
      // Any CPU at all: at load 15 on two cores the spinning child gets about
      // 12% of a core, so no 50 ms sample may reach 10% (issue 36).
      if (r.cpu_pct && *r.cpu_pct > 0) ++proc_cpu;
    }
  }
  // 20 Hz for 0.6 s: about 12 ticks; at least a few on a busy machine.
  EXPECT_GE(nvml0, 3);
  EXPECT_EQ(nvml0, nvml1);
  EXPECT_EQ(npu, 2 * nvml0);
  EXPECT_GE(proc, 3);
  EXPECT_GE(proc_cpu, 1);  // the spinning child shows up

  // The child itself is not "another process"; 999999 (NVML) and 4242
  // (npu-smi) are.
  auto others = s.OtherProcesses();
  ASSERT_EQ(others.size(), 2u);
  for (const auto& p : others) {
    EXPECT_NE(p.pid, child);
    EXPECT_TRUE(p.pid == 999999 || p.pid == 4242) << p.pid;
    EXPECT_EQ(p.device, 0);
  }
  unlink(o.csv_path.c_str());
}

TEST(SampleSampler, AbsentBackendsAreReportedAbsent) {
  SamplerOptions o;
  o.csv_path = TempPath("absent");
  o.hz = 50;
  o.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  o.npu_smi_command = "false";
  Sampler s(o);
  ASSERT_TRUE(s.Start().ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(s.Stop().ok());
  ASSERT_EQ(s.backends().size(), 3u);
  EXPECT_FALSE(s.backends()[0].present);
  EXPECT_FALSE(s.backends()[1].present);
  EXPECT_TRUE(s.Devices().empty());
  rundir::RunFiles f;
  rundir::ReadSamples(o.csv_path, &f);
  EXPECT_TRUE(f.samples.empty());  // no root pid, no device: header only
  unlink(o.csv_path.c_str());
}

TEST(SampleSampler, RejectsBadRateAndUnwritablePath) {
  SamplerOptions o;
  o.csv_path = "/nonexistent/dir/samples.csv";
  o.nvml = false;
  o.npu_smi = false;
  EXPECT_EQ(Sampler(o).Start().code(), StatusCode::kNotFound);
  o.hz = 0;
  EXPECT_EQ(Sampler(o).Start().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fastenough::sample
