// Python loops over experts / heads / segments that run one small matmul each:
// grouped or batched GEMM candidates. Port of
// python/fastenough/lint/rules/grouped_gemm.py.
#include <string>
#include <vector>

#include "fastenough/lint/name_match.h"
#include "fastenough/lint/rules/families.h"

namespace fastenough::lint::rules {

namespace {

constexpr std::string_view kGroupedGemmExplain = R"(A Python loop over experts, heads or segments whose body calls a module or a
matmul launches one small GEMM per iteration: the device runs many short
kernels back to back, each too small to fill it, with launch overhead between
them. Stack the weights once and run one batched matmul (torch.bmm / einsum on
[E, D, F] weights), or sort tokens by expert and use a grouped GEMM
(torch._grouped_mm, or a MoE kernel library). Check on the device that one
kernel really runs, and that outputs agree within a tolerance fixed in advance.
Shared with the trace detector serial-small-gemm, which sees the repeated
shapes.)";

// self.experts, heads, segments, num_experts, n_heads, self.num_local_experts
bool IsGroup(std::string_view name) {
  return LastTokenIs(name, {"expert", "experts", "head", "heads", "segment", "segments"});
}

// The loop variable names the group: `for expert_idx in expert_hit` (Mixtral):
// (^|_)(experts?|heads?|segments?)(_?(idx|id|index|i|num))?$, ignoring case.
bool IsGroupVar(std::string_view name) {
  const std::string s = AsciiLower(name);
  for (std::string_view group : {"expert", "experts", "head", "heads", "segment", "segments"}) {
    for (std::string_view suffix : {"", "idx", "id", "index", "i", "num", "_idx", "_id",
                                    "_index", "_i", "_num"}) {
      const std::string tail = std::string(group) + std::string(suffix);
      if (!s.ends_with(tail)) continue;
      const size_t at = s.size() - tail.size();
      if (at == 0 || s[at - 1] == '_') return true;
    }
  }
  return false;
}

// The experts/heads/segments collection a loop iterates, or "".
std::string_view GroupName(const Node* it) {
  if (it->is(Kind::kCall)) {
    const std::string name = Dotted(it->func());
    if (IsAnyOf(name, {"enumerate", "zip", "range", "len", "list", "reversed"}) &&
        !it->args().empty()) {
      return GroupName(name == "range" ? it->args().back() : it->args()[0]);
    }
    if (IsAnyOf(MethodName(it), {"items", "values", "children"})) {
      return GroupName(it->func()->value());
    }
    return "";
  }
  const std::string_view name = LastName(it);
  return IsGroup(name) ? name : std::string_view();
}

bool RunsGemm(std::initializer_list<const Node*> parts, NodeList body,
              const std::vector<std::string_view>& loop_vars) {
  auto gemm = [&](const Node* n) {
    if (n->is(Kind::kBinOp) && n->bin_op() == pysrc::BinOperator::kMatMult) return true;
    if (!n->is(Kind::kCall)) return false;
    const Node* f = n->func();
    if (f->is(Kind::kName)) {
      for (std::string_view v : loop_vars) {
        if (v == f->name) return true;  // expert(x)
      }
      return false;
    }
    if (f->is(Kind::kSubscript)) return IsGroup(LastName(f->value()));  // self.experts[i](x)
    return f->is(Kind::kAttribute) &&
           IsAnyOf(f->name, {"matmul", "mm", "bmm", "einsum", "linear", "addmm", "baddbmm"});
  };
  for (const Node* p : parts) {
    if (p != nullptr && pysrc::AnyInTree(p, gemm)) return true;
  }
  for (const Node* stmt : body) {
    if (pysrc::AnyInTree(stmt, gemm)) return true;
  }
  return false;
}

void CheckGroupedGemm(const ModuleContext& ctx, std::vector<Hit>& out) {
  const ModuleScope& scope = ctx.scope();
  for (const Site& site : scope.fors()) {
    const Node& loop = *site.node;
    const std::vector<std::string_view> vars = NamesIn(loop.target());
    std::string_view group = GroupName(loop.iter());
    if (group.empty()) {
      for (std::string_view v : vars) {  // sorted, as NamesIn gives them
        if (IsGroupVar(v)) {
          group = v;
          break;
        }
      }
    }
    if (!group.empty() && RunsGemm({}, loop.body(), vars)) {
      out.push_back({&loop, "a Python loop over " + std::string(group) +
                                " runs one small matmul per iteration: a grouped/batched GEMM "
                                "candidate"});
    }
  }
  for (const Site& site : scope.comprehensions()) {
    const Node& comp = *site.node;
    const Node* gen = comp.generators()[0];
    const std::string_view group = GroupName(gen->iter());
    if (group.empty()) continue;
    const bool dict = comp.is(Kind::kDictComp);
    const bool gemm = dict ? RunsGemm({comp.key(), comp.value()}, {}, NamesIn(gen->target()))
                           : RunsGemm({comp.elt()}, {}, NamesIn(gen->target()));
    if (gemm) {
      out.push_back({&comp, "a comprehension over " + std::string(group) +
                                " runs one small matmul per item: a grouped/batched GEMM "
                                "candidate"});
    }
  }
}

constexpr Rule kGroupedGemmRules[] = {
    {"serial-small-gemm", "loop-over-experts",
     "a loop over experts/heads/segments calling a module or matmul",
     kGroupedGemmExplain, CheckGroupedGemm},
};

}  // namespace

std::span<const Rule> GroupedGemmRules() { return kGroupedGemmRules; }

}  // namespace fastenough::lint::rules
