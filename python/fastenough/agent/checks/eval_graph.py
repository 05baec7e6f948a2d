"""autograd-in-eval and train-mode-in-eval: a graph, or training-mode layers, in a
run that never calls backward."""

from __future__ import annotations

from fastenough.agent.checks._util import first_tensor, user_site

# The saved-tensor measurement runs on a few root forwards only (not in steady).
MEASURE_FORWARDS = 2


class AutogradCheck:
    code = "autograd-in-eval"

    def __init__(self, reg) -> None:
        self.reg = reg
        self.torch = reg.torch
        self.forwards = 0
        self.graph_outputs = 0
        self.params_requiring_grad: dict[int, int] = {}
        self.where: dict | None = None
        self.graph_bytes: list[int] = []
        self._saved_ctx = None
        self._saved_seen: set = set()
        self._saved_bytes = 0
        self._param_ptrs: set = set()

    # Pre: measure the bytes the graph keeps alive (saved activations) on a few
    # forwards, through saved_tensors_hooks (the pack hook sees every tensor an
    # autograd node saves; it returns the tensor unchanged).
    def on_pre(self, module, args, kwargs) -> None:
        torch = self.torch
        if self._saved_ctx is not None or len(self.graph_bytes) >= MEASURE_FORWARDS:
            return
        if not torch.is_grad_enabled() or torch.is_inference_mode_enabled():
            return
        if self.reg.in_steady:
            return
        self._param_ptrs = {p.untyped_storage().data_ptr() for p in module.parameters()}
        self._saved_seen = set()
        self._saved_bytes = 0

        def pack(t):
            try:
                s = t.untyped_storage()
                ptr = s.data_ptr()
                if ptr not in self._param_ptrs and ptr not in self._saved_seen:
                    self._saved_seen.add(ptr)
                    self._saved_bytes += s.nbytes()
            except Exception:  # noqa: BLE001, S110
                pass
            return t

        ctx = torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t)
        ctx.__enter__()
        self._saved_ctx = ctx

    def close_measure(self, graph_built: bool) -> None:
        ctx, self._saved_ctx = self._saved_ctx, None
        if ctx is None:
            return
        ctx.__exit__(None, None, None)
        if graph_built:
            self.graph_bytes.append(self._saved_bytes)
        self._saved_seen = set()

    def on_forward(self, module, args, kwargs, output) -> None:
        torch = self.torch
        self.forwards += 1
        key = id(module)
        if key not in self.params_requiring_grad:
            self.params_requiring_grad[key] = sum(
                1 for p in module.parameters() if p.requires_grad)
        t = getattr(output, "logits", None)
        if not isinstance(t, torch.Tensor):
            t = first_tensor(output, torch)
        built = t is not None and t.grad_fn is not None
        self.close_measure(built)
        if built:
            self.graph_outputs += 1
            if self.where is None:
                self.where = user_site(2)

    def decide_numbers(self) -> dict:
        n = {
            "forwards": self.forwards,
            "graph_outputs": self.graph_outputs,
            "backward_calls": self.reg.backward_calls,
            "params_requiring_grad": max(self.params_requiring_grad.values(), default=0),
        }
        if self.graph_bytes:
            n["graph_bytes_per_forward"] = max(self.graph_bytes)
        return n


_DROPOUT = None


class TrainModeCheck:
    code = "train-mode-in-eval"
    SCANS = 3  # module trees scanned on the first forwards and once in steady

    def __init__(self, reg) -> None:
        self.reg = reg
        self.torch = reg.torch
        self.scans = 0
        self.steady_scanned = False
        self.dropout: dict[str, int] = {}
        self.batchnorm: dict[str, int] = {}
        self.where: dict | None = None

    def on_forward(self, module, args, kwargs, output) -> None:
        if self.scans >= self.SCANS and (self.steady_scanned or not self.reg.in_steady):
            return
        self.scans += 1
        if self.reg.in_steady:
            self.steady_scanned = True
        nn = self.torch.nn
        found = False
        for name, m in module.named_modules():
            if not m.training:
                continue
            if isinstance(m, nn.modules.dropout._DropoutNd) and m.p > 0:
                self.dropout[name or type(m).__name__] = 1
                found = True
            elif isinstance(m, nn.modules.batchnorm._BatchNorm):
                self.batchnorm[name or type(m).__name__] = 1
                found = True
        if found and self.where is None:
            self.where = user_site(2)

    def decide_numbers(self) -> tuple[dict, dict]:
        names = sorted(self.dropout) + sorted(self.batchnorm)
        return ({"training_dropout_modules": len(self.dropout),
                 "training_batchnorm_modules": len(self.batchnorm),
                 "backward_calls": self.reg.backward_calls},
                {"modules": ", ".join(names[:12]) + (" ..." if len(names) > 12 else "")})
