"""fastenough.bucket_by_length: batches of similar lengths, and the padding saved.

    plan = fastenough.bucket_by_length(texts, batch_size=16, key=len)
    for idx in plan.batches: run([texts[i] for i in idx])
    outputs = plan.restore(outputs_in_plan_order)

Padding counts are for batches padded to their longest item. The plan sorts by
length (stable), so the original order comes back with restore(). Whether the
new grouping changes results (padding statistics, batch norm) is the caller's
question: a different grouping is a protocol change when it does.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastenough.errors import UsageError


def _padded(lengths: list[int], order: list[int], batch_size: int) -> int:
    total = 0
    for i in range(0, len(order), batch_size):
        chunk = [lengths[j] for j in order[i:i + batch_size]]
        total += max(chunk) * len(chunk)
    return total


@dataclass
class BucketPlan:
    batches: list[list[int]]  # indices into the input, one list per batch
    real_tokens: int
    padded_tokens_before: int  # input order, each batch padded to its longest item
    padded_tokens_after: int  # bucketed order

    @property
    def padding_before(self) -> int:
        return self.padded_tokens_before - self.real_tokens

    @property
    def padding_after(self) -> int:
        return self.padded_tokens_after - self.real_tokens

    @property
    def saved_share(self) -> float:
        """Share of the padded tokens (input order) that bucketing removes."""
        if not self.padded_tokens_before:
            return 0.0
        return 1 - self.padded_tokens_after / self.padded_tokens_before

    @property
    def order(self) -> list[int]:
        return [i for b in self.batches for i in b]

    def restore(self, outputs_in_plan_order):
        """Outputs produced in plan order, put back in input order."""
        order = self.order
        if len(outputs_in_plan_order) != len(order):
            raise UsageError(f"restore expects {len(order)} outputs, got "
                             f"{len(outputs_in_plan_order)}")
        out = [None] * len(order)
        for pos, i in enumerate(order):
            out[i] = outputs_in_plan_order[pos]
        return out

    def to_dict(self) -> dict:
        return {"batches": self.batches, "real_tokens": self.real_tokens,
                "padded_tokens_before": self.padded_tokens_before,
                "padded_tokens_after": self.padded_tokens_after,
                "padding_before": self.padding_before, "padding_after": self.padding_after,
                "saved_share": self.saved_share}

    def __repr__(self) -> str:
        return (f"fastenough.bucket_by_length: {len(self.order)} items in {len(self.batches)} "
                f"batches; padding {self.padding_before} -> {self.padding_after} tokens "
                f"({self.saved_share:.1%} of the padded tokens saved)")


def bucket_by_length(items, batch_size: int, *, key=len) -> BucketPlan:
    """Group `items` into batches of `batch_size` by length (key(item); pass key=None
    when items are the lengths themselves)."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise UsageError(f"batch_size must be >= 1, not {batch_size!r}")
    lengths = [int(x) if key is None else int(key(x)) for x in items]
    if any(n < 0 for n in lengths):
        raise UsageError("lengths must be >= 0")
    original = list(range(len(lengths)))
    by_length = sorted(original, key=lambda i: lengths[i])
    return BucketPlan(
        batches=[by_length[i:i + batch_size] for i in range(0, len(by_length), batch_size)],
        real_tokens=sum(lengths),
        padded_tokens_before=_padded(lengths, original, batch_size),
        padded_tokens_after=_padded(lengths, by_length, batch_size))
