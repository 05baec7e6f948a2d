"""Runtime waste checks of the in-process agent (issue 5): what a kernel trace
cannot see. One module per check, the memory census and the sync watch; the
Registry (registry.py) is what the agent calls. Verdicts and savings are
decided by the C++ core (fastenough._core.check_verdict).

Standalone use (tests, or a program outside `fastenough run`):

    from fastenough.agent import checks
    reg = checks.install(run_dir, {"probe": False})   # hooks on root module calls
    ... reg.on_steady_begin(); loop (reg.on_step_end() per step); reg.on_steady_end()
    reg.at_exit()   # also registered with atexit: writes checks/census/syncs.json
"""

from __future__ import annotations

_REGISTRY = None


def install(run_dir: str, opts: dict | None = None, *, hooks: bool = True, at_exit: bool = True):
    """Create the process's registry (once) and install its forward hooks."""
    global _REGISTRY
    if _REGISTRY is not None:
        return _REGISTRY
    from fastenough.agent.checks.registry import Registry

    reg = Registry(run_dir, opts)
    if hooks:
        reg.install_hooks()
    if at_exit:
        import atexit

        atexit.register(reg.at_exit)
    _REGISTRY = reg
    return reg


def get():
    return _REGISTRY


def reset() -> None:
    """Forget the registry (tests); removes its hooks."""
    global _REGISTRY
    if _REGISTRY is not None:
        _REGISTRY.uninstall()
    _REGISTRY = None
