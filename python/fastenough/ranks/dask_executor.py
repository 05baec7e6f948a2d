"""`fastenough analyze --dask ADDRESS`: the ranks of a job whose traces sit on
storage that several hosts can read (a cluster's shared file system) are
summarised on the workers of a running Dask cluster, one task per trace, and
merged here, the way `analyze --rank-summaries` and `merge` do it on one host
(docs/across-hosts.md says why Dask and how to start a cluster).

A task is a path in and a bounded summary out (fastenough.rank-summary/1, tens
of KB): the worker loads the trace, runs the C++ analysis and frees the trace
before it returns, so this process holds summaries only, whatever the number
and size of the traces. The merged report is the report `analyze` gives for
the same traces on one host (tests/python/trace/test_analyze_dask.py).

Dask is an optional dependency (`pip install 'fastenough[dask]'`); nothing here
is imported unless --dask is given.
"""

from __future__ import annotations

import os
import re
import sys
import time

from fastenough.errors import BadInputError, FastenoughError, UsageError
from fastenough.visible import visible

# Every wait is bounded (issue 34, item 7; docs/across-hosts.md): the
# scheduler must answer within CONNECT_TIMEOUT_S (a listener that accepts and
# never answers included), and the work ends with a message once the cluster
# has had no worker, or this process no scheduler, for NO_WORKER_TIMEOUT_S
# (the only worker died mid-task and none came back). A trace itself may take
# as long as it takes while a worker holds it.
CONNECT_TIMEOUT_S = 30
NO_WORKER_TIMEOUT_S = 30
POLL_S = 1.0  # how often the cluster is looked at while traces are summarised
CLOSE_TIMEOUT_S = 5
# The schemes a scheduler on another host listens on (inproc:// is one
# process's own, and would wait for a scheduler that cannot exist here).
SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")

def summarise_on_worker(path: str, frame_roots: dict, input_index: int,
                        peaks: dict | None = None) -> dict:
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
                                           input_index=input_index, **(peaks or {}))
        return {"rank": rank, "summary": text, "worker": worker}
    except Exception as e:  # noqa: BLE001 - reported by the caller, with the path
        return {"error": str(e), "error_class": type(e).__name__, "worker": worker}


def scheduler_address(address: str) -> str:
    """The scheduler's address from what the user gave: SCHEME://HOST:PORT
    (SCHEMES; an IPv6 host in brackets), or the JSON file that `dask scheduler
    --scheduler-file FILE` wrote. Checked here, at once: Dask answers a file
    that is no scheduler file with an AssertionError, and a malformed address
    (`tcp://[::1`, `inproc://x`) only after its connect timeout."""
    shown = visible(address)
    if os.path.isfile(address):
        from fastenough.inputs.json_input import load_json_file

        try:
            doc = load_json_file(address, max_depth=16, max_bytes=1 << 20)
        except FastenoughError as e:
            raise UsageError(f"--dask {shown}: not a Dask scheduler file ({e})") from None
        found = doc.get("address") if isinstance(doc, dict) else None
        if not isinstance(found, str) or not found:
            raise UsageError(f"--dask {shown}: not a Dask scheduler file (no "
                             "\"address\" in it)")
        address = found
        shown = f"{shown} (address {visible(found)})"
    m = re.fullmatch(r"([a-z][a-z0-9+]*)://(.*)", address)
    if not m:
        raise UsageError(f"--dask {shown}: give the scheduler's address "
                         "(tcp://HOST:8786) or the file its --scheduler-file wrote")
    scheme, rest = m.groups()
    if scheme not in SCHEMES:
        raise UsageError(f"--dask {shown}: {visible(scheme)}:// is no scheduler another "
                         f"process can reach; give {'://, '.join(SCHEMES)}://HOST:PORT")
    host, port = _host_port(rest)
    if host is None or port is None or not 0 < port < 65536:
        raise UsageError(f"--dask {shown}: not HOST:PORT after {scheme}:// (an IPv6 host in "
                         "brackets: tcp://[::1]:8786)")
    return address


def _host_port(text: str) -> tuple[str | None, int | None]:
    """('::1', 8786) of '[::1]:8786', ('node7', 8786) of 'node7:8786'; None where
    a part is missing or malformed."""
    import ipaddress

    m = re.fullmatch(r"\[([^\]]*)\]:(\d{1,5})", text) or \
        re.fullmatch(r"([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})", text)
    if not m:
        return None, None
    host, port = m[1], int(m[2])
    if text.startswith("["):
        try:
            ipaddress.IPv6Address(host.split("%")[0])
        except ValueError:
            return None, None
    return host, port


def _quiet_dask() -> None:
    """What goes wrong is said once, by this command: not also by Dask's
    loggers, nor by Client.__del__ of a client whose start failed
    ("Exception ignored in: <function Client.__del__>", a traceback)."""
    import logging

    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    previous = sys.unraisablehook

    def hook(unraisable) -> None:  # noqa: ANN001 - sys.UnraisableHookArgs
        where = getattr(unraisable.object, "__qualname__", "") or ""
        module = getattr(unraisable.object, "__module__", "") or ""
        if module.startswith("distributed") or where.startswith("Client."):
            return
        previous(unraisable)

    sys.unraisablehook = hook


