// Evaluation code that records autograd graphs or leaves the model in training
// mode. Port of python/fastenough/lint/rules/eval_mode.py (which functions
// evaluate: eval_function.cc).
#include <string>

#include "fastenough/lint/rules/eval_function.h"
#include "fastenough/lint/rules/families.h"

namespace fastenough::lint::rules {

namespace {

constexpr std::string_view kExplainAutograd = R"(A function that evaluates runs the model while autograd is on: every forward
records the graph and keeps the activations alive for a backward that never
comes, which costs time and memory. model.eval() does not turn autograd off.
What the code does decides that a function evaluates, never its name: it calls
model.eval(), is decorated as evaluation, or runs the model in a loop, and
nothing in it or in a caller of the same file trains with the outputs (a
backward, torch.autograd.grad or a torch.func transform on a value derived from
them, an optimizer step, zero_grad, train()). Wrap the evaluation in `with
torch.inference_mode():` (or torch.no_grad() when the outputs are later used in
autograd), or decorate the function with @torch.inference_mode(). The rule
stays quiet when the function is decorated so, when the model call is inside
such a `with`, or when every call of the function in the same file is. Shared
with the runtime check autograd-in-eval.)";

constexpr std::string_view kExplainTrainMode = R"(An evaluation loop runs the model (a loop whose model outputs nothing trains
with, whatever the function is called), and nothing in the file calls
model.eval() (or .train(False)), nor loads it with from_pretrained (which returns it in eval
mode): dropout and batch-norm stay in training mode, which changes the results,
not only the speed. Call model.eval() before the evaluation loop (and
model.train() after it, when training continues). Shared with the runtime check
train-mode-in-eval, which sees the modules' actual mode.)";

// A model call of `helper` (a function of the same file) that runs with
// autograd on, or nullptr.
const Site* UngatedModelCall(const ModuleContext& ctx, const Function& helper) {
  for (const Site* site : helper.calls) {
    if (ctx.IsModelCall(*site->node) && !ctx.scope().GradOff(*site)) return site;
  }
  return nullptr;
}

// The first model call of each evaluation function that runs with autograd on:
// its own, or one in a helper of the same file that it calls with autograd on
// (`for x in loader: out = run_batch(model, x)`, the model call in run_batch:
// issue 24). A helper that is itself an evaluation function is reported for
// its own calls.
void CheckAutograd(const ModuleContext& ctx, std::vector<Hit>& out) {
  const ModuleScope& scope = ctx.scope();
  for (const Function& fn : scope.functions()) {
    if (!IsEvalFunction(ctx, fn)) continue;
    bool found = false;
    for (const Site* site : fn.calls) {
      if (ctx.IsModelCall(*site->node) && !scope.GradOff(*site)) {
        out.push_back({site->node, "`" + std::string(fn.name) +
                                       "` evaluates the model with autograd on: wrap it in "
                                       "torch.inference_mode()"});
        found = true;
        break;
      }
    }
    if (found) continue;
    for (const Function& helper : scope.functions()) {
      if (&helper == &fn || helper.name == "forward" || helper.name.starts_with("__") ||
          Trains(helper) || !UngatedModelCall(ctx, helper)) {
        continue;
      }
      const Site* via = nullptr;
      for (const Site* caller : helper.callers) {
        if (caller->function == &fn && !scope.GradOff(*caller)) {
          via = caller;
          break;
        }
      }
      if (via == nullptr || IsEvalFunction(ctx, helper)) continue;
      out.push_back({via->node, "`" + std::string(fn.name) + "` evaluates the model through `" +
                                    std::string(helper.name) +
                                    "` with autograd on: wrap it in torch.inference_mode()"});
      break;
    }
  }
}

// Evaluation functions that call the model in a loop, in a file with no .eval().
void CheckTrainMode(const ModuleContext& ctx, std::vector<Hit>& out) {
  if (!ctx.EvalCalledNames().empty() ||
      ctx.text().find("from_pretrained") != std::string_view::npos) {
    return;
  }
  for (const Function& fn : ctx.scope().functions()) {
    if (!IsEvalFunction(ctx, fn)) continue;
    for (const Site* site : fn.calls) {
      if (site->loop != nullptr && RunsModel(ctx, *site)) {
        out.push_back({fn.node, "`" + std::string(fn.name) +
                                    "` runs the model in a loop and the file never calls "
                                    "model.eval(): dropout/batch-norm in training mode"});
        break;
      }
    }
  }
}

constexpr Rule kEvalModeRules[] = {
    {"autograd-in-eval", "eval-without-inference-mode",
     "an evaluation function runs the model without no_grad/inference_mode", kExplainAutograd,
     CheckAutograd},
    {"train-mode-in-eval", "eval-without-model-eval",
     "an evaluation loop with no model.eval() in the file", kExplainTrainMode, CheckTrainMode},
};

}  // namespace

std::span<const Rule> EvalModeRules() { return kEvalModeRules; }

}  // namespace fastenough::lint::rules
