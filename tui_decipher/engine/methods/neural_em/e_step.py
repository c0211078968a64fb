"""The E-step's terms: the demand D of a round, the pair costs its min-cost flow solves, and the
objective that chooses restarts."""

from __future__ import annotations

import numpy as np
import torch

from ...neural.edit_distance import expected_edit_distance, sample_strings
from ...neural.scoring import Scores
from ...run.config import DecipherConfig
from .context import EMContext


def demand_for_round(cfg: DecipherConfig, round_: int, demand: int) -> int:
    """D grows by `demand_step` per round up to N (published schedule); 0 means D = N at once."""
    return demand if cfg.demand_step == 0 else min(demand, cfg.demand_step * round_)


def flow_costs(ctx: EMContext, scores: Scores, kind: str, generator: torch.Generator) -> np.ndarray:
    """Pair costs (n_lost, n_known): -log P in warm-up, the expected edit distance afterwards."""
    if kind == "nll":
        return (-scores.log_prob).numpy().astype(np.float64)
    with ctx.timer("eed"):
        cost = eed_cost(ctx.cfg, scores, ctx.known_texts, generator)
    return cost.numpy().astype(np.float64)


def eed_cost(cfg: DecipherConfig, scores: Scores, known_texts: list[str], generator: torch.Generator) -> torch.Tensor:
    """The expected edit distance (n_lost, n_known) of the model's sampled readings of each lost
    word to every known word, as the config's `eed_*` fields set it."""
    texts, sample_lp = sample_strings(
        scores.step_log_probs,
        cfg.eed_samples,
        cfg.eed_sharpen,
        generator,
        score_sharpened=cfg.eed_sample_weights == "sharpened",
    )
    return expected_edit_distance(scores.log_prob, texts, sample_lp, known_texts)


def objective(ctx: EMContext, scores: Scores, flow: torch.Tensor) -> float:
    """Training objective of a finished restart (eval mode): the flow-weighted NLL. Chooses restarts."""
    flow = flow.cpu()
    w = flow.sum(0)
    active = w > 0
    ll = torch.logsumexp(flow[:, active].log() + scores.log_prob[:, active], dim=0)
    return float(-(w[active] * ll).sum() / w[active].sum())
