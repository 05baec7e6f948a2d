#include "fastenough/checks/verdicts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "fastenough/util/units.h"

namespace fastenough::checks {

namespace {

using findings::Finding;
using findings::Verdict;

std::string Fmt(const char* fmt, double a) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, a);
  return buf;
}

Finding Make(const char* code, Verdict v, std::string title, std::string action,
             const CheckInput& in) {
  Finding f;
  f.code = code;
  f.verdict = v;
  f.title = std::move(title);
  f.source = "agent";
  f.action = std::move(action);
  f.where = in.where;
  f.rank = static_cast<int>(in.Num("rank", -1));
  return f;
}

// Copies the measured numbers (those present) into the evidence; whole
// numbers stay integers so the JSON reads "calls": 64, not 64.0.
void Evidence(Finding& f, const CheckInput& in, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    if (!in.Has(k)) continue;
    double v = in.Num(k);
    if (std::floor(v) == v && std::fabs(v) < 9e15) {
      f.evidence.emplace_back(k, static_cast<int64_t>(v));
    } else {
      f.evidence.emplace_back(k, v);
    }
  }
}

// "40 forwards", or "40 of 64 examined forwards" when the checks examined a
// sample of the run's root forwards (forwards_total > forwards): the counts of
// a check are over the forwards it examined.
std::string CountOf(const CheckInput& in, double count, const char* noun) {
  double examined = in.Num("forwards", 0);
  if (in.Num("forwards_total", 0) > examined && examined > 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.0f of %.0f examined %s", count, examined, noun);
    return buf;
  }
  return Fmt("%.0f ", count) + noun;
}

void TextEvidence(Finding& f, const CheckInput& in, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    std::string t = in.Text(k);
    if (!t.empty()) f.evidence.emplace_back(k, t);
  }
}

// Saving from a measured per-forward difference (A/B probe of the same input):
// per step = difference * forwards per step; share against the steady step
// median; total over the forwards the run made. Upper bound: one input, and
// the difference of two host-timed forwards (each the fastest of its calls).
// The evidence says the saving was measured (saving_basis), or why the probe
// did not run (probe_skipped: then the saving stays unknown).
// A fixed variant this many times slower than the code as it ran is a stall.
constexpr double kProbeStallFactor = 2.0;

