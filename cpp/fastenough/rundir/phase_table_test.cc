#include "fastenough/rundir/phase_table.h"

#include <gtest/gtest.h>

namespace fastenough::rundir {
namespace {

PhaseEdge Edge(const char* phase, bool begin, int64_t mono, int64_t wall, const char* device = "") {
  PhaseEdge e;
  e.rank = 0;
  e.pid = 10;
  e.phase = phase;
  e.begin = begin;
  e.mono_ns = mono;
  e.wall_ns = wall;
  e.automatic = std::string(phase) != "load";
  e.device = device;
  return e;
}

SampleRow Nvml(int64_t wall, int device, double util, double power, int64_t mem) {
  SampleRow s;
  s.wall_ns = wall;
  s.source = "nvml";
  s.device = device;
  s.util_pct = util;
  s.power_w = power;
  s.mem_used_bytes = mem;
  s.mem_total_bytes = 100;
  return s;
}

TEST(RundirPhaseTable, JoinsSamplesByWindowAndDevice) {
  RunFiles f;
  f.edges.push_back(Edge("startup", true, 0, 1000));
  f.edges.push_back(Edge("load", true, 100, 1100));  // user phase nested in startup
  f.edges.push_back(Edge("load", false, 300, 1300, "cuda:1"));
  PhaseEdge startup_end = Edge("startup", false, 500, 1500, "cuda:1");
  startup_end.alloc_peak = 7;
  startup_end.reserved_peak = 9;
  f.edges.push_back(startup_end);
  f.edges.push_back(Edge("steady", true, 500, 1500));
  f.edges.push_back(Edge("steady", false, 2500, 3500, "cuda:0"));
  f.edges.push_back(Edge("profile", true, 2500, 3500));  // never ends: the process died
  f.edges.push_back(Edge("ghost", false, 2600, 3600));   // end without begin: ignored

  f.samples.push_back(Nvml(1200, 2, 10, 50, 4));   // startup, physical 2 = cuda:1
  f.samples.push_back(Nvml(2000, 3, 40, 100, 10));  // steady, physical 3 = cuda:0
  f.samples.push_back(Nvml(3000, 3, 60, 200, 30));
  f.samples.push_back(Nvml(2500, 2, 99, 300, 90));  // another device: not steady's
  SampleRow proc;
  proc.wall_ns = 2000;
  proc.source = "proc";
  proc.cpu_pct = 150;
  proc.rss_bytes = 5;
  f.samples.push_back(proc);
  SampleRow worker;  // a DataLoader worker's share of the tree's CPU
  worker.wall_ns = 2000;
  worker.source = "proc-pid";
  worker.device = 77;
  worker.cpu_pct = 40;
  f.samples.push_back(worker);

  PhaseTableInputs in;
  in.visible_physical = {3, 2};  // CUDA_VISIBLE_DEVICES=3,2
  in.trace_busy_share[0] = 0.8;
  in.run_end_wall_ns = 4000;
  auto rows = BuildPhaseTable(f, in);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].name, "startup");
  EXPECT_EQ(rows[1].name, "load");
  EXPECT_EQ(rows[2].name, "steady");
  EXPECT_EQ(rows[3].name, "profile");

  const PhaseRow& startup = rows[0];
  EXPECT_EQ(startup.host_ns, 500);
  EXPECT_EQ(startup.alloc_peak.value(), 7);
  EXPECT_EQ(startup.reserved_peak.value(), 9);
  EXPECT_DOUBLE_EQ(startup.util_mean.value(), 10);
  EXPECT_DOUBLE_EQ(startup.device_busy_share.value(), 0.1);
  EXPECT_EQ(startup.busy_source, "util");

  EXPECT_EQ(rows[1].host_ns, 200);
  EXPECT_FALSE(rows[1].automatic);

  const PhaseRow& steady = rows[2];
  EXPECT_EQ(steady.host_ns, 2000);
  EXPECT_EQ(steady.samples, 2);
  EXPECT_DOUBLE_EQ(steady.util_mean.value(), 50);
  EXPECT_DOUBLE_EQ(steady.power_mean_w.value(), 150);
  EXPECT_EQ(steady.mem_used_max.value(), 30);
  EXPECT_DOUBLE_EQ(steady.cpu_mean_pct.value(), 150);
  ASSERT_EQ(steady.cpu_mean_pct_by_pid.size(), 1u);
  EXPECT_DOUBLE_EQ(steady.cpu_mean_pct_by_pid.at(77), 40);
  EXPECT_EQ(steady.rss_max.value(), 5);
  EXPECT_FALSE(steady.alloc_peak.has_value());  // its end record had no peak

  const PhaseRow& profile = rows[3];
  EXPECT_FALSE(profile.complete);
  EXPECT_EQ(profile.end_wall_ns, 4000);
  EXPECT_EQ(profile.host_ns, 500);  // closed at the run's end, on the wall clock
  EXPECT_DOUBLE_EQ(profile.device_busy_share.value(), 0.8);
  EXPECT_EQ(profile.busy_source, "trace");
}

TEST(RundirPhaseTable, NoSamplesMeansAbsentNotZero) {
  RunFiles f;
  f.edges.push_back(Edge("steady", true, 0, 0));
  f.edges.push_back(Edge("steady", false, 10, 10, "cpu"));
  auto rows = BuildPhaseTable(f, {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].util_mean.has_value());
  EXPECT_FALSE(rows[0].device_busy_share.has_value());
  EXPECT_FALSE(rows[0].mem_used_max.has_value());
  EXPECT_EQ(rows[0].busy_source, "");
}

}  // namespace
}  // namespace fastenough::rundir
