#include "fastenough/findings/overlaps.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <variant>

namespace fastenough::findings {

namespace {

bool HasSaving(const Finding& f) { return f.saving.per_step_ns > 0 || f.saving.share_of_step > 0; }

// train-mode-in-eval and autograd-in-eval priced by the eval probe (checks/
// decide.cc SavingFromProbe, agent/checks/probe.py): each claims the most its
// fix saves in either order, so that the two claims together bound what both
// fixes save. Their gains do not add up: nn.TransformerEncoder's fused path
// needs both (probe: 30.7 ms as it ran, 28.1 grad off, 26.8 eval, 13.1 both),
// so the larger claim alone (59% of a step) was below what `ab` then measured
// for both fixes (69.5%). Within a group of overlapping findings their claims
// count as one, their sum.
bool PricedJointlyByTheEvalProbe(const Finding& f) {
  if (f.code != "train-mode-in-eval" && f.code != "autograd-in-eval") return false;
  for (const auto& [key, value] : f.evidence) {
    if (key != "saving_basis") continue;
    const auto* text = std::get_if<std::string>(&value);
    return text != nullptr && text->rfind("measured", 0) == 0;
  }
  return false;
}

void MarkPair(Finding& a, Finding& b) {
  if (std::find(a.overlaps.begin(), a.overlaps.end(), b.code) == a.overlaps.end()) {
    a.overlaps.push_back(b.code);
  }
  if (std::find(b.overlaps.begin(), b.overlaps.end(), a.code) == b.overlaps.end()) {
    b.overlaps.push_back(a.code);
  }
}

bool ClassesMeet(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return false;
  if (a == b || a == "whole-step" || b == "whole-step") return true;
  // The host's share of a forward (autograd, Python, launches) is what a
  // host-bound device waits for.
  return (a == "forward" && b == "device-idle") || (a == "device-idle" && b == "forward");
}

}  // namespace

std::string_view ClaimClass(std::string_view code) {
  static const std::map<std::string_view, std::string_view> kClasses = {
      {"autograd-in-eval", "forward"},     {"kv-cache-in-scoring", "forward"},
      {"unused-outputs", "forward"},       {"full-vocab-logits", "forward"},
      {"padding-waste", "forward"},        {"recompute-prefix", "forward"},
      {"serial-small-gemm", "forward"},    {"unfused-projections", "forward"},
      {"no-tensor-cores", "forward"},      {"cpu-fallback", "forward"},
      {"train-mode-in-eval", "forward"},   {"sync-in-loop", "host-sync"},
      {"dataloader-bound", "data"},        {"pageable-memcpy", "transfer"},
      {"transfer-in-loop", "transfer"},    {"small-kernels", "device-idle"},
      {"gpu-idle-host-bound", "device-idle"}, {"comm-not-overlapped", "comm"},
      {"devices-take-turns", "device-idle"},
      {"gemm-wave-quantization", "forward"}, {"gemm-dims-unaligned", "forward"},
      {"gemm-memory-bound-shape", "forward"}, {"attention-short-sequence", "forward"},
      {"fp32-in-mixed-precision", "forward"},
      {"straggler-rank", "comm"},          {"load-imbalance", "comm"},          {"cpu-oversubscribed", "whole-step"},
      {"recompile-in-steady", "whole-step"}, {"device-shared", "whole-step"},
  };
  auto it = kClasses.find(code);
  return it == kClasses.end() ? std::string_view() : it->second;
}

void MarkTraceOverlaps(std::vector<Finding>& findings, const timeline::IntervalSet& steady) {
  for (Finding& f : findings) {
    if (HasSaving(f) && f.claimed.empty()) f.claimed = steady;
  }
  for (size_t i = 0; i < findings.size(); ++i) {
    for (size_t j = i + 1; j < findings.size(); ++j) {
      Finding& a = findings[i];
      Finding& b = findings[j];
      if (!HasSaving(a) || !HasSaving(b)) continue;
      const int64_t la = a.claimed.TotalLength(), lb = b.claimed.TotalLength();
      if (la <= 0 || lb <= 0) continue;
      const int64_t shared = timeline::Intersect(a.claimed, b.claimed).TotalLength();
      if (static_cast<double>(shared) >= kOverlapShare * static_cast<double>(std::min(la, lb))) {
        MarkPair(a, b);
      }
    }
  }
}

void MarkJobOverlaps(std::vector<Finding>& findings) {
  // A job-level finding (rank null) and rank 0's (the rank it is counted
  // with): load-imbalance's saving, and that of ranks taking turns, is time
  // the other ranks spend waiting in collectives, which comm-not-overlapped
  // and straggler-rank count too.
  for (Finding& a : findings) {
    const bool job_turns = a.code == "devices-take-turns" && a.rank < 0;
    if (a.code != "load-imbalance" && !job_turns) continue;
    for (Finding& b : findings) {
      if (&a == &b || std::max(b.rank, 0) != std::max(a.rank, 0)) continue;
      if (b.code == "comm-not-overlapped" || b.code == "straggler-rank" ||
          b.code == "load-imbalance") {
        MarkPair(a, b);
      }
    }
  }
}

void MarkClassOverlaps(std::vector<Finding>& findings) {
  for (size_t i = 0; i < findings.size(); ++i) {
    for (size_t j = i + 1; j < findings.size(); ++j) {
      Finding& a = findings[i];
      Finding& b = findings[j];
      if (!HasSaving(a) || !HasSaving(b)) continue;
      if (a.source == "trace" && b.source == "trace") continue;  // decided by their time
      if (a.rank >= 0 && b.rank >= 0 && a.rank != b.rank) continue;
      if (ClassesMeet(ClaimClass(a.code), ClaimClass(b.code))) MarkPair(a, b);
    }
  }
}

namespace {

std::vector<AvoidableTotal> Totals(const std::vector<Finding>& findings) {
  std::map<int, std::vector<size_t>> by_rank;
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    if (f.verdict == Verdict::kAvoidable && HasSaving(f)) by_rank[std::max(f.rank, 0)].push_back(i);
  }
  std::vector<AvoidableTotal> out;
  for (const auto& [rank, idx] : by_rank) {
    // Groups: findings joined by "overlaps" (by code, within the rank).
    std::vector<size_t> parent(idx.size());
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](size_t x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    for (size_t a = 0; a < idx.size(); ++a) {
      for (size_t b = a + 1; b < idx.size(); ++b) {
        const Finding& fa = findings[idx[a]];
        const Finding& fb = findings[idx[b]];
        const bool joined = std::find(fa.overlaps.begin(), fa.overlaps.end(), fb.code) !=
                            fa.overlaps.end();
        if (joined) parent[find(a)] = find(b);
      }
    }
    std::map<size_t, std::pair<double, int64_t>> best;   // group -> (share, per_step)
    std::map<size_t, std::pair<double, int64_t>> joint;  // the eval probe's claims, summed
    for (size_t a = 0; a < idx.size(); ++a) {
      const Finding& f = findings[idx[a]];
      auto& g = best[find(a)];
      g.first = std::max(g.first, std::max(0.0, f.saving.share_of_step));
      g.second = std::max(g.second, std::max<int64_t>(0, f.saving.per_step_ns));
      if (PricedJointlyByTheEvalProbe(f)) {
        auto& j = joint[find(a)];
        j.first += std::max(0.0, f.saving.share_of_step);
        j.second += std::max<int64_t>(0, f.saving.per_step_ns);
      }
    }
    for (auto& [g, j] : joint) {
      if (j.first > 1.0) {  // no fix saves more than the step
        j.second = static_cast<int64_t>(static_cast<double>(j.second) / j.first);
        j.first = 1.0;
      }
      auto& b = best[g];
      if (j.first > b.first) b = j;
    }
    AvoidableTotal t;
    t.rank = rank;
    t.findings = static_cast<int>(idx.size());
    t.groups = static_cast<int>(best.size());
    for (const auto& [g, v] : best) {
      t.share_of_step += v.first;
      t.per_step_ns += v.second;
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace

std::vector<AvoidableTotal> BoundAvoidable(std::vector<Finding>& findings) {
  std::vector<AvoidableTotal> totals = Totals(findings);
  bool merged = false;
  for (const AvoidableTotal& t : totals) {
    if (t.share_of_step <= 1.0 + 1e-9 || t.groups < 2) continue;
    for (size_t i = 0; i < findings.size(); ++i) {
      for (size_t j = i + 1; j < findings.size(); ++j) {
        Finding& a = findings[i];
        Finding& b = findings[j];
        if (std::max(a.rank, 0) != t.rank || std::max(b.rank, 0) != t.rank) continue;
        if (a.verdict != Verdict::kAvoidable || b.verdict != Verdict::kAvoidable) continue;
        if (!HasSaving(a) || !HasSaving(b)) continue;
        MarkPair(a, b);
      }
    }
    merged = true;
  }
  return merged ? Totals(findings) : totals;
}

}  // namespace fastenough::findings
