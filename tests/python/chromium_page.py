"""Load a local HTML file in headless Chromium with the network off and report
what a reader's browser saw: the rendered text and DOM, console messages,
script exceptions, log entries (failed loads), every request the page made,
and a full-page PNG screenshot.

It speaks the DevTools protocol over --remote-debugging-pipe (file descriptors
3 and 4, one JSON message per NUL-terminated chunk), so it needs nothing but
the browser and the standard library."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field


def find_chromium() -> str | None:
    env = os.environ.get("FASTENOUGH_CHROMIUM")
    if env:
        return env if shutil.which(env) else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class PageResult:
    text: str  # document.body.innerText
    dom: str  # document.documentElement.outerHTML after rendering
    console: list[dict] = field(default_factory=list)  # Runtime.consoleAPICalled params
    exceptions: list[dict] = field(default_factory=list)  # Runtime.exceptionThrown params
    log: list[dict] = field(default_factory=list)  # Log.entryAdded entries
    requests: list[str] = field(default_factory=list)  # URLs the page asked for
    screenshot: bytes = b""
    width: int = 0
    height: int = 0

    def problems(self) -> list[str]:
        """Console messages, exceptions, error log entries and non-file requests."""
        out = [f"console.{c.get('type')}: {[a.get('value') for a in c.get('args', [])]}"
               for c in self.console]
        out += [f"exception: {e.get('exceptionDetails', {}).get('text')}"
                for e in self.exceptions]
        out += [f"log {e.get('level')}: {e.get('text')} {e.get('url', '')}"
                for e in self.log if e.get("level") in ("error", "warning")]
        out += [f"request: {u}" for u in self.requests
                if not u.startswith(("file:", "data:", "about:"))]
        return out


class _Pipe:
    def __init__(self, exe: str, profile: str):
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()

        def child() -> None:
            a, b = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             # The network is off twice over: a dead proxy and no name resolution here,
             # offline emulation in the page below.
             "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-background-networking", "--disable-sync", "--hide-scrollbars",
             f"--user-data-dir={profile}", "about:blank"],
            pass_fds=(3, 4), preexec_fn=child, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.w, self.r = to_browser_w, from_browser_r
        self.buf = b""
        self.next_id = 0
        self.events: list[dict] = []

    def call(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 30) -> dict:
        self.next_id += 1
        msg: dict = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        want = self.next_id
        reply = self.wait(lambda m: m.get("id") == want, timeout)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait(self, pred, timeout: float = 30) -> dict:
        end = time.monotonic() + timeout
        while True:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                m = json.loads(raw)
                if "id" not in m:
                    self.events.append(m)
                if pred(m):
                    return m
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            ready, _, _ = select.select([self.r], [], [], left)
            if ready:
                chunk = os.read(self.r, 1 << 20)
                if not chunk:
                    raise EOFError("chromium closed its debugging pipe")
                self.buf += chunk

    def close(self) -> None:
        try:
            os.write(self.w, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
            self.proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        for fd in (self.w, self.r):
            with contextlib.suppress(OSError):
                os.close(fd)


def load(path: str, exe: str, width: int = 1280, height: int = 900) -> PageResult:
    """Open file `path`, wait for its load event, and collect what the page did."""
    with tempfile.TemporaryDirectory(prefix="fastenough-chromium-") as profile:
        pipe = _Pipe(exe, profile)
        try:
            target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            s = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
                "sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                pipe.call(f"{domain}.enable", session=s)
            pipe.call("Network.emulateNetworkConditions",
                      {"offline": True, "latency": 0, "downloadThroughput": -1,
                       "uploadThroughput": -1}, session=s)
            pipe.call("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1,
                       "mobile": False}, session=s)
            pipe.call("Page.navigate", {"url": "file://" + os.path.abspath(path)}, session=s)
            pipe.wait(lambda m: m.get("method") == "Page.loadEventFired")

            def value(expr: str):
                r = pipe.call("Runtime.evaluate", {"expression": expr, "returnByValue": True},
                              session=s)
                return r["result"].get("value")

            text = value("document.body.innerText")
            dom = value("document.documentElement.outerHTML")
            w = value("document.documentElement.scrollWidth")
            h = value("document.documentElement.scrollHeight")
            shot = pipe.call("Page.captureScreenshot",
                             {"format": "png", "captureBeyondViewport": True,
                              "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}},
                             session=s)
            result = PageResult(text=text, dom=dom, screenshot=base64.b64decode(shot["data"]),
                                width=w, height=h)
            for e in pipe.events:
                method, params = e.get("method"), e.get("params", {})
                if method == "Runtime.consoleAPICalled":
                    result.console.append(params)
                elif method == "Runtime.exceptionThrown":
                    result.exceptions.append(params)
                elif method == "Log.entryAdded":
                    result.log.append(params.get("entry", {}))
                elif method == "Network.requestWillBeSent":
                    result.requests.append(params.get("request", {}).get("url", ""))
            return result
        finally:
            pipe.close()
