// Optimizers built without a multi-tensor (foreach) or fused implementation, in
// a file that uses a device. Port of python/fastenough/lint/rules/optimizer.py.
#include <string>

#include "fastenough/lint/name_match.h"
#include "fastenough/lint/rules/families.h"

namespace fastenough::lint::rules {

namespace {

constexpr std::string_view kOptimizerExplain = R"(A torch.optim optimizer built without fused= or foreach= in a file that uses a
device. The plain per-parameter implementation launches several small kernels
per parameter tensor at every step; foreach=True groups them across parameters
and fused=True (Adam, AdamW, SGD, Adagrad on CUDA and other supported devices)
does the whole update in a few kernels. Recent PyTorch picks foreach by itself
on CUDA when every parameter is there, but not fused, and not on every device:
state the choice. Compare a few steps' losses before and after: fused and
foreach change the order of floating-point operations slightly.)";

void CheckOptimizer(const ModuleContext& ctx, std::vector<Hit>& out) {
  if (!ctx.UsesDevice()) return;
  const bool imports_optim = ctx.text().find("torch.optim") != std::string_view::npos;
  for (const Site& site : ctx.scope().calls()) {
    const Node& call = *site.node;
    const std::string name = Dotted(call.func());
    const std::string_view leaf = LeafOf(name);
    if (!IsAnyOf(leaf, {"Adam", "AdamW", "SGD", "Adagrad", "Adadelta", "Adamax", "NAdam",
                        "RAdam", "RMSprop", "Rprop", "ASGD"})) {
      continue;
    }
    if (name.find("optim") == std::string::npos && !imports_optim) continue;
    if (Kwarg(call, "fused") != nullptr || Kwarg(call, "foreach") != nullptr) continue;
    if (HasStarKwargs(call)) continue;
    const char* fix =
        IsAnyOf(leaf, {"Adam", "AdamW", "SGD", "Adagrad"}) ? "fused=True" : "foreach=True";
    out.push_back({&call, std::string(leaf) + " without fused=/foreach=: pass " + fix +
                              " for fewer, larger update kernels"});
  }
}

constexpr Rule kOptimizerRules[] = {
    {"optimizer-not-fused", "optimizer-without-foreach-or-fused",
     "a torch.optim optimizer without foreach=/fused= on a device",
     kOptimizerExplain, CheckOptimizer},
};

}  // namespace

std::span<const Rule> OptimizerRules() { return kOptimizerRules; }

}  // namespace fastenough::lint::rules
