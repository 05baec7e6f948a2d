#include "fastenough/checks/verdicts.h"

#include <gtest/gtest.h>

namespace fastenough::checks {
namespace {

using findings::Verdict;

int64_t IntEvidence(const findings::Finding& f, const std::string& key) {
  for (const auto& [k, v] : f.evidence) {
    if (k == key && std::holds_alternative<int64_t>(v)) return std::get<int64_t>(v);
  }
  return -12345;
}

TEST(CheckVerdicts, AutogradInEvalWithProbe) {
  CheckInput in;
  in.numbers = {{"forwards", 100}, {"graph_outputs", 100}, {"backward_calls", 0},
                {"params_requiring_grad", 12}, {"probe_grad_ns", 3000000},
                {"probe_inference_ns", 2000000}, {"forwards_per_step", 2},
                {"step_median_ns", 8000000}};
  in.where = {{"eval.py", 12, "main"}};
  auto f = VerdictOnAutogradInEval(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->verdict, Verdict::kAvoidable);
  EXPECT_EQ(f->source, "agent");
  EXPECT_EQ(f->saving.per_step_ns, 2000000);  // (3 - 2) ms * 2 forwards per step
  EXPECT_DOUBLE_EQ(f->saving.share_of_step, 0.25);
  EXPECT_EQ(f->saving.total_ns, 100000000);
  EXPECT_EQ(IntEvidence(*f, "graph_outputs"), 100);
  ASSERT_EQ(f->where.size(), 1u);
  EXPECT_EQ(f->where[0].line, 12);
}

TEST(CheckVerdicts, AProbeWhoseFixStalledLeavesTheSavingUnpriced) {
  // DLRM's evaluation at load 6: grad on 0.64 ms, under inference_mode 17.2 ms
  // (every call of the fix stalled). Before: a saving of 0, which `decide`
  // reads as a fix that pays nothing.
  CheckInput in;
  in.numbers = {{"forwards", 100}, {"graph_outputs", 100}, {"backward_calls", 0},
                {"params_requiring_grad", 12}, {"probe_grad_ns", 638957},
                {"probe_inference_ns", 17201929}, {"forwards_per_step", 1},
                {"step_median_ns", 8000000}};
  auto f = VerdictOnAutogradInEval(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->verdict, Verdict::kAvoidable);
  EXPECT_EQ(f->saving.per_step_ns, -1);
  EXPECT_LT(f->saving.share_of_step, 0);
  bool said = false;
  for (const auto& [k, v] : f->evidence) {
    if (k == "probe_skipped") {
      said = std::get<std::string>(v).rfind("the probe timed the fix slower than", 0) == 0;
    }
    EXPECT_NE(k, "saving_basis");
  }
  EXPECT_TRUE(said);
  // Within twice the code's time it is the probe's noise: a tiny model's fix
  // as fast as its code claims what it resolved, 0.
  in.numbers["probe_inference_ns"] = 700000;
  f = VerdictOnAutogradInEval(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->saving.per_step_ns, 0);
}

TEST(CheckVerdicts, AutogradInEvalBetweenTrainingSteps) {
  // DQN (issue 37, item 8): the acting forward's line built 1400 graphs no
  // backward used, between training steps; no evaluation stretch after the
  // start. The saving counts those forwards, not the run's 2000.
  CheckInput in;
  in.numbers = {{"forwards", 600},         {"forwards_total", 2000},
                {"graph_outputs", 500},     {"backward_calls", 300},
                {"params_requiring_grad", 6}, {"unused_graph_forwards", 1400},
                {"unused_graph_sites", 1},  {"saving_forwards_total", 1400},
                {"saving_forwards_per_step", 0.5}, {"forwards_per_step", 0.7},
                {"probe_grad_ns", 300000},  {"probe_inference_ns", 200000},
                {"step_median_ns", 2000000}};
  auto f = VerdictOnAutogradInEval(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_NE(f->title.find("1400 forwards whose graph no backward uses"), std::string::npos)
      << f->title;
  EXPECT_NE(f->title.find("estimated"), std::string::npos) << f->title;
  EXPECT_EQ(f->saving.per_step_ns, 50000);  // 0.1 ms * 0.5 acting forwards per step
  EXPECT_EQ(f->saving.total_ns, 140000000);  // 0.1 ms * 1400
  EXPECT_EQ(IntEvidence(*f, "unused_graph_forwards"), 1400);
  // Without such a line (and no evaluation stretch), a run that trains has none.
  in.numbers.erase("unused_graph_forwards");
  EXPECT_FALSE(VerdictOnAutogradInEval(in).has_value());
}

std::string TextOf(const findings::Finding& f, const std::string& key) {
  for (const auto& [k, v] : f.evidence) {
    if (k == key && std::holds_alternative<std::string>(v)) return std::get<std::string>(v);
  }
  return "";
}

TEST(CheckVerdicts, TrainModeInEvalPricedByTheProbe) {
  // A TransformerEncoder scored in train mode: 30 ms as it ran, 12 ms in eval
  // mode (its fused path needs eval mode and no autograd).
  CheckInput in;
  in.numbers = {{"forwards", 50},           {"training_dropout_modules", 9},
                {"backward_calls", 0},      {"probe_train_ns", 30000000},
                {"probe_eval_ns", 12000000}, {"probe_calls", 3},
                {"forwards_per_step", 1},   {"step_median_ns", 36000000}};
  auto f = VerdictOnTrainModeInEval(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->saving.per_step_ns, 18000000);
  EXPECT_DOUBLE_EQ(f->saving.share_of_step, 0.5);
  EXPECT_TRUE(f->saving.upper_bound);
  EXPECT_EQ(IntEvidence(*f, "probe_calls"), 3);
  EXPECT_EQ(TextOf(*f, "saving_basis").rfind("measured", 0), 0u);
  // A probe difference longer than the step: per step and total are capped.
  in.numbers["probe_train_ns"] = 80000000;
  in.numbers["forwards_total"] = 50;
  f = VerdictOnTrainModeInEval(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->saving.per_step_ns, 36000000);
  EXPECT_DOUBLE_EQ(f->saving.share_of_step, 1.0);
  EXPECT_EQ(f->saving.total_ns, int64_t{36000000} * 50);
  EXPECT_EQ(IntEvidence(*f, "saving_capped_at_step_median"), 1);
  in.numbers["probe_train_ns"] = 30000000;
  // The run's forwards took 1.5x the probe's (its own load): the difference
  // counts as a share of the forward, times the run's forward.
  in.numbers["probe_scale"] = 1.5;
  f = VerdictOnTrainModeInEval(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->saving.per_step_ns, 27000000);
  EXPECT_NE(TextOf(*f, "saving_basis").find("median forward"), std::string::npos);
  in.numbers.erase("probe_scale");
  // A probe that did not run: no saving, and the reason in the evidence.
  in.numbers.erase("probe_train_ns");
  in.numbers.erase("probe_eval_ns");
  in.texts = {{"probe_skipped", "one forward takes 3.0 s"}};
  f = VerdictOnTrainModeInEval(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->saving.per_step_ns, -1);
  EXPECT_EQ(TextOf(*f, "saving_basis"), "");
  EXPECT_EQ(TextOf(*f, "probe_skipped"), "one forward takes 3.0 s");
}

TEST(CheckVerdicts, SampledForwardsScaleTheTotalAndShowInTheTitle) {
  // The checks examined 40 of the run's 1000 root forwards; all 40 built a graph.
  CheckInput in;
  in.numbers = {{"forwards", 40},          {"forwards_total", 1000},    {"graph_outputs", 40},
                {"backward_calls", 0},     {"params_requiring_grad", 2}, {"probe_grad_ns", 3000},
                {"probe_inference_ns", 1000}};
  auto f = VerdictOnAutogradInEval(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->title,
            "Autograd graph recorded in 40 of 40 examined forwards of a run that never calls "
            "backward");
  EXPECT_EQ(f->saving.total_ns, 2000000);  // 2 us over all 1000 forwards, not the 40 examined
  EXPECT_EQ(IntEvidence(*f, "forwards_total"), 1000);
  in.numbers["forwards_total"] = 40;  // nothing left out: the plain count
  EXPECT_EQ(VerdictOnAutogradInEval(in)->title,
            "Autograd graph recorded in 40 forwards of a run that never calls backward");
}

TEST(CheckVerdicts, AutogradNotWasteWhenBackwardOrNoGraph) {
  CheckInput in;
  in.numbers = {{"graph_outputs", 10}, {"params_requiring_grad", 3}, {"backward_calls", 1}};
  EXPECT_FALSE(VerdictOnAutogradInEval(in).has_value());
  in.numbers = {{"graph_outputs", 0}, {"params_requiring_grad", 3}, {"backward_calls", 0}};
  EXPECT_FALSE(VerdictOnAutogradInEval(in).has_value());
  in.numbers = {{"graph_outputs", 5}, {"params_requiring_grad", 3}};
  auto f = VerdictOnAutogradInEval(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->saving.per_step_ns, -1);  // nothing timed: saving unknown
}

TEST(CheckVerdicts, FullVocabNeedsFewPositions) {
  CheckInput in;
  in.numbers = {{"positions", 16}, {"positions_read", 1}, {"logits_bytes_per_forward", 1600}};
  auto f = VerdictOnFullVocabLogits(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(IntEvidence(*f, "unread_logits_bytes_per_forward"), 1500);
  in.numbers = {{"positions", 16}, {"positions_read", 15}};
  EXPECT_FALSE(VerdictOnFullVocabLogits(in).has_value());
  in.numbers = {{"positions", 16}, {"positions_read", -1}};  // unbounded read
  EXPECT_FALSE(VerdictOnFullVocabLogits(in).has_value());
  in.numbers = {{"positions", 1}, {"positions_read", 1}};
  EXPECT_FALSE(VerdictOnFullVocabLogits(in).has_value());
}

TEST(CheckVerdicts, PaddingThresholdAndSaving) {
  CheckInput in;
  in.numbers = {{"positions", 100}, {"padded_share", 0.4}, {"bucketed_saving_share", 0.3},
                {"bucketed_square_saving_share", 0.45}, {"step_median_ns", 1000}};
  auto f = VerdictOnPaddingWaste(in);
  ASSERT_TRUE(f.has_value());
  // A bound (issue 37 item 1): the larger of the two shares bucketing removes.
  EXPECT_EQ(f->saving.per_step_ns, 450);
  EXPECT_DOUBLE_EQ(f->saving.share_of_step, 0.45);
  EXPECT_TRUE(f->saving.upper_bound);
  EXPECT_EQ(TextOf(*f, "saving_model").rfind("step time grows at most with positions and "
                                                   "with the square of the padded width", 0),
            0u);
  // Bucketing that widens some batches: the positions' share is the larger.
  in.numbers["bucketed_square_saving_share"] = 0.2;
  EXPECT_DOUBLE_EQ(VerdictOnPaddingWaste(in)->saving.share_of_step, 0.3);
  // Without the squares the positions' share is an estimate, and says so.
  in.numbers.erase("bucketed_square_saving_share");
  f = VerdictOnPaddingWaste(in);
  EXPECT_DOUBLE_EQ(f->saving.share_of_step, 0.3);
  EXPECT_FALSE(f->saving.upper_bound);
  in.numbers["padded_share"] = 0.05;
  EXPECT_FALSE(VerdictOnPaddingWaste(in).has_value());
  // Padded, but already bucketed: nothing left to remove with these batch sizes.
  in.numbers["padded_share"] = 0.14;
  in.numbers["bucketed_saving_share"] = 0.0;
  EXPECT_FALSE(VerdictOnPaddingWaste(in).has_value());
}

TEST(CheckVerdicts, SyncInLoopCpuIsBounded) {
  CheckInput in;
  in.numbers = {{"calls", 20}, {"steps", 20}, {"on_device", 0}, {"call_ns_total", 40000}};
  auto f = VerdictOnSyncInLoop(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->verdict, Verdict::kBounded);
  EXPECT_EQ(f->saving.per_step_ns, 2000);
  in.numbers["on_device"] = 1;
  EXPECT_EQ(VerdictOnSyncInLoop(in)->verdict, Verdict::kAvoidable);
  in.numbers["calls"] = 1;
  EXPECT_FALSE(VerdictOnSyncInLoop(in).has_value());
}

TEST(CheckVerdicts, SyncInsideALibraryNamesItAndTheCallerWithoutTheLoopAdvice) {
  // bool(mask.any()) inside torch.nn.TransformerEncoder, reached from main.py:142.
  CheckInput in;
  in.numbers = {{"calls", 30}, {"steps", 30}, {"on_device", 30}, {"call_ns_total", 60000}};
  in.texts = {{"kind", "bool(tensor)"},
              {"inside", "torch.nn.modules.transformer"},
              {"caused_by", "main.py:142"}};
  auto f = VerdictOnSyncInLoop(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->verdict, Verdict::kBounded);  // not the user's line to change
  EXPECT_NE(f->title.find("inside torch.nn.modules.transformer, caused by your call at main.py:142"),
            std::string::npos)
      << f->title;
  EXPECT_EQ(f->action.find("accumulate"), std::string::npos) << f->action;
  EXPECT_NE(f->action.find("enable_nested_tensor=False"), std::string::npos);
  EXPECT_NE(f->action.find("is_causal=True"), std::string::npos);  // the mask comparison
}

TEST(CheckVerdicts, MemoryRules) {
  CheckInput in;
  in.numbers = {{"peak_bytes", 1e9}, {"capacity_bytes", 80e9}, {"batch_size", 1}};
  in.texts = {{"device", "cuda:0"}};
  EXPECT_EQ(VerdictOnMemoryHeadroom(in)->verdict, Verdict::kInsufficientEvidence);
  // The host's RAM is no batch-size headroom (REINFORCE's batch of one state).
  in.texts["device"] = "cpu";
  EXPECT_FALSE(VerdictOnMemoryHeadroom(in).has_value());
  in.texts["device"] = "cuda:0";
  EXPECT_FALSE(VerdictOnMemoryNearLimit(in).has_value());
  in.numbers["batch_size"] = 16;
  EXPECT_FALSE(VerdictOnMemoryHeadroom(in).has_value());
  in.numbers["peak_bytes"] = 75e9;
  EXPECT_EQ(VerdictOnMemoryNearLimit(in)->verdict, Verdict::kBounded);
}

TEST(CheckVerdicts, OthersAndDispatch) {
  CheckInput in;
  in.numbers = {{"forwards_with_cache", 3}, {"cache_reused", 0}};
  EXPECT_TRUE(VerdictOf("kv-cache-in-scoring", in)->has_value());
  in.numbers["cache_reused"] = 2;
  EXPECT_FALSE(VerdictOf("kv-cache-in-scoring", in)->has_value());
  in.numbers = {{"hidden_states_requested", 3}, {"hidden_states_read", 0}};
  EXPECT_TRUE(VerdictOnUnusedOutputs(in).has_value());
  in.numbers["hidden_states_read"] = 1;
  EXPECT_FALSE(VerdictOnUnusedOutputs(in).has_value());
  in.numbers = {{"training_dropout_modules", 2}};
  EXPECT_TRUE(VerdictOnTrainModeInEval(in).has_value());
  in.numbers["backward_calls"] = 5;
  EXPECT_FALSE(VerdictOnTrainModeInEval(in).has_value());
  // The run trains, then evaluates 32 forwards with no backward, dropout still on.
  in.numbers["eval_stretch_forwards"] = 32;
  auto after_training = VerdictOnTrainModeInEval(in);
  ASSERT_TRUE(after_training.has_value());
  EXPECT_NE(after_training->title.find("32 forwards with no backward"), std::string::npos);
  in.numbers = {{"graph_outputs", 40}, {"params_requiring_grad", 10}, {"backward_calls", 3}};
  EXPECT_FALSE(VerdictOnAutogradInEval(in).has_value());
  in.numbers["eval_stretch_forwards"] = 40;
  EXPECT_TRUE(VerdictOnAutogradInEval(in).has_value());
  // Duplicates worth a change: at least 1 MiB and 1% of the peak.
  in.numbers = {{"duplicate_bytes", 4096}, {"copies", 2}};
  EXPECT_FALSE(VerdictOnDuplicateWeights(in).has_value());
  in.numbers = {{"duplicate_bytes", 16 << 20}, {"copies", 2}, {"peak_bytes", 1e9}};
  EXPECT_TRUE(VerdictOnDuplicateWeights(in).has_value());
  in.numbers["peak_bytes"] = 4e9;  // 16 MiB of 4 GB: 0.4%
  EXPECT_FALSE(VerdictOnDuplicateWeights(in).has_value());
  // Host syncs inside torch.optim on CPU tensors (step counters): not reported.
  in.numbers = {{"calls", 40}, {"steps", 20}, {"on_device", 0}};
  in.texts = {{"inside", "torch.optim.adam"}, {"kind", ".item()"}};
  EXPECT_FALSE(VerdictOnSyncInLoop(in).has_value());
  // Nor a DataLoader's seed (PEFT's olora_finetuning under the HF Trainer).
  in.texts = {{"inside", "torch.utils.data.dataloader"}, {"kind", ".item()"}};
  EXPECT_FALSE(VerdictOnSyncInLoop(in).has_value());
  in.texts = {{"inside", "torch.optim.adam"}, {"kind", ".item()"}};
  in.numbers["on_device"] = 40;
  auto optim_on_device = VerdictOnSyncInLoop(in);
  ASSERT_TRUE(optim_on_device.has_value());
  EXPECT_EQ(optim_on_device->action.find("TransformerEncoder"), std::string::npos);
  in.texts = {{"inside", "torch.nn.modules.transformer"}, {"kind", "bool(tensor)"}};
  EXPECT_NE(VerdictOnSyncInLoop(in)->action.find("TransformerEncoder"), std::string::npos);
  in.texts.clear();
  in.numbers = {{"recompiles_in_steady", 2}};
  EXPECT_TRUE(VerdictOnRecompileInSteady(in).has_value());
  EXPECT_FALSE(VerdictOf("no-such-check", in).ok());
}

// Issue 37, item 6: the title counts per step (the number a reader finds in the
// code), and a CPU read is priced at its own host time, said in the evidence.
TEST(CheckVerdicts, SyncInLoopPerStepAndPricedAtItsOwnHostTime) {
  CheckInput in;
  in.numbers = {{"calls", 118}, {"steps", 59}, {"calls_per_step", 2}, {"on_device", 0},
                {"call_ns_total", 590000}, {"step_median_ns", 2000000}};
  in.texts = {{"kind", "int(tensor), float(tensor)"}};
  auto f = VerdictOnSyncInLoop(in);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->title.rfind("2 host-sync calls per step (int(tensor), float(tensor)) over 59 "
                           "steady steps", 0),
            0u)
      << f->title;
  EXPECT_EQ(f->verdict, Verdict::kBounded);
  EXPECT_EQ(f->saving.per_step_ns, 10000);  // 590 µs over 59 steps
  EXPECT_DOUBLE_EQ(f->saving.share_of_step, 0.005);
  EXPECT_NE(TextOf(*f, "saving_basis").find("conversion calls themselves"), std::string::npos);
  in.numbers["on_device"] = 118;
  auto dev = VerdictOnSyncInLoop(in);
  ASSERT_TRUE(dev.has_value());
  EXPECT_NE(TextOf(*dev, "saving_basis").find("wait for the device"), std::string::npos);
  // No steps known: the count as it is, no saving.
  in.numbers = {{"calls", 5}, {"on_device", 0}};
  auto bare = VerdictOnSyncInLoop(in);
  ASSERT_TRUE(bare.has_value());
  EXPECT_EQ(bare->title.rfind("5 host-sync calls (int(tensor), float(tensor))", 0), 0u);
  EXPECT_EQ(TextOf(*bare, "saving_basis"), "");
}

}  // namespace
}  // namespace fastenough::checks
