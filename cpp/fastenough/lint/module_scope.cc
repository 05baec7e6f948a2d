#include "fastenough/lint/module_scope.h"

#include <algorithm>

#include "fastenough/lint/name_match.h"

namespace fastenough::lint {

int GradOffContext(const Node* expr) {
  auto grad_off_leaf = [](std::string_view leaf) {
    return leaf == "no_grad" || leaf == "inference_mode";
  };
  if (!expr->is(Kind::kCall)) {
    // `@torch.no_grad` without parentheses
    return grad_off_leaf(LeafOf(Dotted(expr))) ? 1 : 0;
  }
  const std::string callee = Dotted(expr->func());
  const std::string_view leaf = LeafOf(callee);
  if (grad_off_leaf(leaf)) {
    const Node* mode = expr->args().empty() ? nullptr : expr->args()[0];
    for (const Node* k : expr->keywords()) {
      if (k->name == "mode") mode = k->value();
    }
    return IsFalse(mode) ? -1 : 1;
  }
  if (leaf == "set_grad_enabled" && !expr->args().empty()) {
    return IsFalse(expr->args()[0]) ? 1 : 0;
  }
  if (leaf == "enable_grad") return -1;
  return 0;
}

namespace {

// `for epoch in range(epochs)`: once per epoch is not the hot loop. A sync or a
// validation pass per epoch costs nothing worth reporting; the step loop
// inside it is what runs thousands of times.
bool IsEpochLoop(const Node& loop) {
  bool found = false;
  pysrc::WalkTree(loop.target(), [&](const Node* n) {
    if (n->is(Kind::kName) && ContainsIgnoreCase(n->name, "epoch")) found = true;
  });
  pysrc::WalkTree(loop.iter(), [&](const Node* n) {
    if ((n->is(Kind::kName) || n->is(Kind::kAttribute)) && ContainsIgnoreCase(n->name, "epoch")) {
      found = true;
    }
  });
  return found;
}

}  // namespace

// One pass over the module: every call, test, for loop and comprehension with
// the function, hot loop and grad mode it runs in; the bindings each function
// makes; the import aliases.
class ModuleScope::Pass {
 public:
  explicit Pass(ModuleScope& s) : s_(s) {}

  struct Where {
    Function* fn;
    const Node* loop;
    bool grad_off;
    std::string_view cls;  // the class whose body this is ("" outside one)
  };

  void Body(NodeList body, const Where& w) {
    for (const Node* stmt : body) Visit(stmt, w);
  }

  void Visit(const Node* node, const Where& w) {
    switch (node->kind) {
      case Kind::kName: case Kind::kConstant: case Kind::kPass: case Kind::kBreak:
      case Kind::kContinue: case Kind::kGlobal: case Kind::kNonlocal:
        return;
      case Kind::kCall: {
        Site* site = &s_.calls_.emplace_back(Site{node, w.fn, w.loop, w.grad_off});
        if (w.fn != nullptr) w.fn->calls.push_back(site);
        break;
      }
      case Kind::kAssign:
        for (const Node* target : node->targets()) Bind(w.fn, target, node->value(), false);
        break;
      case Kind::kAnnAssign: case Kind::kAugAssign:
        if (node->value() != nullptr) Bind(w.fn, node->target(), node->value(), false);
        break;
      case Kind::kIf: case Kind::kIfExp: case Kind::kAssert:
        s_.tests_.push_back(Site{node->test(), w.fn, w.loop, w.grad_off});
        break;
      case Kind::kImport: case Kind::kImportFrom:
        Import(*node);
        return;
      case Kind::kFunctionDef: case Kind::kAsyncFunctionDef:
        FunctionDef(*node, w);
        return;
      case Kind::kClassDef:
        ClassDef(*node, w);
        return;
      case Kind::kFor: case Kind::kAsyncFor:
        For(*node, w);
        return;
      case Kind::kWhile:
        While(*node, w);
        return;
      case Kind::kListComp: case Kind::kSetComp: case Kind::kDictComp: case Kind::kGeneratorExp:
        Comprehension(*node, w);
        return;
      case Kind::kWith: case Kind::kAsyncWith:
        With(*node, w);
        return;
      default:
        break;
    }
    pysrc::ForEachChild(*node, [&](const Node* child) { Visit(child, w); });
  }

 private:
  void Bind(Function* fn, const Node* target, const Node* value, bool is_loop_item) {
    (fn != nullptr ? fn->bindings : s_.module_bindings_)
        .push_back(Binding{target, value, is_loop_item});
  }

