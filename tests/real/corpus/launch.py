"""Runs a vendored program of tests/real/corpus as it is, after a few named
adjustments that keep it short, offline and deterministic; each is a
monkeypatch of a library the program calls (never of the program), listed in
the README.md beside the program that needs it:

    python launch.py [--seed N] [--fakedata-size N] [--fakedata-image C,H,W]
                     [--reward-threshold ENV_ID=R] [--gpt-config K=V,...]
                     [--no-tensorboard] script.py [its arguments]

--seed N           seeds random, numpy and torch before the program starts (for
                   programs that never seed, e.g. pytorch/examples regression).
--fakedata-size N  caps torchvision.datasets.FakeData at N items (imagenet's
                   --dummy asks for 1,281,167 images).
--fakedata-image   the image size FakeData makes instead of the one asked for.
--reward-threshold the "solved" threshold of a registered gymnasium
                   environment, so that a REINFORCE run ends after a few dozen
                   episodes instead of several hundred.
--gpt-config       overrides fields of nanoGPT's GPTConfig (bench.py builds a
                   124M GPT-2 with literal sizes: n_layer=12, n_embd=768).
--no-tensorboard   torch.utils.tensorboard.SummaryWriter becomes a writer that
                   writes nothing (makemore logs its losses with it; the
                   tensorboard package is not in the test environment).

The script then runs with runpy as __main__, with sys.argv and sys.path[0] as
`python script.py args` would have them.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys


def seed(n: int) -> None:
    import random

    import numpy as np
    import torch

    random.seed(n)
    np.random.seed(n)
    torch.manual_seed(n)


def cap_fakedata(size: int | None, image: tuple[int, ...] | None) -> None:
    import torchvision.datasets

    base = torchvision.datasets.FakeData

    class FakeData(base):
        def __init__(self, size_=1000, image_size=(3, 224, 224), num_classes=10,
                     transform=None, target_transform=None, random_offset=0, **kw):
            size_ = kw.pop("size", size_)
            super().__init__(min(size_, size) if size else size_, image or image_size,
                             num_classes, transform, target_transform, random_offset)

    FakeData.__name__ = FakeData.__qualname__ = "FakeData"
    FakeData.__module__ = base.__module__
    torchvision.datasets.FakeData = FakeData
    torchvision.datasets.fakedata.FakeData = FakeData


def reward_threshold(spec: str) -> None:
    import gymnasium

    env_id, value = spec.split("=")
    gymnasium.envs.registration.registry[env_id].reward_threshold = float(value)


def gpt_config(spec: str, script_dir: str) -> None:
    import dataclasses

    sys.path.insert(0, script_dir)
    import model  # nanoGPT's model.py, beside the script

    overrides = {k: int(v) for k, v in (kv.split("=") for kv in spec.split(","))}
    original = model.GPTConfig

    @dataclasses.dataclass
    class GPTConfig(original):
        def __post_init__(self):
            for k, v in overrides.items():
                setattr(self, k, v)

    GPTConfig.__name__ = GPTConfig.__qualname__ = "GPTConfig"
    model.GPTConfig = GPTConfig
    sys.path.remove(script_dir)


def no_tensorboard() -> None:
    import types

    class SummaryWriter:
        def __init__(self, *args, **kwargs):
            pass

        def __getattr__(self, name):  # add_scalar, flush, close, ...
            return lambda *args, **kwargs: None

    module = types.ModuleType("torch.utils.tensorboard")
    module.SummaryWriter = SummaryWriter
    sys.modules["torch.utils.tensorboard"] = module


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int)
    ap.add_argument("--fakedata-size", type=int)
    ap.add_argument("--fakedata-image")
    ap.add_argument("--reward-threshold")
    ap.add_argument("--gpt-config")
    ap.add_argument("--no-tensorboard", action="store_true")
    ap.add_argument("script")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    opt = ap.parse_args()
    script = os.path.abspath(opt.script)
    script_dir = os.path.dirname(script)
    if opt.seed is not None:
        seed(opt.seed)
    if opt.fakedata_size or opt.fakedata_image:
        image = tuple(int(x) for x in opt.fakedata_image.split(",")) if opt.fakedata_image else None
        cap_fakedata(opt.fakedata_size, image)
    if opt.reward_threshold:
        reward_threshold(opt.reward_threshold)
    if opt.gpt_config:
        gpt_config(opt.gpt_config, script_dir)
    if opt.no_tensorboard:
        no_tensorboard()
    sys.argv = [script, *opt.args]
    sys.path[0] = script_dir
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
