"""A finished channel run (the channel method's or auto's) refined under the reviewer's judgments:
accepted pairs train at every step and are forced into the flows, rejected pairs leave them, and
pinned sign values hold the channel (`refine_channel`)."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import numpy as np

from ..channels.protocol import Channel
from ..channels.trainer import fit_channel, score_channel
from ..channels.training import ChannelTraining
from ..constraints.review import ReviewConstraints
from ..constraints.sign_values import SignValues
from ..corpora.corpus import Corpus
from ..run.checkpoint import Checkpoint, CheckpointError
from ..run.demand import Demand, decide_demand
from ..run.events import ChannelStep, EventCallback, RunStarted
from ..run.problem import Problem
from ..run.seeds import derive
from .base import DecipherResult, empty_result
from .channel_results import ChannelBlend, finish_channel_result, load_channel, proposal_flow, save_channel

REFINE_STEPS = 50  # channel steps one refinement round adds (the neural EM's round is one EM round)
# In a refinement the accepted pairs together weigh up to half of every step: its few steps must
# move a map the channel has settled on, which one word's weight each barely does. A run from its
# start lets the lexicon shape the map beside them (each one word's weight): docs/experiments.md.
REFINE_SURE_SHARE = 0.5


def overruled_share(problem: Problem, cost: np.ndarray) -> float:
    """Of the lost words the flow reads and the reviewer has not judged, the share it reads as
    another known word than the channel's own best: how much the one-to-one flow still corrects
    the channel's map. `cost` (n_lost, n_known).

    A refinement weighs the accepted pairs by it (up to REFINE_SURE_SHARE): a map the flow must
    overrule often lacks what a few secure pairs teach, while on a map whose readings the flow
    already keeps, pairs it already reads only sharpen those readings at the cost of the rest
    (docs/experiments.md, "a gold-free rule for the accepted pairs' weight")."""
    best = cost.argmin(axis=1)  # (n_lost,): a judged word's row, rejections and all, is not counted
    solution = problem.solve(cost, problem.demand.value)
    judged = problem.review.judged_lost() if problem.review is not None else set()
    read = [(i, j) for i, j in zip(solution.lost.tolist(), solution.known.tolist(), strict=True) if i not in judged]
    if not read:
        return 0.0
    return float(sum(best[i] != j for i, j in read) / len(read))


def _refined_problem(
    corpus: Corpus, start: Checkpoint, review: ReviewConstraints, on_event: EventCallback,
    cancel: threading.Event, pinned: SignValues | None,
) -> Problem:  # fmt: skip
    """The problem a refinement of the finished run `start` trains: its settings, D, sign values
    (with the `pinned` ones merged in) and pinned syllable map, under the reviewer's judgments,
    carrying its time."""
    if "channel" not in start.state:
        raise CheckpointError("the checkpoint holds no trained channel to refine")
    cfg = start.settings()
    signs = SignValues.from_state(start.state.get("sign_values"))
    if pinned:
        pinned.check_channel(cfg.channel_kind)
        signs = signs.merged(pinned)
    map_pins = SignValues.from_state(start.state.get("held_map"))  # the syllable map auto pinned it to (none before)
    problem = Problem.prepare(corpus, cfg, on_event, cancel, review=review, seconds_before=start.seconds,
                              phases_before=start.phases, signs=signs, map_pins=map_pins)  # fmt: skip
    # D as the run read it, before pairs accepted past it raised it (`judged_demand`: the refinement
    # counts them again, so a D raised once is not raised twice), and the most the evidence allowed
    # (a checkpoint from before `demand_high` reads none).
    base = int(start.state.get("demand_base", start.state["n_cognates"]))
    high = int(start.state.get("demand_high", 0))
    return dataclasses.replace(problem, demand=decide_demand(problem.n_lost, base / problem.n_lost, "kept", high=high))


def judged_demand(problem: Problem, cost: np.ndarray) -> Demand:
    """D for a refinement: the run's, plus each accepted pair whose lost word the run's flow at D
    (without the judgments) leaves unproposed, at most every lost word. A pair accepted past D (a
    pair beyond D, or one found by the decipherer) is a cognate more than D counted: forced into a
    flow of the same D, it would push out a proposal instead. `cost` (n_lost, n_known)."""
    review, demand = problem.review, problem.demand
    if review is None or not review.accepted:
        return demand
    free = proposal_flow(dataclasses.replace(problem, review=None), cost, demand.value)
    proposed = set(free.lost.tolist())
    return demand.raised(len({i for i, _ in review.accepted if i not in proposed}), problem.n_lost)


def _sure_share(
    problem: Problem, channel: Channel, result: DecipherResult, blend: ChannelBlend | None
) -> tuple[float, Demand]:
    """The share of a refinement's loss its accepted pairs carry: REFINE_SURE_SHARE, or less where
    few of them overrule the channel as it is (`overruled_share`); recorded in `result`'s decisions.
    And its D (`judged_demand`), read from the channel as the refinement starts it, with its
    `blend` (the run's final costs, but for signs pinned anew, whose learnt readings it forgot)."""
    review, corpus = problem.review, problem.corpus
    if review is None or not review.accepted:
        return REFINE_SURE_SHARE, problem.demand
    with problem.timer("score"):
        start_fit = score_channel(channel, corpus.lost_words, corpus.known_words, problem.lost_charset,
                                  problem.known_charset)  # fmt: skip
    overruled = overruled_share(problem, start_fit.cost)
    if blend is not None:
        with problem.timer("score"):
            start_fit = blend.mix_fit(start_fit, problem)  # in place: the costs the run proposed from
    demand = judged_demand(problem, start_fit.cost)
    del start_fit
    sure_share = min(REFINE_SURE_SHARE, overruled)
    result.decisions["refinement"] = {"overruled": overruled, "sure_share": sure_share}
    if demand != problem.demand:
        result.decisions["refinement"]["demand"] = {"before": problem.demand.value, "after": demand.value}
    return sure_share, demand


def refine_channel(
    method: str,
    corpus: Corpus,
    start: Checkpoint,
    review: ReviewConstraints,
    rounds: int,
    on_event: EventCallback,
    cancel: threading.Event,
    checkpoint_path: Path | None,
    draw: int = 0,
    pinned: SignValues | None = None,
) -> DecipherResult:
    """Continue a finished channel run (the channel method's or auto's) for `rounds` x REFINE_STEPS
    more steps of its own objective under the reviewer's judgments, then its flows with them (see
    `fit_channel`'s `review` and `Problem.solve`). With no judgments it simply trains on: the
    control a refinement is measured against. Settings, D and C come from the checkpoint. `pinned`
    sign values join the run's own (a symbol pinned anew takes the new values in place of its old) and hold the
    channel from this refinement on; its checkpoint keeps them."""
    problem = _refined_problem(corpus, start, review, on_event, cancel, pinned)
    cfg = problem.cfg
    channel = load_channel(problem, start.state["channel"])
    if pinned:
        # What the words taught a sign before the scholar pinned it goes: training does not move a
        # pinned sign's own logits, so a wrong reading learnt before would stay (docs/pinning.md).
        channel.forget_signs(sorted({problem.lost_charset.index[v.lost] for v in pinned.values}))
    blend = ChannelBlend.from_state(start.state.get("blend"), problem)  # kept as the run had it
    steps, refined = rounds * REFINE_STEPS, start.refined + 1
    on_event(RunStarted(corpus.name, corpus.lost_code, corpus.known_code, corpus.stats(), str(problem.device),
                        0, cfg.epochs, 1, problem.demand.value, 0, method))  # fmt: skip

    def on_step(step: int, loss: float) -> None:
        on_event(ChannelStep(0, step, steps, loss, problem.elapsed(), cfg.channel_objective))

    result = empty_result(problem)
    result.decisions = dict(start.state.get("decisions", {}))
    result.decisions.pop("refinement", None)  # how an earlier refinement went is not this one's line
    result.refined = refined
    sure_share, demand = _sure_share(problem, channel, result, blend)
    before, base = problem, problem.demand.value  # a cancelled refinement keeps the run's D
    if demand != problem.demand:  # pairs accepted past D add to it
        problem = problem.with_demand(demand)
        cfg = problem.cfg
        result.demand, result.config = demand.value, cfg
    with problem.timer("train"):
        # A fresh seed per refinement (and per draw): each draws other batches, and repeats exactly.
        training = ChannelTraining.of(cfg, steps, derive(cfg.seed, "channel refinement", refined, draw),
                                      demand=problem.demand.value, sure_share=sure_share)  # fmt: skip
        fit = fit_channel(
            corpus.lost_words, corpus.known_words, problem.lost_charset, problem.known_charset, training,
            on_step=on_step, should_stop=cancel.is_set, start=channel, review=review,
        )  # fmt: skip
    if fit is None:  # cancelled: the run's proposals stay those of the channel it had, its checkpoint too
        return _cancelled(before, start, result, channel, blend)
    kept = {k: v for k, v in start.state.items() if k not in ("channel", "n_cognates", "sign_values", "held_map")}
    save_channel(checkpoint_path, problem, method, fit.channel, refined, {**kept, "demand_base": base})
    if blend is not None:
        with problem.timer("score"):
            fit = blend.mix_fit(fit, problem)
    return finish_channel_result(problem, result, fit, blend)


def _cancelled(problem: Problem, start: Checkpoint, result: DecipherResult, channel: Channel,
               blend: ChannelBlend | None) -> DecipherResult:  # fmt: skip
    """A cancelled refinement's result: the run as it was before it (`problem`: its D), from the
    channel its checkpoint holds (`channel` is put back to it)."""
    result.status = "cancelled"
    result.demand, result.config = problem.demand.value, problem.cfg
    channel.load_state_dict(start.state["channel"])
    corpus = problem.corpus
    with problem.timer("score"):
        fit = score_channel(channel, corpus.lost_words, corpus.known_words, problem.lost_charset,
                            problem.known_charset)  # fmt: skip
        fit = blend.mix_fit(fit, problem) if blend is not None else fit
    return finish_channel_result(problem, result, fit, blend)
