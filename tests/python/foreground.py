"""Start a command with SIGINT and SIGQUIT at their defaults, as a terminal's
foreground job starts.

A shell's background job (`pytest ... &`, a CI runner's step) starts with both
ignored, and an ignored signal stays ignored across exec. `fastenough run` keeps
the program's dispositions as they came (it changes nothing the program would
have had without it), so there a program ignores Ctrl-C with or without
fastenough, and the tests of Ctrl-C and SIGQUIT would wait for it in vain: the
whole suite run in the background failed exactly those three tests.
"""

from __future__ import annotations

import signal


def default_signals() -> None:
    """A preexec_fn (or a forked child's first step): SIGINT and SIGQUIT to SIG_DFL."""
    for s in (signal.SIGINT, signal.SIGQUIT):
        signal.signal(s, signal.SIG_DFL)
