"""A minimal writer of the safetensors format (no dependency on the package).

Layout: 8-byte little-endian header length N, N bytes of JSON header
`{"<name>": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}, ...}`
(padded with spaces to a multiple of 8), then the raw little-endian tensor bytes.
"""

from __future__ import annotations

import json
import os
import struct

_DTYPES = {
    "torch.float64": "F64", "torch.float32": "F32", "torch.float16": "F16",
    "torch.bfloat16": "BF16", "torch.int64": "I64", "torch.int32": "I32",
    "torch.int16": "I16", "torch.int8": "I8", "torch.uint8": "U8", "torch.bool": "BOOL",
}


def write_safetensors(path: str, tensors: dict) -> dict:
    """Writes `tensors` (name -> tensor or nested list of numbers) atomically; returns
    the header written (name -> dtype, shape, data_offsets)."""
    import torch

    header: dict = {}
    blobs: list[bytes] = []
    offset = 0
    for name, value in tensors.items():
        t = value if isinstance(value, torch.Tensor) else torch.as_tensor(value)
        t = t.detach().to("cpu").contiguous()
        dtype = _DTYPES.get(str(t.dtype))
        if dtype is None:
            t = t.to(torch.float64)
            dtype = "F64"
        # bfloat16 has no numpy dtype: view the bytes as uint8 through torch.
        # (A view, not a copy: the file write reads the tensor's memory.)
        data = t.reshape(-1).view(torch.uint8).numpy() if t.numel() else b""
        header[name] = {"dtype": dtype, "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)
    return header
