"""`fastenough analyze --device NAME --peaks FILE.json` (docs/roofline.md): the
roofline held to the device named where the trace does not say, the table
overridden by a file, and every bad input refused with exit 2 and the reason."""

from __future__ import annotations

import json
import os

import pytest

BF16 = ["c10::BFloat16", "c10::BFloat16"]


def _trace(with_device: bool) -> dict:
    """Two bf16 mm calls of [256, 512] x [512, 1024], one 10 us kernel each (as
    tests/cpp/roofline/rank_roofline_test.cc's SyntheticTrace): 268,435,456 FLOPs
    and 1,835,008 bytes per call."""
    ev = []
    for i, ts in enumerate((0, 100)):
        ext, corr = i + 1, 101 + i
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
                   "ts": ts, "dur": 50, "args": {"External id": ext,
                                                  "Input Dims": [[256, 512], [512, 1024]],
                                                  "Input type": BF16}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                   "tid": 1, "ts": ts + 10, "dur": 2,
                   "args": {"correlation": corr, "External id": ext}})
        ev.append({"ph": "X", "cat": "kernel",
                   "name": "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn", "pid": 0,
                   "tid": 7, "ts": ts + 20, "dur": 10,
                   "args": {"device": 0, "stream": 7, "correlation": corr,
                            "External id": ext}})
    doc: dict = {"traceEvents": ev}
    if with_device:
        doc["deviceProperties"] = [{"id": 0, "name": "NVIDIA A100-SXM4-80GB",
                                    "totalGlobalMem": 85198045184, "computeMajor": 8,
                                    "computeMinor": 0, "numSms": 108}]
    return doc


@pytest.fixture
def bare(tmp_path):
    p = tmp_path / "bare.json"
    p.write_text(json.dumps(_trace(False)))
    return p


def _row(proc) -> dict:
    assert proc.returncode == 0, proc.stderr
    (rank,) = json.loads(proc.stdout)["roofline"]["per_rank"]
    (row,) = rank["ops"]
    return row


def assert_refused(proc, *needles: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    for n in needles:
        assert n in proc.stderr, proc.stderr


def test_without_device_the_percentages_are_null(cli, bare):
    row = _row(cli("analyze", "--json", bare))
    assert row["pct_of_compute_peak"] is None
    assert "--device" in " ".join(row["notes"])


def test_device_named_where_the_trace_has_no_properties(cli, bare):
    # 2 * 268,435,456 / 20e-6 s = 2.68435456e13 FLOP/s = 2.712839 % of the H100 SXM5's
    # 989.5e12 (BF16); 2 * 1,835,008 / 20e-6 = 1.835008e11 B/s = 5.477636 % of 3.35e12.
    row = _row(cli("analyze", "--json", "--device", "H100 SXM", bare))
    assert row["peak"]["device"] == "NVIDIA H100 SXM5 80GB"
    assert row["pct_of_compute_peak"] == pytest.approx(2.712839, abs=1e-5)
    assert row["pct_of_memory_peak"] == pytest.approx(5.477636, abs=1e-5)
    assert "--device H100 SXM" in row["peak"]["source"]


def test_the_trace_s_own_device_wins(cli, tmp_path):
    p = tmp_path / "a100.json"
    p.write_text(json.dumps(_trace(True)))
    row = _row(cli("analyze", "--json", "--device", "MI300X", p))
    assert row["peak"]["device"] == "NVIDIA A100 SXM4 80GB"  # 8.603700 % of 312e12
    assert row["pct_of_compute_peak"] == pytest.approx(8.603700, abs=1e-5)


def test_peaks_file_overrides_an_entry(cli, tmp_path):
    p = tmp_path / "a100.json"
    p.write_text(json.dumps(_trace(True)))
    peaks = tmp_path / "peaks.json"
    peaks.write_text(json.dumps({"devices": [{"name": "NVIDIA A100-SXM4-80GB",
                                              "tflops": {"bf16": 100},
                                              "source": "our measurement"}]}))
    # 2.68435456e13 / 100e12 = 26.843546 %
    row = _row(cli("analyze", "--json", "--peaks", peaks, p))
    assert row["pct_of_compute_peak"] == pytest.approx(26.843546, abs=1e-5)
    assert "our measurement" in row["peak"]["source"]


def test_a_device_the_peaks_file_adds_can_be_named(cli, tmp_path, bare):
    peaks = tmp_path / "peaks.json"
    peaks.write_text(json.dumps({"devices": [{"name": "Ascend910B3",
                                              "tflops": {"bf16": 313},
                                              "memory_tb_per_s": 1.6}]}))
    proc = cli("analyze", "--json", "--peaks", peaks, "--device", "Ascend910B3", bare)
    row = _row(proc)
    assert row["peak"]["device"] == "Ascend910B3"
    # 2.68435456e13 / 313e12 = 8.576213 %
    assert row["pct_of_compute_peak"] == pytest.approx(8.576213, abs=1e-5)


def test_the_terminal_shows_the_named_device(cli, bare):
    proc = cli("analyze", "--device", "H100 SXM", bare)
    assert proc.returncode == 0, proc.stderr
    assert "How close to the roof" in proc.stdout
    assert "H100" in proc.stdout


def test_unknown_device_lists_close_names(cli, bare):
    assert_refused(cli("analyze", "--device", "H1000", bare),
                   "--device", "H1000", "close names", "NVIDIA H100 SXM5 80GB")
    assert_refused(cli("analyze", "--device", "", bare), "--device")
    assert_refused(cli("analyze", "--device", "a\x1b[31mb", bare), "\\x1b")


@pytest.mark.parametrize(("content", "needle"), [
    (b"not json", "not valid JSON"),
    (b"[1, 2]", "not a JSON object"),
    (b'{"devices": [{"name": "X"}]}', "--peaks"),
    (b'{"devices": [{"name": "NVIDIA A100-SXM4-80GB", "tflops": {"bf16": -1}}]}', "--peaks"),
    (b'{"devices": [{"name": "NVIDIA A100-SXM4-80GB", "tflops": {"bf16": 1e999}}]}',
     "--peaks"),
    (b'{"devices": [{"name": "NVIDIA A100-SXM4-80GB", "tflops": {"bf16": NaN}}]}', "--peaks"),
    (b"\xff\xfe{}", "UTF-8"),
    (b"[" * 100000, "nested"),
    (b'{"devices": [' + b" " * (2 << 20) + b"]}", "larger than"),
])
def test_hostile_peaks_files_are_refused(cli, tmp_path, bare, content, needle):
    peaks = tmp_path / "peaks.json"
    peaks.write_bytes(content)
    assert_refused(cli("analyze", "--peaks", peaks, bare), needle)


def test_missing_fifo_and_directory_peaks_are_refused(cli, tmp_path, bare):
    assert_refused(cli("analyze", "--peaks", tmp_path / "absent.json", bare), "absent.json")
    fifo = tmp_path / "peaks.fifo"
    os.mkfifo(fifo)
    assert_refused(cli("analyze", "--peaks", fifo, bare, timeout=60), "peaks.fifo")
    assert_refused(cli("analyze", "--peaks", tmp_path, bare), "--peaks")


def test_help_names_the_options(cli):
    out = cli("analyze", "--help").stdout
    assert "--device NAME" in out
    assert "--peaks FILE.json" in out
