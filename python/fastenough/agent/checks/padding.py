"""padding-waste: the share of padded positions in the run's real batches, and
what length bucketing would save (the arithmetic is in the core).

Lengths come from an attention mask ([batch, width], 1 = real token) passed to
the root module, or a key padding mask (True = padding), or else from the
2-D integer input ids with right padding by the pad id (config.pad_token_id,
else 0). They are reduced on the device (one small sum per forward, no sync)
and read back once at exit."""

from __future__ import annotations

from collections.abc import Mapping

from fastenough.agent.checks._util import user_site

MAX_BATCHES = 20000
_MASK_KEYS = ("attention_mask",)
_PAD_MASK_KEYS = ("key_padding_mask", "src_key_padding_mask", "padding_mask")


class PaddingCheck:
    code = "padding-waste"

    def __init__(self, reg) -> None:
        self.reg = reg
        self.torch = reg.torch
        self.batches: list = []  # (width, lengths tensor on the device)
        self.source: str | None = None
        self.where: dict | None = None
        self._arange: dict = {}

    def on_forward(self, module, args, kwargs, output) -> None:
        if len(self.batches) >= MAX_BATCHES:
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
        self.batches.append((width, lengths))

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

        torch = self.torch
        widths = [w for w, _ in self.batches]
        sizes = [int(t.shape[0]) for _, t in self.batches]
        flat = torch.cat([t.reshape(-1).to("cpu", torch.int64) for _, t in self.batches]).tolist()
        rows, at = [], 0
        for w, n in zip(widths, sizes, strict=True):
            rows.append((w, flat[at: at + n]))
            at += n
        return _core.check_padding_summary(rows)