void SavingFromProbe(Finding& f, const CheckInput& in, const char* slow_key, const char* fast_key) {
  if (!in.Has(slow_key) || !in.Has(fast_key)) {
    TextEvidence(f, in, {"probe_skipped"});
    return;
  }
  // A probe whose fixed variant ran more than twice as long as the code as it
  // ran measured a stall, not the fix: DLRM's evaluation at load 6 timed every
  // call under inference_mode at 17.2 ms against 0.64 ms with autograd on, and
  // claimed a saving of 0, an upper bound nobody measured, which `decide`
  // reads as a fix that pays nothing. Then nothing is priced. Within that
  // factor the difference, or 0, is what the probe resolved (a tiny model's
  // fix is as fast as its code, give or take the noise).
  if (in.Num(fast_key) > kProbeStallFactor * in.Num(slow_key)) {
    f.evidence.emplace_back(
        "probe_skipped",
        "the probe timed the fix slower than the code as it ran (" +
            util::FormatDuration(in.Num(fast_key)) + " with it, " +
            util::FormatDuration(in.Num(slow_key)) +
            " as it ran): a stall of the machine, not the fix; measure the fix with "
            "`fastenough ab`");
    return;
  }
  double diff = std::max(0.0, in.Num(slow_key) - in.Num(fast_key));
  // probe_scale: the run's median forward over the probe's forward as it ran.
  // The probe keeps each variant's fastest call, at exit; the run's forwards
  // ran under its own load (a loaded machine stretched both sides of a CPU
  // evaluation's A/B by a fifth): the difference counts as a share of the
  // forward, times the forward as the run timed it.
  const double scale = in.Num("probe_scale", -1);
  if (scale > 0) diff *= scale;
  // probe_items of probe_batch_items: the probe timed the first rows of the
  // batch only (the whole batch's forwards were over its time or memory budget).
  const double items = in.Num("probe_items", 0);
  const double batch = in.Num("probe_batch_items", 0);
  f.evidence.emplace_back(
      "saving_basis",
      std::string("measured: the model's own forward on the run's input, timed as it ran and "
                  "with the fix (A B B A)") +
          (items > 0 && batch > 0
               ? Fmt(", on the first %.0f", items) + Fmt(" of its %.0f rows", batch)
               : std::string()) +
          (scale > 0 ? "; the difference as a share of that forward, times the run's median "
                       "forward"
                     : ""));
  TextEvidence(f, in, {"probe_at"});
  // saving_forwards_per_step / saving_forwards_total: the forwards the fix
  // applies to, when they are not all of the run's (autograd-in-eval in a run
  // that trains: the lines whose graphs no backward used).
  const double per_step_forwards =
      in.Has("saving_forwards_per_step")
          ? in.Num("saving_forwards_per_step")
          : std::max(1.0, in.Num("forwards_per_step", 1));
  double per_step = diff * per_step_forwards;
  const double step = in.Num("step_median_ns");
  if (step > 0 && per_step > step) {
    // One probe pair, timed once, can come out longer than the steady step
    // it is part of (noise, a cold cache): no fix saves more than the step,
    // and the run's total is scaled down with it.
    per_step = step;
    diff = per_step / per_step_forwards;
    f.evidence.emplace_back("saving_capped_at_step_median", int64_t{1});
  }
  f.saving.per_step_ns = static_cast<int64_t>(per_step);
  if (step > 0) f.saving.share_of_step = std::min(1.0, per_step / step);
  // Over every forward of the run, not only the examined ones.
  double forwards = in.Has("saving_forwards_total") ? in.Num("saving_forwards_total")
                    : in.Has("forwards_total")       ? in.Num("forwards_total")
                                                     : in.Num("forwards");
  if (forwards > 0) f.saving.total_ns = static_cast<int64_t>(diff * forwards);
  f.saving.upper_bound = true;
}

}  // namespace

MaybeFinding VerdictOnAutogradInEval(const CheckInput& in) {
  // A graph is waste only when nothing consumes it: no backward in the run, or
  // none in an evaluation loop (a stretch of forwards far longer than training's
  // forwards per backward: the agent's eval_stretch_forwards).
  // Or a line whose forwards build graphs no backward uses, between training
  // steps (DQN's acting forward: unused_graph_forwards, over the whole run).
  const bool trains = in.Num("backward_calls", 0) > 0;
  const double stretch = in.Num("eval_stretch_forwards", 0);
  const double unused = in.Num("unused_graph_forwards", 0);
  if (trains && stretch <= 0 && unused <= 0) return std::nullopt;
  if (in.Num("graph_outputs", 0) <= 0 || in.Num("params_requiring_grad", 0) <= 0) {
    return std::nullopt;
  }
  std::string title =
      !trains ? "Autograd graph recorded in " + CountOf(in, in.Num("graph_outputs"), "forwards") +
                    " of a run that never calls backward"
      : unused > stretch
          ? Fmt("Autograd graph recorded in %.0f forwards whose graph no backward uses (the "
                "run trains elsewhere",
                unused) +
                (in.Num("forwards_total", 0) > in.Num("forwards", 0) ? "; estimated from the "
                                                                         "examined forwards)"
                                                                       : ")")
          : Fmt("Autograd graph recorded in an evaluation loop of %.0f forwards with no "
                "backward (the run trains elsewhere)",
                stretch);
  if (in.Num("graph_bytes_per_forward") > 0) {
    title += " (" + util::FormatBytes(in.Num("graph_bytes_per_forward")) +
             " kept alive per forward)";
  }
  Finding f = Make("autograd-in-eval", Verdict::kAvoidable, title,
                   "Run the evaluation under torch.inference_mode() (or torch.no_grad()): "
                   "the outputs and scores stay the same, the graph and its saved "
                   "activations are not built.",
                   in);
  Evidence(f, in, {"forwards", "forwards_total", "graph_outputs", "backward_calls",
                   "eval_stretch_forwards", "unused_graph_forwards", "unused_graph_sites",
                   "train_forwards_per_backward", "params_requiring_grad",
                   "graph_bytes_per_forward", "probe_extra_bytes", "probe_grad_ns",
                   "probe_inference_ns", "probe_as_ran_ns", "probe_both_fixed_ns",
                   "probe_calls", "probe_forward_median_ns", "probe_scale", "probe_items",
                   "probe_batch_items", "probe_spread"});
  SavingFromProbe(f, in, "probe_grad_ns", "probe_inference_ns");
  return f;
}

