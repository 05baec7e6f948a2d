"""Writes the seed inputs of the libFuzzer targets (cpp/tools/*_fuzzer.cc) into
the folders beside this file; scripts/sanitize.sh hands each target its folder.
Run again after changing it: `python tests/data/fuzz/make_seeds.py` (numpy and
safetensors, which the test set-up installs)."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import numpy as np
from safetensors.numpy import save

HERE = Path(__file__).resolve().parent
TRACES = HERE.parent / "traces"


def _write(folder: str, name: str, data: bytes) -> None:
    (HERE / folder).mkdir(exist_ok=True)
    (HERE / folder / name).write_bytes(data)


def main() -> None:
    rng = np.random.default_rng(0)
    arrays = {
        "f32": rng.standard_normal(6).astype(np.float32),
        "i64_2d": np.arange(6, dtype=np.int64).reshape(2, 3),
        "f16": np.array([1.5, -0.0, np.inf], dtype=np.float16),
        "bool": np.array([True, False, True]),
        "u8_empty": np.zeros((0, 3), dtype=np.uint8),
        "f64_scalar": np.array(3.25),
    }
    _write("safetensors", "mixed.safetensors", save(arrays, metadata={"note": "seed"}))
    _write("safetensors", "one.safetensors", save({"x": arrays["f32"]}))
    for name, a in arrays.items():
        buf = io.BytesIO()
        np.save(buf, a)
        _write("npy", f"{name}.npy", buf.getvalue())
    buf = io.BytesIO()
    np.save(buf, np.asfortranarray(arrays["i64_2d"]))
    _write("npy", "fortran.npy", buf.getvalue())
    buf = io.BytesIO()
    np.save(buf, arrays["f32"].astype(">f4"))
    _write("npy", "big_endian.npy", buf.getvalue())
    for compressed, name in ((False, "stored.npz"), (True, "deflated.npz")):
        buf = io.BytesIO()
        (np.savez_compressed if compressed else np.savez)(buf, **arrays)
        _write("npz", name, buf.getvalue())
    for trace in sorted(TRACES.glob("*.json")):
        _write("gzip", trace.name + ".gz", gzip.compress(trace.read_bytes(), mtime=0))
    two = sorted(TRACES.glob("*.json"))[0].read_bytes()
    half = len(two) // 2
    _write("gzip", "two_members.json.gz",
           gzip.compress(two[:half], mtime=0) + gzip.compress(two[half:], mtime=0))


if __name__ == "__main__":
    main()
