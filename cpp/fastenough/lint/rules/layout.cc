// `.contiguous()` right after `.transpose()` / `.permute()` inside forward: a
// layout copy at every call. Port of python/fastenough/lint/rules/layout.py.
#include <string>

#include "fastenough/lint/name_match.h"
#include "fastenough/lint/rules/families.h"

namespace fastenough::lint::rules {

namespace {

constexpr std::string_view kLayoutExplain = R"(x.transpose(...).contiguous() (or .permute(...).contiguous(), .t().contiguous())
inside forward copies the whole tensor into a new layout at every call. Often
the copy is avoidable: let the next op take the strided view (matmul, reshape
where it can, scaled_dot_product_attention accept non-contiguous inputs), keep
the layout the consumer wants from the start (store weights pre-transposed once
at load time, channels-last for convolutions), or fuse the chain with
torch.compile. Keep it where a kernel really needs contiguous memory, and
measure: the copy is cheap next to a large GEMM, expensive in a chain of small
ops.)";

void CheckLayout(const ModuleContext& ctx, std::vector<Hit>& out) {
  for (const Function& fn : ctx.scope().functions()) {
    if (fn.name != "forward") continue;
    for (const Site* site : fn.calls) {
      const Node& call = *site->node;
      if (MethodName(&call) != "contiguous") continue;
      const std::string_view inner = MethodName(call.func()->value());
      if (IsAnyOf(inner, {"transpose", "permute", "t", "swapaxes", "movedim"})) {
        out.push_back({&call, "." + std::string(inner) +
                                  "(...).contiguous() in forward copies the tensor into a new "
                                  "layout at every call"});
      }
    }
  }
}

constexpr Rule kLayoutRules[] = {
    {"transpose-contiguous", "contiguous-after-transpose",
     ".contiguous() right after .transpose()/.permute() in forward", kLayoutExplain, CheckLayout},
};

}  // namespace

std::span<const Rule> LayoutRules() { return kLayoutRules; }

}  // namespace fastenough::lint::rules