MaybeFinding VerdictOnTrainModeInEval(const CheckInput& in) {
  const bool trains = in.Num("backward_calls", 0) > 0;
  const double stretch = in.Num("eval_stretch_forwards", 0);
  if (trains && stretch <= 0) return std::nullopt;
  double dropout = in.Num("training_dropout_modules", 0);
  double bn = in.Num("training_batchnorm_modules", 0);
  if (dropout + bn <= 0) return std::nullopt;
  // Not only time: dropout makes scores random and batch-norm in training mode
  // normalises with batch statistics and rewrites its running statistics.
  std::string title =
      Fmt("%.0f dropout/batch-norm modules left in training mode during evaluation", dropout + bn);
  if (trains) title += Fmt(" (a loop of %.0f forwards with no backward, after training)", stretch);
  Finding f = Make("train-mode-in-eval", Verdict::kAvoidable, title,
                   "Call model.eval() before evaluating: in training mode dropout makes the "
                   "scores random and batch-norm uses and updates batch statistics.",
                   in);
  Evidence(f, in, {"forwards", "forwards_total", "training_dropout_modules",
                   "training_batchnorm_modules", "backward_calls", "eval_stretch_forwards",
                   "train_forwards_per_backward", "probe_train_ns", "probe_eval_ns",
                   "probe_as_ran_ns", "probe_both_fixed_ns", "probe_calls",
                   "probe_forward_median_ns", "probe_scale", "probe_items", "probe_batch_items",
                   "probe_spread"});
  TextEvidence(f, in, {"modules"});
  // Time too: eval mode skips dropout's masks and lets fused inference paths
  // run (nn.TransformerEncoder's fast path needs eval mode and no autograd).
  SavingFromProbe(f, in, "probe_train_ns", "probe_eval_ns");
  return f;
}

MaybeFinding VerdictOnKvCacheInScoring(const CheckInput& in) {
  if (in.Num("forwards_with_cache", 0) <= 0 || in.Num("cache_reused", 0) > 0) return std::nullopt;
  std::string title = "Key/value cache built in " +
                      CountOf(in, in.Num("forwards_with_cache"), "scoring forwards") +
                      " and never passed back";
  if (in.Num("cache_bytes_per_forward") > 0) {
    title += " (" + util::FormatBytes(in.Num("cache_bytes_per_forward")) + " per forward)";
  }
  Finding f = Make("kv-cache-in-scoring", Verdict::kAvoidable, title,
                   "Pass use_cache=False to the model call (or set model.config.use_cache = "
                   "False): scoring a whole sequence in one forward never reads the cache.",
                   in);
  Evidence(f, in, {"forwards", "forwards_total", "forwards_with_cache", "cache_reused",
                   "cache_bytes_per_forward",
                   "probe_cache_ns", "probe_no_cache_ns"});
  SavingFromProbe(f, in, "probe_cache_ns", "probe_no_cache_ns");
  return f;
}

