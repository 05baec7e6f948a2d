// Attention family: scaled_dot_product_attention and the kernels it
// dispatches to (flash, memory-efficient, cuDNN, the CPU flash kernel, the
// XPU/PrivateUse1 "overrideable" op; on ROCm the flash and efficient ops run
// CK / AOTriton kernels under the same names), forward and backward.
//
// Forward, per (batch, query head): S = Q K^T is Lq*S*E multiply-adds and
// O = P V is Lq*S*Ev: FLOPs = 2*B*Hq*Lq*S*(E + Ev). Softmax's few FLOPs per
// score are not counted. A causal mask skips half the score matrix: x 1/2.
// Backward recomputes S and runs four more GEMMs (dV = P^T dO, dP = dO V^T,
// dQ = dS K, dK = dS^T Q): FLOPs = 2*B*Hq*Lq*S*(3E + 2Ev) (2.5x the forward
// when E = Ev), x 1/2 when causal.
// GQA: key/value carry Hkv heads (Hq a multiple of Hkv); the FLOPs follow the
// query heads, the bytes the tensors as recorded.
// Bytes, forward: Q, K, V (and a mask / bias) read once; O (and the
// logsumexp, fp32 [B, Hq, Lq], where the op returns it) written once.
// Backward: every tensor input read once; dQ, dK, dV written once.
#include <cmath>
#include <optional>
#include <string>

#include "fastenough/roofline/model_util.h"
#include "fastenough/roofline/op_work.h"

