// Which functions evaluate a model. Port of is_eval_function and _is_test_file
// of python/fastenough/lint/rules/eval_mode.py.
#include "fastenough/lint/rules/eval_function.h"

#include <string>
#include <vector>

#include "fastenough/lint/name_match.h"

namespace fastenough::lint::rules {

namespace {

// `(^|_)(eval|evaluate|...|infer|inference)(_|$)`, case-insensitive: a name
// that says "this evaluates" (evaluate, eval_epoch, score_items, run_validation).
bool IsEvalName(std::string_view name) {
  return HasToken(name, {"eval", "evaluate", "evaluation", "score", "scoring", "predict",
                         "prediction", "validate", "validation", "valid", "val", "test",
                         "infer", "inference"});
}

// The components of os.path.normpath(os.path.dirname(path)) (POSIX): "." and
// empty components dropped, ".." cancelling the one before it.
std::vector<std::string_view> NormalizedDirParts(std::string_view path) {
  const size_t slash = path.rfind('/');
  std::string_view dir = slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
  const bool absolute = dir.starts_with("/") || (slash == 0);
  std::vector<std::string_view> parts;
  while (!dir.empty()) {
    const size_t next = dir.find('/');
    const std::string_view part = dir.substr(0, next);
    dir = next == std::string_view::npos ? std::string_view() : dir.substr(next + 1);
    if (part.empty() || part == ".") continue;
    if (part == ".." && !parts.empty() && parts.back() != "..") {
      parts.pop_back();
    } else if (!(part == ".." && absolute && parts.empty())) {
      parts.push_back(part);
    }
  }
  return parts;
}

// test_x.py, x_test.py, conftest.py, or anything under tests/ test/ testing/.
bool IsTestFile(std::string_view path) {
  const size_t slash = path.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (base.starts_with("test_") || base.ends_with("_test.py") || base == "conftest.py") {
    return true;
  }
  for (std::string_view p : NormalizedDirParts(path)) {
    if (IsAnyOf(p, {"tests", "test", "testing"})) return true;
  }
  return false;
}

bool CallsEval(const Function& fn) {
  for (const Site* s : fn.calls) {
    const Node* f = s->node->func();
    if (f->is(Kind::kAttribute) && f->name == "eval" && s->node->args().empty()) return true;
  }
  return false;
}

// A decorator's dotted name has a component that is an eval name
// (@evaluation_step, @torch.inference_mode()).
bool HasEvalDecorator(const Function& fn) {
  for (const Node* d : fn.node->decorator_list()) {
    const std::string dotted = Dotted(d->is(Kind::kCall) ? d->func() : d);
    std::string_view rest = dotted;
    while (true) {
      const size_t dot = rest.find('.');
      if (IsEvalName(rest.substr(0, dot))) return true;
      if (dot == std::string_view::npos) break;
      rest = rest.substr(dot + 1);
    }
  }
  return false;
}

}  // namespace

bool Trains(const Function& fn) {
  // Calls that make a function training code, where autograd is wanted
  // (.train(False) excepted).
  for (const Site* s : fn.calls) {
    const Node* f = s->node->func();
    if (!(f->is(Kind::kAttribute) && IsAnyOf(f->name, {"backward", "step", "zero_grad", "train"}))) {
      continue;
    }
    const NodeList args = s->node->args();
    const bool train_false = f->name == "train" && !args.empty() && IsFalse(args[0]);
    if (!train_false) return true;
  }
  return false;
}

bool IsEvalFunction(const ModuleContext& ctx, const Function& fn) {
  if (fn.name == "forward" || fn.name.starts_with("__")) return false;
  if (fn.name.starts_with("test_") && IsTestFile(ctx.path())) {
    return false;  // a pytest/unittest test, not an evaluation
  }
  const bool named = IsEvalName(fn.name) || HasEvalDecorator(fn);
  if (!(named || CallsEval(fn))) return false;
  return !Trains(fn);
}

}  // namespace fastenough::lint::rules
