"""fastenough.time: device timing of one op in the plain, dummy and graph windows.

    r = fastenough.time(torch.matmul, a, b)            # plain window, 5 rounds x 100
    r = fastenough.time(layer, x, window="all")        # is launch overhead the problem?
    print(r); r.to_dict()

Order of work: choose the timer (the inputs' device), warm up (adaptive by
default), then each window's rounds; windows are never merged.
"""

from __future__ import annotations

import sys
import warnings

from fastenough.errors import (
    GraphCaptureError,
    MeasurementWarning,
    UsageError,
    WindowUnavailableError,
)
from fastenough.measure.result import NOISY_IQR_SHARE, TimingResult, WindowsResult
from fastenough.measure.timers import timer_for
from fastenough.measure.warmup import warm_up
from fastenough.measure.windows import WINDOWS, definition, run_dummy, run_graph, run_plain

# The dummy job lasts this many times the host's submission time of the batch
# (measured during warmup), and at least DUMMY_MIN_S.
DUMMY_FACTOR = 2.0
DUMMY_MIN_S = 1e-3
DUMMY_NOTE = ("the dummy job keeps the device busy before the batch; it may raise clocks "
              "and evict caches, so compare dummy with plain on the same device only")


def describe_inputs(args, kwargs) -> list[str]:
    torch = sys.modules.get("torch")
    if torch is None:
        return []
    out = []
    for v in list(args) + list(kwargs.values()):
        if isinstance(v, torch.Tensor):
            dtype = str(v.dtype).replace("torch.", "")
            out.append(f"{dtype}[{', '.join(str(d) for d in v.shape)}]")
    return out


def _fn_name(fn) -> str:
    # __name__ first: torch's builtins have qualnames like "_VariableFunctionsClass.add".
    name = getattr(fn, "__name__", None)
    return name if isinstance(name, str) and name else type(fn).__name__


def _graph_failure(fn, exc: BaseException) -> GraphCaptureError:
    return GraphCaptureError(
        f"graph capture of {_fn_name(fn)} failed ({type(exc).__name__}: "
        f"{str(exc).splitlines()[0] if str(exc) else ''}). Graph replay needs static shapes "
        "and no host synchronisation inside the function (.item(), .cpu(), printing a "
        "tensor, data-dependent shapes such as nonzero or masked_select); use "
        "window='plain' or 'dummy' for this function")


def time(fn, *args, n: int = 100, rounds: int = 5, window: str = "plain", warmup="auto",
         flush_l2: bool = False, device=None, **kwargs):
    """Time `fn(*args, **kwargs)` on the device its inputs live on.

    n calls per round between one pair of device events, divided by n; `rounds`
    rounds kept raw. window: "plain", "dummy", "graph", or "all" (the three side by
    side, with plain/dummy). warmup: "auto" (plain rounds until two consecutive ones
    agree within 5%, at most 20 rounds or 10 s) or a number of calls. flush_l2:
    zero a buffer of the cache's size before each round, outside the timed window.
    device: the device to time on when the inputs do not say it (e.g. no tensor
    arguments). Returns a TimingResult (WindowsResult for "all")."""
    if window not in (*WINDOWS, "all"):
        raise UsageError(f"window must be one of plain, dummy, graph, all, not {window!r}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise UsageError(f"n must be a number of calls >= 1, not {n!r}")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise UsageError(f"rounds must be >= 1, not {rounds!r}")
    timer = timer_for(device, args, kwargs, fn)
    wanted = WINDOWS if window == "all" else (window,)
    unavailable = {}
    for w in wanted:
        why = timer.dummy_unavailable if w == "dummy" else \
            timer.graph_unavailable if w == "graph" else None
        if why is not None:
            prefix = "needs a CUDA/NPU device" if timer.kind == "cpu" else \
                f"is not available on {timer.device}"
            unavailable[w] = f"{prefix}: {why}"
    if window != "all" and unavailable:
        raise WindowUnavailableError(f"window {window!r} {unavailable[window]}")

    def call():
        return fn(*args, **kwargs)

    flush = None
    flush_bytes = None
    flush_note = None
    if flush_l2:
        flush_bytes, source = timer.cache_bytes()
        flush = timer.flush_buffer(flush_bytes)
        flush_note = f"flush_l2: {flush_bytes} bytes zeroed before each round ({source}); " \
                     "only the first call of a round starts from a cold cache"

    rec = warm_up(timer, call, n, warmup)
    common = dict(fn=_fn_name(fn), device=timer.device, device_name=timer.name,
                  inputs=describe_inputs(args, kwargs), n=n, warmup=rec.to_dict(),
                  flush_l2_bytes=flush_bytes)
    results: dict[str, TimingResult] = {}
    for w in wanted:
        if w in unavailable:
            continue
        notes = [flush_note] if flush_note else []
        warns: list[str] = []
        margins: list[float] = []
        spin_s = None
        if w == "plain":
            got = run_plain(timer, call, n, rounds, flush)
        elif w == "dummy":
            host = rec.host_submit_s
            if host is None:  # no full warmup round: measure the submission time once
                host = run_plain(timer, call, n, 1).host_submit_s[0]
            spin_s = max(DUMMY_MIN_S, DUMMY_FACTOR * host)
            got = run_dummy(timer, call, n, rounds, spin_s, flush)
            margins = got.margins_s
            notes.append(DUMMY_NOTE)
            short = [m for m in margins if m <= 0]
            if short:
                warns.append(
                    f"the dummy ran out in {len(short)} of {rounds} rounds (by up to "
                    f"{-min(short) * 1e6:.0f} us): the host was still submitting when the "
                    "device finished it, so those rounds may include queue gaps")
        else:
            try:
                replay = timer.capture(call, n)
            except Exception as exc:  # noqa: BLE001 - any capture failure gets one message
                err = _graph_failure(fn, exc)
                if window != "all":
                    raise err from exc
                unavailable[w] = str(err)
                continue
            got = run_graph(timer, replay, rounds, flush)
        r = TimingResult(window=w, definition=definition(w, timer.kind, n, spin_s),
                         round_totals_s=got.totals_s, notes=notes, warnings=warns,
                         margins_s=margins, **common)
        share = r.iqr_share
        if share is not None and share > NOISY_IQR_SHARE:
            r.warnings.append(
                f"IQR is {share:.0%} of the median (> {NOISY_IQR_SHARE:.0%}): the rounds "
                "disagree; check for other jobs on the device, raise n or rounds")
        if rec.converged is False:
            r.warnings.append(f"warmup stopped at the {rec.stopped} before two rounds agreed: "
                              "the timed rounds may still include first-call effects")
        for msg in r.warnings:
            warnings.warn(f"fastenough.time({r.fn}, window={w}): {msg}", MeasurementWarning,
                          stacklevel=2)
        results[w] = r
    if window != "all":
        return results[window]
    return WindowsResult(results=results, unavailable=unavailable)
