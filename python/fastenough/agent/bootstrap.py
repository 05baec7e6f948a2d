"""Start of the agent inside a process of a `fastenough run` job (no torch here).

Called by agent/boot/sitecustomize.py when FASTENOUGH_RUN_DIR is set. It decides
the role of this process, creates the Agent and installs the import watch
(torch_import.py) that hands `torch` to the agent right after the program
imports it, so that a program that never imports torch pays for nothing but
this file.
"""

from __future__ import annotations

import json
import os
import sys
import time

# Options the supervisor may pass in FASTENOUGH_AGENT_OPTS (JSON); these are the defaults.
DEFAULT_OPTS = {
    "trace": True,  # run the torch.profiler window
    "trace_steps": 5,  # steps in the profiler window
    "trace_after": 2,  # steady steps before the window starts
    "warmup_steps": 3,  # minimum steps in warmup
    "warmup_max": 20,  # warmup ends here even if step times never settle
    "flush_steps": 256,  # step lines buffered before a write
    "defer_steps": True,  # steady model-call steps recorded by the native hook (step_hook.py)
    "probe": False,
    # fastenough run --timing-only: steps and phases only (TIMING_ONLY_OFF below).
    "timing_only": False,
}

# What --timing-only switches off: everything whose cost per step depends on
# what the program does (the checks' hooks on module calls, census, logits
# window, padding, sync watch, probes; the profiler window and its memory
# calibration; the step timer's hooks). What stays is what steady figures need:
# the step sources (main model, DataLoader, optimizer, fastenough.step()), the
# phases, items per step, the own-cost guard and fastenough.record.
TIMING_ONLY_OFF = {"checks": False, "trace": False, "step_timer": False, "probe": False,
                   "analyze_in_job": False}


def parse_opts(text: str | None) -> dict:
    opts = dict(DEFAULT_OPTS)
    if text:
        try:
            given = json.loads(text)
        except ValueError:
            given = None
        if isinstance(given, dict):
            opts.update(given)
    if opts.get("timing_only"):
        opts.update(TIMING_ONLY_OFF)
    return opts


def detect_role(argv: list[str], env: dict) -> str:
    """launcher | rank | worker | main, from the command line and environment only.

    `sys.orig_argv` is used because sys.argv is not final while site runs. Shapes:
      torchrun:  ['python', '/venv/bin/torchrun', '--nproc-per-node=2', 'train.py']
      module:    ['python', '-m', 'torch.distributed.run', ...]
      spawn child (DataLoader / multiprocessing with spawn or forkserver):
                 ['python', '-c', 'from multiprocessing.spawn import spawn_main; ...',
                  '--multiprocessing-fork']
    """
    args = list(argv[1:])
    if args and os.path.basename(args[0]) in ("torchrun", "torchrun.py"):
        return "launcher"
    for i, a in enumerate(args):
        if a == "-m" and i + 1 < len(args):
            if args[i + 1] in ("torch.distributed.run", "torch.distributed.launch"):
                return "launcher"
            break
        if a.startswith("-m") and a[2:] in ("torch.distributed.run", "torch.distributed.launch"):
            return "launcher"
    if "--multiprocessing-fork" in args or any(
        "multiprocessing.spawn" in a or "multiprocessing.forkserver" in a
        or "multiprocessing.resource_tracker" in a
        for a in args
    ):
        return "worker"
    if env.get("RANK") is not None or env.get("LOCAL_RANK") is not None:
        return "rank"
    return "main"


def boot() -> None:
    boot_mono = time.monotonic_ns()
    boot_wall = time.time_ns()
    run_dir = os.environ.get("FASTENOUGH_RUN_DIR")
    if not run_dir:
        return
    from fastenough.agent.runtime import Agent, set_agent

    opts = parse_opts(os.environ.get("FASTENOUGH_AGENT_OPTS"))
    argv = getattr(sys, "orig_argv", None) or sys.argv
    role = detect_role(list(argv), dict(os.environ))
    agent = Agent(run_dir, opts, role, boot_mono, boot_wall)
    set_agent(agent)
    agent.start()
    from fastenough.agent.torch_import import TorchImportWatch, torch_ready

    watch = TorchImportWatch(agent.on_torch_imported)
    agent.torch_watch = watch
    if torch_ready() is not None:  # imported before us (a chained sitecustomize, say)
        watch.how = "before-agent"
        watch.done = True
        agent.on_torch_imported(sys.modules["torch"])
    else:
        watch.install()
