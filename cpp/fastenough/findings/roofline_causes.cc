#include "fastenough/findings/roofline_causes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "fastenough/util/units.h"

namespace fastenough::findings {

namespace {

using roofline::Dtype;
using roofline::OpArg;
using roofline::OpCall;

std::string CauseNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, v == std::floor(v) && std::fabs(v) < 1e15 ? "%.0f" : "%.1f", v);
  return buf;
}

const OpArg* CauseTensor(const OpCall& c, size_t i, size_t min_rank, size_t max_rank = 64) {
  const OpArg* a = c.arg(i);
  if (a == nullptr || !a->is_tensor() || a->dims.size() < min_rank || a->dims.size() > max_rank) {
    return nullptr;
  }
  return a;
}

std::string CauseDims(const GemmShape& g) {
  std::string s = "M=" + std::to_string(g.m) + ", N=" + std::to_string(g.n) + ", K=" +
                  std::to_string(g.k);
  if (g.batch != 1) s = "batch " + CauseNumber(g.batch) + ", " + s;
  return s;
}

bool IsMatrixFamily(const std::string& f) {
  return f == "matmul" || f == "attention" || f == "convolution";
}

}  // namespace

std::optional<GemmShape> GemmShapeOf(const OpCall& c) {
  const std::string& n = c.name;
  GemmShape g;
  if (n == "aten::mm" || n == "aten::addmm" || n == "aten::_scaled_mm") {
    const size_t first = n == "aten::addmm" ? 1 : 0;
    const OpArg* a = CauseTensor(c, first, 2, 2);
    const OpArg* b = CauseTensor(c, first + 1, 2, 2);
    if (a == nullptr || b == nullptr || a->dims[1] != b->dims[0]) return std::nullopt;
    g.m = a->dims[0];
    g.k = a->dims[1];
    g.n = b->dims[1];
    return g;
  }
  if (n == "aten::bmm" || n == "aten::baddbmm" || n == "aten::_grouped_mm" ||
      n == "aten::_scaled_grouped_mm") {
    const size_t first = n == "aten::baddbmm" ? 1 : 0;
    const OpArg* a = CauseTensor(c, first, 3, 3);
    const OpArg* b = CauseTensor(c, first + 1, 3, 3);
    if (a == nullptr || b == nullptr || a->dims[0] != b->dims[0] || a->dims[2] != b->dims[1]) {
      return std::nullopt;
    }
    g.batch = static_cast<double>(a->dims[0]);
    g.m = a->dims[1];
    g.k = a->dims[2];
    g.n = b->dims[2];
    return g;
  }
  if (n == "aten::linear") {
    const OpArg* x = CauseTensor(c, 0, 1);
    const OpArg* w = CauseTensor(c, 1, 2, 2);
    if (x == nullptr || w == nullptr || x->dims.back() != w->dims[1]) return std::nullopt;
    double m = 1;
    for (size_t i = 0; i + 1 < x->dims.size(); ++i) m *= static_cast<double>(x->dims[i]);
    g.m = static_cast<int64_t>(m);
    g.k = x->dims.back();
    g.n = w->dims[0];
    return g;
  }
  if (n == "aten::matmul") {
    const OpArg* a = CauseTensor(c, 0, 2);
    const OpArg* b = CauseTensor(c, 1, 2);
    if (a == nullptr || b == nullptr) return std::nullopt;
    const auto& ad = a->dims;
    const auto& bd = b->dims;
    if (ad.back() != bd[bd.size() - 2]) return std::nullopt;
    g.m = ad[ad.size() - 2];
    g.k = ad.back();
    g.n = bd.back();
    // A batched operand times a matrix: the batch folds into M (one GEMM).
    double batch = 1;
    for (size_t i = 0; i + 2 < ad.size(); ++i) batch *= static_cast<double>(ad[i]);
    if (bd.size() == 2) {
      g.m = static_cast<int64_t>(batch * static_cast<double>(g.m));
    } else {
      double bb = 1;
      for (size_t i = 0; i + 2 < bd.size(); ++i) bb *= static_cast<double>(bd[i]);
      g.batch = std::max(batch, bb);
    }
    return g;
  }
  return std::nullopt;
}

