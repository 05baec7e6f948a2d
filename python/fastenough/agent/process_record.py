"""agent/<pid>.json: what the agent knows about its process, rewritten atomically
at every automatic phase edge and at exit, so the report can say what the agent
saw and what it did not (a process whose torch the agent never saw, an agent
that switched itself off, no steps).
"""

from __future__ import annotations

import os
import sys

from fastenough.agent import compile_info, memory
from fastenough.agent.steps import SOURCES


def cpu_budget() -> dict:
    """Cores this process may run on and the threads torch would use on them."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count()
    torch = sys.modules.get("torch")
    threads = None
    if torch is not None:
        try:
            threads = int(torch.get_num_threads())
        except Exception:  # noqa: BLE001
            threads = None
    return {"cores": cores, "torch_threads": threads,
            "omp_num_threads": os.environ.get("OMP_NUM_THREADS")}


def _roots(agent) -> dict | None:
    if agent.torch is None:
        return None
    roots = getattr(agent, "_python_roots", None)
    if roots is None:
        from fastenough.source_roots import current_roots

        try:
            roots = current_roots()
        except Exception:  # noqa: BLE001 - the report then classifies by path alone
            roots = {}
        agent._python_roots = roots
    return roots or None


# Libraries whose version changes what a PyTorch program computes or how
# fast: recorded when the program imported them, never imported here.
_LIBRARIES = ("numpy", "transformers", "tokenizers", "sentence_transformers", "timm",
              "torchvision", "torchaudio", "diffusers", "accelerate", "peft",
              "lightning", "pytorch_lightning", "triton", "xformers", "flash_attn",
              "deepspeed", "apex")


def main_started() -> bool:
    """Whether the program's own code began to run. False when python exited before
    it: `python missing.py` (can't open file) or `python -m missing` (no module:
    runpy replaces argv[0] "-m" by the module's path only once it found it).
    `python -c` and stdin always start.

    A script's __main__ has a __file__ while it runs, but CPython deletes it once the
    script has run (pymain's run of a file), so at exit, when this record is written
    last, only the loader it set is left: a file's loader (SourceFileLoader, a zip's
    importer), where a script that could not be opened leaves the interpreter's
    BuiltinImporter. Reading __file__ alone, every script that ended was taken for
    one that never started: a script without torch that printed and raised was told
    "could not start ... before any of its code ran"."""
    argv0 = sys.argv[0] if sys.argv else ""
    if argv0 == "-m":
        return False
    if argv0 in ("", "-c"):
        return True
    main = sys.modules.get("__main__")
    if hasattr(main, "__file__"):
        return True
    loader = getattr(main, "__loader__", None)
    # (the interpreter's own import machinery: no module imported for the program)
    builtin = getattr(sys.modules.get("_frozen_importlib"), "BuiltinImporter", None)
    return loader is not None and loader is not builtin


def loaded_library_versions() -> dict:
    out = {}
    for name in _LIBRARIES:
        mod = sys.modules.get(name)
        version = getattr(mod, "__version__", None) if mod is not None else None
        if isinstance(version, str):
            out[name] = version
    return out


def write(agent) -> None:
    torch = agent.torch
    watch = agent.torch_watch
    info = {
        "pid": agent.pid,
        "rank": agent.rank,
        "local_rank": agent.local_rank,
        "world_size": agent.world_size,
        "role": agent.role,
        "python": sys.version.split()[0],
        "torch": getattr(torch, "__version__", None) if torch else None,
        "cuda": None,
        "devices": [],
        "compile": compile_info.compile_info(),
        "profile": agent.window.info,
        "steps": agent.steps.index,
        "step_source": SOURCES[agent.engine.current] if agent.engine.current >= 0 else None,
        "step_sources": {mode: (SOURCES[s] if s >= 0 else None)
                         for mode, s in agent.engine.source.items()},
        "mode_switches": agent.engine.switches,
        # Steps the native hooks recorded without running the agent's Python code.
        "steps_deferred": agent.steps_deferred(),
        # Items are read from this dimension of the first input (1: the model's
        # recurrent/attention layers are sequence-first).
        "batch_dim": agent.model_calls.batch_dim,
        "dataloaders": agent.dataloader.loaders,
        # The user's line iterating a DataLoader, by mode (its first live fetch).
        "dataloader_site": agent.dataloader.sites,
        # Host time of the first steady steps of each mode, by part (step_timer.py).
        "step_split": agent.timer.by_mode,
        "model_call_site": agent.model_calls.call_sites,
        "model_swaps": agent.model_swap.swaps,
        # The loop stood still for the tool: phase edges (device wait, census) and
        # the profiler window's start/stop/export. Never part of a step.
        "tool_pause_ns": agent.phases.pause_ns,
        "tool_pauses": agent.phases.pauses,
        "profile_cost_ns": agent.window.cost_ns,
        "cpu": cpu_budget(),
        "boot_mono_ns": agent.boot[0],
        "boot_wall_ns": agent.boot[1],
        "agent_error": agent.error,
        # The agent's own cost per step and its records (own_cost.py): the guard
        # switches the agent off when they grow.
        "own_cost": agent.own.summary(),
        # How torch reached the agent (torch_import.py), and whether the program
        # imported torch in a way the agent never saw (then it measured nothing).
        "torch_attach": getattr(watch, "how", None) if torch else None,
        "torch_imported_unseen": torch is None and "torch" in sys.modules,
        "checks": agent.checks is not None,
        # fastenough run --timing-only: no checks and no profiler window by request
        # (the report's measurement says so: checks-off).
        "timing_only": bool(getattr(agent, "timing_only", False)),
        # fastenough.record: keys, bytes, dtypes (safetensors names), shards, writer error.
        "records": agent.outputs.summary() if agent.outputs is not None else None,
        # The program's sys.path by kind: tells its frames in the trace from the
        # libraries' and fastenough's (source_roots.py).
        "python_roots": _roots(agent),
        # What reproducing this path needs beside torch (freeze.json of decide).
        "libraries": loaded_library_versions(),
        # False: python exited before the program's first line (`fastenough run`
        # then says the program could not start instead of showing a blind report).
        "main_started": main_started(),
    }
    if torch is not None:
        try:
            info["cuda"] = torch.version.cuda
            info["devices"] = memory.devices(torch)
        except Exception:  # noqa: BLE001, S110
            pass
    agent.dir.write_json(os.path.join("agent", f"{agent.pid}.json"), info)
