"""`fastenough compare` reads safetensors files as strictly as the reference
loader (the `safetensors` package): what it refuses, we refuse with a one-line
error (exit 2), what it reads, we read. A name given twice is refused too,
where the reference keeps the last one silently (a duplicate key compared
"bitwise equal" before)."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

safetensors_numpy = pytest.importorskip("safetensors.numpy")

DATA = np.arange(4, dtype=np.float32).tobytes()  # 16 bytes


def _file(path, header: str, data: bytes = DATA):
    h = header.encode()
    h += b" " * (-len(h) % 8)
    path.write_bytes(struct.pack("<Q", len(h)) + h + data)
    return path


def _t(name: str, shape: int, begin: int, end: int) -> str:
    return f'"{name}":{{"dtype":"F32","shape":[{shape}],"data_offsets":[{begin},{end}]}}'


CASES = {
    "tiled": "{" + _t("a", 2, 0, 8) + "," + _t("b", 2, 8, 16) + "}",
    "tiled, out of order, an empty one": "{" + ",".join(
        [_t("b", 2, 8, 16), _t("e", 0, 8, 8), _t("a", 2, 0, 8)]) + "}",
    "overlap": "{" + _t("a", 4, 0, 16) + "," + _t("b", 2, 8, 16) + "}",
    "same bytes twice": "{" + _t("a", 4, 0, 16) + "," + _t("b", 4, 0, 16) + "}",
    "gap": "{" + _t("a", 2, 0, 8) + "," + _t("b", 1, 12, 16) + "}",
    "bytes left over": "{" + _t("a", 2, 0, 8) + "}",
    "duplicate name, other bytes": "{" + _t("a", 2, 0, 8) + "," + _t("a", 2, 8, 16) + "}",
}


def _reference_reads(path) -> bool:
    try:
        safetensors_numpy.load_file(str(path))
        return True
    except Exception:  # noqa: BLE001 - any refusal
        return False


@pytest.mark.parametrize("case", sorted(CASES))
def test_as_strict_as_the_reference_loader(tmp_path, cli, case):
    f = _file(tmp_path / "x.safetensors", CASES[case])
    r = cli("compare", f, f)
    assert "Traceback" not in r.stderr
    if _reference_reads(f):
        assert r.returncode == 0, r.stderr
    else:
        assert r.returncode == 2, (r.stdout, r.stderr)
        assert "x.safetensors" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_duplicate_name_is_refused_even_where_the_reference_keeps_one(tmp_path, cli):
    f = _file(tmp_path / "dup.safetensors", "{" + _t("a", 4, 0, 16) + "," + _t("a", 4, 0, 16) + "}")
    assert _reference_reads(f)  # the reference keeps the last 'a'
    r = cli("compare", f, f)
    assert r.returncode == 2, r.stdout
    assert "tensor 'a' is named twice in the header" in r.stderr


def test_files_the_reference_writes_are_read(tmp_path, cli):
    tensors = {"w": np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32),
               "ids": np.arange(7, dtype=np.int64), "empty": np.zeros((0, 2), dtype=np.float16)}
    safetensors_numpy.save_file(tensors, str(tmp_path / "a.safetensors"),
                                metadata={"note": "x"})
    r = cli("compare", tmp_path / "a.safetensors", tmp_path / "a.safetensors", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["verdict"] == "bitwise-equal"
