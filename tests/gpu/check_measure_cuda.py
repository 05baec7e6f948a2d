"""GPU check of the measurement API (not collected by pytest; scripts/gpu_check.sh
runs it). On one CUDA device, in well under 5 minutes:

  windows     a tiny kernel where launch overhead dominates: plain must be clearly
              longer than dummy and graph (plain/dummy and plain/graph > 1.5)
  margin      every dummy round kept a positive margin (the dummy outlived the
              host's submission of the batch)
  sleep       a known device job (torch.cuda._sleep, calibrated) timed by the dummy
              window lands within 10% of its calibrated length
  flush_l2    flush_l2 overwrites L2_cache_size bytes, and a cold first call
              (n=1) is not faster than a warm one
  sweep       a batch sweep up to a real out-of-memory stops there, with peaks
  abba        fp32 vs bf16 matmul: B faster, outputs reported as different;
              identical functions: no difference
  graph_fail  a function with a host sync (.item()) fails capture with the message

Prints one line per check, then one JSON line with every figure. Exit status: 0
all passed (or CUDA absent: skipped, said so), 1 a check failed.
"""

from __future__ import annotations

import json
import sys
import time
import traceback


def main() -> int:
    try:
        import torch
    except ImportError:
        return _skip("torch is not installed")
    if not torch.cuda.is_available():
        return _skip("CUDA is not available on this machine (torch.cuda.is_available() "
                     "is False)")
    import warnings

    import fastenough
    from fastenough.errors import GraphCaptureError, MeasurementWarning

    warnings.simplefilter("ignore", MeasurementWarning)
    dev = "cuda"
    summary = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "checks": {}}
    began = time.perf_counter()

    def check(name, fn):
        t0 = time.perf_counter()
        try:
            ok, figures = fn()
        except Exception as exc:  # noqa: BLE001 - a check that crashes is a failed check
            ok, figures = False, {"error": f"{type(exc).__name__}: {exc}",
                                  "traceback": traceback.format_exc(limit=4)}
        figures["seconds"] = round(time.perf_counter() - t0, 2)
        summary["checks"][name] = {"ok": ok, **figures}
        shown = {k: v for k, v in figures.items() if k != "traceback"}
        print(f"{'PASS' if ok else 'FAIL'} {name}: {json.dumps(shown)}", flush=True)

    x = torch.ones(16, device=dev)

    def windows():
        r = fastenough.time(torch.add, x, x, n=200, rounds=5, window="all")
        print(r)
        pd, pg = r.plain_over_dummy, r.plain_over_graph
        figs = {w: r[w].median_s for w in ("plain", "dummy", "graph")}
        figs.update(plain_over_dummy=pd, plain_over_graph=pg,
                    dummy_margins_s=r["dummy"].margins_s)
        summary["windows_result"] = r.to_dict()
        return bool(pd and pg and pd > 1.5 and pg > 1.5), figs

    def margin():
        r = fastenough.time(torch.add, x, x, n=1000, rounds=5, window="dummy")
        return min(r.margins_s) > 0, {"margins_s": r.margins_s, "warnings": r.warnings}

    def sleep():
        from fastenough.measure.timers.cuda import CudaTimer

        t = CudaTimer("cuda:0")
        t.queue_spin(0.001)  # calibrates
        cycles = int(0.0005 * t._cycles_per_s)  # a 0.5 ms job
        r = fastenough.time(torch.cuda._sleep, cycles, n=20, rounds=5, window="dummy",
                            device="cuda:0")
        return abs(r.median_s - 0.0005) < 0.05e-3, {"median_s": r.median_s,
                                                   "expected_s": 0.0005}

    def graph_fail():
        def syncs(t):
            return t.sum().item()

        try:
            fastenough.time(syncs, x, n=10, rounds=2, window="graph")
        except GraphCaptureError as exc:
            return "graph capture of syncs failed" in str(exc), {"message": str(exc)}
        return False, {"message": "no error raised"}

    def flush_l2():
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        buf = torch.ones(l2 // 8, device=dev)  # half the L2, in fp32
        warm = fastenough.time(torch.sum, buf, n=1, rounds=20, warmup=20)
        cold = fastenough.time(torch.sum, buf, n=1, rounds=20, warmup=20, flush_l2=True)
        ok = cold.flush_l2_bytes == l2 and cold.median_s >= 0.95 * warm.median_s
        return ok, {"l2_bytes": l2, "warm_s": warm.median_s, "cold_s": cold.median_s}

    def sweep():
        def make(n):  # n x 2 GiB: runs out well before 512 on any current GPU
            return torch.empty(n * (1 << 29), dtype=torch.float32, device=dev)

        r = fastenough.sweep_batch(lambda b: b.fill_(1.0), make,
                                   sizes=[1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
                                   rounds=2, warmup=1)
        print(r)
        torch.cuda.empty_cache()
        peaks = [p.get("peak_bytes") for p in r.points]
        ok = r.out_of_memory_at is not None and all(p for p in peaks[:-1])
        return ok, {"out_of_memory_at": r.out_of_memory_at, "knee": r.knee, "peaks": peaks}

    def abba():
        a32 = [torch.randn(2048, 2048, device=dev) for _ in range(4)]
        prev = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = False
        try:
            r = fastenough.abba(lambda m: m @ m, lambda m: (m.bfloat16() @ m.bfloat16()).float(),
                                a32, rounds=2)
            same = fastenough.abba(lambda m: m @ m, lambda m: m @ m, a32, rounds=3,
                                   confidence=0.999)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = prev
        print(r)
        ok = r.ratio["high"] < 1 and not r.outputs_agree and same.outputs_agree
        return ok, {"bf16_over_fp32": r.ratio, "identical": same.ratio,
                    "identical_verdict": same.verdict}

    # graph_fail last: a failed capture can leave the stream in an error state.
    for name, fn in (("windows", windows), ("margin", margin), ("sleep", sleep),
                     ("flush_l2", flush_l2), ("sweep", sweep), ("abba", abba),
                     ("graph_fail", graph_fail)):
        check(name, fn)
    summary["seconds"] = round(time.perf_counter() - began, 1)
    summary["all_ok"] = all(c["ok"] for c in summary["checks"].values())
    print(json.dumps(summary, default=str))
    return 0 if summary["all_ok"] else 1


def _skip(reason: str) -> int:
    print(f"SKIP gpu check: {reason}")
    print(json.dumps({"skipped": True, "reason": reason}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
