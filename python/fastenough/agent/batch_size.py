"""Items and tokens of a step, read from the batch or the model's inputs.

items: the batch dimension of the first tensor. That is dimension 0, unless the
model is sequence-first: nn.LSTM/GRU/RNN and nn.Transformer-family layers take
[sequence, batch, ...] unless built with batch_first=True, so a model made of
such layers (and none batch-first) has its batch in dimension 1 (seq_first()).
tokens: the elements of a 2-D integer input-ids tensor (the key "input_ids" of a
mapping, or the first tensor when it is one), padding included; the real share
comes from the padding check's attention-mask sample (see the report).

The native step hook (bindings/step_hook_bindings.cc) answers the usual calls
the same way and asks batch_size() for anything else.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping


def seq_first(model) -> bool:
    """True when the model's recurrent/attention layers are all sequence-first."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    nn = torch.nn
    layers = (nn.RNNBase, nn.MultiheadAttention, nn.TransformerEncoderLayer,
              nn.TransformerDecoderLayer)
    seen_first = seen_batch_first = False
    try:
        for m in model.modules():
            if isinstance(m, layers):
                if getattr(m, "batch_first", False):
                    seen_batch_first = True
                else:
                    seen_first = True
    except Exception:  # noqa: BLE001 - a module tree we cannot walk: assume batch-first
        return False
    return seen_first and not seen_batch_first


def first_tensor(obj, depth: int = 0):
    """(first tensor, input ids or None) in a batch: tensors, tuples/lists, mappings
    (dict, transformers' BatchEncoding), a few levels deep."""
    torch = sys.modules.get("torch")
    if torch is None or depth > 2:
        return None, None
    if isinstance(obj, torch.Tensor):
        return obj, None
    if isinstance(obj, Mapping):
        ids = obj.get("input_ids")
        if isinstance(ids, torch.Tensor):
            return ids, ids
        for v in list(obj.values())[:8]:
            found = first_tensor(v, depth + 1)
            if found[0] is not None:
                return found
    elif isinstance(obj, (list, tuple)):
        for v in obj[:4]:
            found = first_tensor(v, depth + 1)
            if found[0] is not None:
                return found
    return None, None


def batch_size(batch, batch_dim: int = 0) -> tuple[int | None, int | None]:
    """(items, tokens) of a batch or of a model call's args (or kwargs)."""
    if type(batch) is tuple and batch:
        # The usual model call, model(x): answered without the general search.
        first = batch[0]
        torch = sys.modules.get("torch")
        if torch is not None and type(first) is torch.Tensor:
            return tensor_counts(first, None, batch_dim)
    tensor, ids = first_tensor(batch)
    if tensor is None:
        return None, None
    return tensor_counts(tensor, ids, batch_dim)


def tensor_counts(tensor, ids, batch_dim: int = 0) -> tuple[int | None, int | None]:
    shape = tensor.shape
    if not shape:
        return None, None
    if ids is None and len(shape) == 2 and _is_integer(tensor.dtype):
        ids = tensor
    tokens = int(ids.numel()) if ids is not None and ids.dim() == 2 else None
    dim = batch_dim if batch_dim < len(shape) else 0
    return int(shape[dim]), tokens


@functools.lru_cache(maxsize=64)
def _is_integer(dtype) -> bool:
    return not dtype.is_floating_point and not dtype.is_complex and dtype != sys.modules[
        "torch"].bool