namespace fastenough::roofline {

using detail::BadShapes;
using detail::Dims;
using detail::Prod;
using detail::TensorArg;

namespace {

enum class Layout { kBHLE, kBLHE };  // [..., H, L, E] (SDPA) or [B, L, H, E] (flash / xformers)
enum class Causal { kBool, kMaskType };  // is_causal flag, or custom_mask_type (0 = none)
enum class Lse { kNone, kAlways, kIfFlag };

struct AttentionSignature {
  std::string_view name;
  bool backward;
  size_t q;  // index of query; key and value follow
  size_t causal;
  Causal causal_kind;
  Layout layout;
  Lse lse;
  size_t lse_flag;  // compute_log_sumexp's index (kIfFlag)
  long mask;        // attn_mask / attn_bias index, -1 none
  long varlen;      // cum_seq_q / cu_seqlens_q index, -1 none
};

constexpr AttentionSignature kAttentionSignatures[] = {
    {"aten::scaled_dot_product_attention", false, 0, 5, Causal::kBool, Layout::kBHLE, Lse::kNone, 0, 3, -1},
    {"aten::_scaled_dot_product_flash_attention", false, 0, 4, Causal::kBool, Layout::kBHLE, Lse::kAlways, 0, -1, -1},
    {"aten::_scaled_dot_product_flash_attention_for_cpu", false, 0, 4, Causal::kBool, Layout::kBHLE, Lse::kAlways, 0, 5, -1},
    {"aten::_scaled_dot_product_efficient_attention", false, 0, 6, Causal::kBool, Layout::kBHLE, Lse::kIfFlag, 4, 3, -1},
    {"aten::_scaled_dot_product_cudnn_attention", false, 0, 6, Causal::kBool, Layout::kBHLE, Lse::kIfFlag, 4, 3, -1},
    {"aten::_scaled_dot_product_fused_attention_overrideable", false, 0, 5, Causal::kBool, Layout::kBHLE, Lse::kAlways, 0, 3, -1},
    {"aten::_flash_attention_forward", false, 0, 8, Causal::kBool, Layout::kBLHE, Lse::kAlways, 0, -1, 3},
    {"aten::_efficient_attention_forward", false, 0, 9, Causal::kMaskType, Layout::kBLHE, Lse::kIfFlag, 10, 3, 4},
    {"aten::_scaled_dot_product_flash_attention_backward", true, 1, 11, Causal::kBool, Layout::kBHLE, Lse::kNone, 0, -1, -1},
    {"aten::_scaled_dot_product_flash_attention_for_cpu_backward", true, 1, 7, Causal::kBool, Layout::kBHLE, Lse::kNone, 0, -1, -1},
    {"aten::_scaled_dot_product_efficient_attention_backward", true, 1, 11, Causal::kBool, Layout::kBHLE, Lse::kNone, 0, -1, -1},
    {"aten::_scaled_dot_product_cudnn_attention_backward", true, 1, 14, Causal::kBool, Layout::kBHLE, Lse::kNone, 0, -1, -1},
    {"aten::_scaled_dot_product_fused_attention_overrideable_backward", true, 1, 8, Causal::kBool, Layout::kBHLE, Lse::kNone, 0, -1, -1},
    {"aten::_flash_attention_backward", true, 1, 11, Causal::kBool, Layout::kBLHE, Lse::kNone, 0, -1, 6},
    {"aten::_efficient_attention_backward", true, 1, 14, Causal::kMaskType, Layout::kBLHE, Lse::kNone, 0, -1, 6},
};

const AttentionSignature* FindAttention(std::string_view n) {
  for (const AttentionSignature& s : kAttentionSignatures) {
    if (s.name == n) return &s;
  }
  return nullptr;
}

// (batch x heads, sequence length, head dim) of one operand.
struct Geometry {
  double bh = 0;
  int64_t heads = 0;
  int64_t len = 0;
  int64_t dim = 0;
};

std::optional<Geometry> Geom(const OpArg* a, Layout layout) {
  if (a == nullptr) return std::nullopt;
  const auto& d = a->dims;
  if (layout == Layout::kBHLE) {
    if (d.size() < 3) return std::nullopt;  // [N, ..., L, E]
    return Geometry{Prod(d, 0, d.size() - 2), d.size() >= 4 ? d[d.size() - 3] : 1,
                    d[d.size() - 2], d.back()};
  }
  if (d.size() != 4) return std::nullopt;  // [B, L, H, E]
  return Geometry{static_cast<double>(d[0]) * d[2], d[2], d[1], d[3]};
}

}  // namespace

bool IsAttentionName(std::string_view n) { return FindAttention(n) != nullptr; }

StatusOr<OpWork> ModelAttention(const OpCall& c) {
  const AttentionSignature* sig = FindAttention(c.name);
  if (sig == nullptr) return NoModel(c.name + " is not an attention op");
  if (sig->varlen >= 0) {
    if (const OpArg* cu = TensorArg(c, static_cast<size_t>(sig->varlen)); cu != nullptr) {
      return NoModel(c.name + " with variable-length sequences (cum_seq / cu_seqlens): the "
                     "per-sequence lengths are in the tensor's values, not its shape");
    }
  }
  const OpArg* q = TensorArg(c, sig->q);
  const OpArg* k = TensorArg(c, sig->q + 1);
  const OpArg* v = TensorArg(c, sig->q + 2);
  auto gq = Geom(q, sig->layout), gk = Geom(k, sig->layout), gv = Geom(v, sig->layout);
  if (!gq || !gk || !gv) {
    return BadShapes(c, sig->layout == Layout::kBHLE
                            ? "expects query, key, value of shape [..., H, L, E]"
                            : "expects query, key, value of shape [B, L, H, E]");
  }
  if (gq->dim != gk->dim || gk->len != gv->len || gk->bh != gv->bh) {
    return BadShapes(c, "query / key / value do not fit: " + Dims(q->dims) + ", " +
                            Dims(k->dims) + ", " + Dims(v->dims));
  }
  // GQA: the key/value heads divide the query heads (and so B*Hkv divides B*Hq).
  if (gk->bh <= 0 || gq->bh < gk->bh || std::fmod(gq->bh, gk->bh) != 0) {
    return BadShapes(c, "key/value heads do not divide the query heads: " + Dims(q->dims) +
                            ", " + Dims(k->dims));
  }
  OpWork w;
  w.family = OpFamily::kAttention;
  w.matrix = true;
  w.dtype = q->dtype;
  bool causal = false;
  if (sig->causal_kind == Causal::kBool) {
    causal = detail::ConcreteBool(c, sig->causal, false, "is_causal", &w);
  } else {
    const OpArg* mt = c.arg(sig->causal);
    if (mt != nullptr && mt->int_value()) {
      causal = *mt->int_value() != 0;
    } else {
      w.notes.push_back("custom_mask_type not recorded (no Concrete Inputs): taken as no mask");
    }
  }
  const double pairs = gq->bh * static_cast<double>(gq->len) * static_cast<double>(gk->len);
  const double E = gq->dim, Ev = gv->dim;
  const double half = causal ? 0.5 : 1.0;
  const double out_bytes = gq->bh * static_cast<double>(gq->len) * Ev * DtypeBytes(q->dtype);
  if (!sig->backward) {
    w.flops = 2.0 * pairs * (E + Ev) * half;
    w.bytes = q->bytes() + k->bytes() + v->bytes() + out_bytes;
    if (sig->mask >= 0) {
      if (const OpArg* m = TensorArg(c, static_cast<size_t>(sig->mask))) w.bytes += m->bytes();
    }
    bool lse = sig->lse == Lse::kAlways;
    if (sig->lse == Lse::kIfFlag) {
      lse = detail::ConcreteBool(c, sig->lse_flag, true, "compute_log_sumexp", &w);
    }
    if (lse) w.bytes += gq->bh * static_cast<double>(gq->len) * 4.0;  // fp32 logsumexp
  } else {
    w.flops = 2.0 * pairs * (3.0 * E + 2.0 * Ev) * half;
    double read = 0;
    for (const OpArg& a : c.args) {
      if (a.is_tensor()) read += a.bytes();
    }
    w.bytes = read + q->bytes() + k->bytes() + v->bytes();  // + dQ, dK, dV written
  }
  return w;
}

}  // namespace fastenough::roofline
