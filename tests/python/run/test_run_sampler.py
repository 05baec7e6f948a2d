"""The sampler through the Python binding and through `fastenough run`: procfs
rows for a known busy child, the stand-in NVML library (tests/data/nvml), the
recorded npu-smi output, device-shared and visible-device mapping."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import DATA, run_cli

from fastenough.supervisor.devices import visible_mapping

_core = pytest.importorskip("fastenough._core")


@pytest.fixture(scope="module")
def fake_nvml(tmp_path_factory) -> Path:
    cxx = shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler to build the stand-in NVML library")
    out = tmp_path_factory.mktemp("nvml") / "libfake-nvml.so"
    subprocess.run([cxx, "-shared", "-fPIC", "-O1", "-o", str(out),
                    str(DATA / "nvml" / "fake_nvml.cc")], check=True)
    return out


def read_rows(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_proc_rows_for_busy_child(tmp_path):
    # The child says when it runs Python: a sample taken while it is still being
    # exec'd sees a process of a few hundred KiB, on a loaded machine now and then.
    busy = subprocess.Popen([sys.executable, "-c",
                             "import time\nprint('ready', flush=True)\n"
                             "t=time.time()+2\nwhile time.time()<t: pass"],
                            stdout=subprocess.PIPE, text=True)
    assert busy.stdout.readline().strip() == "ready"
    csv_path = tmp_path / "samples.csv"
    s = _core.Sampler(str(csv_path), hz=10, nvml=False, npu_smi=False)
    s.start()
    s.set_root_pid(busy.pid)
    time.sleep(1.0)
    s.stop()
    busy.kill()
    busy.wait()
    rows = read_rows(csv_path)
    assert list(rows[0].keys()) == ["wall_ns", "source", "device", "util_pct", "mem_used_bytes",
                                    "mem_total_bytes", "power_w", "sm_clock_mhz", "cpu_pct",
                                    "rss_bytes"]
    assert rows and {r["source"] for r in rows} == {"proc", "proc-pid"}
    assert all(r["util_pct"] == "" for r in rows)  # absent, never 0
    tree = [r for r in rows if r["source"] == "proc"]
    cpu = [float(r["cpu_pct"]) for r in tree if r["cpu_pct"]]
    assert len(cpu) >= 3
    # a spinning child: well above an idle one (the machine is shared, so not ~100)
    assert max(cpu) > 20
    assert all(int(r["rss_bytes"]) > 1_000_000 for r in tree if r["rss_bytes"])
    # Who used the CPU: the child alone (it has no children), at most one row
    # per tick, each the tree's share of that tick.
    per_pid = [r for r in rows if r["source"] == "proc-pid"]
    assert per_pid and {r["device"] for r in per_pid} == {str(busy.pid)}
    tree_cpu = {r["wall_ns"]: float(r["cpu_pct"]) for r in tree if r["cpu_pct"]}
    for r in per_pid:
        assert float(r["cpu_pct"]) == pytest.approx(tree_cpu[r["wall_ns"]])
        assert r["rss_bytes"] == ""
    backends = {b["name"]: b["present"] for b in s.backends()}
    assert backends == {"nvml": False, "npu-smi": False, "proc": True}


def test_stand_in_nvml_and_npu_smi(tmp_path, fake_nvml, monkeypatch):
    monkeypatch.setenv("FAKE_NVML_PID", "1")
    csv_path = tmp_path / "samples.csv"
    s = _core.Sampler(str(csv_path), hz=20, nvml_library=str(fake_nvml),
                      npu_smi_command=f"cat {DATA / 'npu-smi' / '910b_two_chips.txt'}")
    s.start()
    time.sleep(0.3)
    s.stop()
    devices = s.devices()
    assert [(d["source"], d["index"], d["name"]) for d in devices] == [
        ("nvml", 0, "Fake GPU 0"), ("nvml", 1, "Fake GPU 1"),
        ("npu-smi", 0, "910B3"), ("npu-smi", 1, "910B3")]
    assert devices[0]["uuid"] == "GPU-fake-0000"
    assert devices[0]["mem_total_bytes"] == 80 << 30
    rows = read_rows(csv_path)
    g0 = [r for r in rows if r["source"] == "nvml" and r["device"] == "0"]
    g1 = [r for r in rows if r["source"] == "nvml" and r["device"] == "1"]
    assert g0 and g1
    assert (g0[0]["util_pct"], g0[0]["power_w"], g0[0]["sm_clock_mhz"]) == ("50", "250", "1980")
    assert g1[0]["util_pct"] == "" and g1[0]["power_w"] == ""  # NOT_SUPPORTED
    npu = [r for r in rows if r["source"] == "npu-smi" and r["device"] == "0"]
    assert npu[0]["mem_used_bytes"] == str(3161 * 1024 * 1024)
    others = sorted((o["source"], o["pid"]) for o in s.other_processes())
    assert others == [("npu-smi", 4242), ("nvml", 1), ("nvml", 999999)]  # no root pid set


def test_visible_mapping():
    devs = [{"source": "nvml", "index": i, "uuid": f"GPU-abc{i}"} for i in range(4)]
    assert visible_mapping({}, devs)["physical"] == [0, 1, 2, 3]
    assert visible_mapping({"CUDA_VISIBLE_DEVICES": "2,0"}, devs)["physical"] == [2, 0]
    assert visible_mapping({"CUDA_VISIBLE_DEVICES": "GPU-abc3,1"}, devs)["physical"] == [3, 1]
    # CUDA stops at the first invalid entry
    assert visible_mapping({"CUDA_VISIBLE_DEVICES": "1,9,0"}, devs)["physical"] == [1]
    assert visible_mapping({"CUDA_VISIBLE_DEVICES": ""}, devs)["physical"] == []
    assert visible_mapping({}, []) is None
    npu = [{"source": "npu-smi", "index": i} for i in range(2)]
    m = visible_mapping({"ASCEND_RT_VISIBLE_DEVICES": "1"}, npu)
    assert m == {"variable": "ASCEND_RT_VISIBLE_DEVICES", "value": "1", "physical": [1]}


def test_run_with_stand_in_nvml_reports_device_shared(tmp_path, fake_nvml):
    env = {"FASTENOUGH_NVML_LIBRARY": str(fake_nvml), "CUDA_VISIBLE_DEVICES": "1,0",
           "FASTENOUGH_NPU_SMI": "false"}
    r = run_cli("run", "--json", "-", "--no-history", "--hz", "20", "--", sys.executable, "-c",
                "import time; time.sleep(0.5)", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    meta = report["meta"]
    assert meta["visible_devices"] == {"variable": "CUDA_VISIBLE_DEVICES", "value": "1,0",
                                       "physical": [1, 0]}
    assert [d["name"] for d in meta["devices"]] == ["Fake GPU 0", "Fake GPU 1"]
    assert any(o["pid"] == 999999 for o in meta["other_processes"])
    shared = [f for f in report["findings"] if f["code"] == "device-shared"]
    assert len(shared) == 1
    assert shared[0]["source"] == "sampler"
    assert shared[0]["evidence"]["other_pids"] == "999999"
    d = Path(report["run"]["run_dir"])
    rows = read_rows(d / "samples.csv")
    # proc-pid rows come only for ticks in which a process of the tree ran.
    assert {r["source"] for r in rows} - {"proc-pid"} == {"nvml", "proc"}
    assert os.path.exists(d / "meta.json")
