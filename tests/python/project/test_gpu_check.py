"""scripts/gpu_check.sh on a machine without CUDA: it says so and exits 0 with a
JSON line marking the check skipped (on a CUDA machine it runs the real checks,
which are not part of this suite)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present: the script runs for real")
def test_gpu_check_skips_cleanly_without_cuda():
    p = subprocess.run([os.path.join(ROOT, "scripts", "gpu_check.sh")], capture_output=True,
                       text=True, env={**os.environ, "PYTHON": sys.executable}, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert lines[0].startswith("SKIP gpu check: CUDA is not available")
    assert json.loads(lines[-1]) == {"skipped": True, "reason": lines[0][len("SKIP gpu check: "):]}
    assert p.stderr == ""
