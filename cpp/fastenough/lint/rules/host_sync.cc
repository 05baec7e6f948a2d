// Host syncs inside loops: the host waits for the device once per iteration.
//
// `.item()`, `.cpu()`, `.tolist()`, `.numpy()`, `float(t)`, `bool(t)` / `if t`,
// `print(t)` and explicit `synchronize()` / `empty_cache()` each stall the host
// until the device has finished everything queued so far, so the device then
// idles while the host catches up. Outside loops they are harmless (a result read
// once at the end). Port of python/fastenough/lint/rules/host_sync.py.
#include <string>

#include "fastenough/lint/name_match.h"
#include "fastenough/lint/rules/families.h"

namespace fastenough::lint::rules {

namespace {

constexpr std::string_view kHostSyncExplain = R"(Each of these reads a device value on the host, so the host blocks until the
device has run everything queued before it: .item(), .cpu(), .tolist(),
.numpy(), float(t)/int(t)/bool(t), `if t:` / `while t:` / `assert t`, print(t),
torch.cuda.synchronize(), torch.cuda.empty_cache(). Inside the step loop this
happens every iteration, and the device idles while the host prepares the next
launches. Keep values on the device (accumulate metrics in a tensor, stack
per-step results) and read them once after the loop; call empty_cache() only at
phase boundaries. Keep the syncs that correctness needs (early stopping on a
value, data-dependent control flow) and judge the rest on the timeline.
The rule fires inside for/while bodies and comprehensions, and in functions of
the same file that a loop calls; it stays quiet when the receiver is visibly a
Python number, a list, a numpy array or a tensor built on the CPU.)";

void CheckMethods(const ModuleContext& ctx, std::vector<Hit>& out) {
  const ModuleScope& scope = ctx.scope();
  for (const Site& site : scope.calls()) {
    const Node& call = *site.node;
    const Node* func = call.func();
    const Node* receiver;
    std::string what;
    if (func->is(Kind::kAttribute) && IsAnyOf(func->name, {"item", "cpu", "tolist", "numpy"}) &&
        call.args().empty()) {
      receiver = func->value();
      what = "." + std::string(func->name) + "()";
    } else if (func->is(Kind::kName) && IsAnyOf(func->name, {"float", "int", "bool"}) &&
               call.args().size() == 1) {
      receiver = call.args()[0];
      what = std::string(func->name) + "(tensor)";
      // float(x) of an unknown x is usually a Python number.
      if (scope.Env(site.function).KindOf(receiver) != ValueKind::kTensor) continue;
    } else {
      continue;
    }
    if (scope.LoopLine(site) == 0) continue;
    if (NotADeviceTensor(scope.Env(site.function).KindOf(receiver))) continue;
    out.push_back({&call, what + " " + scope.LoopPhrase(site) +
                              " waits for the device every iteration"});
  }
}

void CheckTests(const ModuleContext& ctx, std::vector<Hit>& out) {
  const ModuleScope& scope = ctx.scope();
  for (const Site& site : scope.tests()) {
    if (scope.LoopLine(site) == 0) continue;
    if (scope.Env(site.function).KindOf(site.node) == ValueKind::kTensor) {
      out.push_back({site.node, "a tensor used as a condition " + scope.LoopPhrase(site) +
                                    " reads its value on the host every iteration"});
    }
  }
}

void CheckPrint(const ModuleContext& ctx, std::vector<Hit>& out) {
  const ModuleScope& scope = ctx.scope();
  for (const Site& site : scope.calls()) {
    const Node& call = *site.node;
    if (!(call.func()->is(Kind::kName) && call.func()->name == "print")) continue;
    if (scope.LoopLine(site) == 0) continue;
    const KindEnv& env = scope.Env(site.function);
    // The printed values: each argument, or the {fields} of an f-string argument.
    bool tensor = false;
    for (const Node* a : call.args()) {
      if (a->is(Kind::kJoinedStr)) {
        for (const Node* v : a->values()) {
          if (v->is(Kind::kFormattedValue) && env.KindOf(v->value()) == ValueKind::kTensor) {
            tensor = true;
          }
        }
      } else if (env.KindOf(a) == ValueKind::kTensor) {
        tensor = true;
      }
    }
    if (tensor) {
      out.push_back({&call, "print(tensor) " + scope.LoopPhrase(site) +
                                " copies the value to the host every iteration"});
    }
  }
}

void CheckExplicit(const ModuleContext& ctx, std::vector<Hit>& out) {
  const ModuleScope& scope = ctx.scope();
  for (const Site& site : scope.calls()) {
    const Node* func = site.node->func();
    if (!(func->is(Kind::kAttribute) && IsAnyOf(func->name, {"synchronize", "empty_cache"}))) {
      continue;
    }
    if (scope.LoopLine(site) == 0) continue;
    out.push_back({site.node, "." + std::string(func->name) + "() " + scope.LoopPhrase(site) +
                                  " stalls the host every iteration"});
  }
}

constexpr Rule kHostSyncRules[] = {
    {"sync-in-loop", "sync-method-in-loop",
     ".item()/.cpu()/.tolist()/.numpy()/float(t) inside a loop", kHostSyncExplain, CheckMethods},
    {"sync-in-loop", "tensor-condition-in-loop",
     "a tensor as an if/while/assert condition inside a loop", kHostSyncExplain, CheckTests},
    {"sync-in-loop", "print-tensor-in-loop", "print(tensor) inside a loop", kHostSyncExplain,
     CheckPrint},
    {"sync-in-loop", "explicit-sync-in-loop", "synchronize() or empty_cache() inside a loop",
     kHostSyncExplain, CheckExplicit},
};

}  // namespace

std::span<const Rule> HostSyncRules() { return kHostSyncRules; }

}  // namespace fastenough::lint::rules
