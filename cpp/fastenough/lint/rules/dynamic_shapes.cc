// Data-dependent shapes inside loops: nonzero, unique, one-argument torch.where.
//
// Their output size depends on the values, so the host must wait for the device to
// know how much memory to allocate: a hidden sync per call. Port of
// python/fastenough/lint/rules/dynamic_shapes.py.
#include <string>

#include "fastenough/lint/name_match.h"
#include "fastenough/lint/rules/families.h"

namespace fastenough::lint::rules {

namespace {

constexpr std::string_view kDynamicShapeExplain = R"(nonzero(), unique(), unique_consecutive(), argwhere(), masked_select() and
one-argument torch.where(cond) return a tensor whose size depends on the data:
the host must wait for the device to finish before it can allocate the result,
so each call is a hidden host sync, and the shapes that follow change from step
to step (torch.compile recompiles, CUDA graphs are impossible). Inside the step
loop, keep shapes static: use masks (torch.where(cond, a, b) with three
arguments, multiplication by a mask, masked_fill), or a fixed upper bound with
padding. The runtime side reports these as sync-in-loop too.)";

bool IsDynamic(std::string_view attr) {
  return IsAnyOf(attr, {"nonzero", "unique", "unique_consecutive", "argwhere", "masked_select"});
}

void CheckDynamicShape(const ModuleContext& ctx, std::vector<Hit>& out) {
  const ModuleScope& scope = ctx.scope();
  for (const Site& site : scope.calls()) {
    const Node& call = *site.node;
    const Node* func = call.func();
    if (!func->is(Kind::kAttribute)) continue;
    // The root of the callee's dotted name: `torch` also for torch.nonzero(x).unique().
    const std::string name = Dotted(func);
    const std::string_view root = RootOf(name);
    const bool is_torch = scope.aliases().IsTorch(root);
    std::string what;
    const Node* receiver;
    if (func->name == "where") {
      if (!(is_torch && call.args().size() == 1 && call.keywords().empty())) continue;
      what = "torch.where(cond)";
      receiver = call.args()[0];
    } else if (IsDynamic(func->name)) {
      if (is_torch) {
        if (call.args().empty()) continue;
        what = "torch." + std::string(func->name) + "()";
        receiver = call.args()[0];
      } else if (scope.aliases().IsNumpy(root)) {
        continue;
      } else {
        what = "." + std::string(func->name) + "()";
        receiver = func->value();
      }
    } else {
      continue;
    }
    if (scope.LoopLine(site) == 0) continue;
    if (NotADeviceTensor(scope.Env(site.function).KindOf(receiver))) continue;
    out.push_back({&call, what + " " + scope.LoopPhrase(site) +
                              " has a data-dependent shape: a hidden sync every iteration"});
  }
}

constexpr Rule kDynamicShapeRules[] = {
    {"sync-in-loop", "dynamic-shape-in-loop",
     "nonzero/unique/one-argument torch.where inside a loop",
     kDynamicShapeExplain, CheckDynamicShape},
};

}  // namespace

std::span<const Rule> DynamicShapeRules() { return kDynamicShapeRules; }

}  // namespace fastenough::lint::rules
