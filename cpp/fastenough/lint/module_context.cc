#include "fastenough/lint/module_context.h"

#include <algorithm>

#include "fastenough/lint/name_match.h"

namespace fastenough::lint {

namespace {

bool MentionsDevice(std::string_view text) {
  for (std::string_view s : {"cuda", ".to(device", "npu", "xpu", "torch.device(",
                             ".to(self.device", "mps"}) {
    if (text.find(s) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

ModuleContext::ModuleContext(std::string_view path, std::string_view text, const Node& module)
    : path_(path), text_(text), tree_(module), scope_(module), uses_device_(MentionsDevice(text)) {
  for (const Site& site : scope_.calls()) {
    const Node* f = site.node->func();
    if (!f->is(Kind::kAttribute)) continue;
    NodeList args = site.node->args();
    const bool eval = f->name == "eval" && args.empty();
    const bool train_false = f->name == "train" && !args.empty() && IsFalse(args[0]);
    if (!eval && !train_false) continue;
    const std::string dotted = Dotted(f->value());
    std::string receiver = dotted.empty() ? std::string(1, '?') : std::string(LeafOf(dotted));
    if (std::find(eval_called_.begin(), eval_called_.end(), receiver) == eval_called_.end()) {
      eval_called_.push_back(std::move(receiver));
    }
  }
}

bool ModuleContext::EvalCalled(std::string_view name) const {
  return std::find(eval_called_.begin(), eval_called_.end(), name) != eval_called_.end();
}

bool ModuleContext::IsModelCall(const Node& call) const {
  const Node* func = call.func();
  std::string_view name;
  if (func->is(Kind::kName)) {
    name = func->name;
  } else if (func->is(Kind::kAttribute) &&
             (func->value()->is(Kind::kName) || func->value()->is(Kind::kAttribute))) {
    if (func->name == "forward") return true;
    const Node* receiver = func->value();
    if (receiver->is(Kind::kAttribute) &&
        !(receiver->value()->is(Kind::kName) && receiver->value()->name == "self")) {
      return false;  // a.b.c_model(...): a module path, not an instance
    }
    name = func->name;
  } else {
    return false;
  }
  if (name.empty() || name[0] == '_' || (name[0] >= 'A' && name[0] <= 'Z')) {
    return false;  // private helpers; Net(): building a model, not running one
  }
  return LastTokenIs(name, {"model", "net", "network", "encoder", "decoder", "backbone",
                            "classifier", "lm", "transformer", "policy"}) ||
         EvalCalled(name);
}

}  // namespace fastenough::lint