MaybeFinding VerdictOnUnusedOutputs(const CheckInput& in) {
  bool hidden = in.Num("hidden_states_requested", 0) > 0 && in.Num("hidden_states_read", 0) <= 0;
  bool attn = in.Num("attentions_requested", 0) > 0 && in.Num("attentions_read", 0) <= 0;
  if (!hidden && !attn) return std::nullopt;
  std::string what = hidden && attn ? "hidden states and attentions"
                     : hidden       ? "hidden states"
                                    : "attentions";
  std::string flag = hidden && attn ? "output_hidden_states / output_attentions"
                     : hidden       ? "output_hidden_states"
                                    : "output_attentions";
  Finding f = Make("unused-outputs", Verdict::kAvoidable,
                   "Model returns " + what + " that the program never reads",
                   "Drop " + flag + "=True from the model call (and from the config): the "
                   "extra outputs are computed and kept but never read.",
                   in);
  Evidence(f, in, {"forwards", "forwards_total", "hidden_states_requested", "hidden_states_read",
                   "attentions_requested", "attentions_read", "unused_bytes_per_forward",
                   "probe_with_outputs_ns", "probe_without_outputs_ns"});
  SavingFromProbe(f, in, "probe_with_outputs_ns", "probe_without_outputs_ns");
  return f;
}

MaybeFinding VerdictOnFullVocabLogits(const CheckInput& in) {
  double s = in.Num("positions", 0);
  double k = in.Num("positions_read", -1);
  // Only a clear case: at least 4 positions computed and at most half of them
  // ever read. k < 0 means a read the agent could not bound (all positions).
  if (s < 4 || k < 0 || k * 2 > s) return std::nullopt;
  Finding f = Make("full-vocab-logits", Verdict::kAvoidable,
                   Fmt("Logits over the full vocabulary for %.0f positions per row", s) +
                       Fmt(" when only %.0f are read", k),
                   "Project only the positions you read: slice the hidden states before the "
                   "output layer (Hugging Face: logits_to_keep=N) and take log_softmax after "
                   "the gather of those positions.",
                   in);
  if (in.Num("logits_bytes_per_forward") > 0) {
    f.evidence.emplace_back("unread_logits_bytes_per_forward",
                            static_cast<int64_t>(in.Num("logits_bytes_per_forward") * (s - k) / s));
  }
  Evidence(f, in, {"forwards", "forwards_total", "positions", "positions_read", "vocab",
                   "logits_bytes_per_forward", "vocab_ops_ns_per_forward",
                   "projection_ns_per_forward", "probe_full_ns", "probe_kept_ns"});
  TextEvidence(f, in, {"read_by"});
  SavingFromProbe(f, in, "probe_full_ns", "probe_kept_ns");
  return f;
}

