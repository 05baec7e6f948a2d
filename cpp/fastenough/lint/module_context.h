// What every rule sees of one file: its path and text, the tree, the scope
// tracker, and facts about the file that several rules ask.
#pragma once

#include <string_view>
#include <vector>

#include "fastenough/lint/module_scope.h"

namespace fastenough::lint {

class ModuleContext {
 public:
  ModuleContext(std::string_view path, std::string_view text, const Node& module);

  std::string_view path() const { return path_; }
  std::string_view text() const { return text_; }
  const Node& tree() const { return tree_; }
  const ModuleScope& scope() const { return scope_; }

  // The file visibly puts work on an accelerator ("cuda", ".to(device", "npu",
  // "xpu", "torch.device(", ".to(self.device", "mps" anywhere in its text).
  bool UsesDevice() const { return uses_device_; }

  // Last names of the receivers of `.eval()` / `.train(False)` anywhere in the
  // file ("model" for `self.model.eval()`; "?" when the receiver has no name).
  const std::vector<std::string>& EvalCalledNames() const { return eval_called_; }
  bool EvalCalled(std::string_view name) const;

  // model(x), net(x), self.model(x), trainer.encoder(x), model.forward(x); not
  // torch.nn.parallel.DistributedDataParallel._set_params_for_model(...): the
  // callee's name ends in a model word (model, net, network, encoder, decoder,
  // backbone, classifier, lm, transformer, policy) or is a receiver of .eval().
  bool IsModelCall(const Node& call) const;

 private:
  std::string_view path_;
  std::string_view text_;
  const Node& tree_;
  ModuleScope scope_;
  bool uses_device_ = false;
  std::vector<std::string> eval_called_;
};

}  // namespace fastenough::lint
