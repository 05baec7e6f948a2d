"""autograd-in-eval and train-mode-in-eval: a graph, or training-mode layers, in a
run that never calls backward, or in an evaluation loop of a run that trains
first (a stretch of forwards much longer than training's forwards per backward,
with no backward in it: model.eval() or inference_mode forgotten after
fine-tuning).

A graph is waste only when no backward ever goes through it. Each examined
forward that builds one gets a pre-hook on its output's grad_fn, which notes
when a backward reaches it. So the first training forward after an evaluation
loop (its backward comes after it: nanoGPT train.py:300, timm benchmark.py:402)
is training, not the end of the evaluation, and a policy's rollout (REINFORCE:
55 forwards, then one backward through all of their graphs at the episode's
end) is training too: following "use inference_mode" there would break it.

A run that trains can also build graphs for nothing between its training
steps: DQN's acting forward q_network(obs) on every environment step, a train
step every 10 (cleanrl dqn.py), leaves no long stretch once training starts
(issue 37, item 8: 236 of ~14k acting forwards were counted, those before
training). So the graphs are also judged by call site, over the whole run: a
line whose forwards built graphs that no backward ever went through, while
backward ran elsewhere, is waste wherever its forwards fall; their count is
each examined forward weighted by the root forwards it stands for (1 while
every forward is examined, SAMPLE_EVERY once sampling).
"""

from __future__ import annotations

from fastenough.agent.checks._util import first_tensor, tensors_in, user_site

# The saved-tensor measurement runs on a few root forwards only (not in steady).
MEASURE_FORWARDS = 2
# A stretch of root forwards with no backward reads as evaluation when it is at
# least this long and STRETCH_RATIO times training's forwards per backward.
STRETCH_MIN_FORWARDS = 8
STRETCH_RATIO = 4
# Examined forwards of a stretch kept with their facts (a long stretch is
# sampled: in the steady loop one forward in SAMPLE_EVERY is examined).
STRETCH_ENTRIES = 4096
SITES_PER_STRETCH = 2
# A call site reads as building graphs for nothing when at least this many of
# its examined forwards built one and a backward went through none of them.
SITE_MIN_FORWARDS = 8
MAX_SITES = 64  # call sites followed (graph-building forwards)
SITE_CALLS = 4  # sites whose first call is kept for the eval probe


class GraphUse:
    """Whether a backward has gone through one forward's graph (its grad_fn's
    pre-hook ran). The hook holds this small object only, never a tensor."""

    __slots__ = ("consumed",)

    def __init__(self) -> None:
        self.consumed = False

    def __call__(self, grad_outputs):
        self.consumed = True


def watch_graph(grad_fn, more=()) -> GraphUse | None:
    """A GraphUse noted by a backward through grad_fn or through any node of
    `more` (the other outputs of the forward: a loss on its second output
    goes through the first's graph only below the outputs)."""
    use = GraphUse()
    try:
        grad_fn.register_prehook(use)
    except Exception:  # noqa: BLE001 - a node type without hooks
        return None
    seen = {id(grad_fn)}
    for fn in more:
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        try:  # noqa: SIM105
            fn.register_prehook(use)
        except Exception:  # noqa: BLE001, S110 - the first output's hook stands
            pass
    return use


class _Site:
    """The graph-building forwards of one call site: their uses and weights."""

    __slots__ = ("where", "uses", "weight", "call", "call_use")

    def __init__(self, where) -> None:
        self.where = where
        self.uses: list[GraphUse] = []
        self.weight = 0  # root forwards these examined forwards stand for
        # probe.EvalCall of a forward of this line (a few sites only); False once
        # a backward went through that forward's graph (training: let go of it).
        self.call = None
        self.call_use: GraphUse | None = None

    def unused(self) -> bool:
        return len(self.uses) >= SITE_MIN_FORWARDS and not any(u.consumed for u in self.uses)


