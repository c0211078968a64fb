"""A run of the neural EM: its restarts (or the rest of a resumed one), the kept restart, and the
result read from it."""

from __future__ import annotations

import threading
from pathlib import Path

import torch

from ...constraints.review import ReviewConstraints
from ...corpora.corpus import Corpus
from ...evaluation.metrics import model_predictions
from ...run.checkpoint import Checkpoint
from ...run.config import DecipherConfig
from ...run.events import EventCallback, RestartEnd, RunStarted
from ..base import DecipherResult, empty_result
from .checkpoints import _restore_restart
from .context import METHOD_NAME, EMContext, _new_model, _RestartState, prepare
from .fitted import NeuralFitted
from .readout import character_map, proposals
from .rounds import run_restart
from .training import epochs_for_round


def _fit(
    corpus: Corpus,
    cfg: DecipherConfig,
    on_event: EventCallback,
    cancel: threading.Event,
    checkpoint_path: Path | None,
    resume: Checkpoint | None,
    review: ReviewConstraints | None = None,
) -> DecipherResult:
    """Run EM (with restarts) on a corpus. With `checkpoint_path`, the run is saved there after
    every complete round; `resume` (a checkpoint of the same config and corpus, checked by the
    caller) continues from its last round and reaches the same result as an uninterrupted run.
    `review`: judgments known from the start, imposed on every flow from the initial one on."""
    if resume is None:
        ctx = prepare(corpus, cfg, on_event, cancel, review=review, checkpoint_path=checkpoint_path)
    else:
        if review is None and resume.state.get("review"):
            saved = resume.state["review"]
            review = ReviewConstraints(*(tuple(map(tuple, saved[k])) for k in ("accepted", "rejected")))
        ctx = prepare(
            corpus, cfg, on_event, cancel, review=review, seconds_before=resume.seconds, phases_before=resume.phases,
            checkpoint_path=checkpoint_path, restart_objectives=list(resume.state["restart_objectives"]),
        )  # fmt: skip
        if resume.state["best"] is not None:
            best_snap = resume.state["best"]
            ctx.best = _RestartState(best_snap["restart"], _new_model(ctx), torch.zeros(0))
            _restore_restart(ctx, ctx.best, best_snap)
    rounds = cfg.rounds if cfg.use_flow else 1
    on_event(_run_started(ctx, rounds, cfg.restarts))
    result = empty_result(ctx)
    first_restart = resume.restart if resume is not None else 0
    for restart in range(first_restart, cfg.restarts):
        state = run_restart(ctx, restart, resume if restart == first_restart else None)
        if state.scores is not None and (ctx.best is None or state.objective < ctx.best.objective):
            ctx.best = state
        if state.cancelled:
            result.status = "cancelled"
            break
        ctx.restart_objectives.append(state.objective)
        on_event(RestartEnd(restart, state.objective, state.accuracy))
    return _conclude(ctx, result)


def _run_started(ctx: EMContext, rounds: int, restarts: int) -> RunStarted:
    """The event that opens a run (or a refinement) of `restarts` restarts of `rounds` rounds each."""
    corpus, cfg = ctx.corpus, ctx.cfg
    return RunStarted(
        corpus.name,
        corpus.lost_code,
        corpus.known_code,
        corpus.stats(),
        str(ctx.device),
        rounds,
        cfg.epochs,
        restarts,
        ctx.demand.value,
        epochs_for_round(cfg, 1),
        METHOD_NAME,
    )


def _conclude(ctx: EMContext, result: DecipherResult) -> DecipherResult:
    """Fill the result from the kept restart: proposals, character map, accuracy, timings."""
    corpus, cfg = ctx.corpus, ctx.cfg
    result.restart_objectives = list(ctx.restart_objectives)
    best = ctx.best
    if best is not None:
        result.rounds = best.rounds
        result.restart = best.restart
        result.objective = best.objective
        if best.kept_weights is not None:
            best.model.load_state_dict(best.kept_weights)
        result.fitted = NeuralFitted(best.model, cfg, best.rounds[-1].cost_kind if best.rounds else "nll")
        result.proposals = proposals(ctx, best)
        result.char_map = character_map(ctx, best.model)
        if corpus.has_gold and best.scores is not None:
            result.accuracy, result.accuracy_model, result.predictions = ctx.evaluate(
                model_predictions(best.scores.log_prob), best.cost
            )
            result.n_evaluated = corpus.n_gold_lost
            if not cfg.use_flow:
                result.accuracy = result.accuracy_model
    result.refined = ctx.refined
    return ctx.finish(result)