  void Import(const Node& node) {
    ModuleAliases& a = s_.aliases_;
    if (node.is(Kind::kImport)) {
      for (const Node* alias : node.names()) {
        a.imported_modules.push_back(RootOf(alias->name));
        std::string_view bound = alias->asname.empty() ? alias->name : alias->asname;
        if (alias->name == "numpy") {
          a.numpy.push_back(bound);
        } else if (alias->name == "torch") {
          a.torch.push_back(bound);
        } else if (alias->name == "torch.nn.functional" && !alias->asname.empty()) {
          a.functional.push_back(alias->asname);
        }
      }
    } else if (!node.name.empty()) {  // ImportFrom.module
      a.imported_modules.push_back(RootOf(node.name));
      if (node.name == "torch.nn") {
        for (const Node* alias : node.names()) {
          if (alias->name == "functional") {
            a.functional.push_back(alias->asname.empty() ? alias->name : alias->asname);
          }
        }
      }
    }
  }

  void FunctionDef(const Node& node, const Where& w) {
    bool decorated = false;
    for (const Node* d : node.decorator_list()) Visit(d, w);
    for (const Node* d : node.decorator_list()) {
      if (GradOffContext(d) > 0) decorated = true;
    }
    Function& fn = s_.functions_.emplace_back();
    fn.node = &node;
    fn.name = node.name;
    fn.class_name = w.cls;
    fn.parent = w.fn;
    fn.grad_off_decorated = decorated;
    const Node* args = node.arguments();
    for (const Node* d : args->defaults()) Visit(d, w);
    for (const Node* d : args->kw_defaults()) {
      if (d != nullptr) Visit(d, w);
    }
    // A nested def runs when called, not where it is written: fresh loop state.
    Body(node.body(), Where{&fn, nullptr, decorated, {}});
  }

  void ClassDef(const Node& node, const Where& w) {
    for (const Node* d : node.decorator_list()) Visit(d, w);
    for (const Node* b : node.bases()) Visit(b, w);
    Body(node.body(), Where{w.fn, w.loop, w.grad_off, node.name});
  }

  void For(const Node& node, const Where& w) {
    s_.fors_.push_back(Site{&node, w.fn, w.loop, w.grad_off});
    Bind(w.fn, node.target(), node.iter(), true);
    Visit(node.iter(), w);
    Where hot = w;
    if (!IsEpochLoop(node)) hot.loop = &node;
    Visit(node.target(), hot);
    Body(node.body(), hot);
    Body(node.orelse(), w);
  }

  void While(const Node& node, const Where& w) {
    Where inside = w;
    inside.loop = &node;
    s_.tests_.push_back(Site{node.test(), w.fn, &node, w.grad_off});
    Visit(node.test(), inside);
    Body(node.body(), inside);
    Body(node.orelse(), w);
  }

  void Comprehension(const Node& node, const Where& w) {
    s_.comprehensions_.push_back(Site{&node, w.fn, w.loop, w.grad_off});
    Where inside = w;
    inside.loop = &node;
    NodeList gens = node.generators();
    Visit(gens[0]->iter(), w);  // evaluated once
    for (uint32_t i = 0; i < gens.size(); ++i) {
      const Node* g = gens[i];
      Bind(w.fn, g->target(), g->iter(), true);
      if (i > 0) Visit(g->iter(), inside);
      Visit(g->target(), inside);
      for (const Node* cond : g->ifs()) {
        s_.tests_.push_back(Site{cond, w.fn, &node, w.grad_off});
        Visit(cond, inside);
      }
    }
    if (node.is(Kind::kDictComp)) {
      Visit(node.key(), inside);
      Visit(node.value(), inside);
    } else {
      Visit(node.elt(), inside);
    }
  }

  void With(const Node& node, const Where& w) {
    Where inner = w;
    for (const Node* item : node.items()) {
      Visit(item->context_expr(), w);
      int mode = GradOffContext(item->context_expr());
      if (mode != 0) inner.grad_off = mode > 0;
    }
    Body(node.body(), inner);
  }

