"""`fastenough lint` from the command line: exit codes, formats, select/ignore, bad files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

DATA = Path(__file__).resolve().parents[2] / "data"
RESEARCH = DATA / "lint" / "research"
SCHEMA = DATA / "sarif" / "sarif-schema-2.1.0.json"

SNIPPET = """\
import torch

def run(loader, device):
    for x in loader:
        x = x.to(device)
        print(x.sum().item())
"""


def lint(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fastenough", "lint", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.fixture
def snippet(tmp_path: Path) -> Path:
    p = tmp_path / "loop.py"
    p.write_text(SNIPPET)
    return p


def test_human_output_has_location_code_source_line_and_caret(snippet):
    proc = lint(str(snippet))
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == (f"{snippet}:5:15: transfer-in-loop .to(device) inside the loop at line 4 "
                        "without non_blocking=True: a blocking host-to-device copy every "
                        "iteration")
    # The source line indented by 4, the caret under column 15 spanning `to(device)`:
    # a method call's finding points at the method, not at the receiver chain.
    assert lines[1] == "    " + "        x = x.to(device)"
    assert lines[2] == "    " + " " * 14 + "^" + "~" * 9
    assert lines[3].startswith(f"{snippet}:6:23: sync-in-loop .item() inside the loop at line 4")
    assert lines[4] == "    " + "        print(x.sum().item())"
    assert lines[5] == "    " + " " * 22 + "^" + "~" * 5  # item()
    assert lines[6].startswith("2 findings in 1 file;")


def test_exit_zero_select_and_ignore(snippet):
    assert lint(str(snippet), "--exit-zero").returncode == 0
    only_sync = lint(str(snippet), "--select", "sync-in-loop")
    assert only_sync.returncode == 1
    assert "sync-in-loop" in only_sync.stdout and "transfer-in-loop" not in only_sync.stdout
    none_left = lint(str(snippet), "--ignore", "sync-in-loop,transfer-in-loop")
    assert none_left.returncode == 0
    assert none_left.stdout == "0 findings in 1 file\n"


def test_usage_errors_exit_2_with_one_line(snippet):
    for args in (["--select", "no-such-code", str(snippet)], [str(snippet.parent / "missing.py")],
                 [], ["--explain", "nope"], ["--format", "xml", str(snippet)]):
        proc = lint(*args)
        assert proc.returncode == 2, args
        assert "Traceback" not in proc.stderr
    assert lint("--select", "bogus", str(snippet)).stderr.startswith(
        "fastenough: --select: unknown code bogus (known: ")


def test_syntax_error_and_non_utf8_files_are_reported_and_skipped(tmp_path, snippet):
    (tmp_path / "broken.py").write_text("def f(:\n    pass\n")
    (tmp_path / "latin1.py").write_bytes(b"# caf\xe9\nx = 1\n")
    proc = lint(str(tmp_path))
    assert proc.returncode == 1  # the good file's findings still count
    assert "Traceback" not in proc.stderr + proc.stdout
    out = proc.stdout.splitlines()
    assert f"{tmp_path / 'broken.py'}:1: syntax error: invalid syntax: skipped" in out
    assert f"{tmp_path / 'latin1.py'}: not UTF-8 (byte offset 5): skipped" in out
    assert out[-1].startswith("2 findings in 3 files; 2 files skipped;")
    only_bad = lint(str(tmp_path / "broken.py"))
    assert only_bad.returncode == 0


def test_unreadable_paths_are_reported_and_skipped_on_any_thread_count(tmp_path, snippet):
    (tmp_path / "gone.py").symlink_to(tmp_path / "nowhere.py")  # listed, cannot be read
    outs = [lint(str(tmp_path), "--format", "json", "--jobs", j, "--no-progress")
            for j in ("1", "2")]
    assert [p.returncode for p in outs] == [1, 1]
    docs = [json.loads(p.stdout) for p in outs]
    assert docs[0] == docs[1]
    assert docs[0]["errors"] == [{"path": str(tmp_path / "gone.py"), "line": 0,
                                  "message": "cannot read: no such file: skipped"}]
    assert len(docs[0]["findings"]) == 2


def test_a_device_behind_a_py_name_is_skipped_not_read_forever(tmp_path, snippet):
    # Issue 34 item 10: x.py -> /dev/zero used to be read until memory ran out
    # (std::bad_alloc, SIGABRT). Regular files only, as analyze and compare.
    (tmp_path / "x.py").symlink_to("/dev/zero")
    proc = lint(str(tmp_path), "--format", "json", "--no-progress")
    assert proc.returncode == 1, proc.stderr  # the snippet's findings; the device skipped
    doc = json.loads(proc.stdout)
    assert doc["errors"] == [{"path": str(tmp_path / "x.py"), "line": 0,
                              "message": "cannot read: not a regular file (a character device):"
                                         " skipped"}]
    assert len(doc["findings"]) == 2


def test_deep_nesting_and_nul_bytes_are_reported_not_crashed(tmp_path):
    (tmp_path / "deep.py").write_text("x = " + "+".join(["a"] * 20000) + "\n")
    (tmp_path / "nul.py").write_bytes(b"x = 1\x00\n")
    proc = lint(str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{tmp_path / 'deep.py'}: nested too deeply to parse: skipped" in proc.stdout
    assert (f"{tmp_path / 'nul.py'}: syntax error: source code string cannot contain null "
            "bytes: skipped") in proc.stdout


def test_form_feeds_do_not_shift_lines(tmp_path):
    (tmp_path / "ff.py").write_text("import torch\n\x0c\ndef f(loader):\n"
                                    "    for x in loader:\n        x.item()\n")
    proc = lint(str(tmp_path / "ff.py"))
    assert proc.stdout.splitlines()[1] == "            x.item()"
    assert ":5:11: sync-in-loop" in proc.stdout


def test_json_format(snippet):
    proc = lint(str(snippet), "--format", "json")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "fastenough.lint/1"
    assert doc["files"] == 1 and doc["errors"] == []
    assert [(f["line"], f["col"], f["code"], f["rule"], f["function"], f["source"])
            for f in doc["findings"]] == [
        (5, 15, "transfer-in-loop", "to-device-in-loop", "run", "lint"),
        (6, 23, "sync-in-loop", "sync-method-in-loop", "run", "lint")]


def test_sarif_output_validates_against_the_sarif_2_1_0_schema(tmp_path):
    (tmp_path / "bad.py").write_text("def f(:\n")
    proc = lint(str(RESEARCH), str(tmp_path / "bad.py"), "--format", "sarif",
                cwd=RESEARCH.parent)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(doc)
    run = doc["runs"][0]
    results = run["results"]
    assert len(results) == 27
    rules = run["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    first = results[0]["locations"][0]["physicalLocation"]
    assert first["artifactLocation"]["uri"] == "research/eval_script.py"
    assert first["region"]["startLine"] == 18 and first["region"]["startColumn"] == 57
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert [n["message"]["text"] for n in notes] == ["syntax error: invalid syntax: skipped"]


def test_sarif_of_a_clean_tree_is_valid_too(tmp_path):
    (tmp_path / "ok.py").write_text("x = 1\n")
    proc = lint(str(tmp_path), "--format", "sarif")
    assert proc.returncode == 0
    doc = json.loads(proc.stdout)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(doc)
    assert doc["runs"][0]["results"] == []


def test_explain_shared_and_lint_only_codes():
    shared = lint("--explain", "autograd-in-eval")
    assert shared.returncode == 0
    assert shared.stdout.startswith("autograd-in-eval: Autograd on in an evaluation forward\n")
    assert "torch.inference_mode()" in shared.stdout
    assert "`fastenough explain autograd-in-eval`" in shared.stdout
    only = lint("--explain", "manual-attention")
    assert "scaled_dot_product_attention" in only.stdout
    assert "Lint only: no runtime finding has this code." in only.stdout
    listing = lint("--explain", "all").stdout
    assert listing.count("\n") >= 14 + 16  # 14 codes, 16 rules


def test_listed_in_main_help():
    proc = subprocess.run([sys.executable, "-m", "fastenough", "--help"], capture_output=True,
                          text=True, timeout=60)
    assert "fastenough lint src/" in proc.stdout
