// Which functions evaluate a model: named or decorated eval/evaluate/score/
// predict/validate/test/infer, or calling model.eval(); never forward, dunders,
// pytest tests in test files, or functions that train (backward/step/zero_grad/
// train()). Shared by eval_mode.cc and hf_outputs.cc.
#pragma once

#include "fastenough/lint/module_context.h"

namespace fastenough::lint::rules {

bool IsEvalFunction(const ModuleContext& ctx, const Function& fn);

// Calls backward / step / zero_grad / train() (not train(False)): training
// code, where autograd is wanted.
bool Trains(const Function& fn);

}  // namespace fastenough::lint::rules
