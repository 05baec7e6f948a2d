"""full-vocab-logits: vocabulary-sized outputs computed for many (row, position)
pairs of which the program reads only a few.

For a few forwards a TorchDispatchMode follows the tensors derived from the
model output until the next forward. Each followed tensor has L leading
"pair" dims ([batch, position] for [B, S, ...]); aten ops that keep those dims
derive a followed tensor, indexing (select, slice, index, gather) narrows it,
any other op (a reduction, .item(), an in-place add into another tensor)
reads its pairs, and so do the reads that bypass the dispatcher (tolist,
numpy, __array__, __dlpack__: native taps, agent/tensor_taps.py). The
projection to the vocabulary is the first op whose last dim is
vocabulary-sized, or the model output itself when it is `logits`. At the end:
pairs read = the pairs of the leaves (followed tensors with no followed child)
after that projection.

The saving counts the projection too: when the model's own forward ends in
the vocabulary projection (an lm_head Linear, logits returned), that Linear is
timed on the examined forwards (a one-shot pre and post hook), and what
reading the needed positions only would save is the unread share of the
projection plus of the vocabulary-sized ops after it (issue 28: generate.py's
saving said 0.06% of a step, the normalisation alone).

A dispatch mode, with a native handler, and not a TorchFunctionMode: a
function mode sends torch's Python functions through
torch.overrides.handle_torch_function, whose frames would show in the
program's tracebacks and shift what warnings.warn(stacklevel=N) names (torch's
own warnings were attributed to the wrong line). The dispatcher calls the
mode from C++: the program sees its own frames only. No window opens once
torch.compile has compiled something (a mode changes what dynamo traces).
"""

from __future__ import annotations

import time
import weakref

from fastenough.agent.checks._util import user_site

WINDOWS = 3  # windows on the first forwards (from the second on)
# And in the steady loop, on every STEADY_EVERY-th forward the checks examine, up
# to STEADY_WINDOWS: what the loop does later (a generation loop whose prefix
# grows, reading one position of hundreds) is what decides.
STEADY_WINDOWS = 8
STEADY_EVERY = 16
MAX_OPS = 5000
# The agent's own cost guard: ops of the program that reach our dispatch
# handler while no window is open (a mode of ours outlived its window: every
# op of the program then goes through Python, issue 37, item 7). Past this
# many, the checks switch themselves off at the next safe point (the model's
# next call), taking our modes off the stack, and the report says so.
STRAY_MAX = 10_000
VOCAB_MIN = 1000  # a last dim this large after a projection reads as a vocabulary
# aten op names (OpOverloadPacket names): indexing that narrows the pairs, and
# reshapes whose leading dims are not the pairs any more. unbind and the splits
# narrow too, each output to its own pairs: iterating over a tensor is unbind(0)
# (lm-evaluation-harness's `for logits in multi_logits` after a log_softmax over
# every position, then a slice of the continuation's: issue 37, item 8).
_NARROW = {"select", "slice", "index", "narrow", "index_select", "take_along_dim",
           "unbind", "split", "split_with_sizes", "unsafe_split", "unsafe_split_with_sizes",
           "tensor_split", "chunk"}
_RESHAPE = {"view", "_unsafe_view", "reshape", "_reshape_alias", "flatten", "as_strided"}
_ALIAS = {"detach", "alias"}
# Reads outside the dispatcher: the whole tensor is read.
_HOST_READS = ("tolist", "numpy", "__array__", "__dlpack__")


# True while this check's dispatch mode is installed: its handler runs with the
# mode popped and no Python frame of its own, so the profiler window asks here
# before it stops from a signal handler (profile_window._inside_a_callback).
MODE_INSTALLED = False


