// The step-bound verdict's split and its words for a step's mode (issue 37,
// items 4 and 5): the parts of a step add up to at most the step, and the
// steps are named from what they do, with what the model's flags said.
#include <gtest/gtest.h>

#include <string>

#include "fastenough/report/report_json.h"
#include "fastenough/rundir/run_findings.h"
#include "fastenough/findings/test_evidence.h"

namespace fastenough::rundir {
namespace {

using findings::testing::Ev;
using findings::testing::HasEv;

StepBoundInputs OneMode(const std::string& mode, StepSplit split, const std::string& json) {
  StepBoundInputs in;
  StepSummary s;
  s.mode = mode;
  s.count = 40;
  s.median_ns = 10000000;
  in.steps = {s};
  AgentRecord a;
  a.role = "main";
  a.step_split[mode] = split;
  a.record = report::MetaAgentFromJson(json).value();
  in.agents = {a};
  return in;
}

double PartsSum(const findings::Finding& f) {
  return Ev<double>(f, "forward_share") + Ev<double>(f, "backward_share") +
         Ev<double>(f, "optimizer_share") + Ev<double>(f, "data_share");
}

TEST(RundirStepBoundSplit, PartsOfAnOlderRecordThatExceedTheStepAreScaledToIt) {
  // cleanrl PPO's record before issue 37: forward + backward + optimizer came
  // to 159% of the step (a forward that spanned the rollout between updates).
  StepBoundInputs in = OneMode("train", {16, 1000, 800, 300, 490, 0}, "{}");
  std::vector<findings::Finding> out;
  AddStepBoundFindings(in, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_LE(PartsSum(out[0]), 1.0 + 1e-12);
  EXPECT_GE(Ev<double>(out[0], "other_share"), 0.0);
  EXPECT_NEAR(PartsSum(out[0]) + Ev<double>(out[0], "other_share"), 1.0, 1e-12);
  // In proportion: forward stays the largest part.
  EXPECT_NEAR(Ev<double>(out[0], "forward_share"), 800.0 / 1590.0, 1e-12);
  // An older record says nothing of what the steps did: the mode's own name.
  EXPECT_NE(out[0].title.find("Steady train steps (median"), std::string::npos) << out[0].title;
  EXPECT_FALSE(HasEv(out[0], "does"));
}

TEST(RundirStepBoundSplit, PartsWithinTheStepAreKept) {
  StepBoundInputs in = OneMode("train", {16, 1000, 350, 550, 50, 0}, "{}");
  std::vector<findings::Finding> out;
  AddStepBoundFindings(in, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(Ev<double>(out[0], "forward_share"), 0.35);
  EXPECT_DOUBLE_EQ(Ev<double>(out[0], "backward_share"), 0.55);
}

TEST(RundirStepBoundSplit, TheRecordThatTimedTheStepsGivesTheSplit) {
  // Two "main" records of rank 0 (bench/real_programs.py's launcher Python
  // beside the program's): the first timed nothing; the split is the other's.
  StepBoundInputs in = OneMode("train", {16, 1000, 350, 550, 50, 0}, "{}");
  AgentRecord launcher;
  launcher.role = "main";
  in.agents.insert(in.agents.begin(), launcher);
  std::vector<findings::Finding> out;
  AddStepBoundFindings(in, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(Ev<double>(out[0], "forward_share"), 0.35);
}

TEST(RundirStepBoundMode, StepsThatRunBackwardAndOptimizerAreTrainingWhateverTheFlags) {
  // TD3's shape: the steps were grouped under "eval" (the no-grad acting
  // forward of the main model) but every one ran a backward and an optimizer
  // step.
  StepBoundInputs in = OneMode(
      "eval", {16, 1000, 100, 220, 210, 0},
      R"({"step_split":{"eval":{"steps":16,"steps_with_forward":16,"steps_with_backward":16,)"
      R"("steps_with_optimizer":16,"steps_training_flag":16,"steps_grad_enabled":0}}})");
  std::vector<findings::Finding> out;
  AddStepBoundFindings(in, &out);
  ASSERT_EQ(out.size(), 1u);
  const std::string& t = out[0].title;
  EXPECT_EQ(t.find("eval steps"), std::string::npos) << t;
  EXPECT_NE(t.find("Steady training steps (median 10.00 ms; backward and optimizer run; the "
                   "model's flags say train mode, autograd off)"),
            std::string::npos)
      << t;
  EXPECT_EQ(Ev<std::string>(out[0], "does"), "train");
  EXPECT_EQ(Ev<std::string>(out[0], "mode"), "eval");
  EXPECT_EQ(Ev<int64_t>(out[0], "steps_with_backward"), 16);
}

TEST(RundirStepBoundMode, AnEvaluationLeftInTrainModeIsEvaluationWithItsFlagsSaid) {
  StepBoundInputs in = OneMode(
      "train", {16, 1000, 900, 0, 0, 0},
      R"({"step_split":{"train":{"steps":16,"steps_with_forward":16,"steps_with_backward":0,)"
      R"("steps_with_optimizer":0,"steps_training_flag":16,"steps_grad_enabled":16}}})");
  std::vector<findings::Finding> out;
  AddStepBoundFindings(in, &out);
  ASSERT_EQ(out.size(), 1u);
  const std::string& t = out[0].title;
  EXPECT_EQ(t.find("train steps"), std::string::npos) << t;
  EXPECT_NE(t.find("Steady evaluation steps (median 10.00 ms; no backward, no optimizer step; "
                   "the model's flags say train mode, autograd on)"),
            std::string::npos)
      << t;
  EXPECT_EQ(Ev<std::string>(out[0], "does"), "eval");
}

TEST(RundirStepBoundMode, FlagsThatAgreeWithWhatTheStepsDoAreNotRepeated) {
  StepBoundInputs in = OneMode(
      "train", {16, 1000, 300, 500, 100, 0},
      R"({"step_split":{"train":{"steps":16,"steps_with_forward":16,"steps_with_backward":16,)"
      R"("steps_with_optimizer":16,"steps_training_flag":16,"steps_grad_enabled":16}}})");
  std::vector<findings::Finding> out;
  AddStepBoundFindings(in, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].title.find("Steady training steps (median 10.00 ms)"), std::string::npos)
      << out[0].title;
}

TEST(RundirStepBoundMode, StepsThatDoNotAllDoTheSameSayHowMany) {
  // Acting steps timed as training began: 3 of 16 ran an update. The split
  // shows a backward, so the words must not say there was none.
  StepBoundInputs in = OneMode(
      "eval", {16, 1000, 60, 60, 15, 0},
      R"({"step_split":{"eval":{"steps":16,"steps_with_forward":16,"steps_with_backward":3,)"
      R"("steps_with_optimizer":3,"steps_training_flag":0,"steps_grad_enabled":0}}})");
  std::vector<findings::Finding> out;
  AddStepBoundFindings(in, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].title.find("Steady evaluation steps (median 10.00 ms; a backward in 3 and an "
                              "optimizer step in 3 of 16 timed steps; the model's flags say "
                              "eval mode, autograd off)"),
            std::string::npos)
      << out[0].title;
}

}  // namespace
}  // namespace fastenough::rundir
