#include "fastenough/rundir/step_reference.h"

#include <gtest/gtest.h>

#include <string>

#include "fastenough/findings/catalog.h"
#include "fastenough/findings/test_evidence.h"

namespace fastenough::rundir {
namespace {

using findings::testing::Ev;

findings::Finding Priced(int64_t per_step_ns, double share) {
  findings::Finding f = findings::NewFinding("serial-small-gemm", findings::Verdict::kAvoidable, 0);
  f.saving.per_step_ns = per_step_ns;
  f.saving.share_of_step = share;
  return f;
}

TEST(RundirStepReference, AProfiledStepsSavingIsExpressedAgainstTheSteadyMedian) {
  // The demo: 1.41 ms of an 88.8 ms profiled step (1.6%) beside a 15.5 ms
  // steady median.
  std::vector<findings::Finding> f = {Priced(1410000, 1410000.0 / 88800000)};
  ExpressSavingsAgainstStep(15500000, &f);
  EXPECT_NEAR(f[0].saving.share_of_step, 0.01588, 1e-4);
  EXPECT_NEAR(static_cast<double>(f[0].saving.per_step_ns), 0.01588 * 15500000, 2000);
  EXPECT_EQ(Ev<int64_t>(f[0], "measured_per_step_ns"), 1410000);
  EXPECT_EQ(Ev<int64_t>(f[0], "measured_step_ns"), 88800000);
  EXPECT_EQ(Ev<int64_t>(f[0], "step_reference_ns"), 15500000);
}

TEST(RundirStepReference, SavingsOfTheReferenceStepAndUnpricedOnesStay) {
  std::vector<findings::Finding> f = {Priced(1000000, 0.1), Priced(-1, -1), Priced(0, 0)};
  ExpressSavingsAgainstStep(10000000, &f);
  EXPECT_EQ(f[0].saving.per_step_ns, 1000000);
  EXPECT_EQ(Ev<int64_t>(f[0], "step_reference_ns"), 10000000);
  EXPECT_EQ(f[0].evidence.size(), 1u);
  EXPECT_EQ(f[1].saving.per_step_ns, -1);
  EXPECT_TRUE(f[1].evidence.empty());
  EXPECT_EQ(f[2].saving.per_step_ns, 0);
  // No reference (no steady steps): nothing changes.
  std::vector<findings::Finding> g = {Priced(1410000, 0.0159)};
  ExpressSavingsAgainstStep(0, &g);
  EXPECT_EQ(g[0].saving.per_step_ns, 1410000);
}

}  // namespace
}  // namespace fastenough::rundir