MaybeFinding VerdictOnPaddingWaste(const CheckInput& in) {
  double share = in.Num("padded_share", 0);
  // Under 10% padding is the usual cost of batching; and padding that length
  // bucketing with the same batch sizes cannot remove (batches already sorted
  // by length) is not avoidable either.
  if (share < 0.10 || in.Num("positions", 0) <= 0) return std::nullopt;
  if (in.Num("bucketed_saving_share", 0) < 0.10) return std::nullopt;
  Finding f = Make("padding-waste", Verdict::kAvoidable,
                   util::FormatShare(share) + " of the positions computed are padding",
                   "Pad each batch to its own longest sequence and group sequences of similar "
                   "length (sort or bucket by length) so that little padding remains.",
                   in);
  Evidence(f, in, {"batches", "forwards_total", "rows", "positions", "real_tokens", "padded_share",
                   "dynamic_positions", "bucketed_positions", "bucketed_saving_share",
                   "width_squares", "bucketed_width_squares", "bucketed_square_saving_share",
                   "step_median_ns"});
  TextEvidence(f, in, {"lengths_from"});
  // A bound, derived (padding.h): a step's time c + a * positions + b * (sum
  // over rows of width^2), a, b, c >= 0, saves at most the larger of the two
  // shares bucketing removes. Priced by positions alone (the estimate before
  // issue 37 item 1), attention's square could make the saving larger than
  // claimed; without the squares (an input that lacks them) it stays that
  // estimate and says so.
  const bool squares = in.Has("bucketed_square_saving_share");
  f.evidence.emplace_back(
      "saving_model",
      std::string(squares ? "step time grows at most with positions and with the square of the "
                            "padded width: the larger of the two shares bucketing removes"
                          : "step time proportional to positions"));
  f.evidence.emplace_back(
      "saving_basis", std::string(squares ? "derived from the run's own lengths, not timed: an "
                                            "upper bound under saving_model"
                                          : "derived from the run's own lengths, not timed: an "
                                            "estimate"));
  double save = std::max({0.0, in.Num("bucketed_saving_share", 0),
                          in.Num("bucketed_square_saving_share", 0)});
  save = std::min(1.0, save);
  f.saving.share_of_step = save;
  if (in.Num("step_median_ns") > 0) {
    f.saving.per_step_ns = static_cast<int64_t>(save * in.Num("step_median_ns"));
  }
  f.saving.upper_bound = squares;
  return f;
}

// Duplicated weights below this much memory (and below 1% of the peak) are
// not worth a change to the model's code: minGPT's per-layer causal-mask
// buffers are six equal 64 KiB tensors.
constexpr double kDuplicateMinBytes = 1 << 20;
constexpr double kDuplicateMinShareOfPeak = 0.01;

MaybeFinding VerdictOnDuplicateWeights(const CheckInput& in) {
  const double dup = in.Num("duplicate_bytes", 0);
  if (dup <= 0) return std::nullopt;
  if (dup < kDuplicateMinBytes) return std::nullopt;
  if (in.Num("peak_bytes", 0) > 0 && dup < kDuplicateMinShareOfPeak * in.Num("peak_bytes")) {
    return std::nullopt;
  }
  Finding f = Make("duplicate-weights", Verdict::kAvoidable,
                   "The same weights are resident " +
                       Fmt("%.0f", in.Num("copies", 2)) + " times (" +
                       util::FormatBytes(in.Num("duplicate_bytes")) + " held twice)",
                   "Keep one copy: share the tensor (or its storage) instead of cloning it, or "
                   "delete the copy once the model is built.",
                   in);
  Evidence(f, in, {"duplicate_groups", "copies", "duplicate_bytes", "largest_storage_bytes",
                   "peak_bytes", "capacity_bytes"});
  TextEvidence(f, in, {"tensors"});
  return f;
}

MaybeFinding VerdictOnMemoryHeadroom(const CheckInput& in) {
  double peak = in.Num("peak_bytes"), cap = in.Num("capacity_bytes");
  double batch = in.Num("batch_size");
  if (peak <= 0 || cap <= 0 || batch <= 0) return std::nullopt;
  // On the CPU "capacity" is the machine's RAM, shared with everything else,
  // and memory is not what holds the batch small: the finding said "1% of
  // capacity at batch size 1" of REINFORCE's one-state policy steps and of
  // autoregressive generation, where the batch is the algorithm's (issue 22).
  if (in.Text("device") == "cpu") return std::nullopt;
  // Far below capacity at a small batch: a bigger batch probably fits and may
  // raise throughput, but only a batch sweep can say by how much.
  if (peak > 0.25 * cap || batch > 4) return std::nullopt;
  Finding f = Make("memory-headroom", Verdict::kInsufficientEvidence,
                   "Peak memory is " + util::FormatShare(peak / cap) + " of capacity" +
                       Fmt(" at batch size %.0f", batch),
                   "Sweep the batch size with fastenough.sweep_batch (doubling until memory "
                   "runs out) and keep the knee: the smallest size within 5% of the best "
                   "items/s.",
                   in);
  Evidence(f, in, {"peak_bytes", "capacity_bytes", "batch_size"});
  TextEvidence(f, in, {"device"});
  return f;
}

