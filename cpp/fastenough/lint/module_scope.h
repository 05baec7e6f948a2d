// The scope and loop tracker: for each call and test in a module, where it runs.
//
// One pass over the tree records every call (a Site) with the function it is
// in, the innermost loop around it in that function (for/while bodies, while
// tests, comprehensions) and whether a `with torch.no_grad()/inference_mode()`
// encloses it. After the pass, two facts flow along the calls between
// functions of the same file:
//
// - epoch loops (`for epoch in range(epochs)`) do not count: they run a handful
//   of times; the step loop inside them is the hot one.
// - loop reach: a function called from a loop body runs once per iteration, so
//   its code counts as "in the loop" too (`for b in loader: step(b)` makes the
//   `.item()` inside `step` a per-step sync). Calls resolve by name: `f(...)` to
//   the module's functions named f, `self.f(...)` / `cls.f(...)` to the method f
//   of the enclosing class. Nothing is imported; other files are not followed.
// - grad off: a function whose every call site in the file runs under no_grad
//   or inference_mode (lexically, or because its caller is covered) is covered
//   too, as is one decorated with @torch.no_grad() / @torch.inference_mode().
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fastenough/lint/kinds.h"
#include "fastenough/lint/tree_util.h"

namespace fastenough::lint {

struct Function;

// name -> the values assigned to it, in the order the pass met them.
using AssignmentMap = std::unordered_map<std::string_view, std::vector<const Node*>>;

// A call, a test (if/while/assert/ternary/comprehension-if condition), a for
// loop or a comprehension, with where it runs.
struct Site {
  const Node* node;
  Function* function;  // nullptr at module level (and in class bodies there)
  const Node* loop;    // innermost hot loop in the same function, or nullptr
  bool grad_off;       // lexically under a grad-off `with` or decorator
};

struct Function {
  const Node* node;                // FunctionDef / AsyncFunctionDef
  std::string_view name;
  std::string_view class_name;     // "" when not directly in a class body
  Function* parent;                // the enclosing function, or nullptr
  bool grad_off_decorated = false;
  std::vector<const Site*> calls;    // calls in its body (not nested defs')
  std::vector<const Site*> callers;  // calls in the file that resolve to it
  int reached_from_line = 0;  // line of the loop whose body calls it; 0: none
  bool covered = false;       // runs with autograd off (decorator or every caller)
  std::vector<Binding> bindings;  // assignments and loop targets of its body

  // Plain `name = value` assignments of the body (not loop targets): name ->
  // values, in the order the pass met them.
  const AssignmentMap& Assignments() const;

 private:
  friend class ModuleScope;
  mutable std::unique_ptr<AssignmentMap>
      assignments_;
  mutable std::unique_ptr<KindEnv> env_;
};

class ModuleScope {
 public:
  explicit ModuleScope(const Node& module);
  ModuleScope(const ModuleScope&) = delete;
  ModuleScope& operator=(const ModuleScope&) = delete;

  // In the order the pass met them (source order of the def / call / test).
  const std::deque<Function>& functions() const { return functions_; }
  const std::deque<Site>& calls() const { return calls_; }
  const std::deque<Site>& tests() const { return tests_; }
  const std::deque<Site>& fors() const { return fors_; }  // For / AsyncFor
  const std::deque<Site>& comprehensions() const { return comprehensions_; }
  const ModuleAliases& aliases() const { return aliases_; }

  // The line of the loop that runs this site once per iteration; 0 for none.
  int LoopLine(const Site& site) const;
  // In a loop only through a call from it (not lexically).
  bool ViaCall(const Site& site) const;
  // Where the site runs, for messages: "inside the loop at line 12" or "called
  // from the loop at line 12". Only for sites with a LoopLine.
  std::string LoopPhrase(const Site& site) const;
  // Autograd is off where the site runs.
  bool GradOff(const Site& site) const;
  // The kinds of the names of `fn` (nullptr: the module's top level).
  const KindEnv& Env(const Function* fn) const;
  // Assignments and loop targets of the module's top level (a function's: its
  // `bindings`).
  const std::vector<Binding>& module_bindings() const { return module_bindings_; }
  // The functions of the file a call resolves to (by name, as `callers`); empty
  // for none.
  const std::vector<Function*>& Callees(const Site& site) const;

 private:
  class Pass;  // module_scope.cc: the visitor that fills the lists
  void PropagateLoopReach();
  void PropagateGradOff();

  std::deque<Function> functions_;
  std::deque<Site> calls_, tests_, fors_, comprehensions_;
  std::vector<Binding> module_bindings_;
  ModuleAliases aliases_;
  std::unordered_map<const Site*, std::vector<Function*>> callees_;
  mutable std::unique_ptr<KindEnv> module_env_;
};

// True for `torch.no_grad()` / `inference_mode()` / `set_grad_enabled(False)` /
// `@torch.no_grad` (+1), false for `enable_grad()` (-1), neither for any other
// context manager or decorator (0).
int GradOffContext(const Node* expr);

}  // namespace fastenough::lint
