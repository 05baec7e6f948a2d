// Which functions evaluate a model, by what the code does with the model's
// results (eval_function.h).
#include "fastenough/lint/rules/eval_function.h"

#include <algorithm>
#include <string>
#include <vector>

#include "fastenough/lint/name_match.h"
#include "fastenough/pysrc/syntax_tree_children.h"

namespace fastenough::lint::rules {

namespace {

// `(^|_)(eval|evaluate|...|infer|inference)(_|$)`, case-insensitive: a
// decorator's component that says "this evaluates" (@evaluation_step,
// @torch.inference_mode). Never asked of the function's own name.
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
// (@evaluation_step, @torch.inference_mode()), or it turns autograd off
// (@torch.no_grad()): code that says the function evaluates.
bool HasEvalDecorator(const Function& fn) {
  if (fn.grad_off_decorated) return true;
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

// Calls that use the autograd graph of what they are given, with the
// expressions whose graph they use: `loss.backward()` (loss),
// `accelerator.backward(loss)` / `self.manual_backward(loss)` (loss),
// `torch.autograd.grad(y, x)` (y, x), `jacrev(model)(x)` / `vjp(f, x)` (the
// functorch / torch.func transforms: their arguments).
bool UsesGraph(const Node& call, std::vector<const Node*>* operands) {
  const Node* f = call.func();
  bool receiver = false;
  if (f->is(Kind::kAttribute) && IsAnyOf(f->name, {"backward", "manual_backward"})) {
    receiver = true;
  } else if (f->is(Kind::kAttribute) && f->name == "grad") {
    const std::string dotted = Dotted(f->value());
    if (!IsAnyOf(LeafOf(dotted), {"autograd", "func", "functorch"})) return false;
  } else {
    const std::string_view name = f->is(Kind::kName) ? f->name
                                  : f->is(Kind::kAttribute) ? f->name
                                                            : std::string_view();
    if (!IsAnyOf(name, {"jacrev", "jacfwd", "hessian", "vjp", "jvp", "grad_and_value"})) {
      return false;
    }
  }
  if (operands != nullptr) {
    if (receiver) operands->push_back(f->value());
    for (const Node* a : call.args()) operands->push_back(a);
    for (const Node* k : call.keywords()) operands->push_back(k->value());
  }
  return true;
}

// name -> the values assigned to it in one scope (a function's body, or the
// module's top level): `a = v`, `a, b = v` (each name of the target gets v),
// `a += v`, and `a.append(v)` / `a.extend(v)` (losses gathered in a list and
// summed later).
AssignmentMap ValuesByName(const std::vector<Binding>& bindings,
                           const std::vector<const Site*>& calls) {
  AssignmentMap out;
  for (const Binding& b : bindings) {
    if (b.is_loop_item) continue;
    for (std::string_view name : NamesIn(b.target)) out[name].push_back(b.value);
  }
  for (const Site* s : calls) {
    const Node* f = s->node->func();
    if (f->is(Kind::kAttribute) && IsAnyOf(f->name, {"append", "extend"}) &&
        f->value()->is(Kind::kName)) {
      for (const Node* a : s->node->args()) out[f->value()->name].push_back(a);
    }
  }
  return out;
}

// `expr` is `target` or contains it, directly or through the values assigned to
// the names it reads (at most `depth` assignments back).
bool DerivesFrom(const Node* expr, const Node* target, const AssignmentMap& values, int depth,
                 std::vector<std::string_view>& seen) {
  if (pysrc::AnyInTree(expr, [&](const Node* n) { return n == target; })) return true;
  if (depth == 0) return false;
  for (std::string_view name : NamesIn(expr)) {
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    seen.push_back(name);
    auto it = values.find(name);
    if (it == values.end()) continue;
    for (const Node* v : it->second) {
      if (DerivesFrom(v, target, values, depth - 1, seen)) return true;
    }
  }
  return false;
}

// The calls of one scope: `fn`'s body, or the module's top level (nullptr).
std::vector<const Site*> ScopeCalls(const ModuleScope& scope, const Function* fn) {
  if (fn != nullptr) return fn->calls;
  std::vector<const Site*> out;
  for (const Site& s : scope.calls()) {
    if (s.function == nullptr) out.push_back(&s);
  }
  return out;
}

// A backward (or autograd.grad, a functorch transform) of the same scope uses
// the graph of a value derived from `call`'s result: `(e, f) = predict(model,
// x); loss = loss_fn(e, f); loss.backward()`.
bool Backpropagated(const ModuleScope& scope, const Function* fn, const Node* call) {
  const std::vector<const Site*> calls = ScopeCalls(scope, fn);
  std::vector<const Node*> operands;
  for (const Site* s : calls) UsesGraph(*s->node, &operands);
  if (operands.empty()) return false;
  const AssignmentMap values =
      ValuesByName(fn != nullptr ? fn->bindings : scope.module_bindings(), calls);
  for (const Node* op : operands) {
    std::vector<std::string_view> seen;
    if (DerivesFrom(op, call, values, 8, seen)) return true;
  }
  return false;
}

// A caller of the same file trains with what `fn` returns: the graph of a value
// derived from the call's result is backpropagated in the caller's scope, or in
// its callers' (`depth` levels up).
bool ResultTrained(const ModuleScope& scope, const Function& fn, int depth) {
  for (const Site* caller : fn.callers) {
    if (caller->function == &fn) continue;  // recursion
    if (Backpropagated(scope, caller->function, caller->node)) return true;
    if (depth > 0 && caller->function != nullptr &&
        ResultTrained(scope, *caller->function, depth - 1)) {
      return true;
    }
  }
  return false;
}

// Runs the model inside a loop of its own body (`for x, y in loader: out =
// model(x)`): what scoring looks like whatever the function is called.
bool RunsModelInALoop(const ModuleContext& ctx, const Function& fn) {
  for (const Site* s : fn.calls) {
    if (s->loop != nullptr && RunsModel(ctx, *s)) return true;
  }
  return false;
}

}  // namespace

bool RunsModel(const ModuleContext& ctx, const Site& site) {
  if (ctx.IsModelCall(*site.node)) return true;
  for (const Function* callee : ctx.scope().Callees(site)) {
    if (callee->name == "forward" || callee->name.starts_with("__") || Trains(*callee)) continue;
    for (const Site* s : callee->calls) {
      if (ctx.IsModelCall(*s->node)) return true;
    }
  }
  return false;
}

bool Trains(const Function& fn) {
  for (const Site* s : fn.calls) {
    if (UsesGraph(*s->node, nullptr)) return true;
    const Node* f = s->node->func();
    if (!(f->is(Kind::kAttribute) && IsAnyOf(f->name, {"step", "zero_grad", "train"}))) {
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
  if (!(HasEvalDecorator(fn) || CallsEval(fn) || RunsModelInALoop(ctx, fn))) return false;
  return !Trains(fn) && !ResultTrained(ctx.scope(), fn, 2);
}

}  // namespace fastenough::lint::rules
