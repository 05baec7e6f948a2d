"""The agent attaches however torch is first imported (issue 14, defect 3).

transformers and sentence-transformers call importlib.util.find_spec("torch")
before `import torch`; a one-shot import hook that removed itself on that look-up
never saw torch, and the run had no phases, no steps and no checks."""

from __future__ import annotations

import pytest
from agent_run_helper import run_under_agent

# A model loop long enough to reach the steady phase.
LOOP = """
model = torch.nn.Linear(16, 4)
x = torch.randn(8, 16)
with torch.no_grad():
    for _ in range(40):
        model(x)
print("done")
"""

WAYS = {
    "find_spec first": "import importlib.util\nassert importlib.util.find_spec('torch')\n"
                       "import importlib.util as u\nu.find_spec('torch')\nimport torch\n",
    "import_module": "import importlib\ntorch = importlib.import_module('torch')\n",
    # _pickle is a C extension: its GLOBAL opcode imports through PyImport_Import.
    "C extension (pickle)": "import pickle\n"
                            "pickle.loads(b'ctorch\\nget_num_threads\\n.')\nimport torch\n",
    "__import__": "torch = __import__('torch')\n",
    "from import": "from torch import nn\nimport torch\n",
}


def _attached(r) -> dict:
    assert r.proc.returncode == 0, r.proc.stderr
    assert r.proc.stdout.strip().endswith("done")
    agent = r.main_agent()
    assert agent["torch"] is not None, agent
    assert agent["steps"] >= 30, agent
    assert [p["phase"] for p in r.phases if p["edge"] == "begin"][:3] == [
        "startup", "warmup", "steady"]
    return agent


@pytest.mark.parametrize("way", sorted(WAYS))
def test_attaches_however_torch_is_imported(tmp_path, way):
    r = run_under_agent(tmp_path, WAYS[way] + LOOP)
    agent = _attached(r)
    assert agent["torch_attach"] == "import"


def test_attaches_when_torch_came_before_the_agent(tmp_path):
    # A sitecustomize later on the path (chained by ours) imports torch first.
    other = tmp_path / "other"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import torch\n")
    r = run_under_agent(tmp_path, "import torch\n" + LOOP, pythonpath=[str(other)])
    agent = _attached(r)
    assert agent["torch_attach"] == "before-agent"


def test_attaches_in_python_dash_m(tmp_path):
    pkg = tmp_path / "evalpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text("import importlib.util\nimportlib.util.find_spec('torch')\n"
                                     "import torch\n" + LOOP)
    r = run_under_agent(tmp_path, "", launcher=["-m", "evalpkg"])
    # The helper's own program file is not run with -m; the package is.
    agent = [a for a in r.agent_files() if a["role"] == "main"]
    assert r.proc.returncode == 0, r.proc.stderr
    assert agent and agent[0]["torch_attach"] == "import" and agent[0]["steps"] >= 30


def test_torch_the_finder_never_saw_is_reported(tmp_path):
    # torch/__init__.py executed by a custom importer that bypasses sys.meta_path:
    # the agent cannot attach, and its exit record must say that torch was there.
    r = run_under_agent(tmp_path, """
import importlib.util, sys, os
path = importlib.util.find_spec('torch').origin
spec = importlib.util.spec_from_file_location('torch', path,
                                              submodule_search_locations=[os.path.dirname(path)])
torch = importlib.util.module_from_spec(spec)
sys.modules['torch'] = torch
spec._initializing = True
spec.loader.exec_module(torch)
spec._initializing = False
""" + LOOP)
    assert r.proc.returncode == 0, r.proc.stderr
    agent = r.main_agent()
    assert agent["torch_attach"] is None
    assert agent["torch_imported_unseen"] is True
