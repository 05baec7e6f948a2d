"""`fastenough analyze --dask ADDRESS`: the ranks of a job whose traces sit on
storage that several hosts can read (a cluster's shared file system) are
summarised on the workers of a running Dask cluster, one task per trace, and
merged here, the way `analyze --rank-summaries` and `merge` do it on one host
(docs/across-hosts.md says why Dask and how to start a cluster).

A task is a path in and a bounded summary out (fastenough.rank-summary/1, tens
of KB): the worker loads the trace, runs the C++ analysis and frees the trace
before it returns, so this process holds summaries only, whatever the number
and size of the traces. The merged report is the report `analyze` gives for
the same traces on one host (tests/python/test_analyze_dask.py).

Dask is an optional dependency (`pip install 'fastenough[dask]'`); nothing here
is imported unless --dask is given.
"""

from __future__ import annotations

import os
import re
import sys
import time

from fastenough.errors import BadInputError, FastenoughError, UsageError
from fastenough.render.escape import visible

# How long to wait for the scheduler to answer, and then for each summary.
CONNECT_TIMEOUT_S = 30


def summarise_on_worker(path: str, frame_roots: dict, input_index: int) -> dict:
    """The task a worker runs: one trace's summary, or why there is none. Errors
    come back as values, named by their class: the worker's fastenough may
    raise classes this process would not unpickle the same."""
    worker = None
    try:
        from distributed import get_worker

        worker = get_worker().address
    except Exception:  # noqa: BLE001, S110 - a name for the message only
        pass
    try:
        from fastenough import _core

        rank, text = _core.summarize_trace(path, frame_roots=frame_roots,
                                           input_index=input_index)
        return {"rank": rank, "summary": text, "worker": worker}
    except Exception as e:  # noqa: BLE001 - reported by the caller, with the path
        return {"error": str(e), "error_class": type(e).__name__, "worker": worker}


def scheduler_address(address: str) -> str:
    """The scheduler's address from what the user gave: an address
    (tcp://HOST:PORT and Dask's other schemes), or the JSON file that
    `dask scheduler --scheduler-file FILE` wrote. Checked here: Dask answers a
    file that is no scheduler file with an AssertionError."""
    if os.path.isfile(address):
        import json

        try:
            with open(address, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError, UnicodeDecodeError) as e:
            raise UsageError(f"--dask {visible(address)}: not a Dask scheduler file "
                             f"({visible(str(e))})") from None
        found = doc.get("address") if isinstance(doc, dict) else None
        if not isinstance(found, str) or not found:
            raise UsageError(f"--dask {visible(address)}: not a Dask scheduler file (no "
                             "\"address\" in it)")
        address = found
    if not re.match(r"^[a-z][a-z0-9+]*://[^\s/]+$", address):
        raise UsageError(f"--dask {visible(address)}: give the scheduler's address "
                         "(tcp://HOST:8786) or the file its --scheduler-file wrote")
    return address


def _connect(address: str):
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--dask needs Dask's distributed package: pip install "
                         "'fastenough[dask]' (or: pip install distributed)") from None
    try:
        return Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except Exception as e:  # noqa: BLE001 - OSError, TimeoutError, Dask's own
        raise UsageError(f"--dask {visible(address)}: no Dask scheduler answered within "
                         f"{CONNECT_TIMEOUT_S} s ({visible(str(e) or type(e).__name__)})"
                         ) from None


def summarise_on_dask(address: str, paths: list[str], frame_roots: dict,
                      progress: bool = False) -> list[tuple[int, str]]:
    """Each trace's (rank, summary JSON), in input order, made on the cluster's
    workers. Paths are made absolute: the workers do not share our working
    directory, only the storage."""
    address = scheduler_address(address)
    client = _connect(address)
    try:
        workers = client.scheduler_info().get("workers", {})
        if not workers:
            raise UsageError(f"--dask {visible(address)}: the scheduler has no workers")
        absolute = [os.path.abspath(p) for p in paths]
        from distributed import as_completed

        futures = {client.submit(summarise_on_worker, p, frame_roots, i, pure=False): i
                   for i, p in enumerate(absolute)}
        results: list[dict | None] = [None] * len(paths)
        used: set = set()
        t0 = time.monotonic()
        for done, future in enumerate(as_completed(futures, loop=client.loop), 1):
            i = futures[future]
            try:
                results[i] = future.result()
            except Exception as e:  # noqa: BLE001 - a worker died or the task failed
                results[i] = {"error": str(e) or type(e).__name__,
                              "error_class": type(e).__name__, "worker": None}
            used.add(results[i].get("worker"))
            if progress:
                sys.stderr.write(f"\rfastenough: {done}/{len(paths)} ranks summarised on "
                                 f"the cluster ({time.monotonic() - t0:.0f} s)")
        if progress:
            sys.stderr.write("\n")
    finally:
        client.close()
    failed = [(absolute[i], r) for i, r in enumerate(results) if "error" in r]
    if failed:
        path, r = failed[0]
        message = r["error"]
        if message.startswith(path):  # the core names the file first
            message = message[len(path):].lstrip(": ")
        where = f" (on worker {r['worker']})" if r.get("worker") else ""
        more = f"; {len(failed) - 1} more trace(s) failed" if len(failed) > 1 else ""
        error = FastenoughError if r.get("error_class") == "InternalError" else BadInputError
        raise error(f"{visible(path)}{where}: {visible(message)}{more}")
    named = sorted(w for w in used if w)
    sys.stderr.write(f"fastenough: {len(paths)} trace(s) summarised on {len(named)} Dask "
                     f"worker(s) of {visible(address)}\n")
    return [(r["rank"], r["summary"]) for r in results]