MaybeFinding VerdictOnMemoryNearLimit(const CheckInput& in) {
  double peak = in.Num("peak_bytes"), cap = in.Num("capacity_bytes");
  if (peak <= 0 || cap <= 0 || peak < 0.90 * cap) return std::nullopt;
  Finding f = Make("memory-near-limit", Verdict::kBounded,
                   "Peak memory is " + util::FormatShare(peak / cap) + " of capacity",
                   "Little room is left: a longer input or a larger batch may fail. Reserved "
                   "minus allocated is allocator cache, not a leak; reduce activation memory "
                   "(inference_mode, shorter sequences) before raising the batch.",
                   in);
  Evidence(f, in, {"peak_bytes", "capacity_bytes", "reserved_peak_bytes", "alloc_peak_bytes"});
  TextEvidence(f, in, {"device"});
  return f;
}

MaybeFinding VerdictOnRecompileInSteady(const CheckInput& in) {
  if (in.Num("recompiles_in_steady", 0) <= 0) return std::nullopt;
  Finding f = Make("recompile-in-steady", Verdict::kAvoidable,
                   Fmt("torch.compile recompiled %.0f times after warmup",
                       in.Num("recompiles_in_steady")),
                   "Make the compiled function's inputs stable (fixed or bucketed shapes, "
                   "dynamic=True, no changing Python scalars) so the steady loop reuses one graph.",
                   in);
  Evidence(f, in, {"recompiles_in_steady", "steady_steps"});
  TextEvidence(f, in, {"reasons"});
  return f;
}

// What the user can do about a sync inside a library, where we know it.
std::string LibraryAdvice(const std::string& inside) {
  if (inside.find("torch.nn.modules.transformer") == 0 ||
      inside.find("torch.nn.modules.activation") == 0) {
    return " (for torch.nn.TransformerEncoder: an attention mask passed without is_causal is "
           "compared with a causal mask on the host, so pass is_causal=True with a causal mask; "
           "its nested-tensor fast path inspects the padding mask on the host: "
           "enable_nested_tensor=False, or no src_key_padding_mask when nothing is padded)";
  }
  return "";
}

