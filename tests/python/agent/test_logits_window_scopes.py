"""The full-vocab-logits window never leaves the program a broken dispatch state.

ema-deepcopy (tests/real/programs, with its dataloader-bound fix) crashed 1 run
in 6 under `fastenough run` with torch's "Hit Python dispatch key but no
arguments had PyInterpreter", in torch.empty inside the DataLoader's
RandomSampler. The class: a window opened on a training forward's output (its
TorchDispatchMode pushed, the thread's Python dispatch key on); the model's next
call, which closes it, came inside `torch.inference_mode()` (the evaluation);
inference_mode had saved the thread's dispatch keys with the Python key on and
put them back at its exit, after the close had popped the mode: the key on with
no mode on the stack, and the program's next factory op (no tensor argument)
failed. Here the same shape, deterministically: training forwards, then the
model called once inside inference_mode with an output that opens no window of
its own, then a DataLoader epoch (RandomSampler: torch.empty), factory ops in the
main thread and in a thread of the program's own.
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from agent_run_helper import run_under_agent  # noqa: E402
from checks_helpers import StubRegistry  # noqa: E402

LOOP = """
import threading
import torch
from torch.utils.data import DataLoader, TensorDataset
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 5))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(256, 32)
y = torch.randint(0, 5, (256,))
train = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
outs = []
side = []
def factory_ops():
    for _ in range(200):
        side.append(float(torch.empty(2).fill_(1.0).sum()))
for epoch in range(4):
    model.train()
    t = threading.Thread(target=factory_ops)
    t.start()
    for xb, yb in train:  # shuffle: RandomSampler seeds itself with torch.empty
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    t.join()
    model.eval()
    with torch.inference_mode():  # the model's next call ends the window in here
        outs.append(model(x[0]).sum().item())  # one sample: a 1-d output, no window
    outs.append(float(torch.empty(()).fill_(2.0)))  # a factory op: no tensor argument
    outs.append(int(torch.randperm(8)[0]))
    outs.append(loss.item())
print("out", " ".join(f"{v:.6g}" for v in outs), len(side))
print("key", torch._C._dispatch_tls_is_dispatch_key_included(torch._C.DispatchKey.Python)
      == (torch._C._len_torch_dispatch_stack() > 0))
"""


def test_a_window_closed_inside_inference_mode_leaves_no_key_on(tmp_path):
    (tmp_path / "plain").mkdir()
    plain = run_under_agent(tmp_path / "plain", LOOP, run_dir=False)
    assert plain.proc.returncode == 0, plain.proc.stderr[-3000:]
    r = run_under_agent(tmp_path, LOOP, {"trace": False})
    # Before the fix: RuntimeError "Hit Python dispatch key but no arguments had
    # PyInterpreter (no tensor args?)" at the first factory op after the eval.
    assert "PyInterpreter" not in r.proc.stderr, r.proc.stderr[-3000:]
    assert r.proc.returncode == 0, r.proc.stderr[-3000:]
    assert "Traceback" not in r.proc.stderr, r.proc.stderr[-3000:]
    assert r.proc.stdout == plain.proc.stdout, (r.proc.stdout, plain.proc.stdout)
    assert r.main_agent()["agent_error"] is None


def test_the_backstop_takes_a_stray_python_key_off_and_says_so():
    """Whatever left it (a scope that saved the dispatch keys while a window was
    open): the Python key on with no mode installed comes off at the model's
    next call, and the checks switch themselves off with the reason."""
    import torch

    from fastenough.agent.checks import logits

    reg = StubRegistry(torch)
    check = logits.LogitsCheck(reg)
    check._entered = True  # a window of the check's had opened
    python_key = torch._C.DispatchKey.Python
    model = torch.nn.Linear(2, 2)
    assert torch._C._len_torch_dispatch_stack() == 0
    mode = logits._Mode(check)
    mode.__enter__()
    with torch.inference_mode():
        mode.__exit__(None, None, None)
    try:
        assert torch._C._dispatch_tls_is_dispatch_key_included(python_key)  # the broken state
        check.on_pre(model, (), {})
        assert not torch._C._dispatch_tls_is_dispatch_key_included(python_key)
        torch.empty(2)  # the factory op that failed
        assert check.key_left_on == 1
        assert len(reg.errors) == 1 and "switched themselves off" in reg.errors[0], reg.errors
    finally:
        for key in (python_key, torch._C.DispatchKey.PythonTLSSnapshot):
            torch._C._dispatch_tls_set_dispatch_key_included(key, False)


# cleanrl's DQN acting, as the fix the autograd-in-eval finding prints makes it:
# each acting forward in its own inference_mode scope, the action read outside
# it, training outside any scope. A window opened at the end of one scope's
# forward (the Python key on inside it), the scope's exit put the key off with
# the mode still installed, the argmax outside went through the mode and put the
# key back on, and the next scope saved that: the window closed inside it, and its
# exit left the key on with no mode. The next torch.Tensor(obs) failed, 4 runs in
# 4 (bench/calibrate_savings.md, dqn-acting).
ACTING = """
import torch
torch.manual_seed(0)
q = torch.nn.Sequential(torch.nn.Linear(4, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
opt = torch.optim.Adam(q.parameters(), lr=1e-3)
obs = [0.1, 0.2, 0.3, 0.4]
acts = []
for step in range(600):
    with torch.inference_mode():
        q_values = q(torch.Tensor([obs]))
    action = int(torch.argmax(q_values, dim=1).cpu().numpy()[0])
    acts.append(action)
    obs = [o + 0.01 * (action - 0.5) for o in obs]
    if step % 4 == 0 and step > 50:
        x = torch.Tensor([obs] * 8)
        loss = q(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
print("acts", sum(acts), len(acts))
print("key", torch._C._dispatch_tls_is_dispatch_key_included(torch._C.DispatchKey.Python)
      == (torch._C._len_torch_dispatch_stack() > 0))
"""


def test_windows_across_per_call_inference_scopes_leave_no_key_on(tmp_path):
    (tmp_path / "plain").mkdir()
    plain = run_under_agent(tmp_path / "plain", ACTING, run_dir=False)
    assert plain.proc.returncode == 0, plain.proc.stderr[-3000:]
    r = run_under_agent(tmp_path, ACTING, {"trace": False})
    assert "PyInterpreter" not in r.proc.stderr, r.proc.stderr[-3000:]
    assert r.proc.returncode == 0, r.proc.stderr[-3000:]
    assert "Traceback" not in r.proc.stderr, r.proc.stderr[-3000:]
    assert r.proc.stdout == plain.proc.stdout, (r.proc.stdout, plain.proc.stdout)
    assert r.main_agent()["agent_error"] is None
