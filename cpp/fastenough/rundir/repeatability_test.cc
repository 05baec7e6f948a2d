#include "fastenough/rundir/repeatability.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fastenough::rundir {
namespace {

namespace fs = std::filesystem;

SeenFinding Seen(const std::string& code, double per_step, double share, int rank = -1) {
  return SeenFinding{code, rank, "avoidable", per_step, share};
}

TEST(Repeatability, StableFindingsWithSpreadAndThoseThatCameAndWent) {
  std::vector<SeenFinding> now{Seen("sync-in-loop", 1'200'000, 0.05),
                               Seen("serial-small-gemm", 300'000, 0.01),
                               Seen("dataloader-bound", -1, -1, 1), Seen("step-bound", 0, 0, 0)};
  std::vector<EarlierRun> earlier{{2, "/r/2", "t2"}, {1, "/r/1", "t1"}};
  std::vector<std::vector<SeenFinding>> seen{
      {Seen("sync-in-loop", 1'500'000, 0.06), Seen("dataloader-bound", -1, -1, 1),
       Seen("step-bound", 0, 0, 0), Seen("autograd-in-eval", 9'000'000, 0.3)},
      {Seen("sync-in-loop", 1'000'000, 0.04), Seen("dataloader-bound", -1, -1, 1),
       Seen("step-bound", 0, 0, 0)}};
  auto r = CompareFindings(now, earlier, seen);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->runs, 3);
  ASSERT_EQ(r->stable.size(), 3u);
  const RepeatedFinding& sync = r->stable[0];
  EXPECT_EQ(sync.code, "sync-in-loop");
  ASSERT_TRUE(sync.per_step_ns && sync.share_of_step);
  EXPECT_EQ(sync.per_step_ns->min, 1'000'000);
  EXPECT_EQ(sync.per_step_ns->max, 1'500'000);
  EXPECT_EQ(sync.per_step_ns->runs, 3);
  EXPECT_DOUBLE_EQ(sync.share_of_step->min, 0.04);
  EXPECT_DOUBLE_EQ(sync.share_of_step->max, 0.06);
  const RepeatedFinding& loader = r->stable[1];
  EXPECT_EQ(loader.rank, 1);
  EXPECT_FALSE(loader.per_step_ns || loader.share_of_step);  // never estimated
  EXPECT_EQ(r->stable[2].per_step_ns->max, 0);
  ASSERT_EQ(r->varied.size(), 2u);
  EXPECT_EQ(r->varied[0].code, "serial-small-gemm");
  EXPECT_EQ(r->varied[0].runs, 1);
  EXPECT_TRUE(r->varied[0].in_this_run);
  EXPECT_EQ(r->varied[1].code, "autograd-in-eval");
  EXPECT_FALSE(r->varied[1].in_this_run);

  report::JsonWriter w(0);
  WriteRepeatability(w, *r);
  EXPECT_EQ(w.str().rfind(R"({"runs":3,"earlier":[{"id":2,"run_dir":"/r/2","started_at":"t2"},)"
                         R"({"id":1,"run_dir":"/r/1","started_at":"t1"}],"stable":[)"
                         R"({"code":"sync-in-loop","verdict":"avoidable","per_step_ns":)"
                         R"({"min":1000000,"max":1500000,"runs":3},"share_of_step":)"
                         R"({"min":0.04,"max":0.06,"runs":3}})",
                         0),
            0u)
      << w.str();
  EXPECT_NE(w.str().find(R"({"code":"dataloader-bound","rank":1,"verdict":"avoidable"})"),
            std::string::npos);
  EXPECT_NE(w.str().find(R"("varied":[{"code":"serial-small-gemm","verdict":"avoidable",)"
                         R"("runs":1,"in_this_run":true})"),
            std::string::npos);
}

TEST(Repeatability, OfSeveralWithOneKeyTheLargestSavingCounts) {
  std::vector<SeenFinding> now{Seen("sync-in-loop", 100, 0.01), Seen("sync-in-loop", 900, 0.09)};
  auto r = CompareFindings(now, {{1, "/r/1", std::nullopt}},
                           {{Seen("sync-in-loop", 500, 0.05)}});
  ASSERT_TRUE(r && r->stable.size() == 1);
  EXPECT_EQ(r->stable[0].per_step_ns->min, 500);
  EXPECT_EQ(r->stable[0].per_step_ns->max, 900);
}

TEST(Repeatability, NoEarlierRunNoSection) {
  EXPECT_FALSE(CompareFindings({Seen("sync-in-loop", 1, 0.1)}, {}, {}));
  EXPECT_FALSE(CompareWithEarlierRuns({}, {}));
}

TEST(Repeatability, EarlierRunsWhoseReportCannotBeReadAreSkipped) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("repeat_" + std::to_string(getpid()));
  fs::remove_all(dir);
  for (const char* name : {"gone", "damaged", "good", "notareport"}) {
    fs::create_directories(dir / name);
  }
  std::ofstream(dir / "damaged" / "report.json") << R"({"findings": [)";
  std::ofstream(dir / "notareport" / "report.json") << R"({"findings": 3})";
  std::ofstream(dir / "good" / "report.json")
      << R"({"findings": [{"code": "sync-in-loop", "rank": null, "verdict": "avoidable",
             "saving": {"per_step_ns": 2000, "share_of_step": 0.2}}]})";
  findings::Finding f;
  f.code = "sync-in-loop";
  f.verdict = findings::Verdict::kAvoidable;
  f.saving.per_step_ns = 1000;
  f.saving.share_of_step = 0.1;
  std::vector<EarlierRun> earlier;
  for (const char* name : {"gone", "damaged", "notareport", "good"}) {
    earlier.push_back({std::nullopt, (dir / name).string(), std::nullopt});
  }
  auto r = CompareWithEarlierRuns({f}, earlier);
  fs::remove_all(dir);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->runs, 2);
  ASSERT_EQ(r->earlier.size(), 1u);
  EXPECT_EQ(r->earlier[0].run_dir, (dir / "good").string());
  ASSERT_EQ(r->stable.size(), 1u);
  EXPECT_EQ(r->stable[0].per_step_ns->min, 1000);
  EXPECT_EQ(r->stable[0].per_step_ns->max, 2000);
}

}  // namespace
}  // namespace fastenough::rundir
