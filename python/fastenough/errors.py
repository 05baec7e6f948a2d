"""The one error hierarchy of fastenough, and the exit code each error maps to.

The C++ core reports problems as Status values; the binding raises the class
named here for each status code. The CLI catches FastenoughError, prints its
message and exits with its exit_code: never a traceback for bad input.
"""

from __future__ import annotations

# Exit codes shared by every subcommand.
EXIT_OK = 0
EXIT_FINDINGS_OR_COUNTERS = 1  # analysis ran, but error counters were raised
# `fastenough diff --max-regression`: B is slower than A by more than allowed.
EXIT_REGRESSION = 1
EXIT_USAGE = 2  # usage error or unreadable input
EXIT_INTERNAL = 3  # a bug in fastenough
# `fastenough run --require-complete`: the command succeeded, but the measurement
# was incomplete (the agent did not see torch, no steps, checks stopped, ...).
EXIT_MEASUREMENT_INCOMPLETE = 4
# `fastenough analyze`: the report was written, but the input lost data on the
# way (a truncated file, events dropped as damaged or too large): its figures
# cover only what could be read.
EXIT_DATA_LOSS = 5


class FastenoughError(Exception):
    exit_code = EXIT_INTERNAL


class UsageError(FastenoughError):
    """A wrong flag or value."""

    exit_code = EXIT_USAGE


class InputNotFoundError(FastenoughError):
    """A file the user named does not exist or cannot be opened."""

    exit_code = EXIT_USAGE


class BadInputError(FastenoughError):
    """The input exists but cannot be read: not a trace, or damaged beyond repair."""

    exit_code = EXIT_USAGE


class InputTooLargeError(BadInputError):
    """The input would take more memory than it may: a compressed file that
    inflates beyond the stated limit (FASTENOUGH_MAX_INFLATE_RATIO), or one
    larger than this machine can hold."""


class MalformedReportError(BadInputError):
    """A document that says it is a fastenough report but does not follow the schema
    (python/fastenough/report/load.py): the message names the JSON path of the first
    value wrong, e.g. report.findings[3].saving.share_of_step."""

    def __init__(self, path: str, what: str, source: str | None = None):
        where = f"{source}: " if source else ""
        super().__init__(f"{where}not a valid fastenough.report/1 document: {path}: {what}")
        self.path = path
        self.what = what


class OutputError(FastenoughError):
    """A file the user asked for could not be written (no space, no permission)."""

    exit_code = EXIT_USAGE


class DuplicateRecordError(UsageError, ValueError):
    """fastenough.record called twice with the same key: the message names both call sites.
    The one error the in-program API raises in the user's program."""


class NotComparableError(FastenoughError):
    """`fastenough diff --max-regression`: the two runs measured different work
    (another batch size, device, world size) or too few steady steps to judge.
    The exit code is the usage errors' (2: no verdict), the message starts with
    "not comparable:" and the JSON says gate.status "not-comparable"."""

    exit_code = EXIT_USAGE


class InternalError(FastenoughError):
    """A bug in fastenough."""

    exit_code = EXIT_INTERNAL


class WindowUnavailableError(UsageError):
    """A timing window the device cannot provide (dummy or graph on the CPU)."""


class GraphCaptureError(FastenoughError):
    """The function could not be captured into a device graph (dynamic shapes,
    a host synchronisation inside it, ...); the message names the cause."""

    exit_code = EXIT_USAGE


class MeasurementWarning(UserWarning):
    """A measurement that is valid but should be read with care (noisy rounds,
    a dummy window whose margin ran out, batch-dependent semantics)."""
