"""`fastenough compare` on real files: safetensors written by the project's own
writer from torch tensors, .npy / .npz written by numpy (stored and deflated),
run directories; hand-computed verdicts, exit codes, the NaN and signed-zero
rules, shape/dtype mismatches, missing keys, and truncated or corrupt files
(a one-line error with the byte offset, exit 2, never a traceback)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import run_cli  # noqa: E402

import fastenough  # noqa: E402
from fastenough.agent.safetensors_writer import write_safetensors  # noqa: E402
from fastenough.errors import BadInputError, InputNotFoundError  # noqa: E402


def compare(*args):
    r = run_cli("compare", *map(str, args))
    assert "Traceback" not in r.stderr, r.stderr
    return r


def compare_json(*args):
    r = compare(*args, "--json")
    assert r.returncode in (0, 1), r.stderr
    doc = json.loads(r.stdout)
    assert doc["schema"] == "fastenough.compare/1"
    return r.returncode, doc


def test_identical_safetensors_are_bitwise_equal(tmp_path):
    t = {"logits": torch.randn(4, 5), "ids": torch.arange(6), "mask": torch.tensor([True, False]),
         "h": torch.randn(3).half(), "b": torch.randn(3).bfloat16(), "d": torch.randn(2).double()}
    write_safetensors(str(tmp_path / "a.safetensors"), t)
    write_safetensors(str(tmp_path / "b.safetensors"), t)
    rc, doc = compare_json(tmp_path / "a.safetensors", tmp_path / "b.safetensors")
    assert rc == 0
    assert doc["verdict"] == "bitwise-equal"
    assert doc["counts"]["paired"] == 6 and doc["counts"]["bitwise_equal"] == 6
    assert doc["worst"] == []
    dtypes = {k["key"]: k["dtype"] for k in doc["keys"]}
    assert dtypes == {"logits": "f32", "ids": "i64", "mask": "bool", "h": "f16", "b": "bf16",
                      "d": "f64"}
    r = compare(tmp_path / "a.safetensors", tmp_path / "b.safetensors")
    assert r.returncode == 0 and "Verdict: bitwise equal" in r.stdout


def test_one_item_in_a_thousand_is_named_though_the_mean_is_equal(tmp_path):
    a = {f"item{i:04d}": torch.full((8,), float(i)) for i in range(1000)}
    b = dict(a)
    # Item 417 is off by +1 in one element and item 418 by -1: the sum is unchanged.
    b["item0417"] = a["item0417"].clone()
    b["item0417"][3] += 1
    b["item0418"] = a["item0418"].clone()
    b["item0418"][5] -= 1
    assert sum(float(v.sum()) for v in a.values()) == sum(float(v.sum()) for v in b.values())
    write_safetensors(str(tmp_path / "a.safetensors"), a)
    write_safetensors(str(tmp_path / "b.safetensors"), b)
    rc, doc = compare_json(tmp_path / "a.safetensors", tmp_path / "b.safetensors")
    assert rc == 1 and doc["verdict"] == "differs"
    assert doc["counts"] == {"paired": 1000, "bitwise_equal": 998, "within_tolerance": 0,
                             "differs": 2, "shape_or_dtype_mismatch": 0, "missing": 0,
                             "extra": 0}
    worst = {k["key"]: k for k in doc["worst"]}
    assert set(worst) == {"item0417", "item0418"}
    k = worst["item0417"]
    assert k["beyond_tolerance"] == 1 and k["max_abs"] == 1.0
    assert k["worst"] == {"index": 3, "a": 417.0, "b": 418.0, "beyond_tolerance": True}
    assert k["max_rel"] == pytest.approx(1 / 417)
    r = compare(tmp_path / "a.safetensors", tmp_path / "b.safetensors")
    assert r.returncode == 1
    assert "item0417 (f32 8): 1/8 beyond tolerance" in r.stdout
    assert "worst at [3]: 417 vs 418" in r.stdout


def test_tolerances_per_dtype_and_ulp(tmp_path):
    # bf16: 1.0 vs 1.0078125 is 1 ULP, within the bf16 default rtol 1.6e-2; the same
    # step in f32 (7.8e-3) is beyond the f32 default.
    a = {"b": torch.tensor([1.0], dtype=torch.bfloat16), "f": torch.tensor([1.0])}
    b = {"b": torch.tensor([1.0078125], dtype=torch.bfloat16), "f": torch.tensor([1.0078125])}
    write_safetensors(str(tmp_path / "a.safetensors"), a)
    write_safetensors(str(tmp_path / "b.safetensors"), b)
    rc, doc = compare_json(tmp_path / "a.safetensors", tmp_path / "b.safetensors")
    keys = {k["key"]: k for k in doc["keys"]}
    assert keys["b"]["verdict"] == "within-tolerance" and keys["b"]["max_ulp"] == 1
    assert keys["f"]["verdict"] == "differs" and keys["f"]["max_ulp"] == 65536
    assert rc == 1
    rc, doc = compare_json(tmp_path / "a.safetensors", tmp_path / "b.safetensors",
                           "--rtol", "f32=1e-2")
    assert rc == 0 and doc["verdict"] == "within-tolerance"
    assert doc["rules"]["tolerances"]["f32"]["rtol"] == 1e-2
    rc, doc = compare_json(tmp_path / "a.safetensors", tmp_path / "b.safetensors",
                           "--atol", "0", "--rtol", "0", "--ulp", "65536")
    assert rc == 0
    rc, _ = compare_json(tmp_path / "a.safetensors", tmp_path / "b.safetensors", "--exact")
    assert rc == 1
    r = compare(tmp_path / "a.safetensors", tmp_path / "b.safetensors", "--atol", "i64=1")
    assert r.returncode == 2 and "integers are always exact" in r.stderr


def test_nan_and_signed_zero_rules(tmp_path):
    nan = float("nan")
    np.save(tmp_path / "a.npy", np.array([nan, 0.0, 1.0], dtype=np.float32))
    np.save(tmp_path / "b.npy", np.array([nan, -0.0, 1.0], dtype=np.float32))
    rc, doc = compare_json(tmp_path / "a.npy", tmp_path / "b.npy")
    k = doc["keys"][0]
    assert rc == 1 and k["key"] == "array"
    assert k["nan_mismatch"] == 1 and k["beyond_tolerance"] == 1  # NaN vs NaN
    assert k["worst"]["index"] == 0 and k["worst"]["a"] == "nan"
    rc, doc = compare_json(tmp_path / "a.npy", tmp_path / "b.npy", "--nan-equal")
    assert rc == 0 and doc["verdict"] == "within-tolerance"  # -0.0 vs 0.0: equal, not bitwise
    assert doc["keys"][0]["not_bitwise"] == 1 and doc["keys"][0]["max_ulp"] == 0
    rc, doc = compare_json(tmp_path / "a.npy", tmp_path / "b.npy", "--nan-equal", "--exact")
    assert rc == 1 and doc["keys"][0]["worst"]["index"] == 1
    # A file against itself with a NaN in it is not "equal" without --nan-equal.
    rc, doc = compare_json(tmp_path / "a.npy", tmp_path / "a.npy")
    assert rc == 1 and doc["keys"][0]["nan_mismatch"] == 1


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed])
def test_npz_stored_and_deflated(tmp_path, save):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((50, 20)).astype(np.float32)
    y = np.arange(10, dtype=np.int32)
    save(tmp_path / "a.npz", x=x, y=y)
    x2 = x.copy()
    x2[7, 3] += 0.5
    save(tmp_path / "b.npz", x=x2, y=y, z=np.zeros(2, dtype=np.float16))
    rc, doc = compare_json(tmp_path / "a.npz", tmp_path / "b.npz")
    assert rc == 1
    assert doc["extra"] == ["z"] and doc["missing"] == []
    keys = {k["key"]: k for k in doc["keys"]}
    assert keys["y"]["verdict"] == "bitwise-equal"
    assert keys["x"]["worst"]["index"] == 7 * 20 + 3
    assert keys["x"]["max_abs"] == pytest.approx(0.5, abs=1e-6)
    r = compare(tmp_path / "a.npz", tmp_path / "b.npz")
    assert "worst at [7, 3]" in r.stdout and "Only in B (extra): z" in r.stdout


def test_shape_and_dtype_mismatch_reported_per_key(tmp_path):
    write_safetensors(str(tmp_path / "a.safetensors"),
                      {"s": torch.zeros(2, 3), "d": torch.zeros(4), "ok": torch.ones(1)})
    write_safetensors(str(tmp_path / "b.safetensors"),
                      {"s": torch.zeros(3, 2), "d": torch.zeros(4).half(), "ok": torch.ones(1)})
    rc, doc = compare_json(tmp_path / "a.safetensors", tmp_path / "b.safetensors")
    assert rc == 1
    keys = {k["key"]: k for k in doc["keys"]}
    assert keys["s"]["mismatch"] == "shape" and keys["s"]["shape_b"] == [3, 2]
    assert keys["d"]["mismatch"] == "dtype" and keys["d"]["dtype_b"] == "f16"
    assert keys["ok"]["verdict"] == "bitwise-equal"
    r = compare(tmp_path / "a.safetensors", tmp_path / "b.safetensors")
    assert "s: shape [2, 3] vs [3, 2]" in r.stdout and "d: dtype f32 vs f16" in r.stdout


def test_folders_and_run_directories(tmp_path):
    for side, bump in (("A", 0.0), ("B", 1.0)):
        out = tmp_path / side / "outputs"
        (out / "rank1").mkdir(parents=True)
        write_safetensors(str(out / "s.safetensors"), {"scores": torch.tensor([1.0, 2.0])})
        write_safetensors(str(out / "rank1" / "s.safetensors"),
                          {"scores": torch.tensor([1.0, 2.0 + bump])})
        np.save(out / "extra.npy", np.ones(3))
        (tmp_path / side / "meta.json").write_text("{}")
    rc, doc = compare_json(tmp_path / "A", tmp_path / "B")
    assert rc == 1
    assert sorted(k["key"] for k in doc["keys"]) == ["extra", "rank1/scores", "scores"]
    assert [k["key"] for k in doc["worst"]] == ["rank1/scores"]
    assert doc["a"]["path"].endswith("outputs") and doc["a"]["files"] == 3
    rc, doc = compare_json(tmp_path / "A" / "outputs", tmp_path / "A")
    assert rc == 0 and doc["verdict"] == "bitwise-equal"
    (tmp_path / "C").mkdir()
    (tmp_path / "C" / "meta.json").write_text("{}")
    r = compare(tmp_path / "A", tmp_path / "C")
    assert r.returncode == 2 and "recorded no outputs" in r.stderr


def test_python_api_and_errors(tmp_path):
    write_safetensors(str(tmp_path / "a.safetensors"), {"x": torch.tensor([1.0, 2.0])})
    write_safetensors(str(tmp_path / "b.safetensors"), {"x": torch.tensor([1.0, 2.001])})
    r = fastenough.compare_paths(tmp_path / "a.safetensors", tmp_path / "b.safetensors")
    assert r["verdict"] == "differs"
    r = fastenough.compare_paths(tmp_path / "a.safetensors", tmp_path / "b.safetensors",
                                 f32=(1e-2, 0, 0))
    assert r["verdict"] == "within-tolerance"
    with pytest.raises(InputNotFoundError):
        fastenough.compare_paths(tmp_path / "nope", tmp_path / "b.safetensors")
    (tmp_path / "bad.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{\"x\":")
    with pytest.raises(BadInputError, match="bad.safetensors: truncated at byte 13"):
        fastenough.compare_paths(tmp_path / "bad.safetensors", tmp_path / "b.safetensors")


def test_truncated_files_name_file_and_offset(tmp_path):
    write_safetensors(str(tmp_path / "a.safetensors"), {"x": torch.arange(100.0)})
    data = (tmp_path / "a.safetensors").read_bytes()
    header = int.from_bytes(data[:8], "little")
    cut = 8 + header + 200  # inside the 400 data bytes
    (tmp_path / "t.safetensors").write_bytes(data[:cut])
    r = compare(tmp_path / "a.safetensors", tmp_path / "t.safetensors")
    assert r.returncode == 2
    assert r.stderr.strip() == (f"fastenough: {tmp_path / 't.safetensors'}: truncated at byte "
                                f"{cut}: tensor 'x' ends at byte {8 + header + 400}")
    np.savez_compressed(tmp_path / "a.npz", x=np.arange(1000.0))
    z = (tmp_path / "a.npz").read_bytes()
    (tmp_path / "t.npz").write_bytes(z[: len(z) // 2])
    r = compare(tmp_path / "a.npz", tmp_path / "t.npz")
    assert r.returncode == 2 and "t.npz" in r.stderr and "byte" in r.stderr


def test_fuzz_truncated_and_corrupted_bytes_never_crash(tmp_path):
    write_safetensors(str(tmp_path / "a.safetensors"),
                      {"x": torch.arange(16.0), "y": torch.ones(3)})
    np.save(tmp_path / "a.npy", np.arange(16.0))
    np.savez(tmp_path / "a.npz", x=np.arange(16.0))
    np.savez_compressed(tmp_path / "c.npz", x=np.arange(16.0))
    rng = random.Random(1)
    for name in ("a.safetensors", "a.npy", "a.npz", "c.npz"):
        good = (tmp_path / name).read_bytes()
        variants = [good[:n] for n in range(0, len(good), 7)]
        for _ in range(60):
            b = bytearray(good)
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(len(b))] = rng.randrange(256)
            variants.append(bytes(b))
        for i, v in enumerate(variants):
            p = tmp_path / f"v{i}{name[name.index('.'):]}"
            p.write_bytes(v)
            try:
                r = fastenough.compare_paths(tmp_path / name, p)
                assert r["verdict"] in ("bitwise-equal", "within-tolerance", "differs")
            except (BadInputError, InputNotFoundError) as e:
                assert str(p) in str(e)
