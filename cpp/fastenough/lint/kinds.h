// What a name or expression visibly holds: a device tensor, a CPU tensor, a
// host value. Rules about host syncs must not fire on Python floats, lists or
// numpy arrays (`for lr in [0.1, 0.01]: ... lr.item()` is not a sync). Without
// running the code only what the source makes evident is known:
//
//   kTensor     a torch tensor, device unknown (torch.* op results, tensor methods)
//   kCpuTensor  built by a torch factory without `device=` (torch.tensor(xs),
//               torch.zeros(n)): reading it back costs no device sync
//   kNumpy      a numpy array or scalar
//   kHost       a Python value: number, string, list, tuple, dict, range item
//   kUnknown    anything else (a function's result, a batch from a loader, ...)
//
// The environment is flow-insensitive per function: a name bound to two
// different kinds becomes kUnknown, which keeps the rules quiet rather than wrong.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fastenough/lint/tree_util.h"

namespace fastenough::lint {

enum class ValueKind : uint8_t { kTensor, kCpuTensor, kNumpy, kHost, kUnknown };

// kCpuTensor, kNumpy, kHost: reading it on the host waits for no device.
inline bool NotADeviceTensor(ValueKind k) {
  return k == ValueKind::kCpuTensor || k == ValueKind::kNumpy || k == ValueKind::kHost;
}

// The names a module imports torch, numpy and torch.nn.functional under.
struct ModuleAliases {
  std::vector<std::string_view> numpy;       // `import numpy as np` -> np
  std::vector<std::string_view> torch{"torch"};
  std::vector<std::string_view> functional;  // `import torch.nn.functional as F` -> F
  std::vector<std::string_view> imported_modules;  // first component of every import

  bool IsNumpy(std::string_view n) const;
  bool IsTorch(std::string_view n) const;
  bool IsFunctional(std::string_view n) const;
};

// One `target = value` of a function body (or the module's top level), or a
// loop target with its iterable (is_loop_item).
struct Binding {
  const Node* target;
  const Node* value;
  bool is_loop_item;
};

// The kinds of the names of one function (or of the module's top level).
class KindEnv {
 public:
  explicit KindEnv(const ModuleAliases* aliases) : aliases_(aliases) {}

  void Bind(std::string_view name, ValueKind kind);
  ValueKind KindOf(const Node* expr) const;

 private:
  ValueKind CallKind(const Node& call) const;

  const ModuleAliases* aliases_;
  std::unordered_map<std::string_view, ValueKind> names_;
};

// The kinds of the names a function (`fn`, a FunctionDef/AsyncFunctionDef) or,
// for nullptr, the module binds: annotated parameters, then the bindings in
// source order of their values.
KindEnv BuildEnv(const Node* fn, const std::vector<Binding>& bindings,
                 const ModuleAliases* aliases);

}  // namespace fastenough::lint
