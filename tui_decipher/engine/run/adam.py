"""Adam as torch steps it, without `torch.optim.Optimizer`: that class's first call imports torch's
compiler (`torch._dynamo`, about 1.2 s of every run on 2 CPU cores), which no run uses. The step
is torch's own functional `adam` with torch.optim.Adam's defaults, so the arithmetic is torch's
(a test checks equality step by step), and the state dict is torch.optim.Adam's, so a training
state saved by either loads in the other."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch
from torch.optim.adam import adam


class Adam:
    """Adam over `params` (one group, no weight decay, no amsgrad: what the trainings use)."""

    def __init__(
        self, params: Iterable[torch.Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:  # fmt: skip
        self.params = list(params)
        if not self.params:
            raise ValueError("Adam got an empty parameter list")
        self.lr, self.betas, self.eps = lr, betas, eps
        # Each parameter's state, created at its first step as torch creates it: the step count (a
        # CPU scalar of the default dtype), the moving averages of the gradient and of its square.
        self.state: list[dict[str, torch.Tensor]] = [{} for _ in self.params]

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients (as torch's default does: set to None)."""
        for p in self.params:
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.detach_().zero_()

    @torch.no_grad()
    def step(self) -> None:
        """One Adam step on every parameter that has a gradient."""
        stepped = [(p, s) for p, s in zip(self.params, self.state, strict=True) if p.grad is not None]
        for p, s in stepped:
            if not s:
                s["step"] = torch.tensor(0.0, dtype=_scalar_dtype())
                s["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                s["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        if not stepped:
            return
        params = [p for p, _ in stepped]
        grads = [p.grad for p in params if p.grad is not None]
        adam(
            params, grads, [s["exp_avg"] for _, s in stepped],
            [s["exp_avg_sq"] for _, s in stepped], [], [s["step"] for _, s in stepped],
            foreach=None, capturable=False, differentiable=False, fused=None, grad_scale=None, found_inf=None,
            has_complex=any(torch.is_complex(p) for p in params), decoupled_weight_decay=False, amsgrad=False,
            beta1=self.betas[0], beta2=self.betas[1], lr=self.lr, weight_decay=0.0, eps=self.eps, maximize=False,
        )  # fmt: skip

    def state_dict(self) -> dict[str, Any]:
        """torch.optim.Adam's state dict (its tensors are this optimiser's own, as torch's are)."""
        group = {"lr": self.lr, "betas": self.betas, "eps": self.eps, "weight_decay": 0.0, "amsgrad": False,
                 "maximize": False, "foreach": None, "capturable": False, "differentiable": False, "fused": None,
                 "decoupled_weight_decay": False, "params": list(range(len(self.params)))}  # fmt: skip
        return {"state": {k: dict(s) for k, s in enumerate(self.state) if s}, "param_groups": [group]}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Continue from a state dict of this class or of torch.optim.Adam (one group): copies, the
        moving averages on each parameter's device and dtype, as torch loads them."""
        (group,) = state_dict["param_groups"]
        if len(group["params"]) != len(self.params):
            raise ValueError(f"the saved optimiser has {len(group['params'])} parameters, this one {len(self.params)}")
        self.lr, self.betas, self.eps = group["lr"], tuple(group["betas"]), group["eps"]
        saved = state_dict["state"]
        self.state = []
        for key, p in zip(group["params"], self.params, strict=True):
            s = saved.get(key, {})
            self.state.append({
                name: (value.detach().clone() if name == "step" else _grown(value.detach(), p))
                for name, value in s.items()
            })  # fmt: skip


def _grown(moment: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """A saved moving average on `p`'s device and dtype; where `p` has grown since it was saved (a
    pieces channel's actions gained the gapped piece), zeros in the new entries: no history there."""
    moment = moment.to(device=p.device, dtype=p.dtype)
    if moment.shape == p.shape:
        return moment.clone()
    if moment.dim() != p.dim() or any(a > b for a, b in zip(moment.shape, p.shape, strict=True)):
        raise ValueError(f"a saved moving average of shape {tuple(moment.shape)} does not fit {tuple(p.shape)}")
    grown = torch.zeros_like(p)
    grown[tuple(slice(0, n) for n in moment.shape)] = moment
    return grown


def _scalar_dtype() -> torch.dtype:
    """The dtype torch.optim.Adam counts steps in: float64 where that is the default dtype."""
    return torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32
