"""Loaded by every Python process started under `fastenough run`.

`fastenough run` prepends this directory to PYTHONPATH, so Python's `site`
imports this file instead of any other `sitecustomize`. This file must therefore:
  * chain the `sitecustomize` that would have been found later on sys.path;
  * do nothing else at all when FASTENOUGH_RUN_DIR is unset;
  * stay cheap: no torch import here. The agent installs an import hook and only
    patches torch right after the user's program imports it.
Nothing here may raise: a failure to start the agent must never stop the program.
"""


def _chain_next_sitecustomize() -> None:
    import importlib.machinery
    import importlib.util
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    rest = []
    for p in sys.path:
        try:
            if os.path.abspath(p or os.getcwd()) != here:
                rest.append(p)
        except OSError:
            rest.append(p)
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    mine = sys.modules.get("sitecustomize")
    module = importlib.util.module_from_spec(spec)
    # The chained file runs under its usual name, as if Python had imported it.
    sys.modules["sitecustomize"] = module
    try:
        spec.loader.exec_module(module)
    except Exception:  # noqa: BLE001 - Python's site.py also only warns on failure
        import traceback

        sys.stderr.write("Error in sitecustomize (chained by fastenough); traceback follows\n")
        traceback.print_exc()
    finally:
        sys.modules["_fastenough_chained_sitecustomize"] = module
        if mine is not None:
            sys.modules["sitecustomize"] = mine


def _start_agent() -> None:
    import os
    import sys

    if not os.environ.get("FASTENOUGH_RUN_DIR"):
        return
    try:
        import fastenough.agent.bootstrap as bootstrap
    except ImportError:
        # A different interpreter than the one fastenough is installed in: the
        # package lies three levels above this directory (<root>/fastenough/agent/boot).
        root = os.path.dirname(
            os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        )
        sys.path.append(root)
        try:
            import fastenough.agent.bootstrap as bootstrap
        except ImportError:
            return
    bootstrap.boot()


try:  # noqa: SIM105 - contextlib costs an import at startup
    _chain_next_sitecustomize()
except Exception:  # noqa: BLE001, S110 - never stop the user's program
    pass
try:  # noqa: SIM105 - contextlib costs an import at startup
    _start_agent()
except Exception:  # noqa: BLE001, S110 - never stop the user's program
    pass
