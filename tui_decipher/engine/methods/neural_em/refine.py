"""Reviewer-guided refinement: the kept restart of a run's checkpoint goes on for more rounds under
the reviewer's judgments."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import torch

from ...constraints.review import ReviewConstraints
from ...corpora.corpus import Corpus
from ...flow import flow_matrix
from ...run.checkpoint import Checkpoint, CheckpointError
from ...run.events import EventCallback
from ...run.problem import RunCancelled
from ...run.seeds import derive
from ..base import DecipherResult, empty_result
from .checkpoints import _restore_restart
from .context import EMContext, _new_model, _RestartState, prepare
from .fit import _conclude, _run_started
from .rounds import _run_round


def _refine(
    corpus: Corpus,
    start: Checkpoint,
    review: ReviewConstraints,
    rounds: int,
    on_event: EventCallback,
    cancel: threading.Event,
    checkpoint_path: Path | None,
    draw: int = 0,
) -> DecipherResult:
    """Continue EM from a run's checkpoint for `rounds` more rounds under the reviewer's judgments.

    The kept restart (lowest objective) continues from its decayed flow and weights; in every
    later flow solve accepted pairs are forced and rejected pairs removed, and the M-step trains
    on the flow with the judgments imposed (see `review`). Settings come from the checkpoint.
    The result's proposals, character map and accuracy replace the run's; with `checkpoint_path`,
    the refined state is saved after every round, so the run can be refined again.
    """
    cfg, own = start.settings(), start.state
    ctx = prepare(
        corpus, cfg, on_event, cancel, review=review, seconds_before=start.seconds, phases_before=start.phases,
        checkpoint_path=checkpoint_path, restart_objectives=list(own["restart_objectives"]), refined=start.refined + 1,
    )  # fmt: skip
    snap = kept_snapshot(own)
    restart = snap["restart"]
    seed = derive(cfg.seed, "neural rounds", restart, draw)  # the rounds' dropout and batches, per draw
    state = _continued_restart(ctx, own, snap)
    state.flow = review.apply_to_flow(state.flow)
    last = state.rounds[-1].round
    # A fresh, seeded sampling generator per refinement keeps refinements reproducible.
    state.sample_gen = torch.Generator().manual_seed(derive(cfg.seed, "neural samples", restart, draw, ctx.refined))
    total = last + rounds
    on_event(_run_started(ctx, total, 1))
    result = empty_result(ctx)
    try:
        for round_ in range(last + 1, total + 1):
            _run_round(ctx, state, round_, total, seed, state.sample_gen)
    except RunCancelled:
        result.status = "cancelled"  # the completed refinement rounds are kept
    ctx.best = state
    return _conclude(ctx, result)


def kept_snapshot(own: dict) -> dict:
    """The snapshot of the restart a refinement continues (`own`: the checkpoint's state)."""
    # The kept restart: the best completed one, or the current one if it is better (or alone).
    snaps = [s for s in (own["best"], own["current"]) if isinstance(s, dict) and s.get("rounds")]
    if not snaps:
        raise CheckpointError("the checkpoint has no complete round to refine")
    return min(snaps, key=lambda s: s["objective"])


def _continued_restart(ctx: EMContext, own: dict, snap: dict) -> _RestartState:
    """The kept restart as its snapshot left it: weights, scores and decayed flow F."""
    state = _RestartState(snap["restart"], _new_model(ctx), torch.zeros(0, device=ctx.device))
    _restore_restart(ctx, state, snap)
    if not state.flow.numel():
        if snap is own["current"]:
            state.flow = own["flow"].to(ctx.device)
        else:  # a checkpoint from before flows were kept per restart: start from its last solve
            assert state.scores is not None  # `_restore_restart` scored every pair
            cost = state.cost if state.cost is not None else (-state.scores.log_prob).numpy().astype(np.float64)
            solution = ctx.solve(cost, ctx.demand.value)
            state.flow = torch.from_numpy(flow_matrix(solution, ctx.n_lost, ctx.n_known)).to(ctx.device)
    return state
