"""Reading a JSON document a user handed us (a report.json, a rank summary, a
scheduler file), bounded, and with every failure a BadInputError that names
the file: never a RecursionError, a UnicodeDecodeError or a NaN let through.

- size: at most `max_bytes` (a document of these kinds is KBs to a few MB);
- depth: at most `max_depth` levels of arrays and objects, checked on the
  bytes before parsing (Python's parser recurses once per level: 100k `[`
  gave a RecursionError, exit 3, issue 34 item 11);
- numbers: NaN, Infinity and what overflows to them (1e999) are refused: no
  document fastenough writes holds them, and they would pass every range
  check after;
- text: UTF-8.
"""

from __future__ import annotations

import gzip
import json
import re

from fastenough.errors import BadInputError, InputNotFoundError
from fastenough.visible import visible

MAX_DEPTH = 64
MAX_BYTES = 256 << 20

# A JSON string (escapes included) or one bracket: what a depth scan needs to see.
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)
_OPEN = frozenset(b"[{")


def nested_deeper_than(data: bytes, limit: int) -> bool:
    """Whether JSON `data` nests arrays/objects more than `limit` levels deep
    (brackets inside strings do not count)."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    depth = 0
    for m in _TOKENS.finditer(data):
        c = data[m.start()]
        if c in _OPEN:
            depth += 1
            if depth > limit:
                return True
        elif c != 0x22:  # a closing bracket
            depth -= 1
    return False


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    x = float(text)
    if x in (float("inf"), float("-inf")):
        raise ValueError(f"{text[:40]} is beyond the range of a number")
    return x


def parse_json(data: bytes, where: str, max_depth: int = MAX_DEPTH,
               max_bytes: int = MAX_BYTES) -> object:
    """The document in `data`; `where` (the file's name, shown) starts each message."""
    if len(data) > max_bytes:
        raise BadInputError(f"{where}: {len(data)} bytes; at most {max_bytes} are read")
    if nested_deeper_than(data, max_depth):
        raise BadInputError(f"{where}: nested more than {max_depth} levels deep; not a "
                            "document fastenough wrote")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInputError(f"{where}: not UTF-8 text (byte {e.start})") from None
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:  # max_depth above the interpreter's limit
        raise BadInputError(f"{where}: nested too deeply to read") from None
    except ValueError as e:
        raise BadInputError(f"{where}: not valid JSON ({visible(str(e))})") from None


def read_bytes(path: str, max_bytes: int = MAX_BYTES, what: str = "") -> bytes:
    """The bytes of regular file `path` (gzip inflated when it ends in .gz),
    at most `max_bytes` of them; a FIFO or device is refused without being
    waited on (inputs/input_file.py open_input)."""
    from fastenough.inputs.input_file import open_input

    shown = (what + " " if what else "") + visible(path)
    with open_input(path, None, what) as f:
        if path.endswith(".gz"):
            try:
                with gzip.GzipFile(fileobj=f) as z:
                    data = z.read(max_bytes + 1)
            except (OSError, EOFError) as e:
                raise BadInputError(f"{shown}: not readable gzip ({e})") from None
        else:
            try:
                data = f.read(max_bytes + 1)
            except OSError as e:
                raise InputNotFoundError(f"{shown}: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise BadInputError(f"{shown}: larger than {max_bytes} bytes")
    return data


def load_json_file(path: str, max_depth: int = MAX_DEPTH, max_bytes: int = MAX_BYTES,
                   what: str = "") -> object:
    """parse_json(read_bytes(path)): the whole bounded read of a JSON file."""
    shown = (what + " " if what else "") + visible(path)
    return parse_json(read_bytes(path, max_bytes, what), shown, max_depth, max_bytes)
