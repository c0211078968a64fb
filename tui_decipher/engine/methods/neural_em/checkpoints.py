"""A restart's state as a checkpoint holds it: saved after every complete round, read back to
resume a run or to refine it."""

from __future__ import annotations

import dataclasses
from typing import Any

from ...neural.scoring import score_all_pairs
from ...run.checkpoint import Checkpoint, save_checkpoint
from ..base import RoundMetrics
from .context import METHOD_NAME, EMContext, _RestartState


def _snapshot(state: _RestartState) -> dict:
    """What a finished round leaves that the proposals and the restart choice need (CPU tensors)."""
    return {
        "restart": state.restart,
        "weights": {k: v.cpu() for k, v in (state.kept_weights or {}).items()},
        "flow": state.flow.cpu(),  # what a refinement continues from
        "rounds": [dataclasses.asdict(m) for m in state.rounds],
        "cost": state.cost,
        "cost_kind": state.cost_kind,
        "objective": state.objective,
        "accuracy": state.accuracy,
    }


def _restore_restart(ctx: EMContext, state: _RestartState, snap: dict) -> None:
    """Load a snapshot into a restart state; the scores are recomputed from the kept weights."""
    state.kept_weights = {k: v.to(ctx.device) for k, v in snap["weights"].items()}
    state.model.load_state_dict(state.kept_weights)
    state.rounds = [RoundMetrics(**m) for m in snap["rounds"]]
    state.cost, state.cost_kind = snap["cost"], snap["cost_kind"]
    state.objective, state.accuracy = snap["objective"], snap["accuracy"]
    if snap.get("flow") is not None and snap["flow"].numel():
        state.flow = snap["flow"].to(ctx.device)
    with ctx.timer("score"):
        state.scores = score_all_pairs(state.model, ctx.lost, ctx.known, ctx.cfg.score_chunk)


def write_checkpoint(ctx: EMContext, state: _RestartState, round_: int) -> None:
    """Save the run after a complete round (atomically), if the run has a checkpoint path."""
    if ctx.checkpoint_path is None:
        return
    assert state.sample_gen is not None  # set when the restart starts, before its first round
    own: dict[str, Any] = {
        "flow": state.flow.cpu(),
        "sample_gen": state.sample_gen.get_state(),
        "current": _snapshot(state),
        "best": None if ctx.best is None else _snapshot(ctx.best),
        "restart_objectives": list(ctx.restart_objectives),
        # Judgments the run started from (known pairs), which a resumed run keeps; a refinement's own
        # judgments come from the store each time, so a refined run saves none.
        "review": None if ctx.review is None or ctx.refined else dataclasses.asdict(ctx.review),
    }
    save_checkpoint(
        ctx.checkpoint_path,
        Checkpoint(
            method=METHOD_NAME, config=ctx.cfg.to_dict(), corpus=ctx.corpus.name, shape=(ctx.n_lost, ctx.n_known),
            restart=state.restart, round=round_, rounds=own["current"]["rounds"], seconds=ctx.elapsed(),
            phases=dict(ctx.phases), refined=ctx.refined, state=own,
        ),
    )  # fmt: skip
