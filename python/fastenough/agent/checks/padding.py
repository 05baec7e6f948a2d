"""padding-waste: the share of padded positions in the run's real batches, and
what length bucketing would save (the arithmetic is in the core).

Lengths come from an attention mask ([batch, width], 1 = real token) passed to
the root module, or a key padding mask (True = padding), or else from the
2-D integer input ids with right padding by the pad id (config.pad_token_id,
else 0). They are reduced on the device (one small sum per forward, no sync)
and read back once at exit.

The lengths go into a few preallocated chunks per device (a narrow copy per
forward), not one small tensor per forward: thousands of small tensors that
live to the end of the run, each beside a step's large transient activations,
kept glibc's heap from reusing or returning the freed activation memory, and
the word-language-model LSTM's peak RSS rose by 50 to 80 MiB (of the agent's
bound of 64 MiB) for about 4 MiB of lengths."""

from __future__ import annotations

from collections.abc import Mapping

from fastenough.agent.checks._util import user_site

MAX_BATCHES = 20000
MAX_ROWS = 1 << 20  # lengths kept in all (8 MiB): plenty for a share and a bucketing
CHUNK_ROWS = 1 << 16  # int64 lengths per chunk (512 KiB)
_MASK_KEYS = ("attention_mask",)
_PAD_MASK_KEYS = ("key_padding_mask", "src_key_padding_mask", "padding_mask")


class PaddingCheck:
    code = "padding-waste"

    def __init__(self, reg) -> None:
        self.reg = reg
        self.torch = reg.torch
        # Per examined forward: (width, device, chunk index, offset, rows).
        self.batches: list = []
        self._chunks: dict = {}  # device -> [chunk tensors]; the last one fills
        self._filled: dict = {}  # device -> rows written into its last chunk
        self._rows = 0
        self.source: str | None = None
        self.where: dict | None = None
        self._arange: dict = {}

    def on_forward(self, module, args, kwargs, output) -> None:
        if len(self.batches) >= MAX_BATCHES or self._rows >= MAX_ROWS:
            return
        first = args[0] if args else None
        if (isinstance(first, (list, tuple)) and first
                and all(isinstance(f, Mapping) for f in first)):
            # Several batches of features in one call: a sentence-transformers
            # loss (MultipleNegativesRankingLoss, SimCSE) is the root module
            # and gets the anchors' and the positives' features, each batch
            # padded to its own longest.
            for features in first:
                self.on_forward(module, (features,), kwargs, output)
            return
        torch = self.torch
        with torch.no_grad():
            lengths, width, source = self._lengths(module, args, kwargs)
        if lengths is None:
            return
        if self.source is None:
            self.source = source
            self.where = user_site(2)
        self._keep(width, lengths)

    def _keep(self, width: int, lengths) -> None:
        n = int(lengths.shape[0])
        if n == 0 or n > CHUNK_ROWS:
            return
        torch = self.torch
        dev = lengths.device
        chunks = self._chunks.setdefault(dev, [])
        at = self._filled.get(dev, CHUNK_ROWS)
        if at + n > CHUNK_ROWS:
            # A normal tensor even under inference_mode: one made there could
            # not be written outside it (sentence-transformers' fit encodes
            # under inference_mode, then trains).
            with torch.inference_mode(False):
                chunks.append(torch.empty(CHUNK_ROWS, dtype=torch.int64, device=dev))
            at = 0
        with torch.no_grad():
            chunks[-1].narrow(0, at, n).copy_(lengths)
        self._filled[dev] = at + n
        self.batches.append((width, dev, len(chunks) - 1, at, n))
        self._rows += n

    def _lengths(self, module, args, kwargs):
        torch = self.torch
        if args and isinstance(args[0], Mapping):
            # One dict of features as the first argument (sentence-transformers:
            # model({"input_ids": ..., "attention_mask": ...})); keywords win.
            kwargs = {**args[0], **kwargs}
            args = args[1:]
        for k in _MASK_KEYS:
            m = kwargs.get(k)
            if isinstance(m, torch.Tensor) and m.dim() == 2:
                return (m != 0).sum(1), int(m.shape[1]), k
        for k in _PAD_MASK_KEYS:
            m = kwargs.get(k)
            if isinstance(m, torch.Tensor) and m.dim() == 2:
                return (~m.bool()).sum(1), int(m.shape[1]), k
        ids = kwargs.get("input_ids")
        if ids is None:
            ids = args[0] if args else None
        if not isinstance(ids, torch.Tensor) or ids.dim() != 2 or ids.is_floating_point():
            return None, 0, None
        if ids.dtype == torch.bool or ids.shape[1] < 2:
            return None, 0, None
        cfg = getattr(module, "config", None)
        pad = getattr(cfg, "pad_token_id", None)
        pad = 0 if not isinstance(pad, int) else pad
        w = int(ids.shape[1])
        key = (ids.device, w)
        ar = self._arange.get(key)
        if ar is None:
            ar = self._arange[key] = torch.arange(1, w + 1, device=ids.device)
        # Length = 1 + index of the last non-pad token (right padding).
        return ((ids != pad) * ar).amax(1), w, f"input ids, right padding with pad id {pad}"

    def summary(self) -> dict | None:
        if not self.batches:
            return None
        from fastenough import _core

        # One read-back per chunk.
        host = {(dev, i): c.narrow(0, 0, self._filled[dev] if i == len(chunks) - 1
                                   else CHUNK_ROWS).tolist()
                for dev, chunks in self._chunks.items() for i, c in enumerate(chunks)}
        rows = [(w, host[(dev, i)][at: at + n]) for w, dev, i, at, n in self.batches]
        return _core.check_padding_summary(rows)
