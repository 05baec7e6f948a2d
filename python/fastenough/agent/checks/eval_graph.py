"""autograd-in-eval and train-mode-in-eval: a graph, or training-mode layers, in a
run that never calls backward, or in an evaluation loop of a run that trains
first (a stretch of forwards much longer than training's forwards per backward,
with no backward in it: model.eval() or inference_mode forgotten after
fine-tuning)."""

from __future__ import annotations

from fastenough.agent.checks._util import first_tensor, user_site

# The saved-tensor measurement runs on a few root forwards only (not in steady).
MEASURE_FORWARDS = 2
# A stretch of root forwards with no backward reads as evaluation when it is at
# least this long and STRETCH_RATIO times training's forwards per backward.
STRETCH_MIN_FORWARDS = 8
STRETCH_RATIO = 4


class BackwardStretches:
    """Root forwards between backward calls. Training calls backward every one or
    two forwards; an evaluation loop is a long stretch with none. Forwards are
    counted from the registry's total (sampled forwards included), the stretch's
    properties from the forwards it examined."""

    def __init__(self, reg) -> None:
        self.reg = reg
        self._backward_mark = 0
        self._start = 0  # registry forwards when the current stretch began
        self._graphs = 0
        self._training = False
        self._consumed_forwards = 0
        self._consumed = 0
        self.best: dict | None = None  # the longest evaluation-like stretch

    def on_forward(self, graph: bool, training_layers: bool) -> None:
        reg = self.reg
        total = reg.forwards
        if reg.backward_calls != self._backward_mark:
            # A backward since the last examined forward: that stretch was training.
            self._consumed += reg.backward_calls - self._backward_mark
            self._consumed_forwards += max(0, total - 1 - self._start)
            self._backward_mark = reg.backward_calls
            self._start, self._graphs, self._training = total - 1, 0, False
        self._graphs += 1 if graph else 0
        self._training = self._training or training_layers
        self._note(total)

    def _note(self, total: int) -> None:
        n = total - self._start
        per_backward = self._consumed_forwards / self._consumed if self._consumed else 0
        if n < max(STRETCH_MIN_FORWARDS, STRETCH_RATIO * per_backward):
            return
        best = self.best
        if best is None or n >= best["forwards"]:
            same = best is not None and best["start"] == self._start
            if not same and self.reg.on_eval_stretch is not None:
                self.reg.on_eval_stretch()
            self.best = {"forwards": n, "graph_outputs": self._graphs,
                         "training_layers": 1 if self._training else 0,
                         "forwards_per_backward": per_backward, "start": self._start,
                         "where": best["where"] if same else user_site()}

    def where(self, key: str, fallback: dict | None) -> dict | None:
        """The evaluation loop's line when the run also trains, else fallback."""
        b = self.best
        if self.reg.backward_calls and b is not None and b[key]:
            return b["where"]
        return fallback

    def numbers(self, key: str) -> dict:
        b = self.best
        if b is None or not b[key]:
            return {}
        return {"eval_stretch_forwards": b["forwards"],
                "train_forwards_per_backward": round(b["forwards_per_backward"], 2)}


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
        self._train_layers: dict[int, bool] = {}

    # on_forward: the bytes the graph keeps alive (saved activations) are
    # measured after the forward by walking it from the output (each node's _saved_* tensors), on a
    # few forwards. Not with saved_tensors_hooks: a pack hook that returns the
    # tensor makes every saved output a reference cycle through its grad_fn
    # that nothing collects, and each measured forward's whole graph stayed
    # alive for the rest of the run (+1.3 GB on a MiniLM embedding loop).
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
        if built and len(self.graph_bytes) < MEASURE_FORWARDS and not self.reg.in_steady:
            params = {p.untyped_storage().data_ptr() for p in module.parameters()}
            self.graph_bytes.append(graph_saved_bytes(t.grad_fn, params))
        if built:
            self.graph_outputs += 1
            if self.where is None:
                self.where = user_site(2)
        self.reg.stretches.on_forward(built, module.training and self._has_train_layers(module))

    def _has_train_layers(self, module) -> bool:
        """Dropout (p > 0) or batch-norm in the tree: found once per root."""
        key = id(module)
        has = self._train_layers.get(key)
        if has is None:
            nn = self.torch.nn
            has = self._train_layers[key] = any(training_layer_kind(nn, m) is not None
                                                for m in module.modules())
        return has

    def decide_numbers(self) -> dict:
        n = {
            "forwards": self.forwards,
            "graph_outputs": self.graph_outputs,
            "backward_calls": self.reg.backward_calls,
            "params_requiring_grad": max(self.params_requiring_grad.values(), default=0),
        }
        n.update(self.reg.stretches.numbers("graph_outputs"))
        if self.graph_bytes:
            n["graph_bytes_per_forward"] = max(self.graph_bytes)
        return n


def training_layer_kind(nn, m) -> str | None:
    """"dropout" (p > 0) or "batchnorm": layers that behave differently in training mode."""
    if isinstance(m, nn.modules.dropout._DropoutNd) and m.p > 0:
        return "dropout"
    if isinstance(m, nn.modules.batchnorm._BatchNorm):
        return "batchnorm"
    return None


MAX_NODES = 50_000


def graph_saved_bytes(root, param_ptrs: set) -> int:
    """Bytes of the distinct storages an autograd graph has saved for backward
    (parameters excluded: they are resident anyway). Reads the nodes' _saved_*
    attributes, which hand back the saved tensors without copying them."""
    seen_nodes, seen_ptrs, total = set(), set(), 0
    stack = [root]
    while stack and len(seen_nodes) < MAX_NODES:
        node = stack.pop()
        if node is None or id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        for name in dir(node):
            if not name.startswith("_saved_"):
                continue
            try:
                value = getattr(node, name)
            except Exception:  # noqa: BLE001 - freed or not a tensor
                continue
            for t in value if isinstance(value, (tuple, list)) else (value,):
                try:
                    storage = t.untyped_storage()
                    ptr = storage.data_ptr()
                except Exception:  # noqa: BLE001 - ints, sizes, None
                    continue
                if ptr not in param_ptrs and ptr not in seen_ptrs:
                    seen_ptrs.add(ptr)
                    total += storage.nbytes()
        stack.extend(fn for fn, _ in getattr(node, "next_functions", ()))
    return total


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
            kind = training_layer_kind(nn, m) if m.training else None
            if kind is not None:
                (self.dropout if kind == "dropout" else self.batchnorm)[
                    name or type(m).__name__] = 1
                found = True
        if found and self.where is None:
            self.where = user_site(2)

    def decide_numbers(self) -> tuple[dict, dict]:
        names = sorted(self.dropout) + sorted(self.batchnorm)
        n = {"training_dropout_modules": len(self.dropout),
             "training_batchnorm_modules": len(self.batchnorm),
             "backward_calls": self.reg.backward_calls}
        n.update(self.reg.stretches.numbers("training_layers"))
        return (n,
                {"modules": ", ".join(names[:12]) + (" ..." if len(names) > 12 else "")})
