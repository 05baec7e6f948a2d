"""`fastenough replay` (issue 38, item 4): a CPU trace recorded with shapes ->
one standalone script per hot op call, which rebuilds the inputs at the
recorded shapes, dtypes and strides, checks candidate() against the op and
times both. The scripts are run here, on the CPU, as a user would."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from fastenough.replay.plan import NotReplayable, plan_call  # noqa: E402
from fastenough.replay.script import script_text  # noqa: E402

PROGRAM = r'''
import sys, torch
torch.manual_seed(0)
lin = torch.nn.Linear(64, 128)
norm = torch.nn.LayerNorm(128)
conv = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1, dilation=1, groups=1)
emb = torch.nn.Embedding(100, 32)
x = torch.randn(16, 64)
img = torch.randn(2, 3, 16, 16)
idx = torch.randint(0, 100, (4, 7))
with torch.profiler.profile(record_shapes=True) as p:
    for _ in range(3):
        y = norm(torch.nn.functional.gelu(lin(x)))
        z = conv(img)
        s = torch.softmax(y, dim=-1).sum(dim=1, keepdim=True)
        t = y.transpose(0, 1).contiguous()
        e = emb(idx)
        m = torch.bmm(torch.randn(4, 8, 16), torch.randn(4, 16, 8))
p.export_chrome_trace(sys.argv[1])
'''


def _cli(*args, cwd=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "fastenough", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout)


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("replay")
    path = d / "trace.json"
    r = subprocess.run([sys.executable, "-c", PROGRAM, str(path)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return path


def test_the_census_keeps_the_scalar_arguments(trace):
    report = json.loads(_cli("analyze", "--json", str(trace)).stdout)
    rows = {r["op"]: r for r in report["shapes"]}
    conv = next(r for op, r in rows.items() if op in ("aten::conv2d", "aten::convolution"))
    # stride [2, 2], padding [1, 1], dilation [1, 1], groups 1, as the trace spelled them
    assert conv["input_concrete"][3:7] == ["[2, 2]", "[1, 1]", "[1, 1]", "1"], conv


def test_scripts_rebuild_and_time_the_hot_ops_on_the_cpu(trace, tmp_path):
    r = _cli("replay", str(trace), "--top", "8", "-o", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    scripts = sorted((tmp_path / "out").glob("replay_*.py"))
    assert len(scripts) >= 5, (r.stdout, r.stderr)
    assert len(r.stdout.strip().splitlines()) == len(scripts)
    for script in scripts:
        run = subprocess.run([sys.executable, str(script), "--n", "3", "--rounds", "2"],
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, (script.name, run.stdout, run.stderr)
        assert "candidate agrees with aten::" in run.stdout, run.stdout
        assert "op:" in run.stdout and "candidate:" in run.stdout, run.stdout


def test_a_candidate_that_differs_is_caught(trace, tmp_path):
    r = _cli("replay", str(trace), "--op", "aten::addmm", "-o", str(tmp_path))
    assert r.returncode == 0, r.stderr
    script = sorted(tmp_path.glob("replay_*_aten_addmm.py"))[0]
    text = script.read_text()
    text = text.replace("    # Replace with the kernel to try; it gets the same inputs as the op.\n"
                        "    return OP(*args, **kwargs)",
                        "    return OP(*args, **kwargs) * 2")
    script.write_text(text)
    run = subprocess.run([sys.executable, str(script), "--n", "2", "--rounds", "1"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "candidate DIFFERS from aten::addmm" in run.stdout


def test_an_existing_script_is_never_overwritten(trace, tmp_path):
    assert _cli("replay", str(trace), "--top", "1", "-o", str(tmp_path)).returncode == 0
    script = next(tmp_path.glob("replay_1_*.py"))
    script.write_text("# my edits\n")
    r = _cli("replay", str(trace), "--top", "1", "-o", str(tmp_path))
    assert r.returncode == 2, r.stderr
    assert "exists" in r.stderr and "Traceback" not in r.stderr
    assert script.read_text() == "# my edits\n"


def test_a_trace_without_shapes_says_how_to_record_them(tmp_path):
    path = tmp_path / "noshapes.json"
    prog = PROGRAM.replace("record_shapes=True", "record_shapes=False")
    assert subprocess.run([sys.executable, "-c", prog, str(path)], timeout=300).returncode == 0
    r = _cli("replay", str(path), "-o", str(tmp_path / "out"))
    assert r.returncode == 2, r.stderr
    assert "record_shapes=True" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists()


def test_an_op_not_in_the_census_names_the_ones_that_are(trace, tmp_path):
    r = _cli("replay", str(trace), "--op", "flash_attention", "-o", str(tmp_path))
    assert r.returncode == 2
    assert "aten::addmm" in r.stderr and "Traceback" not in r.stderr


# Plans from hand-written census rows, as the profiler spells them.

def _row(op, dims, types, strides=None, concrete=None, **kw):
    return {"op": op, "input_dims": dims, "input_types": types, "input_strides": strides,
            "input_concrete": concrete, "count": 3, "total_ns": 9000, "device_ns": 0, **kw}


def test_addmm_keeps_its_transposed_weight_strides():
    plan = plan_call(_row("aten::addmm", [[128], [16, 64], [64, 128], [], []],
                          ["float", "float", "float", "Scalar", "Scalar"],
                          [[1], [64, 1], [1, 64], [], []], ["", "", "", "1", "1"]), torch)
    assert plan.target == "torch.ops.aten.addmm.default"
    weight = plan.arguments[2].value
    assert weight.shape == [64, 128] and weight.strides == [1, 64]
    assert [a.value for a in plan.arguments[3:]] == ["1", "1"]


def test_an_unrecorded_argument_takes_its_default_and_later_ones_go_by_name():
    # gelu's `approximate` is a string the profiler does not print.
    plan = plan_call(_row("aten::gelu", [[16, 128], []], ["float", ""], [[128, 1], []],
                          ["", ""]), torch)
    assert plan.arguments[1].source == "default"
    text = script_text(plan, _row("aten::gelu", None, None), file_name="g.py", trace="t",
                       device="cpu")
    ast.parse(text)
    assert "approximate" not in text.split("def make_inputs")[1].split("def reference")[0]


def test_enum_codes_become_torch_names():
    plan = plan_call(_row("aten::contiguous", [[128, 16], []], ["float", "Scalar"],
                          [[1, 128], []], ["", "0"]), torch)
    assert plan.arguments[1].value == "torch.contiguous_format"
    assert plan.arguments[1].kwarg_only


@pytest.mark.parametrize("op", ["ProfilerStep#3", 'aten::x"); import os; ("', "aten::no_such_op",
                                "Optimizer.step#Adam.step"])
def test_what_is_not_an_operator_is_not_replayed(op):
    with pytest.raises(NotReplayable):
        plan_call(_row(op, [[2, 2]], ["float"], [[2, 1]], [""]), torch)


def test_names_from_the_trace_stay_text_in_the_script():
    plan = plan_call(_row("aten::relu", [[4]], ["float"], [[1]], [""]), torch)
    hostile = 'rank0"""; import os; os.remove("x"); """\n\x1b[31m.json'
    text = script_text(plan, _row("aten::relu", None, None), file_name="r.py", trace=hostile,
                       device="cpu")
    tree = ast.parse(text)
    assert not any(isinstance(n, ast.Import) and any(a.name == "os" for a in n.names)
                   for n in ast.walk(tree))
    assert "os.remove" in ast.get_docstring(tree)


def test_the_mcp_tool_writes_its_scripts_only_in_the_scratch_directory(trace, tmp_path,
                                                                       monkeypatch):
    anyio = pytest.importorskip("anyio")
    from fastenough.mcp import tools

    scratch = tmp_path / "scratch"
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("FASTENOUGH_MCP_SCRATCH", str(scratch))
    answer = anyio.run(lambda: tools.replay(str(trace), str(work), top=2))
    assert answer["exit"]["code"] == 0, answer
    assert len(answer["scripts"]) == 2
    for s in answer["scripts"]:
        path = Path(s["path"])
        assert path.is_file() and scratch in path.parents, s
        assert s["op"].startswith("aten::") and s["device"] == "cpu"
    assert list(work.iterdir()) == []


def test_an_outer_op_of_a_gpu_trace_is_replayed_on_the_gpu(corpus_dir, tmp_path):
    """aten::linear launches no kernel of its own (its aten::addmm does), yet it ran
    on the device: the script's recorded device is the trace's."""
    trace = corpus_dir / "amd_trace" / "mi250_minitoy_train_ROCm6_2_kineto.json.gz"
    if not trace.exists():
        pytest.skip("the MI250 corpus trace is not here")
    r = _cli("replay", str(trace), "--op", "aten::linear", "-o", str(tmp_path))
    assert r.returncode == 0, r.stderr
    script = next(tmp_path.glob("replay_*_aten_linear.py"))
    assert "RECORDED_DEVICE = 'cuda'" in script.read_text()
    run = subprocess.run([sys.executable, str(script), "--device", "cpu", "--n", "2",
                          "--rounds", "1"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "agrees with aten::linear" in run.stdout, run.stderr
