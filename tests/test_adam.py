"""The trainings' Adam (engine/run/adam.py) steps exactly as torch.optim.Adam does, reads and writes
its state dict, and never imports torch's compiler."""

from __future__ import annotations

import subprocess
import sys

import torch

from tui_decipher.engine.run.adam import Adam


def _params(seed: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(5, 3, generator=g).requires_grad_(), torch.randn(7, generator=g).requires_grad_()]


def _steps(optimiser, params: list[torch.Tensor], steps: range) -> None:
    """Adam steps `steps` on a loss of the parameters drawn for each step; the second parameter has
    no gradient on odd steps."""
    for step in steps:
        g = torch.Generator().manual_seed(step)
        target = torch.randn(5, 3, generator=g)
        loss = ((params[0] - target) ** 2).sum()
        if step % 2 == 0:
            loss = loss + (params[1].sin() * torch.randn(7, generator=g)).sum()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()


def test_each_step_is_torchs_adam_step_bit_for_bit():
    ours, theirs = _params(1), _params(1)
    a, b = Adam(ours, lr=0.05), torch.optim.Adam(theirs, lr=0.05)
    for step in range(12):
        _steps(a, ours, range(step, step + 1))
        _steps(b, theirs, range(step, step + 1))
        for p, q in zip(ours, theirs, strict=True):
            assert torch.equal(p, q), f"step {step}"


def test_a_state_saved_by_either_optimiser_resumes_in_the_other_to_the_same_parameters():
    reference = _params(2)
    whole = torch.optim.Adam(reference, lr=0.03)
    _steps(whole, reference, range(10))
    # torch's state into ours, half-way
    ours = _params(2)
    first = torch.optim.Adam(ours, lr=0.03)
    _steps(first, ours, range(5))
    resumed = Adam(ours, lr=0.03)
    resumed.load_state_dict(first.state_dict())
    _steps(resumed, ours, range(5, 10))
    # ours into torch's, half-way
    theirs = _params(2)
    mine = Adam(theirs, lr=0.03)
    _steps(mine, theirs, range(5))
    back = torch.optim.Adam(theirs, lr=0.03)
    back.load_state_dict(mine.state_dict())
    _steps(back, theirs, range(5, 10))
    for p, q, r in zip(reference, ours, theirs, strict=True):
        assert torch.equal(p, q) and torch.equal(p, r)


def test_a_loaded_state_is_a_copy():
    params = _params(3)
    source = Adam(params, lr=0.1)
    _steps(source, params, range(3))
    saved = source.state_dict()
    copy = Adam(_params(3), lr=0.1)
    copy.load_state_dict(saved)
    copy.state[0]["exp_avg"].add_(1.0)
    assert not torch.equal(copy.state[0]["exp_avg"], source.state[0]["exp_avg"])


def test_training_a_channel_never_imports_torchs_compiler():
    code = (
        "import sys, torch\n"
        "from tui_decipher.engine.run.adam import Adam\n"
        "p = torch.zeros(3, requires_grad=True)\n"
        "a = Adam([p], lr=0.1)\n"
        "(p - 1).pow(2).sum().backward(); a.step(); a.zero_grad(); a.load_state_dict(a.state_dict())\n"
        "print('torch._dynamo' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
