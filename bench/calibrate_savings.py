"""Claimed vs measured on the real programs (issue 37, item 2): for every real
program of tests/real with an avoidable finding (the team's, tests/real/programs,
and the corpus's, tests/real/corpus), and the demo, apply the fix the finding
prints (a patch kept beside the program: tests/real/programs/fixes/<program>/<code>.patch,
tests/real/corpus/<folder>/fixes/<program>/<code>.patch),
measure A (the program) against B (the program with that one fix) with
`fastenough ab`, and compare the gain ab measures with the saving the finding
claims.

The claim is read from ab's own first A run (A1, the run with the profiler
window: what a user of `fastenough run` would be told about that program):
the finding's saving per step and its share of a step (report.json
findings[].saving), and whether it was measured (evidence saving_basis
"measured: ...") or derived from a model. The measured gain is a share of A's
steady step, from ab's paired throughput ratio r = B/A and its interval:
gain = 1 - 1/r. A finding's saving is a bound (the most its fix saves): the claim
holds when the measured gain's interval does not lie above it, "inside" when the
claim is not below the low end. A finding that prices nothing ("not estimated")
is listed as "unpriced": it has no bound to check. A row is "unlike steps" when
A1's and B1's headline steps differ in mode, or in steady count by more than
2x: ab's steps/s then compares different things (no gain is judged).

    python bench/calibrate_savings.py                    # every case, ab --rounds 3
    python bench/calibrate_savings.py --only demo --rounds 2
    python bench/calibrate_savings.py --only hf-naive-loop:padding-waste

Each case runs its program with short arguments (below, CASES) so that a run
takes seconds; the word-level LM runs with --epochs 0, so that its steady steps
are the generation the findings are about (with training in the run, ab's
steady throughput would be training's, which the fix does not touch). A corpus
program runs as tests/real/catalog.py runs it (its set-up writes its data into
the working directory, which A and B share; its environment). Writes
bench/out/calibrate/<program>/<code>/ (A and B copies, ab's runs), prints one
table and writes bench/out/calibrate/summary.json. Exit 1 when a measured gain
exceeds its claimed bound by more than the interval (the claim is below the
interval's low end). Not a test: the figures depend on the machine. The latest
table and what it found: bench/calibrate_savings.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "tests" / "real" / "programs"
FIXES = PROGRAMS / "fixes"
CORPUS = ROOT / "tests" / "real" / "corpus"
DEMO = ROOT / "python" / "fastenough" / "demo"
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
sys.path.insert(0, str(ROOT / "tests" / "real"))
import corpus_setup as cs  # noqa: E402 - the corpus programs' data, as the tests write it


@dataclass(frozen=True)
class Case:
    program: str  # the catalog's name (tests/real/catalog.py), or "demo"
    argv: tuple[str, ...]  # the script (in src) and its arguments
    src: Path  # the folder copied for A and for B (the patch applies there, -p1)
    files: tuple[str, ...]  # what is copied from src
    codes: tuple[str, ...]  # the fixes, each <fixes>/<program>/<code>.patch
    env: dict = field(default_factory=dict)
    fixes: Path = FIXES  # the folder of the program's fixes, beside it
    # Writes what the program reads into the working directory (A's and B's
    # alike), as tests/real/catalog.py's Program.setup.
    setup: Callable[[Path], None] | None = None
    # tests/real/corpus/launch.py's options, as the catalog's Program.launcher:
    # the program then runs as `python launch.py OPTIONS script args`.
    launcher: tuple[str, ...] = ()


CASES = [
    Case("hf-naive-loop", ("hf_naive.py", "--pairs", "96", "--batch", "8"), PROGRAMS,
         ("hf_naive.py",), ("train-mode-in-eval", "autograd-in-eval", "padding-waste"),
         env=OFFLINE),
    Case("ema-deepcopy", ("ema_deepcopy.py", "--epochs", "2"), PROGRAMS,
         ("ema_deepcopy.py",), ("dataloader-bound",)),
    Case("word-lm-transformer", ("word_lm.py", "--model", "Transformer", "--epochs", "0",
                                 "--generate", "200", "--save", "model.pt"), PROGRAMS,
         ("word_lm.py", "lm_models.py"), ("full-vocab-logits", "recompute-prefix")),
    Case("demo", ("workload.py", "--items", "24", "--threads", "1"), DEMO,
         ("workload.py",),
         ("autograd-in-eval", "full-vocab-logits", "padding-waste", "serial-small-gemm")),
    # issue 37 item 8's two programs (team-written, as cleanrl and lm-eval run)
    Case("dqn-acting", ("dqn_acting.py",), PROGRAMS, ("dqn_acting.py",),
         ("autograd-in-eval",)),
    Case("lm-eval-loglikelihood", ("lm_eval_loglik.py", "--questions", "64"), PROGRAMS,
         ("lm_eval_loglik.py",), ("full-vocab-logits", "kv-cache-in-scoring"), env=OFFLINE),
    # the corpus (tests/real/corpus), each with the catalog's set-up and environment;
    # arguments so that the steady steps are the ones the finding is about
    # (hf-trainer-evaluate: 20 evaluation batches instead of 6, st-fit-mnrl 16
    # training steps instead of 4, so that each has steady steps)
    Case("ex-word-lm-generate", ("word_language_model/generate.py", "--words", "600",
                                 "--log-interval", "50"), CORPUS / "pytorch_examples",
         ("word_language_model/generate.py", "word_language_model/model.py",
          "word_language_model/data.py"), ("recompute-prefix",),
         fixes=CORPUS / "pytorch_examples" / "fixes", setup=cs.wikitext_and_model),
    Case("lightning-fit-val", ("lightning_fit.py",), CORPUS / "drivers", ("lightning_fit.py",),
         ("dataloader-bound",), fixes=CORPUS / "drivers" / "fixes"),
    Case("torch-func-sgd", ("func_sgd.py",), CORPUS / "drivers", ("func_sgd.py",),
         ("dataloader-bound",), fixes=CORPUS / "drivers" / "fixes"),
    Case("hf-trainer-evaluate", ("hf_trainer_eval.py", "--n", "320"), CORPUS / "drivers",
         ("hf_trainer_eval.py",), ("padding-waste",), env=OFFLINE,
         fixes=CORPUS / "drivers" / "fixes"),
    Case("st-fit-mnrl", ("st_fit.py", "--n", "128"), CORPUS / "drivers", ("st_fit.py",),
         ("padding-waste",), env=OFFLINE, fixes=CORPUS / "drivers" / "fixes"),
    Case("peft-olora", ("olora_finetuning.py", "--base_model", "model", "--data_path", "alpaca",
                        "--output_dir", "olora", "--batch_size", "4", "--cutoff_len", "128",
                        "--eval_step", "10", "--save_step", "10", "--device_map", "cpu",
                        "--dtype", "float32", "--seed", "0"), CORPUS / "peft",
         ("olora_finetuning.py",), ("padding-waste",), env=dict(OFFLINE, HF_DATASETS_OFFLINE="1"),
         fixes=CORPUS / "peft" / "fixes", setup=cs.peft_olora),
    # facebookresearch/dlrm: inference() scores the test batches with autograd on
    Case("dlrm-random", ("dlrm_s_pytorch.py", *cs.DLRM_ARGS), CORPUS / "dlrm",
         ("dlrm_s_pytorch.py", "data_loader_terabyte.py", "data_utils.py",
          "dlrm_data_pytorch.py", "extend_distributed.py", "mlperf_logger.py",
          "optim/rwsadagrad.py", "tricks/md_embedding_bag.py", "tricks/qr_embedding_bag.py"),
         ("autograd-in-eval",), fixes=CORPUS / "dlrm" / "fixes", launcher=("--no-tensorboard",)),
]


def prepare(case: Case, code: str | None, dest: Path) -> Path:
    """A copy of the program's files in dest, with the fix of `code` applied."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for f in case.files:
        (dest / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(case.src / f, dest / f)
    if code:
        patch = case.fixes / case.program / f"{code}.patch"
        before = {f: (dest / f).read_bytes() for f in case.files}
        # GNU patch, exact context (no fuzz): `git apply` inside this repository's
        # tree (bench/out) would skip paths outside the repository's own silently.
        p = subprocess.run(["patch", "-p1", "--fuzz=0", "--batch", "--forward",
                            "--no-backup-if-mismatch", "-i", str(patch)], cwd=dest,
                           capture_output=True, text=True)
        if p.returncode != 0 or all((dest / f).read_bytes() == b for f, b in before.items()):
            raise SystemExit(f"{patch.relative_to(ROOT)} does not apply: "
                             f"{(p.stdout + p.stderr).strip()}")
    return dest


def claim_of(report: dict, code: str) -> dict:
    """The finding's claim in A1's report: per step, share, basis."""
    found = [f for f in report.get("findings") or []
             if f.get("code") == code and f.get("verdict") == "avoidable"]
    steady = (report.get("steps") or {}).get("steady_median_ns")
    if not found:
        return {"found": False, "steady_median_ns": steady}
    per = [(f.get("saving") or {}).get("per_step_ns") for f in found]
    share = [(f.get("saving") or {}).get("share_of_step") for f in found]
    ev = found[0].get("evidence") or {}
    basis = str(ev.get("saving_basis") or "")
    if any(p is None for p in per):
        kind = "unpriced" + (f" ({ev['probe_skipped']})" if ev.get("probe_skipped") else "")
    elif basis.startswith("measured"):
        kind = "measured"
    else:
        kind = "derived" + (f" ({ev['saving_model']})" if ev.get("saving_model") else "")
    priced = kind.split()[0] != "unpriced"
    return {"found": True, "basis": kind,
            "upper_bound": all((f.get("saving") or {}).get("upper_bound", True) for f in found),
            "per_step_ns": sum(per) if priced else None,
            "share_of_step": min(1.0, sum(s or 0 for s in share)) if priced else None,
            # the same saving as a share of A1's steady median step (ab's unit)
            "share_of_steady": (min(1.0, sum(per) / steady) if priced and steady else None),
            "steady_median_ns": steady}


def run_ab(case: Case, code: str, out: Path, rounds: int, env: dict, retries: int) -> dict:
    work = out / case.program / code
    a = prepare(case, None, work / "A")
    b = prepare(case, code, work / "B")
    if case.setup is not None:  # the data A and B read, in their working directory
        case.setup(work)
    py = sys.executable
    launch = [str(CORPUS / "launch.py"), *case.launcher] if case.launcher else []
    cmd_a = shlex.join([py, *launch, str(a / case.argv[0]), *case.argv[1:]])
    cmd_b = shlex.join([py, *launch, str(b / case.argv[0]), *case.argv[1:]])
    failures = []
    for attempt in range(retries + 1):
        ab_dir = work / ("ab" if attempt == 0 else f"ab.retry{attempt}")
        if ab_dir.exists():
            shutil.rmtree(ab_dir)
        p = subprocess.run([py, "-m", "fastenough", "ab", "--json", "--no-history",
                            "--rounds", str(rounds), "--dir", str(ab_dir), cmd_a, cmd_b],
                           cwd=work, env=dict(env, **case.env), capture_output=True, text=True)
        try:
            doc = json.loads(p.stdout)
        except json.JSONDecodeError:
            return {"error": f"ab exit {p.returncode}: {(p.stderr or p.stdout)[-600:]}"}
        failed = doc.get("failed")
        if not failed:
            break
        # A run that failed (the program, or the supervisor: a crash of the tool
        # is kept in the summary, with its run's stderr) is retried as a whole.
        failures.append({"dir": str(ab_dir), **failed})
        print(f"    {ab_dir.name}: run {failed.get('run')} failed "
              f"(exit status {failed.get('exit_status')})", file=sys.stderr, flush=True)
    report_path = ab_dir / "A1" / "report.json"
    claim = (claim_of(json.loads(report_path.read_text()), code) if report_path.exists()
             else {"found": False})
    r = doc.get("ratio") or {}
    row = {"claim": claim, "unit": doc.get("unit"), "verdict": doc.get("verdict"),
           "ratio": r or None, "outputs": (doc.get("outputs") or {}).get("verdict"),
           "ab_dir": str(ab_dir), "failed_runs": failures, "steps": steps_of(ab_dir)}
    if r.get("ratio"):
        row["gain"] = 1 - 1 / r["ratio"]
        row["gain_interval"] = [1 - 1 / r["low"], 1 - 1 / r["high"]]
    row["saved_per_step_ns"] = saved_per_step_ns(doc)
    return row


def saved_per_step_ns(doc: dict) -> float | None:
    """What the fix saved per step, in time: the median mean step (1 / steps/s) of
    A's timing-only runs less B's. The claim's share is of A1's steady median,
    a step under the full agent (its checks' cost in it), while ab's gain is a
    share of a timing-only step, nearer the program's own: shares of two
    different steps. The time per step compares like with like."""
    step = {}
    for side in ("A", "B"):
        runs = ((doc.get("sides") or {}).get(side) or {}).get("runs") or []
        per = [1e9 / r["steps_per_s"] for r in runs
               if r.get("timing_only") and r.get("steps_per_s")]
        if not per:
            return None
        step[side] = statistics.median(per)
    return step["A"] - step["B"]


def steps_of(ab_dir: Path) -> dict:
    """The headline steps of A1 and B1 (mode, steady count): ab's steps/s
    compares A's steps with B's, which are not the same steps when the fix
    changes what a step is (dqn-acting: A's 349 training steps a run, B's 2842
    acting forwards under no_grad, counted as evaluation steps)."""
    out = {}
    for run in ("A1", "B1"):
        path = ab_dir / run / "report.json"
        if path.exists():
            st = json.loads(path.read_text()).get("steps") or {}
            out[run] = {"mode": st.get("mode"), "steady_count": st.get("steady_count")}
    return out


def unlike_steps(row: dict) -> bool:
    a, b = (row.get("steps") or {}).get("A1"), (row.get("steps") or {}).get("B1")
    if not a or not b:
        return False
    if a["mode"] != b["mode"]:
        return True
    na, nb = a.get("steady_count") or 0, b.get("steady_count") or 0
    return min(na, nb) > 0 and max(na, nb) > 2 * min(na, nb)


def outcome(row: dict) -> str:
    claim = row.get("claim") or {}
    if "error" in row or "gain" not in row:
        return "not measured"
    if unlike_steps(row):
        st = row["steps"]
        return (f"unlike steps (A: {st['A1']['steady_count']} {st['A1']['mode']}, "
                f"B: {st['B1']['steady_count']} {st['B1']['mode']})")
    if not claim.get("found"):
        return "not found"
    share = claim.get("share_of_step")
    if share is None:
        return "unpriced"
    return "yes" if share >= row["gain_interval"][0] else "NO"


def fmt_share(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="ab's A B B A blocks per fix (default 3)")
    ap.add_argument("--only", action="append", default=[], metavar="PROGRAM[:CODE]",
                    help="only this program (or this one fix); repeatable")
    ap.add_argument("--retries", type=int, default=1,
                    help="run an ab again when one of its runs failed (default 1)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "calibrate")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("FASTENOUGH_")}
    env.setdefault("OMP_NUM_THREADS", "1")
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)

    def wanted(case: Case, code: str) -> bool:
        return not args.only or any(o in (case.program, f"{case.program}:{code}")
                                    for o in args.only)

    rows = []
    for case in CASES:
        for code in case.codes:
            if not wanted(case, code):
                continue
            print(f"... {case.program}: {code}", file=sys.stderr, flush=True)
            row = dict(program=case.program, finding=code,
                       command=shlex.join(case.argv),
                       **run_ab(case, code, out, args.rounds, env, args.retries))
            row["inside"] = outcome(row)
            rows.append(row)

    print(f"fastenough ab --rounds {args.rounds} per fix (A = program, B = program + the "
          "finding's fix); gain = 1 - A/B time per step (or per item), as a share of A's step")
    head = (f"{'program':20} {'finding':19} {'claimed/step':>12} {'share':>6} {'of steady':>9} "
            f"{'basis':9} {'ab B/A [95%]':>20} {'gain [95%]':>22} {'saved/step':>10} "
            f"{'inside'}")
    print(head)
    print("-" * len(head))
    for row in rows:
        c = row.get("claim") or {}
        per = c.get("per_step_ns")
        per_s = "not found" if not c.get("found") else (
            "not est." if per is None else f"{per / 1e6:.2f} ms")
        basis = (c.get("basis") or "-").split()[0]
        if c.get("found") and not c.get("upper_bound", True):
            basis += "*"
        r = row.get("ratio") or {}
        ab_s = (f"{r['ratio']:.2f}x [{r['low']:.2f},{r['high']:.2f}]" if r.get("ratio")
                else (row.get("error") or row.get("verdict") or "-")[:20])
        gain_s = (f"{row['gain']:.1%} [{row['gain_interval'][0]:.1%},"
                  f"{row['gain_interval'][1]:.1%}]" if "gain" in row else "-")
        saved = row.get("saved_per_step_ns")
        saved_s = "-" if saved is None else f"{saved / 1e6:.2f} ms"
        print(f"{row['program']:20} {row['finding']:19} {per_s:>12} "
              f"{fmt_share(c.get('share_of_step')):>6} {fmt_share(c.get('share_of_steady')):>9} "
              f"{basis:9} {ab_s:>20} {gain_s:>22} {saved_s:>10} {row['inside']}")
    print("(share: the finding's share_of_step as reported; of steady: its per-step saving "
          "over A1's steady median step; * an estimate, not a bound; saved/step: the median "
          "mean step of A's timing-only runs less B's)")
    for row in rows:
        if row.get("error"):
            print(f"{row['program']}:{row['finding']}: {row['error']}", file=sys.stderr)
        for f in row.get("failed_runs") or []:
            print(f"{row['program']}:{row['finding']}: run {f.get('run')} of {f['dir']} failed "
                  f"(exit status {f.get('exit_status')}; {f.get('stderr')})")
    (out / "summary.json").write_text(json.dumps({"rounds": args.rounds, "rows": rows},
                                                 indent=1))
    return 1 if any(row["inside"] == "NO" for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
