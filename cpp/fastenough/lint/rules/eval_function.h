// Which functions evaluate a model, judged by what the code does with the
// model's results, never by the function's name: a function evaluates when it
// calls model.eval(), is decorated to run without autograd, or runs the model
// in a loop, and neither it nor a caller of the same file trains with the
// results (a backward, autograd.grad or a functorch transform on a value derived
// from them, an optimizer step, zero_grad, train()). A `main()` that scores a
// model evaluates; a `make_prediction` whose outputs the training loop
// backpropagates does not. Never forward, dunders, or pytest tests in test
// files. Shared by eval_mode.cc and hf_outputs.cc.
#pragma once

#include "fastenough/lint/module_context.h"

namespace fastenough::lint::rules {

bool IsEvalFunction(const ModuleContext& ctx, const Function& fn);

// Runs the model: a model call, or a call of a function of the same file that
// calls the model and does not train (`out = run_batch(model, x)`).
bool RunsModel(const ModuleContext& ctx, const Site& site);

// Uses the autograd graph or trains in its own body: backward (also
// manual_backward, accelerator.backward), autograd.grad, a functorch / torch.func
// transform (jacrev, vjp, ...), step, zero_grad, train() (not train(False)).
bool Trains(const Function& fn);

}  // namespace fastenough::lint::rules