  ModuleScope& s_;
};

ModuleScope::ModuleScope(const Node& module) {
  Pass(*this).Body(module.body(), Pass::Where{nullptr, nullptr, false, {}});
  PropagateLoopReach();
  PropagateGradOff();
}

int ModuleScope::LoopLine(const Site& site) const {
  if (site.loop != nullptr) return site.loop->line;
  for (const Function* fn = site.function; fn != nullptr; fn = fn->parent) {
    if (fn->reached_from_line != 0) return fn->reached_from_line;
  }
  return 0;
}

bool ModuleScope::ViaCall(const Site& site) const {
  return site.loop == nullptr && LoopLine(site) != 0;
}

std::string ModuleScope::LoopPhrase(const Site& site) const {
  return std::string(ViaCall(site) ? "called from the loop" : "inside the loop") + " at line " +
         std::to_string(LoopLine(site));
}

bool ModuleScope::GradOff(const Site& site) const {
  if (site.grad_off) return true;
  for (const Function* fn = site.function; fn != nullptr; fn = fn->parent) {
    if (fn->covered) return true;
  }
  return false;
}

const KindEnv& ModuleScope::Env(const Function* fn) const {
  std::unique_ptr<KindEnv>& slot = fn == nullptr ? module_env_ : fn->env_;
  if (slot == nullptr) {
    slot = std::make_unique<KindEnv>(BuildEnv(fn == nullptr ? nullptr : fn->node,
                                              fn == nullptr ? module_bindings_ : fn->bindings,
                                              &aliases_));
  }
  return *slot;
}

const std::vector<Function*>& ModuleScope::Callees(const Site& site) const {
  static const std::vector<Function*> kNone;
  auto it = callees_.find(&site);
  return it == callees_.end() ? kNone : it->second;
}

const AssignmentMap& Function::Assignments() const {
  if (assignments_ == nullptr) {
    assignments_ =
        std::make_unique<AssignmentMap>();
    for (const Binding& b : bindings) {
      if (!b.is_loop_item && b.target->is(Kind::kName)) {
        (*assignments_)[b.target->name].push_back(b.value);
      }
    }
  }
  return *assignments_;
}

namespace {

std::string_view ClassOf(const Function* fn) {
  for (; fn != nullptr; fn = fn->parent) {
    if (!fn->class_name.empty()) return fn->class_name;
  }
  return {};
}

}  // namespace

void ModuleScope::PropagateLoopReach() {
  // Calls resolve by name within the file: f(...) to module functions named f
  // (not methods), self.f(...) / cls.f(...) to the method f of the caller's class.
  std::unordered_map<std::string_view, std::vector<Function*>> by_name;
  for (Function& f : functions_) by_name[f.name].push_back(&f);
  for (const Site& site : calls_) {
    const Node* func = site.node->func();
    std::vector<Function*> targets;
    if (func->is(Kind::kName)) {
      auto it = by_name.find(func->name);
      if (it != by_name.end()) {
        for (Function* f : it->second) {
          if (f->class_name.empty()) targets.push_back(f);
        }
        // Python's scoping: `_step()` inside a function means the `_step` defined
        // in it (or in the function around it) before one of the module's or of
        // another function (timm's benchmark.py defines a `_step` in each runner's
        // run(): the train runner's call is not the inference runner's function).
        for (const Function* scope = site.function;; scope = scope->parent) {
          std::vector<Function*> nearest;
          for (Function* f : targets) {
            if (f->parent == scope) nearest.push_back(f);
          }
          if (!nearest.empty()) {
            targets = std::move(nearest);
            break;
          }
          if (scope == nullptr) break;
        }
      }
    } else if (func->is(Kind::kAttribute) && func->value()->is(Kind::kName) &&
               (func->value()->name == "self" || func->value()->name == "cls")) {
      std::string_view cls = ClassOf(site.function);
      auto it = by_name.find(func->name);
      if (!cls.empty() && it != by_name.end()) {
        for (Function* f : it->second) {
          if (f->class_name == cls) targets.push_back(f);
        }
      }
    }
    for (Function* f : targets) f->callers.push_back(&site);
    if (!targets.empty()) callees_[&site] = std::move(targets);
  }
  // Depth-first from every call inside a loop: what a loop calls runs per iteration.
  std::vector<const Site*> stack;
  for (const Site& s : calls_) {
    if (s.loop != nullptr) stack.push_back(&s);
  }
  while (!stack.empty()) {
    const Site* site = stack.back();
    stack.pop_back();
    auto it = callees_.find(site);
    if (it == callees_.end()) continue;
    for (Function* f : it->second) {
      if (f->reached_from_line == 0 && f != site->function) {
        f->reached_from_line = LoopLine(*site);
        stack.insert(stack.end(), f->calls.begin(), f->calls.end());
      }
    }
  }
}

void ModuleScope::PropagateGradOff() {
  for (Function& f : functions_) f.covered = f.grad_off_decorated;
  bool changed = true;
  while (changed) {
    changed = false;
    for (Function& f : functions_) {
      if (f.covered || f.callers.empty()) continue;
      bool any_outside = false, all_off = true;
      for (const Site* s : f.callers) {
        if (s->function == &f) continue;  // recursion
        any_outside = true;
        if (!GradOff(*s)) all_off = false;
      }
      if (any_outside && all_off) f.covered = changed = true;
    }
  }
}

}  // namespace fastenough::lint
