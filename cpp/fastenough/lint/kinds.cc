#include "fastenough/lint/kinds.h"

#include <algorithm>
#include <initializer_list>

#include "fastenough/lint/name_match.h"

namespace fastenough::lint {

namespace {

using V = ValueKind;

bool Contains(const std::vector<std::string_view>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// torch.<factory>(...) without device= builds a CPU tensor (the default device).
bool IsFactory(std::string_view s) {
  return IsAnyOf(s, {"tensor", "as_tensor", "zeros", "ones", "empty", "full", "arange", "rand",
                     "randn", "randint", "randperm", "linspace", "logspace", "eye",
                     "from_numpy"});
}

// torch.* callables that do not return tensors.
bool IsTorchNonTensor(std::string_view s) {
  if (IsAnyOf(s, {"device", "dtype", "Size", "is_tensor", "is_floating_point", "manual_seed",
                  "no_grad", "inference_mode", "enable_grad", "set_grad_enabled", "compile",
                  "load", "save", "Generator", "get_default_dtype", "set_num_threads",
                  "get_num_threads"})) {
    return true;
  }
  for (std::string_view p : {"is_", "get_", "set_", "use_", "are_", "_"}) {
    if (s.starts_with(p)) return true;
  }
  return false;
}

// torch.<namespace>.f(...) that return tensors; any other namespace (cuda, xpu,
// backends, nn, optim, distributed, ...) tells nothing.
bool InTensorNamespace(std::string_view rest) {
  for (std::string_view p : {"nn.functional.", "linalg.", "fft.", "special."}) {
    if (rest.starts_with(p)) return true;
  }
  return false;
}

bool IsHostBuiltin(std::string_view s) {
  return IsAnyOf(s, {"float", "int", "len", "str", "list", "tuple", "dict", "range", "round",
                     "abs", "min", "max", "sorted", "enumerate", "zip", "bool", "set", "sum"});
}

// Tensor methods whose result is a host value or a numpy array.
bool ToHostKind(std::string_view method, V* kind) {
  if (method == "numpy") {
    *kind = V::kNumpy;
    return true;
  }
  if (IsAnyOf(method, {"item", "tolist", "dim", "size", "numel", "ndimension",
                       "element_size", "data_ptr"})) {
    *kind = V::kHost;
    return true;
  }
  return false;
}

// Literals and displays: host values. Returns false for anything else.
bool ConstKind(const Node* n) {
  switch (n->kind) {
    case Kind::kConstant: case Kind::kJoinedStr: case Kind::kList: case Kind::kTuple:
    case Kind::kSet: case Kind::kDict: case Kind::kListComp: case Kind::kSetComp:
    case Kind::kDictComp:
      return true;
    default:
      return false;
  }
}

// Of several operands: the first of tensor, CPU tensor, numpy present; host
// when all are host values; else unknown.
class KindJoin {
 public:
  void Add(V k) { seen_[static_cast<int>(k)] = true; }
  V Result() const {
    for (V k : {V::kTensor, V::kCpuTensor, V::kNumpy}) {
      if (seen_[static_cast<int>(k)]) return k;
    }
    bool only_host = seen_[static_cast<int>(V::kHost)] && !seen_[static_cast<int>(V::kUnknown)];
    return only_host ? V::kHost : V::kUnknown;
  }

 private:
  bool seen_[5] = {false, false, false, false, false};
};

}  // namespace

bool ModuleAliases::IsNumpy(std::string_view n) const { return Contains(numpy, n); }
bool ModuleAliases::IsTorch(std::string_view n) const { return Contains(torch, n); }
bool ModuleAliases::IsFunctional(std::string_view n) const { return Contains(functional, n); }

void KindEnv::Bind(std::string_view name, ValueKind kind) {
  auto [it, inserted] = names_.try_emplace(name, kind);
  if (!inserted && it->second != kind) it->second = V::kUnknown;
}

ValueKind KindEnv::KindOf(const Node* n) const {
  if (ConstKind(n)) return V::kHost;
  switch (n->kind) {
    case Kind::kName: {
      auto it = names_.find(n->name);
      return it == names_.end() ? V::kUnknown : it->second;
    }
    case Kind::kCall:
      return CallKind(*n);
    case Kind::kBinOp: {
      KindJoin join;
      join.Add(KindOf(n->left()));
      join.Add(KindOf(n->right()));
      return join.Result();
    }
    case Kind::kUnaryOp:
      return KindOf(n->operand());
    case Kind::kSubscript: {
      V base = KindOf(n->value());
      return base == V::kTensor || base == V::kCpuTensor || base == V::kNumpy ? base
                                                                               : V::kUnknown;
    }
    case Kind::kAttribute:
      if (IsAnyOf(n->name, {"shape", "ndim", "dtype", "device", "requires_grad"})) return V::kHost;
      if (IsAnyOf(n->name, {"T", "mT", "data", "grad", "real", "imag"})) return KindOf(n->value());
      return V::kUnknown;
    case Kind::kCompare: {
      for (const Node* op : n->ops()) {
        switch (op->cmp_op()) {
          case pysrc::CmpOperator::kIs: case pysrc::CmpOperator::kIsNot:
          case pysrc::CmpOperator::kIn: case pysrc::CmpOperator::kNotIn:
            return V::kHost;  // `t is None`, `k in d`: identity and membership, no tensor read
          default:
            break;
        }
      }
      KindJoin join;
      join.Add(KindOf(n->left()));
      for (const Node* c : n->comparators()) join.Add(KindOf(c));
      return join.Result();
    }
    default:
      return V::kUnknown;
  }
}

ValueKind KindEnv::CallKind(const Node& call) const {
  const Node* func = call.func();
  if (func->is(Kind::kName) && IsHostBuiltin(func->name)) return V::kHost;
  const std::string name = Dotted(func);
  const size_t dot = name.find('.');
  std::string_view root = std::string_view(name).substr(0, dot);
  std::string_view rest = dot == std::string::npos ? std::string_view()
                                                   : std::string_view(name).substr(dot + 1);
  // torch.isnan(x).any(): a method of a result, judged by its receiver below.
  if (rest.find("()") != std::string_view::npos) rest = {};
  if (!rest.empty() && aliases_->IsNumpy(root)) return V::kNumpy;
  // F.softmax(...) after `import torch.nn.functional as F`
  if (!rest.empty() && aliases_->IsFunctional(root)) return V::kTensor;
  if (!rest.empty() && aliases_->IsTorch(root)) {
    std::string_view leaf = LeafOf(rest);
    if (rest.find('.') != std::string_view::npos && !InTensorNamespace(rest)) {
      return V::kUnknown;  // torch.cuda.is_available(), torch.nn.Linear(...), ...
    }
    if (IsTorchNonTensor(leaf)) return V::kUnknown;
    const bool on_device = Kwarg(call, "device") != nullptr;
    if (IsFactory(leaf) && !on_device) return V::kCpuTensor;
    if (!call.args().empty() && !on_device && KindOf(call.args()[0]) == V::kCpuTensor) {
      return V::kCpuTensor;  // torch.median(torch.tensor(xs)): stays on the CPU
    }
    return V::kTensor;
  }
  if (func->is(Kind::kAttribute)) {
    const V receiver = KindOf(func->value());
    V host;
    if (ToHostKind(func->name, &host)) return host;  // .item() of anything is a host value
    if (func->name == "cpu") return V::kCpuTensor;
    if (receiver == V::kCpuTensor) {
      return IsAnyOf(func->name, {"to", "cuda", "npu", "xpu"}) ? V::kTensor : V::kCpuTensor;
    }
    if (receiver == V::kTensor || receiver == V::kNumpy) return receiver;
  }
  return V::kUnknown;
}

namespace {

void BindTarget(KindEnv& env, const Node* target, V kind) {
  if (target->is(Kind::kName)) {
    env.Bind(target->name, kind);
  } else if (target->is(Kind::kTuple) || target->is(Kind::kList)) {
    // Unpacking a tensor gives tensors; unpacking anything else tells nothing.
    V inner = kind == V::kTensor || kind == V::kCpuTensor || kind == V::kHost ? kind
                                                                              : V::kUnknown;
    for (const Node* t : target->elts()) BindTarget(env, t, inner);
  }
}

// Kind of the items of a loop iterable: a list literal of constants gives host.
V IterItemKind(const KindEnv& env, const Node* it) {
  if (it->is(Kind::kList) || it->is(Kind::kTuple) || it->is(Kind::kSet)) {
    if (it->elts().empty()) return V::kUnknown;
    for (const Node* e : it->elts()) {
      if (!ConstKind(e)) return V::kUnknown;
    }
    return V::kHost;
  }
  if (it->is(Kind::kCall) && it->func()->is(Kind::kName) && it->func()->name == "range") {
    return V::kHost;
  }
  return env.KindOf(it) == V::kNumpy ? V::kNumpy : V::kUnknown;
}

bool AnnotationKind(std::string_view leaf, V* kind) {
  if (IsAnyOf(leaf, {"float", "int", "str", "bool", "list", "tuple", "dict"})) {
    *kind = V::kHost;
  } else if (leaf == "Tensor") {
    *kind = V::kTensor;
  } else if (leaf == "ndarray") {
    *kind = V::kNumpy;
  } else {
    return false;
  }
  return true;
}

}  // namespace

KindEnv BuildEnv(const Node* fn, const std::vector<Binding>& bindings,
                 const ModuleAliases* aliases) {
  KindEnv env(aliases);
  if (fn != nullptr && pysrc::IsFunction(fn->kind)) {
    const Node* args = fn->arguments();
    for (NodeList list : {args->posonlyargs(), args->args(), args->kwonlyargs()}) {
      for (const Node* a : list) {
        const Node* ann = a->annotation();
        if (ann == nullptr) continue;
        if (ann->is(Kind::kSubscript)) ann = ann->value();  // list[float] -> list
        std::string dotted = Dotted(ann);
        V kind;
        if (AnnotationKind(LeafOf(dotted), &kind)) env.Bind(a->name, kind);
      }
    }
  }
  // In source order of the values, so that `a = torch.zeros(3)` then `b = a + 1`
  // resolves `b` (stable: bindings of one value keep the order the pass met them).
  std::vector<const Binding*> ordered;
  ordered.reserve(bindings.size());
  for (const Binding& b : bindings) ordered.push_back(&b);
  std::stable_sort(ordered.begin(), ordered.end(), [](const Binding* a, const Binding* b) {
    if (a->value->line != b->value->line) return a->value->line < b->value->line;
    return a->value->col < b->value->col;
  });
  for (const Binding* b : ordered) {
    V kind = b->is_loop_item ? IterItemKind(env, b->value) : env.KindOf(b->value);
    BindTarget(env, b->target, kind);
  }
  return env;
}

}  // namespace fastenough::lint
