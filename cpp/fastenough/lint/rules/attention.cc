// Attention written by hand: softmax(q @ k.transpose(-2, -1)) @ v, where
// scaled_dot_product_attention computes the same in a fused kernel. Port of
// python/fastenough/lint/rules/attention.py.
#include <string>

#include "fastenough/lint/name_match.h"
#include "fastenough/lint/rules/families.h"
#include "fastenough/lint/rules/through_assignments.h"

namespace fastenough::lint::rules {

namespace {

constexpr std::string_view kAttentionExplain = R"(softmax over q @ k.transpose(-2, -1) (scaled, masked, then multiplied by v) is
attention written by hand: it materialises the [batch, heads, query, key] score
matrix in memory and runs three or more kernels. torch.nn.functional.
scaled_dot_product_attention(q, k, v, attn_mask=..., is_causal=..., scale=...)
computes the same with a fused (flash / memory-efficient) kernel where the
device has one. Outputs differ by rounding only; compare them within a tolerance
fixed in advance. Keep the hand-written form when the scores themselves are
needed (attention maps for analysis).)";

// Something under `node` transposes: x.T, x.mT, .transpose(), .permute(), .swapaxes().
bool IsTransposed(const Node* node) {
  return pysrc::AnyInTree(node, [](const Node* n) {
    if (n->is(Kind::kAttribute) && (n->name == "mT" || n->name == "T")) return true;
    return IsAnyOf(MethodName(n), {"transpose", "permute", "swapaxes"});
  });
}

// q @ k^T, or matmul/bmm(q, k^T).
bool IsQk(const Node* n) {
  if (n->is(Kind::kBinOp) && n->bin_op() == pysrc::BinOperator::kMatMult &&
      IsTransposed(n->right())) {
    return true;
  }
  return IsAnyOf(MethodName(n), {"matmul", "bmm"}) && n->args().size() >= 2 &&
         IsTransposed(n->args().back());
}

void CheckAttention(const ModuleContext& ctx, std::vector<Hit>& out) {
  for (const Function& fn : ctx.scope().functions()) {
    for (const Site* site : fn.calls) {
      const Node& call = *site->node;
      if (MethodName(&call) != "softmax") continue;
      const auto& assigns = fn.Assignments();
      bool qk = HoldsThroughAssignments(call.func()->value(), assigns, 3, IsQk);
      if (!qk && !call.args().empty()) {
        qk = HoldsThroughAssignments(call.args()[0], assigns, 3, IsQk);
      }
      if (qk) {
        out.push_back({&call, "attention written by hand (softmax of q @ k^T): "
                              "F.scaled_dot_product_attention computes it in a fused kernel"});
      }
    }
  }
}

constexpr Rule kAttentionRules[] = {
    {"manual-attention", "softmax-of-qk",
     "attention written by hand where scaled_dot_product_attention applies",
     kAttentionExplain, CheckAttention},
};

}  // namespace

std::span<const Rule> AttentionRules() { return kAttentionRules; }

}  // namespace fastenough::lint::rules