class _Entry:
    __slots__ = ("ref", "shape", "nbytes", "lead", "pairs", "after", "children", "used",
                 "group", "alias")

    def __init__(self, t, lead, after, group=None):
        # A weak reference: the window must not keep a tensor the program has let
        # go of (a vocabulary-sized logits tensor is 200 MB for GPT-2 at 8 x 128).
        self.ref = weakref.ref(t)
        self.shape = tuple(t.shape)
        self.nbytes = t.numel() * t.element_size()
        self.lead = lead
        n = 1
        for s in t.shape[:lead]:
            n *= int(s)
        self.pairs = n
        self.after = after
        self.children = 0
        self.used = False
        # Entries derived without narrowing cover the same pairs: one group, named
        # by the entry that narrowed (or the first entry); None: this one. Not
        # `self`: an entry referring to itself is a cycle that only the garbage
        # collector frees, and it held a model output (and its whole graph)
        # alive long after the program had let go of it.
        self.group = group
        # Made by detach/alias: autograd saves a detached alias of an output it
        # needs for backward (log_softmax's), which is no read of its own.
        self.alias = False


class LogitsCheck:
    code = "full-vocab-logits"

    def __init__(self, reg) -> None:
        self.reg = reg
        self.torch = reg.torch
        self.windows: list[dict] = []
        self.where: dict | None = None
        self._mode = None
        self._entries: dict[int, _Entry] = {}
        # Entries whose tensor died and whose id a new tensor took (CPython reuses
        # ids: lm-evaluation-harness's loop rebinds each row's slice to its
        # unsqueeze, and the next row's slice gets the freed id): kept for the
        # count of pairs read, which lost that row's read before.
        self._retired: list[_Entry] = []
        self._ops = 0
        self._positions = 0  # pairs at the vocabulary projection
        self._vocab = 0
        self._logits_bytes = 0
        self._op_ns = 0
        self._seen = 0
        self._steady_seen = 0
        self._steady_windows = 0
        self._window_steady = False
        self._first_windows = 0  # windows before the current model's
        self._loop = ""
        self._site = None
        self._model_generation = 0  # bumped when the main model is replaced
        self._taps: list = []  # tensor_taps handles of the open window
        self._observer = None  # the native handler of the open window's mode
        self._heads: dict[int, object] = {}  # id(root) -> weakref of its vocabulary Linear
        self._head_ns = 0  # time in the head during the current forward
        self._head_t0 = 0
        self._proj_ns: dict[int, int] = {}  # id(root) -> the head's last measured time
        self.probe_call = None
        self._spent = False  # the open window follows nothing more (MAX_OPS)
        self._end_hook = None  # its pre-hook on the model, which closes it
        self.stuck = 0  # windows whose mode an exit left installed (none expected)
        self.stray_ops = 0  # ops our handler saw with no window open (see STRAY_MAX)
        self._over_cost = False
        self._opened_inference = False  # inference mode was on where the window opened
        # An op of the window seen outside inference mode, where the window opened
        # inside it: the scope that opened it has ended (see close).
        self._left_scope = False
        # The program calls its model in one inference_mode scope per call
        # (cleanrl's acting): no window opens inside such a scope any more.
        self._no_inference_windows = False
        self.key_left_on = 0  # the Python dispatch key found on with no mode (see _key_check)
        self._entered = False  # a window of this check has opened (its mode entered)

    def new_model(self) -> None:
        """The main model was replaced (a reloaded checkpoint, the next model of a
        sweep): its loop gets windows of its own."""
        self.close()
        self._model_generation += 1
        self._seen = self._steady_seen = self._steady_windows = 0
        self._first_windows = len(self.windows)

    def on_pre(self, module, args, kwargs) -> None:
        if self._over_cost:
            self._switch_off()
            return
        self.close()
        if self._key_check():
            return
        ref = self._heads.get(id(module))
        head = ref() if ref is not None else None
        if head is not None and not self.torch.compiler.is_compiling():
            self._time_head(head)

    def _time_head(self, head) -> None:
        """One-shot hooks timing the vocabulary projection in this forward."""
        from fastenough.agent import step_hook
        from fastenough.agent.module_hooks import add_pre, remove

        self._head_ns = 0
        handles = []

        def pre(m, args):
            self._head_t0 = time.perf_counter_ns()
            for h in handles:
                remove(h)
            handles.clear()

        def post(m, args, out):
            if self._head_t0:
                self._head_ns += time.perf_counter_ns() - self._head_t0
                self._head_t0 = 0

        handles.append(add_pre(head, pre))
        step_hook.one_shot_post(head, post)

    def _find_head(self, module, vocab: int) -> None:
        """The model's Linear with `vocab` outputs (its lm_head), once per root."""
        key = id(module)
        if key in self._heads:
            return
        head = None
        for m in module.modules():
            if isinstance(m, self.torch.nn.Linear) and m.out_features == vocab:
                head = m
        self._heads[key] = weakref.ref(head) if head is not None else (lambda: None)

    def on_forward(self, module, args, kwargs, output) -> None:
        torch = self.torch
        if self._over_cost:
            self._switch_off()
            return
        self.close()
        if self._mode is not None:
            return  # the open window could not close here: no second mode on top of it
        if self._head_ns:
            self._proj_ns[id(module)] = self._head_ns
            self._head_ns = 0
        self._seen += 1
        if self._seen < 2 or torch.compiler.is_compiling():
            return
        if self.reg.profiling():
            # Not inside the profiler window: every op would run our Python
            # handler, which the window records (60 Linear layers, 8 rows: 29,388
            # Python events against 1,327 plain, its stop raising the peak RSS
            # 70 MiB for one step against a 64 MiB bound) and times as the
            # program's own. The next forward the rule picks opens it.
            return
        if self.reg.in_steady:
            self._steady_seen += 1
            if self._steady_windows >= STEADY_WINDOWS or self._steady_seen % STEADY_EVERY:
                return
        elif len(self.windows) - self._first_windows >= WINDOWS:
            return
        from fastenough.agent import compile_info

        if compile_info.dynamo_compiled():
            return
        if self._no_inference_windows and torch.is_inference_mode_enabled():
            return
        logits = getattr(output, "logits", None)
        named = isinstance(logits, torch.Tensor)
        t = logits if named else output
        if not isinstance(t, torch.Tensor) or t.dim() < 2 or not t.is_floating_point():
            return
        self._entries = {}
        self._retired = []
        self._ops = 0
        self._positions = 0
        self._op_ns = 0
        lead = min(2, t.dim() - 1)
        is_vocab = named or t.shape[-1] >= VOCAB_MIN
        e = _Entry(t, lead, is_vocab)
        self._entries[id(t)] = e
        if is_vocab:
            # The projection ran inside the forward: time it from the next one.
            self._mark_vocab(e)
            self._find_head(module, int(t.shape[-1]))
        self._root_key = id(module)
        self._window_steady = self.reg.in_steady
        if self._window_steady:
            self._steady_windows += 1
        self._call = (module, args, dict(kwargs))
        self._site = user_site(2)
        mode = "train" if module.training and torch.is_grad_enabled() else "eval"
        self._loop = f"{self._model_generation}:{mode}"
        self._opened_inference = torch.is_inference_mode_enabled()
        self._left_scope = False
        self._mode = _Mode(self)
        self._entered = True
        self._mode.__enter__()
        global MODE_INSTALLED
        MODE_INSTALLED = True
        self._spent = False
        self._tap_host_reads()
        # The window ends at the model's next call, which the checks may not
        # see (in a sampled steady loop only every SAMPLE_EVERY-th call comes
        # to Python): a pre-hook of its own closes it there.
        from fastenough.agent.module_hooks import add_pre

        self._end_hook = add_pre(module, self._end_window)

    def _mark_vocab(self, e: _Entry) -> None:
        if not self._positions:
            self._positions = e.pairs
            self._vocab = int(e.shape[-1])
            self._logits_bytes = e.nbytes

    def _tap_host_reads(self) -> None:
        from fastenough.agent import tensor_taps

        taps = tensor_taps.shared()
        tensor = self.torch.Tensor
        self._taps = [taps.add(tensor, name, self._host_read) for name in _HOST_READS]

    def _host_read(self, args, result, ns) -> None:
        t = args[0] if args else None
        e = self._entries.get(id(t))
        if e is not None and e.ref() is t:
            e.used = True
        if self._spent and self._mode is not None and not _inference_mode(self.torch):
            self.close()  # a close deferred out of an inference_mode scope (see close)

    def _end_window(self, module, args) -> None:
        self.close()

    def _key_check(self) -> bool:
        """The backstop, at the model's call (no handler of ours runs): the
        Python dispatch key on with no dispatch mode on the stack is a state in
        which the program's next factory op fails (see close). Only a scope that
        saved the keys while a mode of ours was installed leaves it, so it is
        ours: the key comes off, and the checks switch themselves off, saying
        why. True when it did."""
        if not self._entered:
            return False
        torch = self.torch
        try:
            python_key = torch._C.DispatchKey.Python
            if torch._C._len_torch_dispatch_stack() > 0 or \
                    not torch._C._dispatch_tls_is_dispatch_key_included(python_key):
                return False
            for key in (torch._C.DispatchKey.Python, torch._C.DispatchKey.PythonTLSSnapshot):
                torch._C._dispatch_tls_set_dispatch_key_included(key, False)
        except Exception:  # noqa: BLE001 - no such API: nothing to check
            return False
        self.key_left_on += 1
        self.reg.internal_error(
            "logits watch: the Python dispatch key was left on with no dispatch mode "
            "installed (a scope that saved the thread's dispatch keys while the "
            "full-vocab-logits window was open), so the checks switched themselves off")
        return True

    def _switch_off(self) -> None:
        """The guard tripped (STRAY_MAX): called where no handler of ours runs.
        Our modes on top of the dispatch stack come off, and the checks switch
        themselves off (registry.internal_error: checks.json and the report's
        measurement say the runtime checks stopped, and why)."""
        self._over_cost = False
        self._mode = None
        torch = self.torch
        mode_class = _MODE
        try:
            while mode_class is not None and torch._C._len_torch_dispatch_stack() > 0:
                top = torch._C._get_dispatch_stack_at(torch._C._len_torch_dispatch_stack() - 1)
                if not isinstance(top, mode_class):
                    break
                top.__exit__(None, None, None)
        except Exception:  # noqa: BLE001, S110 - the report still says it
            pass
        self.reg.internal_error(
            f"own cost: {self.stray_ops:,} of the program's ops went through the "
            "full-vocab-logits watch with no window open (a dispatch mode of fastenough's left "
            "installed), so the checks switched themselves off to stop slowing the program")

    def close(self) -> None:
        mode = self._mode
        if mode is None:
            return
        if not _on_top(self.torch, mode):
            # Not ours to pop now: inside our own handler (the dispatcher runs it
            # with the mode popped, and pushes it back after: an exit there is
            # undone, and the mode stayed installed for the rest of the run, every
            # op of the program through Python: issue 37, item 7), or under a
            # mode the program entered since. It closes at the next call.
            self._spent = True
            return
        if _inference_mode(self.torch) and (not self._opened_inference or self._left_scope):
            # An inference_mode scope entered since the window opened: it saved
            # the thread's dispatch keys with our mode's Python key on, and puts
            # them back when it exits. Popped here, the mode would be gone but
            # its key back on, with no mode on the stack: the program's next
            # factory op (torch.empty in a DataLoader's RandomSampler) fails
            # with torch's "Hit Python dispatch key but no arguments had
            # PyInterpreter". It closes at the next call outside the scope (or
            # the next host read of a tensor). A window opened inside a scope
            # whose ops were then seen outside it is in the same case (one scope
            # per call: its exit put the key off, the next op through the mode
            # put it back on, and this scope saved that), and no window opens
            # inside inference mode again.
            if self._left_scope:
                self._no_inference_windows = True
            self._spent = True
            return
        self._mode = None
        end_hook, self._end_hook = self._end_hook, None
        if end_hook is not None:
            from fastenough.agent.module_hooks import remove

            try:  # noqa: SIM105
                remove(end_hook)
            except Exception:  # noqa: BLE001, S110 - the module is gone
                pass
        global MODE_INSTALLED
        MODE_INSTALLED = False
        try:  # noqa: SIM105
            mode.__exit__(None, None, None)
        except Exception:  # noqa: BLE001, S110
            pass
        if _installed(self.torch, mode):
            self.stuck += 1  # none expected: the agent's cost guard would see the rest
        from fastenough.agent import tensor_taps

        taps = tensor_taps.shared()
        for tap in self._taps:
            taps.remove(tap)
        self._taps = []
        # The native handler holds this check (its observe): let go of it, or
        # the cycle through a native object is one the collector cannot see.
        observer, self._observer = self._observer, None
        if observer is not None and observer.errors:
            self.reg.internal_error("logits watch")
        if self._positions:
            # A group is read when one of its entries is a leaf or is consumed;
            # siblings (values and indices of max) count once.
            entries = [*self._entries.values(), *self._retired]
            groups = {id(e.group or e): (e.group or e).pairs for e in entries
                      if e.after and (e.used or (e.children == 0 and not e.alias))}
            read = sum(groups.values())
            read = min(read, self._positions)
            self.windows.append({"positions": self._positions, "positions_read": read,
                                 "vocab": self._vocab, "logits_bytes": self._logits_bytes,
                                 "op_ns": self._op_ns,
                                 "proj_ns": self._proj_ns.get(getattr(self, "_root_key", 0), 0),
                                 "steady": self._window_steady,
                                 "loop": self._loop, "site": self._site})
            if read * 2 <= self._positions and self.probe_call is None \
                    and self.reg.probe and "logits_to_keep" in _params(self._call[0]):
                self.probe_call = self._call
        self._entries = {}
        self._retired = []
        self._call = None

    def observe(self, func, args, kwargs, out, ns: int) -> None:
        own = getattr(self.reg, "own", None)  # each op here is the agent's cost (own_cost.py)
        if own is None:
            self._observe(func, args, kwargs, out, ns)
            return
        t0 = own.enter()
        try:
            self._observe(func, args, kwargs, out, ns)
        finally:
            own.leave(t0)

    def _observe(self, func, args, kwargs, out, ns: int) -> None:
        if self._mode is None:
            # No window open: a mode of ours outlived it; each op here is our cost.
            self.stray_ops += 1
            if self.stray_ops > STRAY_MAX:
                self._over_cost = True
            return
        torch = self.torch
        if self._opened_inference and not self._left_scope and \
                not torch.is_inference_mode_enabled():
            self._left_scope = True
        if self._spent:
            return
        self._ops += 1
        if self._ops > MAX_OPS:
            self._spent = True  # closed at the model's next call, not from here
            return
        ins = []
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, torch.Tensor):
                e = self._entries.get(id(a))
                if e is not None and e.ref() is a:
                    ins.append(e)
            elif isinstance(a, (list, tuple)):
                for b in a:
                    e = self._entries.get(id(b)) if isinstance(b, torch.Tensor) else None
                    if e is not None and e.ref() is b:
                        ins.append(e)
        if not ins:
            return
        packet = getattr(func, "overloadpacket", None)
        name = getattr(packet if packet is not None else func, "__name__", "")
        outs = out if isinstance(out, (tuple, list)) else (out,)
        src = ins[0]
        if any(e.after for e in ins):
            self._op_ns += ns
        made = False
        for o in outs:
            if not isinstance(o, torch.Tensor) or o is src.ref():
                continue
            new = None
            if o.dim() >= src.lead and tuple(o.shape[: src.lead]) == tuple(
                    src.shape[: src.lead]) and name not in _RESHAPE:
                new = _Entry(o, src.lead, src.after, src.group or src)
            elif name in _RESHAPE:
                # A reshape that only regroups the pair dims ([1, 64, D] -> [64, D]
                # and back: matmul decomposes that way at the dispatcher) keeps
                # the same pairs.
                feat = src.shape[src.lead:]
                lead = o.dim() - len(feat)
                if lead >= 0 and tuple(o.shape[lead:]) == feat \
                        and _prod(o.shape[:lead]) == src.pairs:
                    new = _Entry(o, lead, src.after, src.group or src)
            elif name in _NARROW or (name == "gather" and _dim(args, kwargs) < src.lead):
                feat = len(src.shape) - src.lead
                lead = o.dim() - feat
                if lead >= 0 and tuple(o.shape[lead:]) == src.shape[src.lead:]:
                    new = _Entry(o, lead, src.after)
            if new is None:
                continue
            if (not new.after and o.dim() > 0 and o.shape[-1] >= VOCAB_MIN
                    and o.shape[-1] != src.shape[-1]):
                new.after = True
                self._op_ns += ns
                self._mark_vocab(new)
            new.alias = name in _ALIAS
            old = self._entries.get(id(o))
            if old is not None:
                self._retired.append(old)
            self._entries[id(o)] = new
            src.children += 1
            made = True
        if not made:
            for e in ins:
                e.used = True

    def numbers(self) -> dict | None:
        """The windows of each loop (one model, one mode: training that reads
        every position for its loss is not the generation that follows) are read
        apart; the loop that leaves the largest share unread speaks, and sets
        where. Within a loop its steady windows speak when there are any (the
        first forwards of a growing generation loop see a short prefix), and of
        those the one that read the largest share (conservative)."""
        if not self.windows:
            return None
        loops: dict[str, list] = {}
        for w in self.windows:
            loops.setdefault(w.get("loop", ""), []).append(w)

        def unread_share(w) -> float:
            return (w["positions"] - w["positions_read"]) / max(1, w["positions"])

        picks = []
        for ws in loops.values():
            pool = [w for w in ws if w.get("steady")] or ws
            picks.append(min(pool, key=unread_share))
        w = max(picks, key=unread_share)
        unread = unread_share(w)
        self.where = w.get("site") if unread >= 0.5 else None
        n = {"positions": w["positions"], "positions_read": w["positions_read"],
             "vocab": w["vocab"], "logits_bytes_per_forward": w["logits_bytes"],
             "forwards": self.reg.examined, "loops": len(loops)}
        # The latest projection time of the loop's model (measured on a later
        # forward than the window's, at the run's own lengths).
        proj = max((x.get("proj_ns") or 0) for x in loops[w.get("loop", "")])
        # The vocabulary-sized ops' time per position: the most any window of
        # the loop took, at the chosen window's positions. One forward's timing
        # is one sample: the demo's (same ops, 64 positions each) read 1.9 to
        # 24 ms within one run, and its single steady window priced 18% of a step
        # where `fastenough ab` of the fix measured 25-45% (issue 37, item 2).
        op_ns = int(w["positions"] * max(x["op_ns"] / max(1, x["positions"])
                                         for x in loops[w.get("loop", "")]))
        full = op_ns + proj
        if full > 0:
            # Measured time of the projection and of the vocabulary-sized ops
            # after it, scaled by the unread share: what projecting only the
            # positions read saves at most.
            n["vocab_ops_ns_per_forward"] = op_ns
            if proj:
                n["projection_ns_per_forward"] = proj
            n["probe_full_ns"] = full
            n["probe_kept_ns"] = int(full * (1 - unread))
        return n