std::optional<AttentionShape> AttentionShapeOf(const OpCall& c) {
  const std::string& n = c.name;
  if (n.find("attention") == std::string::npos) return std::nullopt;
  const bool backward = n.find("backward") != std::string::npos;
  // [B, L, H, E] for the flash / xformers entry points, [..., H, L, E] otherwise.
  const bool blhe = n == "aten::_flash_attention_forward" || n == "aten::_flash_attention_backward" ||
                    n == "aten::_efficient_attention_forward" ||
                    n == "aten::_efficient_attention_backward";
  const size_t qi = backward ? 1 : 0;
  const OpArg* q = CauseTensor(c, qi, blhe ? 4 : 3, blhe ? 4 : 64);
  const OpArg* k = CauseTensor(c, qi + 1, blhe ? 4 : 3, blhe ? 4 : 64);
  if (q == nullptr || k == nullptr) return std::nullopt;
  AttentionShape a;
  if (blhe) {
    a.batch_heads = static_cast<double>(q->dims[0]) * static_cast<double>(q->dims[2]);
    a.query_len = q->dims[1];
    a.key_len = k->dims[1];
    a.head_dim = q->dims[3];
  } else {
    const auto& d = q->dims;
    a.batch_heads = 1;
    for (size_t i = 0; i + 2 < d.size(); ++i) a.batch_heads *= static_cast<double>(d[i]);
    a.query_len = d[d.size() - 2];
    a.key_len = k->dims[k->dims.size() - 2];
    a.head_dim = d.back();
  }
  return a;
}

std::optional<WaveFill> WaveFillOf(const GemmShape& g, int sms) {
  if (sms <= 0 || g.m <= 0 || g.n <= 0 || !(g.batch > 0)) return std::nullopt;
  WaveFill w;
  const double tiles = g.batch * static_cast<double>((g.m + kTile - 1) / kTile) *
                       static_cast<double>((g.n + kTile - 1) / kTile);
  if (tiles > 1e15) return std::nullopt;
  w.tiles = static_cast<int64_t>(tiles);
  w.waves = (w.tiles + sms - 1) / sms;
  const int64_t last = w.tiles - (w.waves - 1) * sms;
  w.last_wave_fill = static_cast<double>(last) / sms;
  w.efficiency = static_cast<double>(w.tiles) / (static_cast<double>(w.waves) * sms);
  return w;
}

int TensorCoreMultiple(const std::string& peak_dtype, Dtype recorded) {
  if (recorded == Dtype::kInt8 || recorded == Dtype::kUInt8) return 16;
  if (peak_dtype == "bf16" || peak_dtype == "fp16") return 8;
  if (peak_dtype == "fp8") return 16;
  if (peak_dtype == "tf32") return 4;
  return 0;
}

int64_t DeviceActivityNs(const trace::EventStore& s) {
  int64_t ns = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (trace::IsDeviceActivity(s.kind[i])) ns += s.dur_ns[i];
  }
  return ns;
}

