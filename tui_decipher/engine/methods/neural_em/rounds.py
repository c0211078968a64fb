"""The EM loop of one restart: rounds of M-step, scoring, E-step flow and decay (Algorithm 1)."""

from __future__ import annotations

import numpy as np
import torch

from ...evaluation.metrics import model_predictions
from ...flow import flow_matrix
from ...neural.scoring import Scores, score_all_pairs
from ...run.checkpoint import Checkpoint
from ...run.events import RoundEnd
from ...run.problem import RunCancelled
from ...run.seeds import derive
from ..base import RoundMetrics
from .checkpoints import _restore_restart, write_checkpoint
from .context import EMContext, _new_model, _RestartState
from .e_step import demand_for_round, flow_costs, objective
from .init_flow import initial_flow
from .training import m_step


def run_restart(ctx: EMContext, restart: int, resume: Checkpoint | None = None) -> _RestartState:
    """One EM run from a fresh initialisation (seeded by config seed and restart index), or from
    the checkpoint of a round of this restart when `resume` is given."""
    cfg = ctx.cfg
    seed = derive(cfg.seed, "neural rounds", restart)
    torch.manual_seed(seed)
    model = _new_model(ctx)
    state = _RestartState(restart, model, torch.zeros(0))
    state.sample_gen = torch.Generator().manual_seed(derive(cfg.seed, "neural samples", restart))
    first_round = 1
    if resume is not None:  # a resumed restart continues from its saved flow: no initial flow to build
        _restore_restart(ctx, state, resume.state["current"])
        state.flow = resume.state["flow"].to(ctx.device)  # the decayed flow, not the snapshot's
        state.sample_gen.set_state(resume.state["sample_gen"])
        first_round = resume.round + 1
    rounds = cfg.rounds if cfg.use_flow else 1
    try:
        if resume is None:
            state.flow = initial_flow(ctx, restart)
            if ctx.review is not None:
                state.flow = ctx.review.apply_to_flow(state.flow)
        for round_ in range(first_round, rounds + 1):
            _run_round(ctx, state, round_, rounds, seed, state.sample_gen)
    except RunCancelled:
        state.cancelled = True  # what the completed rounds produced is kept
    return state


def _run_round(
    ctx: EMContext, state: _RestartState, round_: int, rounds: int, seed: int, sample_gen: torch.Generator
) -> None:
    """One EM round: reset and M-step, score all pairs, E-step flow, decay, evaluate."""
    cfg, model, restart = ctx.cfg, state.model, state.restart
    round_start = ctx.elapsed()
    phase_before = dict(ctx.phases)
    loss, nll, reg = _round_m_step(ctx, state, round_, seed)
    with ctx.timer("score"):
        scores = score_all_pairs(model, ctx.lost, ctx.known, cfg.score_chunk)
    state.objective = objective(ctx, scores, state.flow)
    scores, kept_previous = _keep_better_model(ctx, state, scores)
    demand = demand_for_round(cfg, round_, ctx.demand.value)
    kind = "nll" if round_ <= cfg.warmup_rounds else "eed"
    flow_cost, achieved, cost = _round_e_step(ctx, state, scores, kind, demand, sample_gen)
    acc, acc_model, _ = ctx.evaluate(model_predictions(scores.log_prob), cost)
    state.scores, state.cost, state.cost_kind, state.accuracy = scores, cost, kind, acc
    phase = {k: ctx.phases[k] - phase_before.get(k, 0.0) for k in ctx.phases}
    metrics = RoundMetrics(round_, demand, kind, loss, nll, reg, flow_cost, achieved, acc, acc_model,
                           ctx.elapsed() - round_start, phase, kept_previous)  # fmt: skip
    state.rounds.append(metrics)
    # Keep the weights of the last complete round: a cancel mid-M-step must not leak a half-trained model.
    state.kept_weights = {k: v.detach().clone() for k, v in model.state_dict().items()}
    write_checkpoint(ctx, state, round_)
    ctx.on_event(RoundEnd(restart, round_, rounds, demand, kind, loss, flow_cost, achieved, acc, acc_model,
                          ctx.elapsed(), phase, kept_previous))  # fmt: skip


def _round_m_step(ctx: EMContext, state: _RestartState, round_: int, seed: int) -> tuple:
    """The round's M-step on the restart's flow; returns (loss, nll, reg) of its last step."""
    # Periodic reset (paper): every M-step starts from fresh parameters and a fresh optimiser,
    # seeded per round so a round's result does not depend on how earlier rounds used the RNG.
    # Without it (warm start) the M-step continues from the last round's parameters. A refinement
    # never resets: the run has found its map, and a fresh M-step on the judged flow can miss it
    # (docs/experiments.md).
    torch.manual_seed(seed * 1009 + round_)
    if (ctx.cfg.reset_each_round and not ctx.refined) or not state.rounds:
        state.model.reset_parameters()
    with ctx.timer("train"):
        batch_gen = torch.Generator().manual_seed(seed * 7919 + round_)
        return m_step(ctx, state.model, state.flow, state.restart, round_, batch_gen)


def _keep_better_model(ctx: EMContext, state: _RestartState, scores: Scores) -> tuple[Scores, bool]:
    """The round's scores, or the previous round's (and True) when `keep_better_model` keeps its model."""
    if ctx.cfg.keep_better_model and state.kept_weights is not None and state.scores is not None:
        # A fresh M-step sometimes stalls on the plateau before the character map is found; EM
        # must not go backwards, so the previous round's model (whose scores the state still
        # holds) is kept when it explains the current flow better than the new one.
        previous_objective = objective(ctx, state.scores, state.flow)
        if previous_objective < state.objective:
            state.model.load_state_dict(state.kept_weights)
            state.objective = previous_objective
            return state.scores, True
    return scores, False


def _round_e_step(
    ctx: EMContext, state: _RestartState, scores: Scores, kind: str, demand: int, sample_gen: torch.Generator
) -> tuple[float, int, np.ndarray | None]:
    """The E-step: the min-cost flow of the round's costs for demand D, decayed into F (with the
    review's judgments imposed); returns (flow cost, flow achieved, costs). No flow without `use_flow`."""
    cfg = ctx.cfg
    if not cfg.use_flow:
        return 0.0, 0, None
    cost = flow_costs(ctx, scores, kind, sample_gen)
    solution = ctx.solve(cost, demand)
    new_flow = torch.from_numpy(flow_matrix(solution, ctx.n_lost, ctx.n_known)).to(ctx.device)
    state.flow = cfg.flow_decay * state.flow + (1.0 - cfg.flow_decay) * new_flow
    if ctx.review is not None:
        state.flow = ctx.review.apply_to_flow(state.flow)
    return solution.cost, solution.flow, cost