MaybeFinding VerdictOnSyncInLoop(const CheckInput& in) {
  double calls = in.Num("calls", 0);
  if (calls < 2) return std::nullopt;
  double steps = in.Num("steps", 0);
  bool device = in.Num("on_device", 0) > 0;
  std::string kind = in.Text("kind");
  const std::string inside = in.Text("inside");
  // Libraries whose host reads are of CPU tensors by construction, on any
  // machine: torch.optim's step counters and LBFGS's convergence tests
  // (capturable=False keeps Adam's step on the CPU even on a GPU), and
  // torch.utils.data's seeds (a DataLoader iterator's base seed, RandomSampler's
  // seed: `torch.empty((), dtype=torch.int64).random_().item()`, once per
  // epoch or evaluation; the Hugging Face Trainer's loop showed 2 in 13 steps).
  // No device is waited for, and nothing in the user's loop can change it.
  if (!device && (inside.rfind("torch.optim", 0) == 0 ||
                  inside.rfind("torch.utils.data", 0) == 0)) {
    return std::nullopt;
  }
  // Per step when the steps are known: the count a reader finds in the code
  // (calls made after the last step, or once in many steps, are not in it).
  const double per = in.Num("calls_per_step", steps > 0 ? calls / steps : 0);
  std::string title =
      steps > 0 ? Fmt("%.3g host-sync calls per step", per) +
                      (kind.empty() ? "" : " (" + kind + ")") + Fmt(" over %.0f steady steps", steps)
                : Fmt("%.0f host-sync calls", calls) + (kind.empty() ? "" : " (" + kind + ")");
  // A call inside an installed library (torch.nn.TransformerEncoder's fast
  // path, sentence-transformers): the user's line is where it is reached from,
  // and "accumulate on the device" is no fix they can make there.
  const std::string from = in.Text("caused_by");
  if (!inside.empty()) {
    title += " inside " + inside + (from.empty() ? "" : ", caused by your call at " + from);
  }
  // On the CPU there is no device to wait for: the call costs only its own
  // host time, measured here. It still becomes a real wait on an accelerator.
  std::string action;
  if (!inside.empty()) {
    action = "The sync is part of " + inside + "'s own code path, not of your loop. Look for "
             "an option of that library that avoids it" + LibraryAdvice(inside) +
             (device ? ", or accept it as the library's cost." : "; on the CPU it costs only its "
                                                                 "own time.");
  } else if (device) {
    action = "Keep the values on the device (accumulate into a tensor) and read them once after "
             "the loop; avoid data-dependent shapes in the loop.";
  } else {
    action = "Harmless on the CPU, but on a GPU/NPU each call waits for the device: accumulate "
             "on the device and read once after the loop.";
  }
  const Verdict verdict = device && inside.empty() ? Verdict::kAvoidable : Verdict::kBounded;
  Finding f = Make("sync-in-loop", verdict,
                   device ? title + ": the host waits for the device each time"
                          : title + " on CPU tensors: no device to wait for here",
                   action, in);
  Evidence(f, in, {"calls", "steps", "calls_per_step", "call_ns_total", "on_device",
                   "wrapper_overhead_ns"});
  TextEvidence(f, in, {"kind", "inside"});
  // Priced at the host time the calls block, measured inside them: on a device
  // the wait included; on the CPU only the conversion itself (a data-dependent
  // op's own work is no wait and is not counted), never the code around it.
  if (in.Has("call_ns_total") && steps > 0) {
    f.evidence.emplace_back(
        "saving_basis",
        std::string(device ? "measured: the host time inside the sync calls, the wait for the "
                             "device included"
                           : "measured: the host time inside the conversion calls themselves; on "
                             "the CPU no device is waited for (nonzero/unique/where's own work "
                             "is not counted)"));
    double per_step = in.Num("call_ns_total") / steps;
    f.saving.per_step_ns = static_cast<int64_t>(per_step);
    f.saving.total_ns = static_cast<int64_t>(in.Num("call_ns_total"));
    if (in.Num("step_median_ns") > 0) {
      f.saving.share_of_step = std::min(1.0, per_step / in.Num("step_median_ns"));
    }
  }
  return f;
}

StatusOr<MaybeFinding> VerdictOf(std::string_view code, const CheckInput& in) {
  if (code == "autograd-in-eval") return VerdictOnAutogradInEval(in);
  if (code == "train-mode-in-eval") return VerdictOnTrainModeInEval(in);
  if (code == "kv-cache-in-scoring") return VerdictOnKvCacheInScoring(in);
  if (code == "unused-outputs") return VerdictOnUnusedOutputs(in);
  if (code == "full-vocab-logits") return VerdictOnFullVocabLogits(in);
  if (code == "padding-waste") return VerdictOnPaddingWaste(in);
  if (code == "duplicate-weights") return VerdictOnDuplicateWeights(in);
  if (code == "memory-headroom") return VerdictOnMemoryHeadroom(in);
  if (code == "memory-near-limit") return VerdictOnMemoryNearLimit(in);
  if (code == "recompile-in-steady") return VerdictOnRecompileInSteady(in);
  if (code == "sync-in-loop") return VerdictOnSyncInLoop(in);
  return InvalidArgument("unknown agent check code: " + std::string(code));
}

}  // namespace fastenough::checks