std::optional<BelowRoofCause> BelowRoofCauseOf(const roofline::OpRoofline& row, int sms,
                                               double low_precision_share) {
  if (row.bound.empty() || !std::isfinite(roofline::PctOfBindingRoof(row))) return std::nullopt;  // no roof
  const std::string_view types = row.input_types.empty() ? std::string_view("[]") : row.input_types;
  StatusOr<OpCall> call = roofline::ParseOpCall(row.op, row.input_dims, types);
  if (!call.ok()) return std::nullopt;
  const std::string& dt = row.peak.dtype;
  const bool fp32 = dt == "fp32" || dt == "fp32_matrix" || dt == "tf32";
  BelowRoofCause c;
  // (e) FP32 in a model whose other matrix work runs in 16 or 8 bits.
  if (IsMatrixFamily(row.family) && fp32 && low_precision_share >= kMixedShare) {
    c.code = "fp32-in-mixed-precision";
    c.verdict = Verdict::kAvoidable;
    c.why = "held to the " + dt + " peak while " + util::FormatShare(low_precision_share) +
            " of the other matrix ops' device time runs in BF16 / FP16 / FP8";
    c.evidence.emplace_back("low_precision_share_of_matrix_time",
                            std::round(low_precision_share * 1000.0) / 1000.0);
    return c;
  }
  const std::optional<GemmShape> g = row.family == "matmul" ? GemmShapeOf(*call) : std::nullopt;
  // (b) Dims the tensor cores cannot take whole.
  if (g) {
    const Dtype recorded = call->args.empty() ? Dtype::kUnknown : call->args[0].dtype;
    Dtype in = recorded;
    for (const auto& a : call->args) {
      if (a.is_tensor() && a.dims.size() >= 2) {
        in = a.dtype;
        break;
      }
    }
    const int mult = TensorCoreMultiple(dt, in);
    if (mult > 0 && (g->k % mult != 0 || g->n % mult != 0)) {
      std::string bad;
      if (g->k % mult != 0) bad += "K=" + std::to_string(g->k);
      if (g->n % mult != 0) bad += std::string(bad.empty() ? "" : ", ") + "N=" + std::to_string(g->n);
      c.code = "gemm-dims-unaligned";
      c.verdict = Verdict::kAvoidable;
      c.why = bad + " not a multiple of " + std::to_string(mult) + " (what the tensor cores need for " +
              dt + ")";
      c.evidence.emplace_back("gemm_dims", CauseDims(*g));
      c.evidence.emplace_back("multiple_needed", static_cast<int64_t>(mult));
      c.evidence.emplace_back("unaligned_dims", bad);
      return c;
    }
  }
  // (d) Short-sequence attention.
  if (row.family == "attention") {
    const std::optional<AttentionShape> a = AttentionShapeOf(*call);
    if (a && a->query_len <= kShortSequence && a->key_len <= kShortSequence) {
      c.code = "attention-short-sequence";
      c.verdict = Verdict::kInsufficientEvidence;
      c.why = "query length " + std::to_string(a->query_len) + " and key length " +
              std::to_string(a->key_len) + " (at most " + std::to_string(kShortSequence) +
              "): a fixed cost per (batch, head) block dominates";
      c.evidence.emplace_back("query_len", a->query_len);
      c.evidence.emplace_back("key_len", a->key_len);
      c.evidence.emplace_back("head_dim", a->head_dim);
      c.evidence.emplace_back("batch_heads", static_cast<int64_t>(a->batch_heads));
      return c;
    }
    return std::nullopt;
  }
  if (!g) return std::nullopt;
  // (c) Tall-skinny: below the ridge by shape.
  const double ridge = row.peak.flop_per_s / row.peak.bytes_per_s;
  if (row.bound == "memory" && std::min(g->m, g->n) <= kTile) {
    c.code = "gemm-memory-bound-shape";
    c.verdict = Verdict::kInsufficientEvidence;
    c.why = "a tall-skinny GEMM (" + CauseDims(*g) + "): " +
            CauseNumber(row.arithmetic_intensity) + " FLOP/byte, below the device's ridge of " +
            CauseNumber(ridge) + " FLOP/byte";
    c.evidence.emplace_back("gemm_dims", CauseDims(*g));
    c.evidence.emplace_back("arithmetic_intensity", std::round(row.arithmetic_intensity * 1000.0) / 1000.0);
    c.evidence.emplace_back("ridge", std::round(ridge * 1000.0) / 1000.0);
    return c;
  }
  // (a) Wave quantisation.
  // The waves explain the op's place only when its % of the roof lies under
  // the ceiling they set (100 * efficiency: above it the kernel does not use
  // that tile) and not far under it (kWaveExplains of the ceiling: far under
  // it something else costs more).
  const double pct = roofline::PctOfBindingRoof(row);
  if (const std::optional<WaveFill> w = WaveFillOf(*g, sms);
      w && w->efficiency < kWaveEfficiency && pct <= 100.0 * w->efficiency &&
      pct >= kWaveExplains * 100.0 * w->efficiency) {
    c.code = "gemm-wave-quantization";
    c.verdict = Verdict::kInsufficientEvidence;
    c.why = std::to_string(w->tiles) + " output tiles of " + std::to_string(kTile) + "x" +
            std::to_string(kTile) + " on " + std::to_string(sms) + " SMs: " + std::to_string(w->waves) +
            (w->waves == 1 ? " wave" : " waves") + ", the last " + util::FormatShare(w->last_wave_fill) +
            " full";
    c.evidence.emplace_back("gemm_dims", CauseDims(*g));
    c.evidence.emplace_back("tile_assumed", std::to_string(kTile) + "x" + std::to_string(kTile));
    c.evidence.emplace_back("output_tiles", w->tiles);
    c.evidence.emplace_back("num_sms", static_cast<int64_t>(sms));
    c.evidence.emplace_back("waves", w->waves);
    c.evidence.emplace_back("last_wave_fill", std::round(w->last_wave_fill * 1000.0) / 1000.0);
    c.evidence.emplace_back("wave_efficiency", std::round(w->efficiency * 1000.0) / 1000.0);
    return c;
  }
  return std::nullopt;
}

}  // namespace fastenough::findings
