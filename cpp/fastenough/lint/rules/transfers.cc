// Host-to-device transfers: blocking copies in loops, DataLoaders that cannot
// feed a device. Port of python/fastenough/lint/rules/transfers.py.
#include <string>

#include "fastenough/lint/name_match.h"
#include "fastenough/lint/rules/families.h"
#include "fastenough/lint/unparse.h"

namespace fastenough::lint::rules {

namespace {

// `device|(^|_)dev$|gpu|cuda|npu|rank`, case-insensitive, searched in a name.
bool IsDeviceName(std::string_view name) {
  for (std::string_view s : {"device", "gpu", "cuda", "npu", "rank"}) {
    if (ContainsIgnoreCase(name, s)) return true;
  }
  return LastTokenIs(name, {"dev"});
}

bool IsDtypeLeaf(std::string_view leaf) {
  return IsAnyOf(leaf, {"float", "float16", "float32", "float64", "half", "bfloat16", "double",
                        "long", "int", "int8", "int16", "int32", "int64", "uint8", "bool",
                        "complex64", "float8_e4m3fn", "float8_e5m2"});
}

// The argument of .to(...) names a device: "cuda:0", torch.device(...), device,
// self.dev, local_rank; not a dtype (torch.float16, x.dtype).
bool IsDevice(const Node* arg) {
  if (IsStrConst(arg)) {
    for (std::string_view p : {"cuda", "npu", "xpu", "mps"}) {
      if (arg->text.starts_with(p)) return true;
    }
    return false;
  }
  if (arg->is(Kind::kCall)) return Dotted(arg->func()).ends_with("device");
  const std::string name = Dotted(arg);
  if (IsDtypeLeaf(LeafOf(name)) || name.find("dtype") != std::string::npos) return false;
  return IsDeviceName(LastName(arg));
}

constexpr std::string_view kExplainTo = R"(.to(device) / .cuda() inside the loop without non_blocking=True copies a host
tensor to the device synchronously: the host waits for the copy, and the copy
cannot overlap the previous step's compute. For data that changes every step
(the batch), allocate it in pinned memory (DataLoader(pin_memory=True) or
.pin_memory()) and copy with .to(device, non_blocking=True), or prefetch the
next batch on a side stream. For data that does not change, move it once before
the loop. The runtime side reports per-step copies as transfer-in-loop.)";

constexpr std::string_view kExplainPin = R"(A DataLoader feeding a device without pin_memory=True hands out batches in
pageable host memory: each copy to the device goes through a staging buffer and
cannot run asynchronously. Pass pin_memory=True and copy with
.to(device, non_blocking=True). The runtime side sees these copies as
pageable-memcpy in the trace.)";

constexpr std::string_view kExplainWorkers = R"(A DataLoader without num_workers (or with num_workers=0) loads and collates
every batch in the main process, between steps, while the device waits. Give it
worker processes (num_workers>0, persistent_workers=True, prefetch_factor) or
cache the preprocessing offline. The runtime side reports the waiting as
dataloader-bound when it is measured.)";

void CheckToDevice(const ModuleContext& ctx, std::vector<Hit>& out) {
  const ModuleScope& scope = ctx.scope();
  for (const Site& site : scope.calls()) {
    const Node& call = *site.node;
    const Node* func = call.func();
    if (!func->is(Kind::kAttribute)) continue;
    const Node* target = nullptr;
    if (func->name == "to") {
      target = call.args().empty() ? Kwarg(call, "device") : call.args()[0];
      if (target == nullptr || !IsDevice(target)) continue;
    } else if (IsAnyOf(func->name, {"cuda", "npu", "xpu"})) {
      if (scope.aliases().IsTorch(Dotted(func->value()))) continue;  // torch.cuda itself
    } else {
      continue;
    }
    if (IsTrue(Kwarg(call, "non_blocking")) || HasStarKwargs(call)) continue;
    // .to(device, True): non_blocking positionally.
    if (call.args().size() > 1 && IsTrue(call.args()[1])) continue;
    if (scope.LoopLine(site) == 0) continue;
    const ValueKind k = scope.Env(site.function).KindOf(func->value());
    if (k == ValueKind::kHost || k == ValueKind::kNumpy) continue;
    const std::string what = func->name == "to" ? ".to(" + Unparse(target) + ")"
                                                : "." + std::string(func->name) + "()";
    out.push_back({&call, what + " " + scope.LoopPhrase(site) +
                              " without non_blocking=True: a blocking host-to-device copy "
                              "every iteration"});
  }
}

// DataLoader(...) calls with visible keywords, in a file that uses a device.
template <typename Visit>
void ForEachDataLoader(const ModuleContext& ctx, Visit&& visit) {
  if (!ctx.UsesDevice()) return;
  for (const Site& site : ctx.scope().calls()) {
    const Node& call = *site.node;
    if (LastName(call.func()) == "DataLoader" && !HasStarKwargs(call)) visit(call);
  }
}

void CheckPinMemory(const ModuleContext& ctx, std::vector<Hit>& out) {
  ForEachDataLoader(ctx, [&](const Node& call) {
    const Node* pin = Kwarg(call, "pin_memory");
    if (pin == nullptr || IsFalse(pin)) {
      out.push_back({&call, "DataLoader without pin_memory=True in a file that uses a device: "
                            "batches are copied from pageable memory"});
    }
  });
}

void CheckNumWorkers(const ModuleContext& ctx, std::vector<Hit>& out) {
  ForEachDataLoader(ctx, [&](const Node& call) {
    const Node* workers = Kwarg(call, "num_workers");
    if (workers == nullptr || IsZeroConst(workers)) {
      out.push_back({&call, "DataLoader without num_workers: batches are loaded in the main "
                            "process between steps"});
    }
  });
}

constexpr Rule kTransferRules[] = {
    {"transfer-in-loop", "to-device-in-loop",
     ".to(device)/.cuda() inside a loop without non_blocking=True", kExplainTo, CheckToDevice},
    {"pageable-memcpy", "dataloader-no-pin-memory",
     "DataLoader without pin_memory=True when a device is used", kExplainPin, CheckPinMemory},
    {"dataloader-bound", "dataloader-no-workers",
     "DataLoader without num_workers when a device is used", kExplainWorkers, CheckNumWorkers},
};

}  // namespace

std::span<const Rule> TransferRules() { return kTransferRules; }

}  // namespace fastenough::lint::rules
