"""Progress bars on stderr for long work: bytes of traces loaded at once
(`analyze`), trace files of a run directory loaded one after the other, files
linted (`lint`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def byte_progress(label: str) -> Iterator[Callable[[int, int], None]]:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    progress = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = progress.add_task(label, total=None)

    def update(done: int, total: int) -> None:
        progress.update(task, completed=done, total=total)

    with progress:
        yield update


@contextlib.contextmanager
def files_progress(label: str, files: int) -> Iterator[Callable[[int, int], None]]:
    """A bar over several files read one after the other; update(done, total) takes
    thousandths of a file, as _core.analyze_run_dir reports them."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TimeElapsedColumn

    progress = Progress("[progress.description]{task.description}", BarColumn(),
                        TaskProgressColumn(), TimeElapsedColumn(),
                        console=Console(stderr=True), transient=True)
    task = progress.add_task(label, total=1000 * max(files, 1))

    def update(done: int, total: int) -> None:
        current = min(done // 1000 + 1, files)
        progress.update(task, completed=done, total=total,
                        description=f"{label} ({current}/{files})" if files > 1 else label)

    with progress:
        yield update


@contextlib.contextmanager
def count_progress(label: str, unit: str) -> Iterator[Callable[[int, int], None]]:
    """A bar over items of equal weight (files linted): update(done, total)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    progress = Progress("[progress.description]{task.description}", BarColumn(),
                        MofNCompleteColumn(), unit, TimeElapsedColumn(), TimeRemainingColumn(),
                        console=Console(stderr=True), transient=True)
    task = progress.add_task(label, total=None)

    def update(done: int, total: int) -> None:
        progress.update(task, completed=done, total=total)

    with progress:
        yield update
