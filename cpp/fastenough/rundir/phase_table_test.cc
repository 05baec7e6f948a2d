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

PhaseRow Row(const char* name, const char* mode, int64_t start, int64_t end) {
  PhaseRow r;
  r.name = name;
  r.mode = mode;
  r.pid = 10;
  r.automatic = true;
  r.start_wall_ns = start;
  r.end_wall_ns = end;
  r.host_ns = end - start;
  return r;
}

// A loop that alternates one training step and one evaluation forward (GAT,
// PyG link prediction): a phase at every switch.
std::vector<PhaseRow> Alternating(int epochs) {
  std::vector<PhaseRow> rows = {Row("startup", "train", 0, 100)};
  int64_t t = 100;
  for (int i = 0; i < epochs; ++i) {
    const char* phase = i < 5 ? "warmup" : "steady";
    rows.push_back(Row(phase, "train", t, t + 30));
    rows.push_back(Row(phase, "eval", t + 30, t + 40));
    t += 40;
  }
  rows.push_back(Row("tail", "train", t, t + 5));
  return rows;
}

TEST(RundirPhaseRows, AModesConsecutiveInstancesOfAPhaseAreOneRow) {
  const std::vector<PhaseRow> rows = Alternating(100);  // 202 instances
  std::vector<PhaseRow> merged = MergePhaseRows(rows);
  ASSERT_EQ(merged.size(), 6u);  // startup, warmup x2 modes, steady x2 modes, tail
  int64_t host = 0, instances = 0;
  for (const PhaseRow& r : merged) {
    host += r.host_ns;
    instances += r.instances;
    EXPECT_FALSE(r.mode.empty());
  }
  EXPECT_EQ(instances, 202);
  EXPECT_EQ(host, 100 + 100 * 40 + 5);  // host time kept, none counted twice
  const PhaseRow& steady_train = merged[3];
  EXPECT_EQ(steady_train.name, "steady");
  EXPECT_EQ(steady_train.mode, "train");
  EXPECT_EQ(steady_train.instances, 95);
  EXPECT_EQ(steady_train.host_ns, 95 * 30);
  EXPECT_EQ(steady_train.start_wall_ns, 100 + 5 * 40);
}

TEST(RundirPhaseRows, APhaseBetweenTwoInstancesOfItsModeKeepsThemApart) {
  // steady, profile, steady of one mode: three rows, in order.
  std::vector<PhaseRow> rows = {Row("steady", "train", 0, 10), Row("profile", "train", 10, 20),
                                Row("steady", "train", 20, 30)};
  std::vector<PhaseRow> merged = MergePhaseRows(rows);
  ASSERT_EQ(merged.size(), 3u);
  EXPECT_EQ(merged[1].name, "profile");
}

TEST(RundirPhaseRows, TheListIsBounded) {
  // Phases that alternate inside one mode (a user phase between every
  // steady stretch): more rows than the bound are merged per phase and mode.
  std::vector<PhaseRow> rows;
  for (int i = 0; i < 300; ++i) {
    rows.push_back(Row("steady", "train", i * 20, i * 20 + 10));
    PhaseRow user = Row("checkpoint", "train", i * 20 + 10, i * 20 + 20);
    user.automatic = false;
    rows.push_back(user);
  }
  std::vector<PhaseRow> merged = MergePhaseRows(rows);
  EXPECT_LE(merged.size(), kPhaseRowsMax);
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].instances + merged[1].instances, 600);
}

}  // namespace
}  // namespace fastenough::rundir
