"""The rank summaries of `analyze --rank-summaries DIR` (fastenough.rank-summary/1,
docs/rank-summary.md): where they are written, and the order in which
`fastenough merge DIR` reads a directory of them."""

from __future__ import annotations

import os
import sys

from fastenough.errors import OutputError, UsageError
from fastenough.inputs.json_input import load_json_file
from fastenough.outputs.output_file import write_output
from fastenough.visible import visible

SUFFIX = ".summary.json"
SUMMARY_MAX_DEPTH = 64
SUMMARY_MAX_BYTES = 1 << 30


def prepare_dir(directory: str) -> None:
    """Create DIR (and its parents) before any work, or say why it cannot be."""
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise UsageError(f"--rank-summaries {visible(directory)}: not a directory")
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise OutputError(f"--rank-summaries {visible(directory)}: {e.strerror or e}") from None


def file_names(ranks: list[int]) -> list[str]:
    """rank<R>.summary.json; input<I>-rank<R>.summary.json for all when a rank
    number repeats (traces without distributedInfo are all rank 0)."""
    if len(set(ranks)) == len(ranks):
        return [f"rank{r}{SUFFIX}" for r in ranks]
    return [f"input{i}-rank{r}{SUFFIX}" for i, r in enumerate(ranks)]


def write_summaries(directory: str, summaries: list[tuple[int, str]], inputs: list[str]) -> None:
    names = file_names([rank for rank, _ in summaries])
    for name, (_, text) in zip(names, summaries, strict=True):
        write_output(os.path.join(directory, name), text, inputs, what="--rank-summaries")
    others = [n for n in os.listdir(directory) if n.endswith(SUFFIX) and n not in names]
    note = ""
    if others:
        note = (f"; it also holds {len(others)} other summar{'y' if len(others) == 1 else 'ies'} "
                "that `fastenough merge DIR` would read too")
    sys.stderr.write(f"fastenough: {len(names)} rank summar{'y' if len(names) == 1 else 'ies'} "
                     f"written to {visible(directory)}{note}\n")


def directory_summaries(directory: str) -> list[str]:
    """The *.summary.json of DIR in the order analyze had their traces (input_index),
    ranks analysed apart (the same index) by rank, then by name."""
    keyed = []
    for name in os.listdir(directory):
        if not name.endswith(SUFFIX):
            continue
        path = os.path.join(directory, name)
        # Bounded (size, depth 64: a summary nests 6 levels), not blocking on a
        # FIFO, no NaN: a 100k-deep file was a RecursionError (issue 34, item 11).
        head = load_json_file(path, max_depth=SUMMARY_MAX_DEPTH, max_bytes=SUMMARY_MAX_BYTES)
        index = head.get("input_index") if isinstance(head, dict) else None
        rank = head.get("rank") if isinstance(head, dict) else None
        if not isinstance(index, int) or not isinstance(rank, int):
            raise UsageError(f"{visible(path)}: not a fastenough.rank-summary/1 document")
        keyed.append((index, rank, name, path))
    if not keyed:
        raise UsageError(f"{visible(directory)}: no *{SUFFIX} files in it (write them with "
                         "`fastenough analyze TRACES --rank-summaries DIR`)")
    return [path for *_, path in sorted(keyed)]