def summarise_on_dask(address: str, paths: list[str], frame_roots: dict,
                      progress: bool = False, peaks: dict | None = None
                      ) -> list[tuple[int, str]]:
    """Each trace's (rank, summary JSON), in input order, made on the cluster's
    workers. Paths are made absolute: the workers do not share our working
    directory, only the storage. Every wait is bounded (CONNECT_TIMEOUT_S,
    NO_WORKER_TIMEOUT_S)."""
    import asyncio

    address = scheduler_address(address)
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UsageError("--dask needs Dask's distributed package: pip install "
                         "'fastenough[dask]' (or: pip install distributed)") from None
    _quiet_dask()
    absolute = [os.path.abspath(p) for p in paths]
    results = asyncio.run(_summarise(address, absolute, frame_roots, progress, peaks))
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
    named = sorted({r.get("worker") for r in results if r.get("worker")})
    sys.stderr.write(f"fastenough: {len(paths)} trace(s) summarised on {len(named)} Dask "
                     f"worker(s) of {visible(address)}\n")
    return [(r["rank"], r["summary"]) for r in results]


async def _summarise(address: str, absolute: list[str], frame_roots: dict,
                     progress: bool, peaks: dict | None = None) -> list[dict]:
    import asyncio

    from distributed import Client

    shown = visible(address)
    # Started at once, in this loop (client._started); awaited below.
    client = Client(address, asynchronous=True, timeout=CONNECT_TIMEOUT_S,
                    set_as_default=False)
    try:
        try:
            # Dask bounds each step of its start by `timeout`, not the whole:
            # a listener that accepts and never answers waited for ever.
            await asyncio.wait_for(client._started, CONNECT_TIMEOUT_S)
            workers = await _workers(client)
        except asyncio.TimeoutError:
            raise UsageError(f"--dask {shown}: no Dask scheduler answered within "
                             f"{CONNECT_TIMEOUT_S} s") from None
        except Exception as e:  # noqa: BLE001 - OSError and Dask's own
            raise UsageError(f"--dask {shown}: no Dask scheduler answered within "
                             f"{CONNECT_TIMEOUT_S} s ({visible(str(e) or type(e).__name__)})"
                             ) from None
        if not workers:
            raise UsageError(f"--dask {shown}: the scheduler has no workers")
        futures = [client.submit(summarise_on_worker, p, frame_roots, i, peaks, pure=False)
                   for i, p in enumerate(absolute)]
        return await _gather(client, futures, shown, progress)
    finally:
        await _close(client)


async def _workers(client) -> int:  # noqa: ANN001 - distributed.Client
    """How many workers the scheduler has; an error when it does not answer."""
    import asyncio

    if client.status != "running":
        raise ConnectionError(f"the client is {client.status}")
    ncores = await asyncio.wait_for(client.scheduler.ncores(), CONNECT_TIMEOUT_S)
    return len(ncores)


async def _gather(client, futures: list, shown: str, progress: bool) -> list[dict]:  # noqa: ANN001
    """Each future's result dict, in order; a task that failed or whose worker
    died is an error dict. Ends with a UsageError once the cluster has had no
    worker (or we no scheduler) for NO_WORKER_TIMEOUT_S."""
    import asyncio

    async def one(i: int, future) -> tuple[int, dict]:  # noqa: ANN001
        try:
            return i, await future
        except asyncio.CancelledError:
            if asyncio.current_task().cancelling():  # type: ignore[union-attr]
                raise  # we are being cancelled, not the task on the cluster
            return i, {"error": "cancelled on the cluster (the scheduler lost it)",
                       "error_class": "CancelledError", "worker": None}
        except Exception as e:  # noqa: BLE001 - a worker died or the task failed
            return i, {"error": str(e) or type(e).__name__,
                       "error_class": type(e).__name__, "worker": None}

    results: list[dict | None] = [None] * len(futures)
    pending = {asyncio.ensure_future(one(i, f)) for i, f in enumerate(futures)}
    t0 = time.monotonic()
    alone_since = None  # since when no worker / no scheduler
    why = ""
    try:
        while pending:
            done, pending = await asyncio.wait(pending, timeout=POLL_S,
                                               return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                i, r = task.result()
                results[i] = r
            if progress:
                n = sum(r is not None for r in results)
                sys.stderr.write(f"\rfastenough: {n}/{len(futures)} ranks summarised on "
                                 f"the cluster ({time.monotonic() - t0:.0f} s)")
            if not pending:
                break
            try:
                workers = await _workers(client)
                why = "" if workers else "the scheduler has no worker left"
            except Exception as e:  # noqa: BLE001 - lost, or not answering
                reason = visible(str(e) or type(e).__name__)
                workers, why = 0, f"the scheduler does not answer ({reason})"
            if workers:
                alone_since = None
                continue
            alone_since = alone_since or time.monotonic()
            if time.monotonic() - alone_since >= NO_WORKER_TIMEOUT_S:
                n = sum(r is not None for r in results)
                raise UsageError(f"--dask {shown}: {why} for {NO_WORKER_TIMEOUT_S} s (a "
                                 f"worker died or left); {n} of {len(futures)} trace(s) "
                                 "summarised, no report")
    finally:
        if progress:
            sys.stderr.write("\n")
        for task in pending:
            task.cancel()
    return results  # type: ignore[return-value]


async def _close(client) -> None:  # noqa: ANN001 - distributed.Client
    """Close the client within CLOSE_TIMEOUT_S, whatever state its start left it in."""
    import asyncio
    import contextlib

    with contextlib.suppress(BaseException):
        await asyncio.wait_for(client._close(fast=True), CLOSE_TIMEOUT_S)
    client.status = "closed"  # nothing left for Client.__del__ to do
