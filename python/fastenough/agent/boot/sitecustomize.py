"""Loaded by every Python process started under `fastenough run`.

`fastenough run` prepends this directory to PYTHONPATH, so Python's `site`
imports this file instead of any other `sitecustomize`. This file must therefore:
  * chain the `sitecustomize` that would have been found later on sys.path, and
    leave it (or nothing, as without us) as `sys.modules["sitecustomize"]`;
  * take this directory off sys.path again (PYTHONPATH keeps it, for the
    program's own subprocesses): the program sees its plain sys.path;
  * do nothing else at all when FASTENOUGH_RUN_DIR is unset;
  * in another interpreter than fastenough's (`run -- /usr/bin/python3 x.py`),
    load the agent from its own directory without putting that directory, the
    site-packages of fastenough's environment, on sys.path: the program must not
    import that environment's torch, numpy or rich;
  * stay cheap: no torch import here. The agent installs an import hook and only
    patches torch right after the user's program imports it.
Nothing here may raise: a failure to start the agent must never stop the program.
"""


def _chain_next_sitecustomize() -> bool:
    """True when another sitecustomize was found and run."""
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
    # This directory off sys.path: only `site` needed it, to find this file.
    sys.path[:] = rest
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return False
    module = importlib.util.module_from_spec(spec)
    # The chained file runs under its usual name, as if Python had imported it,
    # and stays the program's `sitecustomize`.
    sys.modules["sitecustomize"] = module
    try:
        spec.loader.exec_module(module)
    except Exception:  # noqa: BLE001 - Python's site.py also only warns on failure
        import traceback

        sys.stderr.write("Error in sitecustomize (chained by fastenough); traceback follows\n")
        traceback.print_exc()
    return True


def _start_agent() -> None:
    import os
    import sys

    if not os.environ.get("FASTENOUGH_RUN_DIR"):
        return
    try:
        import fastenough.agent.bootstrap as bootstrap
    except ImportError:
        # A different interpreter than the one fastenough is installed in: the
        # package lies two levels above this directory (<root>/fastenough/agent/boot).
        # It is loaded from there by location; <root> (site-packages, with torch,
        # numpy, rich...) never goes on sys.path.
        import importlib.util

        package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        spec = importlib.util.spec_from_file_location(
            "fastenough", os.path.join(package, "__init__.py"),
            submodule_search_locations=[package])
        if spec is None or spec.loader is None:
            return
        module = importlib.util.module_from_spec(spec)
        sys.modules["fastenough"] = module
        try:
            spec.loader.exec_module(module)
            import fastenough.agent.bootstrap as bootstrap
        except ImportError:
            for name in [n for n in sys.modules if n.split(".")[0] == "fastenough"]:
                del sys.modules[name]
            return
    bootstrap.boot()


_chained = False
try:  # noqa: SIM105 - contextlib costs an import at startup
    _chained = _chain_next_sitecustomize()
except Exception:  # noqa: BLE001, S110 - never stop the user's program
    pass
try:  # noqa: SIM105 - contextlib costs an import at startup
    _start_agent()
except Exception:  # noqa: BLE001, S110 - never stop the user's program
    pass
if not _chained:
    # As without us, there is then no `sitecustomize` module at all: this is
    # the ImportError that site.py takes for "none" and passes over silently;
    # the import system drops this module from sys.modules, so the program's
    # `import sitecustomize` fails as it does plain. (With a chained one, the
    # import system keeps that one under the name.)
    raise ImportError("no sitecustomize besides fastenough's", name="sitecustomize")
