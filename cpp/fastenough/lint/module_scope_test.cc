// The scope tracker on small modules: which loop runs each call (lexically and
// through same-file calls), epoch loops, grad-off propagation, and value kinds.
#include "fastenough/lint/module_scope.h"

#include <gtest/gtest.h>

#include <string>

#include "fastenough/pysrc/parser.h"

namespace fastenough::lint {
namespace {

struct Parsed {
  pysrc::Arena arena;
  const Node* module = nullptr;
  explicit Parsed(std::string_view src) {
    pysrc::ParseResult r = pysrc::ParseModule(src, arena);
    EXPECT_TRUE(r.ok()) << r.error.message;
    module = r.module;
  }
};

// The call whose callee's dotted name is `callee`.
const Site* CallTo(const ModuleScope& scope, std::string_view callee) {
  for (const Site& s : scope.calls()) {
    if (Dotted(s.node->func()) == callee) return &s;
  }
  ADD_FAILURE() << "no call to " << callee;
  return nullptr;
}

TEST(ModuleScope, LoopLineLexicalAndThroughCalls) {
  Parsed p(
      "def step(batch):\n"         // 1
      "    return batch.item()\n"  // 2
      "def run(loader):\n"         // 3
      "    for b in loader:\n"     // 4
      "        step(b)\n"          // 5
      "    done()\n");             // 6
  ModuleScope scope(*p.module);
  EXPECT_EQ(scope.LoopLine(*CallTo(scope, "step")), 4);
  EXPECT_FALSE(scope.ViaCall(*CallTo(scope, "step")));
  EXPECT_EQ(scope.LoopLine(*CallTo(scope, "batch.item")), 4);  // step runs per iteration
  EXPECT_TRUE(scope.ViaCall(*CallTo(scope, "batch.item")));
  EXPECT_EQ(scope.LoopLine(*CallTo(scope, "done")), 0);
}

TEST(ModuleScope, EpochLoopIsNotHotButTheStepLoopInsideIs) {
  Parsed p(
      "for epoch in range(3):\n"   // 1
      "    log()\n"                // 2
      "    for x in data:\n"       // 3
      "        x.item()\n");       // 4
  ModuleScope scope(*p.module);
  EXPECT_EQ(scope.LoopLine(*CallTo(scope, "log")), 0);
  EXPECT_EQ(scope.LoopLine(*CallTo(scope, "x.item")), 3);
}

TEST(ModuleScope, WhileTestsAndComprehensionsAreLoops) {
  Parsed p(
      "while cond():\n"                    // 1
      "    pass\n"                         // 2
      "ys = [f(x) for x in xs if g(x)]\n"  // 3
      "once(xs)\n");                       // 4
  ModuleScope scope(*p.module);
  EXPECT_EQ(scope.LoopLine(*CallTo(scope, "cond")), 1);
  EXPECT_EQ(scope.LoopLine(*CallTo(scope, "f")), 3);
  EXPECT_EQ(scope.LoopLine(*CallTo(scope, "g")), 3);
  EXPECT_EQ(scope.LoopLine(*CallTo(scope, "once")), 0);
  EXPECT_EQ(scope.comprehensions().size(), 1u);
  EXPECT_EQ(scope.tests().size(), 2u);  // the while test and the comprehension's if
}

TEST(ModuleScope, MethodsResolveWithinTheirClassOnly) {
  Parsed p(
      "class A:\n"                   // 1
      "    def work(self):\n"        // 2
      "        a_inner()\n"          // 3
      "    def run(self, xs):\n"     // 4
      "        for x in xs:\n"       // 5
      "            self.work()\n"    // 6
      "class B:\n"                   // 7
      "    def work(self):\n"        // 8
      "        b_inner()\n");        // 9
  ModuleScope scope(*p.module);
  EXPECT_EQ(scope.LoopLine(*CallTo(scope, "a_inner")), 5);
  EXPECT_EQ(scope.LoopLine(*CallTo(scope, "b_inner")), 0);
}

TEST(ModuleScope, GradOffByWithDecoratorAndEveryCaller) {
  Parsed p(
      "import torch\n"                          // 1
      "def helper(m, x):\n"                     // 2
      "    return m(x)\n"                       // 3
      "@torch.inference_mode()\n"               // 4
      "def evaluate(m, x):\n"                   // 5
      "    return helper(m, x)\n"               // 6
      "def train(m, x):\n"                      // 7
      "    with torch.no_grad():\n"             // 8
      "        a = m(x)\n"                      // 9
      "        with torch.enable_grad():\n"     // 10
      "            b = m.fwd(x)\n"              // 11
      "    return m.loss(x)\n");                // 12
  ModuleScope scope(*p.module);
  EXPECT_TRUE(scope.GradOff(*CallTo(scope, "helper")));  // decorated caller
  EXPECT_TRUE(scope.GradOff(*CallTo(scope, "m")));  // first m(x): helper's; covered by its caller
  EXPECT_FALSE(scope.GradOff(*CallTo(scope, "m.fwd")));  // enable_grad inside no_grad
  EXPECT_FALSE(scope.GradOff(*CallTo(scope, "m.loss")));
}

TEST(GradOffContext, WhatCountsAsAutogradOff) {
  Parsed p(
      "with torch.no_grad(): pass\n"
      "with torch.inference_mode(False): pass\n"
      "with torch.set_grad_enabled(False): pass\n"
      "with torch.enable_grad(): pass\n"
      "with open(f): pass\n");
  std::vector<int> modes;
  for (const Node* stmt : p.module->body()) {
    modes.push_back(GradOffContext(stmt->items()[0]->context_expr()));
  }
  EXPECT_EQ(modes, (std::vector<int>{1, -1, 1, -1, 0}));
}

ValueKind KindOfLastValue(std::string_view src, const char* name) {
  Parsed p(src);
  ModuleScope scope(*p.module);
  const Function& fn = scope.functions().front();
  const Node* value = fn.Assignments().at(name).back();
  return scope.Env(&fn).KindOf(value);
}

TEST(KindEnv, FactoriesOnTheCpuTensorsAndHostValues) {
  const char* src =
      "import torch\n"
      "import numpy as np\n"
      "def f(xs: list[float], t: torch.Tensor):\n"
      "    a = torch.zeros(3)\n"
      "    b = torch.zeros(3, device='cuda')\n"
      "    c = a + 1\n"
      "    d = a.to('cuda')\n"
      "    e = np.asarray(xs)\n"
      "    g = t.sum().item()\n"
      "    h = t * 2\n"
      "    i = xs\n"
      "    j = t is None\n"
      "    k = unknown(t)\n";
  EXPECT_EQ(KindOfLastValue(src, "a"), ValueKind::kCpuTensor);
  EXPECT_EQ(KindOfLastValue(src, "b"), ValueKind::kTensor);
  EXPECT_EQ(KindOfLastValue(src, "c"), ValueKind::kCpuTensor);
  EXPECT_EQ(KindOfLastValue(src, "d"), ValueKind::kTensor);
  EXPECT_EQ(KindOfLastValue(src, "e"), ValueKind::kNumpy);
  EXPECT_EQ(KindOfLastValue(src, "g"), ValueKind::kHost);
  EXPECT_EQ(KindOfLastValue(src, "h"), ValueKind::kTensor);
  EXPECT_EQ(KindOfLastValue(src, "i"), ValueKind::kHost);  // annotated list[float]
  EXPECT_EQ(KindOfLastValue(src, "j"), ValueKind::kHost);
  EXPECT_EQ(KindOfLastValue(src, "k"), ValueKind::kUnknown);
}

TEST(KindEnv, ANameBoundToTwoKindsIsUnknown) {
  const char* src =
      "import torch\n"
      "def f(t: torch.Tensor):\n"
      "    x = 1.0\n"
      "    x = t * 2\n"
      "    y = x\n";
  EXPECT_EQ(KindOfLastValue(src, "y"), ValueKind::kUnknown);
}

}  // namespace
}  // namespace fastenough::lint
