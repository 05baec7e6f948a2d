"""How many A B B A blocks `fastenough ab` runs, and when it stops.

The fixed design (--rounds N) runs N blocks and looks at the interval once.
The sequential design (the default) looks after every block from the second
on, up to --max-rounds, and stops at the first look whose interval excludes 1:
a real difference is decided in 2 blocks even on a busy machine, a small one
gets more pairs. Looking several times and stopping when a look says "decided"
would inflate the false-claim rate (optional stopping); each look therefore
uses the level alpha / K, K the number of looks planned (Bonferroni's alpha
spending), so that over all looks together the chance of claiming a
difference that is not there stays at most alpha = 1 - --confidence."""

from __future__ import annotations

from dataclasses import dataclass

MIN_SEQUENTIAL_ROUNDS = 2  # one block is 2 pairs: a t interval on 1 degree of freedom


@dataclass(frozen=True)
class SequentialPlan:
    fixed_n: bool
    min_rounds: int
    max_rounds: int
    confidence: float  # overall, 1 - alpha
    looks: int
    look_confidence: float  # of each look's interval

    @classmethod
    def fixed(cls, rounds: int, confidence: float) -> SequentialPlan:
        return cls(True, rounds, rounds, confidence, 1, confidence)

    @classmethod
    def sequential(cls, max_rounds: int, confidence: float) -> SequentialPlan:
        looks = max_rounds - MIN_SEQUENTIAL_ROUNDS + 1
        return cls(False, MIN_SEQUENTIAL_ROUNDS, max_rounds, confidence, looks,
                   1.0 - (1.0 - confidence) / looks)

    def describe(self, rounds: int, stopped: str) -> dict:
        """The design record of fastenough.ab/1, with why it stopped: "decided"
        (a look's interval excluded 1), "max-rounds", "budget" (the next block
        would have ended after --budget), "fixed" (--rounds), "failed" (a run
        failed)."""
        if self.fixed_n:
            why = {"fixed": f"the {rounds} block(s) asked for with --rounds",
                   "failed": "a run failed"}.get(stopped, stopped)
        else:
            why = {"decided": f"the interval decided at look {rounds - self.min_rounds + 1}",
                   "max-rounds": f"--max-rounds {self.max_rounds} reached undecided",
                   "budget": "the next block would have ended after --budget",
                   "failed": "a run failed"}.get(stopped, stopped)
        text = (f"{'fixed' if self.fixed_n else 'sequential'} design: {rounds} A B B A "
                f"block(s), {2 * rounds} pairs; stopped: {why}")
        if not self.fixed_n:
            text += (f"; each of up to {self.looks} looks at {self.look_confidence:.2%} "
                     f"(Bonferroni), so that all looks together claim a difference that is "
                     f"not there at most {1 - self.confidence:.0%} of the time")
        return {"kind": "fixed" if self.fixed_n else "sequential", "rounds": rounds,
                "pairs": 2 * rounds, "max_rounds": self.max_rounds, "looks": self.looks,
                "look_confidence": self.look_confidence, "confidence": self.confidence,
                "stopped": stopped, "text": text}
