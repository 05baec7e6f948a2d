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


def record(key, value):
    """Keep `value` as the output of item `key` of this run, for `fastenough compare`.

    key: a str or an int (the item's id); value: a tensor, a Python number, or a dict /
    list of them (a dict records key/subkey, a list of tensors key/0, key/1, ...; a
    list of numbers is one tensor). The tensors are copied to host memory now (a CPU
    tensor is cloned, so later in-place edits do not change the record) and written
    by a background thread as safetensors shards under <run dir>/outputs/
    ([rank<R>/]records-NNNNN.safetensors, with records.index.json), flushed at exit.
    Recording the same key twice raises fastenough.errors.DuplicateRecordError naming
    both call sites, and a key or value of another type raises TypeError; any other
    failure switches recording off (the run report says why). Returns `value`
    unchanged; a no-op outside `fastenough run`."""
    agent = _agent()
    if agent is None or not agent.enabled:
        return value
    from fastenough.errors import DuplicateRecordError

    recorder = None
    try:
        recorder = agent.output_recorder()
        if recorder is not None:
            torch = agent.torch or sys.modules.get("torch")
            if torch is None:
                import torch  # a program that records plain numbers without torch
            recorder.record(key, value, torch)
    except (DuplicateRecordError, TypeError):
        raise  # the program's own mistake: a key used twice, or a value we cannot keep
    except Exception:  # noqa: BLE001 - an output we cannot keep must not stop the program
        if recorder is not None:
            recorder.fail()
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
        import os

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
