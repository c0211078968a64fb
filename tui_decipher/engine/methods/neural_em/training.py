"""The M-step: train theta on the flow F, on every lost word or on batches of them."""

from __future__ import annotations

from collections.abc import Iterator

import torch

from ...neural.model import DecipherModel
from ...neural.regularizers import regularizer
from ...run.adam import Adam
from ...run.config import DecipherConfig
from ...run.events import EpochEnd, epochs_of_round
from ...run.problem import RunCancelled
from .context import EMContext


def epochs_for_round(cfg: DecipherConfig, round_: int) -> int:
    """M-step steps of a round: `first_epochs` for round 1 when set (learning the character map
    from the uniform flow is the slow part), `epochs` afterwards."""
    return epochs_of_round(cfg.first_epochs, cfg.epochs, round_)


def m_step(
    ctx: EMContext,
    model: DecipherModel,
    flow: torch.Tensor,
    restart: int,
    round_: int,
    batch_gen: torch.Generator | None = None,
) -> tuple:
    """Train theta on the flow F for the round's steps; returns (loss, nll, reg) of the last step.

    L = sum_j w_j * (-log sum_i f_ij P(y_j | x_i)) / sum_j w_j + lambda * Omega, w_j = sum_i f_ij.
    One step decodes every lost word once and scores all known words from that single pass; with
    `lost_batch` it decodes a random batch B of lost words instead and trains on the flow's rows
    B (the same loss on the sub-flow f[B]), so a step costs |B| / |X| of a full one. Batches are
    drawn without replacement and the lost words reshuffled once all have been used.
    """
    cfg = ctx.cfg
    optimizer = Adam(model.parameters(), lr=cfg.lr)
    batch = lost_batch_for_round(cfg, round_, ctx.n_lost)
    batches = _lost_batches(ctx.n_lost, batch, batch_gen) if batch < ctx.n_lost else None
    if batches is None:  # the full pass: the same rows every step
        lost_b, terms = ctx.lost, _flow_terms(flow)
    model.train()
    loss = nll = reg = torch.tensor(0.0)
    epochs = epochs_for_round(cfg, round_)
    for epoch in range(1, epochs + 1):
        if ctx.cancel.is_set():
            raise RunCancelled
        if batches is not None:
            rows = next(batches).to(ctx.device)
            lost_b, terms = ctx.lost.take(rows), _flow_terms(flow[rows])
        active, w, log_flow, lost_mass = terms
        dec = model(lost_b.ids, lost_b.lengths, ctx.known.steps)
        log_p = ctx.known.log_prob(dec.log_probs, active)  # (n_rows, n_active)
        ll = torch.logsumexp(log_flow + log_p, dim=0)  # log sum_i f_ij P(y_j|x_i): (n_active,)
        nll = -(w * ll).sum() / w.sum()
        reg = (lost_mass * regularizer(cfg.regularizer, dec.attention, dec.lost_lengths)).sum() / lost_mass.sum()
        loss = nll + cfg.reg_weight * reg
        if not torch.isfinite(loss):
            raise FloatingPointError(f"round {round_} epoch {epoch}: loss became {loss.item()}")
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if cfg.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        optimizer.step()
        ctx.on_event(EpochEnd(restart, round_, epoch, epochs, loss.item(), nll.item(), reg.item(), ctx.elapsed()))
    return loss.item(), nll.item(), reg.item()


def _lost_batches(n_lost: int, batch: int, generator: torch.Generator | None) -> Iterator[torch.Tensor]:
    """Endless batches of `batch` lost-word indices: shuffled passes without replacement (a pass's
    remainder smaller than a batch is skipped)."""
    while True:
        order = torch.randperm(n_lost, generator=generator)
        yield from order[: n_lost - n_lost % batch].split(batch)


def _flow_terms(flow: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """What the M-step loss needs from the flow's rows (n_rows, n_known): the known words that
    receive flow (n_active,), their weights w_j, log f over them (n_rows, n_active), and each lost
    word's flow mass (n_rows,), which weights its regularizer."""
    known_weight = flow.sum(0)  # w_j (n_known,)
    active = torch.nonzero(known_weight > 0).squeeze(1)
    return active, known_weight[active], flow[:, active].log(), flow.sum(1)


def lost_batch_for_round(cfg: DecipherConfig, round_: int, n_lost: int) -> int:
    """Lost words decoded per M-step step in a round: `lost_batch` from round 2 on (0 = all).

    Round 1 always decodes every lost word: it learns the character map from the uniform flow,
    where a known word teaches something only if its cognate is in the batch (docs/experiments.md).
    Later flows are concentrated, and a batch trains on its pairs.
    """
    if cfg.lost_batch == 0 or round_ == 1:
        return n_lost
    return min(cfg.lost_batch, n_lost)
