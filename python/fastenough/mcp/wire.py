"""The server's side of the stdio wire: every message the client sends gets an answer.

The SDK's own stdio transport drops what it cannot validate (a batch, array
`params`, `"id": null`, a lone surrogate, truncated JSON) without a word, so a
client waits forever for an answer that never comes; and it reads a line of any
length into memory. In front of it, this gate reads stdin in bounded chunks,
checks each line as JSON-RPC 2.0 and as an MCP message, passes on the lines the
SDK accepts, and answers the rest itself with the JSON-RPC error they call for:

  -32700 parse error      not UTF-8, not JSON, or longer than MAX_MESSAGE_BYTES
  -32600 invalid request  not one object (a batch: MCP has none), no "2.0", an id
                          that is null or not a string or integer, a lone
                          surrogate, a message the SDK's types refuse
  -32602 invalid params   params that are not an object

The answer carries the request's id where it can be read (for a message too long
or cut short, from its start, at the top level only), else null. Notifications
and responses that fail the checks get no answer (JSON-RPC forbids one); they
are logged to stderr. The file descriptors are claimed as the SDK's transport
claims them: stdin and stdout point at /dev/null and stderr while the server
runs, so that nothing else in the process writes to the wire.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Awaitable, Callable

import anyio

from fastenough.mcp import limits

log = logging.getLogger("fastenough.mcp")

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
_CHUNK = 64 * 1024


def _has_lone_surrogate(value) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def _valid_id(value) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, str) and not _has_lone_surrogate(value)


_ID_VALUE = re.compile(rb'\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')


def id_from_prefix(data: bytes):
    """The id of a message that cannot be parsed whole (too long, cut short), read from
    its start: the value of an "id" key at the top level of the outer object, or None."""
    depth, i, n = 0, 0, len(data)
    while i < n:
        c = data[i]
        if c == 0x22:  # '"': a string; a key at depth 1 may be "id"
            j = i + 1
            while j < n and data[j] != 0x22:
                j += 2 if data[j] == 0x5C else 1
            if j >= n:
                return None
            if depth == 1 and data[i + 1:j] == b"id":
                m = _ID_VALUE.match(data, j + 1)
                if m:
                    try:
                        value = json.loads(m.group(1))
                    except ValueError:
                        return None
                    return value if _valid_id(value) else None
            i = j + 1
            continue
        if c in (0x7B, 0x5B):  # { [
            depth += 1
        elif c in (0x7D, 0x5D):  # } ]
            depth -= 1
        i += 1
    return None


def _error(id_, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}


def check_line(line: bytes):
    """(None, text) for a message to pass to the SDK, (error response or None, None) for
    one that is answered here (None: a notification or response, which gets no answer)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return _error(id_from_prefix(line), PARSE_ERROR, "parse error: the message is not "
                      "UTF-8"), None
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        return _error(id_from_prefix(line), PARSE_ERROR, "parse error: the message is not "
                      "complete JSON"), None
    if isinstance(msg, list):
        return _error(None, INVALID_REQUEST, "invalid request: a batch (JSON array); MCP "
                      "takes one message per line"), None
    if not isinstance(msg, dict):
        return _error(None, INVALID_REQUEST, "invalid request: not a JSON object"), None
    is_request = "method" in msg and "id" in msg
    id_ = msg.get("id") if _valid_id(msg.get("id")) else None
    if "method" in msg and not is_request:
        reply = None  # a notification: never answered
    elif "method" not in msg:
        reply = None  # a response to the server's own request
    else:
        reply = True
    problem, code = None, INVALID_REQUEST
    if msg.get("jsonrpc") != "2.0":
        problem = 'invalid request: "jsonrpc" must be "2.0"'
    elif "id" in msg and not _valid_id(msg["id"]):
        problem = "invalid request: the id must be a string or an integer (not null)"
    elif _has_lone_surrogate(msg):
        problem = "invalid request: a string holds a lone surrogate (not valid Unicode)"
    elif "method" in msg and not isinstance(msg["method"], str):
        problem = 'invalid request: "method" must be a string'
    elif "params" in msg and msg["params"] is not None and not isinstance(msg["params"], dict):
        problem, code = "invalid params: params must be an object", INVALID_PARAMS
    else:
        import mcp_types

        try:
            mcp_types.jsonrpc_message_adapter.validate_python(msg, by_name=False)
        except Exception as e:  # noqa: BLE001 - pydantic's ValidationError, or worse
            problem = f"invalid request: {limits.clean(str(e).splitlines()[0], 200)}"
    if problem is None:
        return None, text
    if reply is None:
        log.warning("fastenough mcp: dropped a message that gets no answer: %s", problem)
        return None, None
    return _error(id_, code, problem), None


class Gate:
    """An async iterator of the lines the SDK accepts, read from fd `fd`; the rest are
    answered through `reply` (set once the transport's write stream exists)."""

    def __init__(self, fd: int, max_bytes: int = limits.MAX_MESSAGE_BYTES) -> None:
        self._fd = fd
        self._max = max_bytes
        self._buf = bytearray()
        self._skipping: bytes | None = None  # the start of a message over the limit
        self._eof = False
        self.reply: Callable[[dict], Awaitable[None]] | None = None
        self.ready = anyio.Event()

    def __aiter__(self):
        return self

    async def _answer(self, response: dict) -> None:
        await self.ready.wait()
        if self.reply is not None:
            await self.reply(response)

    async def __anext__(self) -> str:
        while True:
            nl = self._buf.find(b"\n")
            if nl < 0 and self._eof and self._buf:
                nl = len(self._buf)  # a last line without its newline
            if nl >= 0:
                line = bytes(self._buf[:nl])
                del self._buf[: nl + 1]
                if self._skipping is None and len(line) > self._max:
                    self._skipping = line[:_CHUNK]
                if self._skipping is not None:
                    head, self._skipping = self._skipping, None
                    await self._answer(_error(id_from_prefix(head), PARSE_ERROR,
                                              f"parse error: the message is longer than "
                                              f"{self._max} bytes"))
                    continue
                if not line.strip():
                    continue
                response, text = check_line(line)
                if text is not None:
                    return text
                if response is not None:
                    await self._answer(response)
                continue
            if self._eof:
                raise StopAsyncIteration
            if len(self._buf) > self._max:
                # Too long: keep its start (for its id), drop the rest up to its newline.
                if self._skipping is None:
                    self._skipping = bytes(self._buf[:_CHUNK])
                self._buf.clear()
            # Wait in the event loop, then read what is there: no thread left blocked in
            # read() when SIGTERM ends the server while the client keeps stdin open.
            await anyio.wait_readable(self._fd)
            chunk = os.read(self._fd, _CHUNK)
            if not chunk:
                self._eof = True
            else:
                self._buf += chunk


def claim_stdio() -> tuple[int, int]:
    """Private duplicates of stdin and stdout for the wire; fd 0 then reads /dev/null and
    fd 1 writes to stderr, so that stray output of the process misses the wire."""
    wire_in = os.dup(0)
    wire_out = os.dup(1)
    for fd in (wire_in, wire_out):
        os.set_inheritable(fd, False)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out