def _on_top(torch, mode) -> bool:
    """Whether `mode` is the innermost dispatch mode now (the one an exit pops)."""
    try:
        n = torch._C._len_torch_dispatch_stack()
        return n > 0 and torch._C._get_dispatch_stack_at(n - 1) is mode
    except Exception:  # noqa: BLE001 - no such API: exit as before
        return True


def _inference_mode(torch) -> bool:
    try:
        return bool(torch.is_inference_mode_enabled())
    except Exception:  # noqa: BLE001
        return False


def _installed(torch, mode) -> bool:
    try:
        return any(torch._C._get_dispatch_stack_at(i) is mode
                   for i in range(torch._C._len_torch_dispatch_stack()))
    except Exception:  # noqa: BLE001
        return False


def _prod(dims) -> int:
    n = 1
    for d in dims:
        n *= int(d)
    return n


def _dim(args, kwargs) -> int:
    d = kwargs.get("dim", args[1] if len(args) > 1 else -1)
    return d if isinstance(d, int) and d >= 0 else 99


def _params(module) -> set:
    import inspect

    try:
        return set(inspect.signature(module.forward).parameters)
    except (TypeError, ValueError):
        return set()


def _mode_class():
    import types

    from torch.utils._python_dispatch import TorchDispatchMode

    from fastenough import _core

    class Mode(TorchDispatchMode):
        def __init__(self, check):
            super().__init__()
            observer = _core.TorchFunctionObserver(check.observe)
            check._observer = observer
            # torch wants the handler bound to the mode (its __self__ is the mode).
            self.__torch_dispatch__ = types.MethodType(observer, self)

    return Mode


_MODE = None


def _Mode(check):  # noqa: N802 - a class factory, built once torch is imported
    global _MODE
    if _MODE is None:
        _MODE = _mode_class()
    return _MODE(check)
