"""Taps on torch's callables (Tensor.item, Tensor.numpy, torch.where, ...):
listeners told of each call, for as long as they are registered.

The sync watch counts host syncs by call site; the logits check notes reads
that bypass torch's dispatcher (tolist, numpy). Both watch some of the same
methods at overlapping times, so one native wrapper per attribute
(passthrough.py: no frame of ours in the program's tracebacks) serves every
listener, and the original goes back when the last listener leaves, whatever
the order. A call made inside another tapped call (print(tensor) reads
.item()) goes straight through: one sync is counted once.

    tap = taps.add(torch.Tensor, "item", lambda args, result, ns: ...)
    taps.remove(tap)
"""

from __future__ import annotations

from fastenough.agent import passthrough


class Taps:
    def __init__(self) -> None:
        self._wrappers: dict[tuple, tuple] = {}  # (id(owner), name) -> (wrapper, original|None)
        self._listeners: dict[tuple, list] = {}
        self._owners: dict[tuple, object] = {}
        self._reentry = None
        self.failures: list[str] = []  # callback errors seen when a wrapper went away

    def add(self, owner, name: str, listener):
        """Call listener(args, result, ns) after each call of owner.name;
        returns a handle for remove(), or None when no native wrapper can be made."""
        key = (id(owner), name)
        if key not in self._wrappers:
            if self._reentry is None:
                if not passthrough.available():
                    return None
                self._reentry = passthrough.reentry()
            in_dict = name in getattr(owner, "__dict__", {})
            orig = getattr(owner, name)
            listeners: list = []

            def after(args, result, ns, _listeners=listeners):
                for fn in tuple(_listeners):
                    fn(args, result, ns)

            wrapper = passthrough.wrap(orig, after=after, reentry=self._reentry)
            if wrapper is None:
                return None
            setattr(owner, name, wrapper)
            # An attribute the class inherited is deleted again, not set back.
            self._wrappers[key] = (wrapper, orig if in_dict else None)
            self._listeners[key] = listeners
            self._owners[key] = owner
        self._listeners[key].append(listener)
        return (key, listener)

    def remove(self, handle) -> None:
        if handle is None:
            return
        key, listener = handle
        listeners = self._listeners.get(key)
        if listeners is None:
            return
        try:  # noqa: SIM105 - contextlib costs an import on this path
            listeners.remove(listener)
        except ValueError:
            pass
        if listeners:
            return
        wrapper, orig = self._wrappers.pop(key)
        owner = self._owners.pop(key)
        del self._listeners[key]
        error = passthrough.failed(wrapper)
        if error is not None:
            self.failures.append(error)
        if getattr(owner, key[1], None) is not wrapper:
            return  # someone replaced it after us: theirs stays
        if orig is None:
            try:  # noqa: SIM105
                delattr(owner, key[1])
            except AttributeError:
                pass
        else:
            setattr(owner, key[1], orig)

    def failed(self) -> str | None:
        """A listener that raised (it was dropped, the program's call went on)."""
        live = passthrough.failed(*(w for w, _ in self._wrappers.values()))
        return live or (self.failures[0] if self.failures else None)


_TAPS: Taps | None = None


def shared() -> Taps:
    global _TAPS
    if _TAPS is None:
        _TAPS = Taps()
    return _TAPS
