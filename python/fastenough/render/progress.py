"""Progress on stderr for long work: a byte-count bar for trace loads, a spinner
for work that cannot say how far it is."""

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
def spinner(label: str, enabled: bool = True) -> Iterator[None]:
    """A spinner with the elapsed time while the block runs (nothing when not enabled)."""
    if not enabled:
        yield
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TimeElapsedColumn

    progress = Progress(SpinnerColumn(), "[progress.description]{task.description}",
                        TimeElapsedColumn(), console=Console(stderr=True), transient=True)
    progress.add_task(label, total=None)
    with progress:
        yield
