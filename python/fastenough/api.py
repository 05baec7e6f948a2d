"""The public in-program API: `fastenough.phase`, `fastenough.step`, `fastenough.record`.

All three are no-ops unless the program runs under `fastenough run` (the agent is
then loaded by the run's sitecustomize). They never raise because of fastenough.

    import fastenough

    with fastenough.phase("load"):          # or @fastenough.phase("load")
        model = load()
    for batch in batches:
        score(batch)
        fastenough.step(items=len(batch))   # marks the end of one step
    fastenough.record("scores", scores)     # kept for `fastenough compare`
"""

from __future__ import annotations

import functools
import os
import re
import sys


def _agent():
    runtime = sys.modules.get("fastenough.agent.runtime")
    return runtime.get_agent() if runtime is not None else None


class phase:  # noqa: N801 - used like a function: `with fastenough.phase("x"):`
    """An explicit phase: a context manager, or a decorator for a function.

    Its edges wait for the device (when the program initialised one) and are
    written to phases.jsonl with "auto": false; phases may nest."""

    def __init__(self, name: str) -> None:
        self.name = str(name)

    def __enter__(self) -> phase:
        agent = _agent()
        if agent is not None:
            agent.user_phase_edge(self.name, "begin")
        return self

    def __exit__(self, *exc) -> bool:
        agent = _agent()
        if agent is not None:
            agent.user_phase_edge(self.name, "end")
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with phase(self.name):
                return fn(*args, **kwargs)

        return wrapper


def step(items: int | None = None, tokens: int | None = None) -> None:
    """Mark the end of one step (call once per iteration, after its work).

    items: how many inputs the step processed (e.g. the batch size); tokens: how
    many tokens. Once called, explicit steps replace the automatic step detection
    (optimizer steps, DataLoader batches, model calls) for the rest of the run.
    The first step starts at the first DataLoader batch or model call the agent
    saw, else when torch was imported. Costs one list append."""
    agent = _agent()
    if agent is not None:
        agent.explicit_step(
            None if items is None else int(items), None if tokens is None else int(tokens)
        )


_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


def record(name: str, value):
    """Keep a tensor (or nested list of numbers) as an output of this run, for comparing
    runs: written to <run dir>/outputs/[rank<R>/]<name>.safetensors. A later call with
    the same name replaces it. Returns `value` unchanged; no-op outside `fastenough run`."""
    agent = _agent()
    if agent is None or not agent.enabled:
        return value
    try:
        from fastenough.agent.safetensors_writer import write_safetensors

        safe = _NAME.sub("_", str(name)).strip("._") or "output"
        sub = ["outputs"] + ([f"rank{agent.rank}"] if agent.rank is not None else [])
        path = agent.dir.file(*sub, safe + ".safetensors")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_safetensors(path, {safe: value})
    except Exception:  # noqa: BLE001 - an output we cannot keep must not stop the program
        agent.fail("record")
    return value


def protocol(**fields):
    """Declare what this run measured under (model revision, weights hash, max
    length, dataset split, ...): `fastenough ab` prints every field the two sides
    declared differently as a protocol change. Values are kept as JSON (anything
    else as its str()); later calls add fields or replace them. Written to
    <run dir>/protocol.json (protocol.rank<R>.json on other ranks). No-op outside
    `fastenough run`."""
    agent = _agent()
    if agent is None or not agent.enabled or not fields:
        return
    try:
        import json

        name = "protocol.json" if not agent.rank else f"protocol.rank{agent.rank}.json"
        path = agent.dir.file(name)
        try:
            with open(path) as f:
                current = json.load(f)
        except (OSError, ValueError):
            current = {}
        for k, v in fields.items():
            try:
                json.dumps(v)
            except (TypeError, ValueError):
                v = str(v)
            current[str(k)] = v
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(current, f, indent=2, sort_keys=True)
        os.replace(tmp, path)
    except Exception:  # noqa: BLE001 - a field we cannot keep must not stop the program
        agent.fail("protocol")
