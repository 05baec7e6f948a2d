"""How fast is `fastenough compare` on two large safetensors files in the page cache?

Writes two safetensors files of --size-mb each (float32 tensors of 16 MiB; B is
A with every 1000th element nudged by one ULP, within tolerance, and one element
changed beyond it), then times, in the same run and on the same files:

  fastenough   fastenough.compare_paths(A, B): C++, mmap, one thread
  numpy        np.memmap of each tensor + np.abs(a - b).max() (the least a
               comparison can do: no tolerance test, no NaN rules, no ULPs)
  safetensors  safetensors.torch.load_file(A), load_file(B), then
               torch.testing.assert_close per tensor (skipped if not installed)

Each is run once to warm the page cache, then --repeat times; the median is
reported as GB/s of input read (both files) and as the ratio to fastenough.

    python bench/bench_compare.py                 # 2 x 1 GiB
    python bench/bench_compare.py --size-mb 256 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "out" / "compare"
TENSOR_ELEMS = 4 << 20  # 16 MiB of float32


def write_pair(size_mb: int) -> tuple[Path, Path]:
    import torch

    from fastenough.agent.safetensors_writer import write_safetensors

    OUT.mkdir(parents=True, exist_ok=True)
    a_path, b_path = OUT / f"a_{size_mb}MB.safetensors", OUT / f"b_{size_mb}MB.safetensors"
    if a_path.exists() and b_path.exists():
        return a_path, b_path
    n = max(1, (size_mb << 20) // (TENSOR_ELEMS * 4))
    g = torch.Generator().manual_seed(0)
    a = {f"t{i:04d}": torch.randn(TENSOR_ELEMS, generator=g) for i in range(n)}
    b = {}
    for k, t in a.items():
        u = t.clone()
        u[::1000] = torch.nextafter(u[::1000], torch.tensor(float("inf")))
        b[k] = u
    b["t0000"][12345] += 1.0  # the one element beyond tolerance
    write_safetensors(str(a_path), a)
    write_safetensors(str(b_path), b)
    return a_path, b_path


def header(path: Path) -> tuple[int, dict]:
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return 8 + n, json.loads(f.read(n))


def run_fastenough(a: Path, b: Path) -> str:
    import fastenough

    return fastenough.compare_paths(a, b)["verdict"]


def run_numpy(a: Path, b: Path) -> float:
    start_a, ha = header(a)
    start_b, hb = header(b)
    worst = 0.0
    for k, e in ha.items():
        lo, hi = e["data_offsets"]
        x = np.memmap(a, dtype=np.float32, mode="r", offset=start_a + lo, shape=((hi - lo) // 4,))
        lo, hi = hb[k]["data_offsets"]
        y = np.memmap(b, dtype=np.float32, mode="r", offset=start_b + lo, shape=((hi - lo) // 4,))
        worst = max(worst, float(np.abs(x - y).max()))
    return worst


def run_safetensors(a: Path, b: Path) -> int:
    import torch
    from safetensors.torch import load_file

    ta, tb = load_file(str(a)), load_file(str(b))
    failed = 0
    for k in ta:
        try:
            torch.testing.assert_close(tb[k], ta[k])
        except AssertionError:
            failed += 1
    return failed


def timed(fn, repeat: int) -> tuple[float, object]:
    result = fn()  # warm the page cache (and imports)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size-mb", type=int, default=1024, help="size of each file (default 1024)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per method (default 3)")
    args = p.parse_args()
    a, b = write_pair(args.size_mb)
    total = os.path.getsize(a) + os.path.getsize(b)
    rows = [("fastenough", *timed(lambda: run_fastenough(a, b), args.repeat))]
    rows.append(("numpy memmap abs-max", *timed(lambda: run_numpy(a, b), args.repeat)))
    try:
        import safetensors  # noqa: F401

        rows.append(("safetensors + assert_close",
                     *timed(lambda: run_safetensors(a, b), args.repeat)))
    except ImportError:
        print("safetensors not installed: that baseline is skipped")
    base = rows[0][1]
    print(f"two files, {total / 1e9:.2f} GB read per comparison; median of {args.repeat}")
    print(f"{'method':28} {'seconds':>8} {'GB/s':>7} {'time / fastenough':>18}  result")
    for name, secs, result in rows:
        print(f"{name:28} {secs:8.3f} {total / secs / 1e9:7.2f} {secs / base:18.2f}  {result}")


if __name__ == "__main__":
    main()
