"""The user's terminal while `fastenough run` waits for the command.

The command runs in a process group of its own (so that a signal can reach all
of it, DataLoader workers included) but in fastenough's session, so that it keeps
the controlling terminal: /dev/tty opens, `input()` and pdb read the keyboard.
When fastenough is the terminal's foreground job, it hands the terminal to the
command's group, as a job-control shell does; the terminal's own signals (Ctrl-C,
Ctrl-\\, Ctrl-Z) then reach the command exactly as in a plain run.

Ctrl-Z stops the command's group. fastenough sees it stop (waitpid WUNTRACED),
takes the terminal back and stops its own job, so that the shell shows the job
stopped and gives the prompt back; `fg` continues fastenough, which hands the
terminal over again and continues the command (`bg`: continued without it).
Without a terminal (CI, pipes), a SIGTSTP sent to fastenough is forwarded and
fastenough stops with the command; SIGCONT continues both.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess


class ForegroundTerminal:
    """The controlling terminal, held while fastenough is its foreground job."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    @classmethod
    def of_this_process(cls) -> ForegroundTerminal | None:
        """None without a controlling terminal, or when fastenough runs in the
        background (`fastenough run ... &`): then nothing is handed over."""
        try:
            fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            if os.tcgetpgrp(fd) == os.getpgrp():
                return cls(fd)
        except OSError:
            pass
        os.close(fd)
        return None

    def give_to(self, pgid: int) -> None:
        """Make `pgid` the foreground group. From a background group this would
        raise SIGTTOU, which stops the caller: it is ignored meanwhile."""
        old = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        try:
            with contextlib.suppress(OSError):
                os.tcsetpgrp(self.fd, pgid)
        finally:
            signal.signal(signal.SIGTTOU, old)

    def take_back(self) -> None:
        self.give_to(os.getpgrp())

    def ours(self) -> bool:
        try:
            return os.tcgetpgrp(self.fd) == os.getpgrp()
        except OSError:
            return False

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)


def give_terminal_in_child(fd: int) -> None:
    """In the forked child before exec (preexec), as shells do on both sides of
    the fork: the command owns the terminal from its first instruction."""
    old = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    try:
        with contextlib.suppress(OSError):
            os.tcsetpgrp(fd, os.getpgrp())
    finally:
        signal.signal(signal.SIGTTOU, old)


def stop_self(terminal: ForegroundTerminal | None) -> None:
    """Stop fastenough's own job; returns once something continues it. With a
    terminal, the whole job is stopped with SIGTSTP so that the shell reports it
    (a `fastenough run ... | tee` pipeline included); the kernel discards that
    signal in an orphaned group, where nobody could continue it. Without one,
    only this process stops (SIGSTOP: SIGTSTP is forwarded to the command)."""
    if terminal is None:
        os.kill(os.getpid(), signal.SIGSTOP)
        return
    old = signal.signal(signal.SIGTSTP, signal.SIG_DFL)
    try:
        os.killpg(os.getpgrp(), signal.SIGTSTP)
    finally:
        signal.signal(signal.SIGTSTP, old)


def wait_for_child(proc: subprocess.Popen, terminal: ForegroundTerminal | None,
                   stop_requested: list[bool], log) -> int:
    """The child's return code (negative: killed by that signal), following it
    through stops: each stop of the command stops fastenough too (with a terminal
    always, as job control does; without one when a SIGTSTP was forwarded, or
    when the command, in the background, read or wrote the terminal), and when
    fastenough continues, the command continues."""
    acquired = None  # a terminal taken over after `fastenough run ... &` and `fg`
    wake = _SignalWake()
    try:
        while True:
            pid, status = os.waitpid(proc.pid, os.WNOHANG | os.WUNTRACED)
            if pid == 0:
                wake.wait()
                continue
            if not os.WIFSTOPPED(status):
                proc.returncode = os.waitstatus_to_exitcode(status)
                if terminal is not None:
                    terminal.take_back()
                return proc.returncode
            sig = os.WSTOPSIG(status)
            log(f"child stopped by signal {sig}")
            tty_stop = sig in (signal.SIGTTIN, signal.SIGTTOU)
            if terminal is None and not stop_requested[0] and not tty_stop:
                continue  # stopped by someone else (a debugger): wait on
            stop_requested[0] = False
            if terminal is not None:
                terminal.take_back()
            stop_self(terminal)
            if terminal is None and tty_stop:
                # Run in the background, the command wanted the terminal: after
                # `fg` fastenough is the foreground job and hands it over.
                terminal = acquired = ForegroundTerminal.of_this_process()
            if terminal is not None and terminal.ours():  # `fg`, not `bg`
                terminal.give_to(proc.pid)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGCONT)
            log("continued; child continued")
    finally:
        wake.close()
        if acquired is not None:
            acquired.close()


class _SignalWake:
    """Waiting for "a signal came": the child's exit or stop (SIGCHLD) or one to
    forward. A blocking waitpid() is not interrupted by a signal that the kernel
    hands to another thread (the sampler's) nor by one that lands just before the
    call: the Python handler then ran only when the command ended (a SIGINT or
    SIGQUIT to fastenough was passed on minutes late, under load). Python's C
    handler writes every signal to the wakeup fd, from whichever thread, so a
    select() on it returns in all three cases, and the handlers run right after."""

    def __init__(self) -> None:
        self.read, self.write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.main_thread = True
        try:
            self.old_fd = signal.set_wakeup_fd(self.write, warn_on_full_buffer=False)
            # A handler, not SIG_DFL: only a handled signal reaches the wakeup fd.
            # It changes nothing else (children are still reaped by their parents).
            self.old_chld = signal.signal(signal.SIGCHLD, lambda *_: None)
        except ValueError:  # not the main thread (embedding, tests): no handlers, poll
            self.main_thread = False

    def wait(self) -> None:
        select.select([self.read], [], [], None if self.main_thread else 0.1)
        with contextlib.suppress(BlockingIOError):
            while os.read(self.read, 512):
                pass

    def close(self) -> None:
        if self.main_thread:
            signal.signal(signal.SIGCHLD, self.old_chld)
            signal.set_wakeup_fd(self.old_fd)
        os.close(self.read)
        os.close(self.write)