class _Entry:
    __slots__ = ("use", "graph", "training", "where")

    def __init__(self, use, graph: bool, training: bool, where) -> None:
        self.use = use  # GraphUse, or None when no graph was built
        self.graph = graph
        self.training = training
        self.where = where

    @property
    def consumed(self) -> bool:
        return self.use is not None and self.use.consumed


class BackwardStretches:
    """Root forwards between backward calls. Training calls backward every one or
    two forwards; an evaluation loop is a long stretch with none. Forwards are
    counted from the registry's total (sampled forwards included), the stretch's
    properties from the forwards it examined. A stretch is judged when it is
    over (a backward followed it, or the run ended): its last forwards whose
    graphs a backward used belong to the training that follows, and a stretch
    with such forwards in its middle is training (a rollout)."""

    def __init__(self, reg) -> None:
        self.reg = reg
        self._backward_mark = 0
        self._start = 0  # registry forwards when the current stretch began
        self._entries: list[_Entry] = []
        self._sites = 0
        self._consumed_forwards = 0
        self._consumed = 0
        self._announced = -1  # start of the stretch on_eval_stretch was told about
        self.best: dict | None = None  # the longest evaluation stretch
        self.eval_starts: set[int] = set()  # where each evaluation stretch began

    def on_forward(self, use: GraphUse | None, graph: bool, training_layers: bool) -> None:
        reg = self.reg
        total = reg.forwards
        if reg.backward_calls != self._backward_mark:
            # A backward since the last examined forward: the stretch is over.
            self._close(total - 1)
            self._consumed += reg.backward_calls - self._backward_mark
            self._consumed_forwards += max(0, total - 1 - self._start)
            self._backward_mark = reg.backward_calls
            self._start = total - 1
        where = None
        if self._sites < SITES_PER_STRETCH:
            where = user_site()
            self._sites += 1
        if len(self._entries) < STRETCH_ENTRIES:
            self._entries.append(_Entry(use, graph, training_layers, where))
        n = total - self._start
        if n >= self._threshold() and self._announced != self._start:
            # Long enough to read as evaluation while it runs: the agent's steps
            # of this loop are model calls (no optimizer step will end them).
            self._announced = self._start
            if reg.on_eval_stretch is not None:
                reg.on_eval_stretch()

    def _threshold(self) -> float:
        per_backward = self._consumed_forwards / self._consumed if self._consumed else 0
        return max(STRETCH_MIN_FORWARDS, STRETCH_RATIO * per_backward)

    def _close(self, end: int) -> None:
        entries, self._entries = self._entries, []
        self._sites = 0
        # The trailing forwards whose graphs a backward used are the training
        # that follows the loop.
        while entries and entries[-1].consumed:
            entries.pop()
            end -= 1
        if not entries or any(e.consumed for e in entries):
            return  # nothing left, or training throughout (a rollout)
        n = end - self._start
        if n < self._threshold():
            return
        self.eval_starts.add(self._start)
        best = self.best
        if best is not None and n < best["forwards"]:
            return
        per_backward = self._consumed_forwards / self._consumed if self._consumed else 0
        graphs = [e for e in entries if e.graph]
        training = [e for e in entries if e.training]
        self.best = {"forwards": n, "graph_outputs": len(graphs),
                     "training_layers": 1 if training else 0,
                     "forwards_per_backward": per_backward,
                     "graph_where": next((e.where for e in graphs if e.where), None),
                     "training_where": next((e.where for e in training if e.where), None),
                     "where": next((e.where for e in entries if e.where), None)}

    def finish(self) -> None:
        """At exit: the stretch still open is over."""
        self._close(self.reg.forwards)

    def where(self, key: str, fallback: dict | None) -> dict | None:
        """The evaluation loop's line when the run also trains, else fallback."""
        b = self.best
        if self.reg.backward_calls and b is not None and b[key]:
            site = b["graph_where" if key == "graph_outputs" else "training_where"]
            return site or b["where"]
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
        self.params_requiring_grad: dict[int, int] = {}
        self.where: dict | None = None
        self.graph_bytes: list[int] = []
        self.uses: list[GraphUse] = []  # one per examined forward that built a graph
        self._train_layers: dict[int, bool] = {}
        self.last_built = False  # the last examined forward built a graph
        self._sites: dict[tuple, _Site] = {}  # (file, line) -> graph forwards there
        self._site_calls = 0
        self._last_total = 0  # root forwards at the previous examined forward
        self.last_site: _Site | None = None  # the last examined forward's, if it built one

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
        self.last_built = built
        # The root forwards this examined one stands for (sampling: SAMPLE_EVERY).
        total = self.reg.forwards
        weight = max(1, total - self._last_total)
        self._last_total = total
        self.last_site = None
        if built and len(self.graph_bytes) < MEASURE_FORWARDS and not self.reg.in_steady:
            params = {p.untyped_storage().data_ptr() for p in module.parameters()}
            self.graph_bytes.append(graph_saved_bytes(t.grad_fn, params))
        use = None
        if built:
            more = [o.grad_fn for o in tensors_in(output, torch)[:8]
                    if isinstance(o, torch.Tensor) and o.grad_fn is not None]
            use = watch_graph(t.grad_fn, more)
            if use is not None:
                self.uses.append(use)
            where = user_site(2)
            if self.where is None:
                self.where = where
            if use is not None and where is not None:
                self._note_site(where, use, weight)
        self.reg.stretches.on_forward(use, built,
                                      module.training and self._has_train_layers(module))

    def _has_train_layers(self, module) -> bool:
        """Dropout (p > 0) or batch-norm in the tree: found once per root."""
        key = id(module)
        has = self._train_layers.get(key)
        if has is None:
            nn = self.torch.nn
            has = self._train_layers[key] = any(training_layer_kind(nn, m) is not None
                                                for m in module.modules())
        return has

    def _note_site(self, where: dict, use: GraphUse, weight: int) -> None:
        key = (where.get("file"), where.get("line"))
        site = self._sites.get(key)
        if site is None:
            if len(self._sites) >= MAX_SITES:
                return
            site = self._sites[key] = _Site(where)
        site.uses.append(use)
        site.weight += weight
        self.last_site = site
        if site.call and site.call_use is not None and site.call_use.consumed:
            site.call = False

    def keep_site_call(self, make_call) -> None:
        """A call of the last examined forward's site, for the eval probe (a few
        sites, once each; make_call() gives a probe.EvalCall, or None)."""
        site = self.last_site
        if site is None or site.call is not None or self._site_calls >= SITE_CALLS:
            return
        self._site_calls += 1
        site.call = make_call() or False
        site.call_use = site.uses[-1]

    def unused_sites(self) -> list[_Site]:
        """In a run that trains: the call sites whose graphs no backward used,
        the heaviest first."""
        if not self.reg.backward_calls:
            return []
        return sorted((s for s in self._sites.values() if s.unused()),
                      key=lambda s: -s.weight)

    @property
    def graph_outputs(self) -> int:
        """Examined forwards whose graph no backward went through."""
        return sum(1 for u in self.uses if not u.consumed)

    def decide_numbers(self) -> dict:
        n = {
            "forwards": self.forwards,
            "graph_outputs": self.graph_outputs,
            "backward_calls": self.reg.backward_calls,
            "params_requiring_grad": max(self.params_requiring_grad.values(), default=0),
        }
        n.update(self.reg.stretches.numbers("graph_outputs"))
        sites = self.unused_sites()
        if sites:
            # Every forward of those lines, over the whole run (estimated from
            # the examined ones once sampling).
            n["unused_graph_forwards"] = sum(s.weight for s in sites)
            n["unused_graph_sites"] = len(sites)
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
