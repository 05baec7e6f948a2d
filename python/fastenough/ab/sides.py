"""The two sides of an A/B and the order they run in."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from fastenough.errors import UsageError


@dataclass(frozen=True)
class Side:
    name: str  # "A" or "B"
    cmd: list[str]
    env: dict[str, str] = field(default_factory=dict)  # set on top of the caller's environment

    def label(self) -> str:
        env = " ".join(f"{k}={v}" for k, v in self.env.items())
        return (env + " " if env else "") + shlex.join(self.cmd)


def parse_env(pairs: list[str], flag: str) -> dict[str, str]:
    out = {}
    for kv in pairs:
        key, sep, value = kv.partition("=")
        if not sep or not key:
            raise UsageError(f"{flag} needs KEY=VALUE, got {kv!r}")
        out[key] = value
    return out


def make_sides(commands: list[str], env_a: dict[str, str],
               env_b: dict[str, str]) -> tuple[Side, Side]:
    """Two quoted commands, or one command (after --) with --env-a/--env-b."""
    if commands and commands[0] == "--":
        commands = commands[1:]
        if not commands:
            raise UsageError("nothing after --: give the command to run with --env-a / --env-b")
        if not (env_a or env_b):
            raise UsageError("one command after -- needs --env-a and/or --env-b to tell the "
                             "sides apart")
        return Side("A", list(commands), env_a), Side("B", list(commands), env_b)
    if len(commands) != 2:
        raise UsageError('give two quoted commands: fastenough ab "CMD A" "CMD B", or one '
                         "command with settings: fastenough ab --env-a K=V --env-b K=V -- CMD")
    a, b = (shlex.split(c) for c in commands)
    if not a or not b:
        raise UsageError("a side's command is empty")
    return Side("A", a, env_a), Side("B", b, env_b)


def abba_order(rounds: int) -> list[str]:
    """A B B A, `rounds` times: drift in time (thermal, other load) cancels in pairs."""
    if rounds < 1:
        raise UsageError("--rounds must be 1 or more")
    return ["A", "B", "B", "A"] * rounds


def pairs(order: list[str]) -> list[tuple[int, int]]:
    """(i-th A run, i-th B run) index pairs: within each A B B A block, A1 with B1 and
    A2 with B2, the runs nearest in time."""
    n = order.count("A")
    return [(i, i) for i in range(n)]
