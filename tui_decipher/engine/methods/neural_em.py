"""The paper's method: neural EM (Luo et al. 2019, Algorithm 1), M-step training on the flow and
an E-step min-cost flow, with restarts, checkpoints and reviewer-guided refinement.

`NeuralEM` is the method's face (engine/methods/base.py); the rest is the loop. It reports
progress through the problem's `on_event`, checks its `cancel` between epochs, and returns a
`DecipherResult`. Gold is read only by `Problem.evaluate`, never by training.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..alignment import attention_path
from ..baseline import edit_distance_costs
from ..channels.trainer import fit_best_channel
from ..charset import EOW_ID, SPECIALS, Charset, shared_symbols
from ..checkpoint import Checkpoint, CheckpointError, save_checkpoint
from ..config import DecipherConfig
from ..corpus import Corpus, Word
from ..events import EpochEnd, EventCallback, RestartEnd, RoundEnd, RunStarted, epochs_of_round, ignore
from ..flow import FlowSolution, flow_matrix
from ..neural.edit_distance import expected_edit_distance, ids_to_text, sample_strings
from ..neural.model import DecipherModel, build_model
from ..neural.regularizers import regularizer
from ..neural.scoring import KnownIndex, LostBatch, Scores, score_all_pairs
from ..problem import Problem, RunCancelled
from ..review import ReviewConstraints
from ..seeds import derive
from ..sign_values import SignValues
from .base import DecipherResult, PairScores, Proposal, RoundMetrics, empty_result


@dataclass
class EMContext(Problem):
    """A problem with the EM's run state: where it checkpoints, the best restart so far."""

    checkpoint_path: Path | None = None  # written after every complete round
    best: _RestartState | None = None  # best completed restart so far (by objective)
    restart_objectives: list[float] = field(default_factory=list)
    refined: int = 0  # refinements so far, this one included (0: the run itself)
    # init_flow = "edit-distance": the words' own matching, solved once and shared by all restarts.
    edit_distance_matching: FlowSolution | None = None


def prepare(
    corpus: Corpus,
    cfg: DecipherConfig,
    on_event: EventCallback = ignore,
    cancel: threading.Event | None = None,
    **run_state: Any,
) -> EMContext:
    """Encode the vocabularies once for the whole run (see `Problem.prepare`)."""
    return EMContext.prepare(corpus, cfg, on_event, cancel or threading.Event(), **run_state)


@dataclass
class _RestartState:
    restart: int
    model: DecipherModel
    flow: torch.Tensor  # F (n_lost, n_known): the decayed flow
    sample_gen: torch.Generator | None = None  # draws the expected-edit-distance samples
    rounds: list[RoundMetrics] = field(default_factory=list)
    scores: Scores | None = None  # last E-step scoring
    cost: np.ndarray | None = None  # last E-step cost (n_lost, n_known)
    cost_kind: str = "nll"
    objective: float = float("inf")
    accuracy: float | None = None
    cancelled: bool = False
    kept_weights: dict[str, torch.Tensor] | None = None


def demand_for_round(cfg: DecipherConfig, round_: int, n_cognates: int) -> int:
    """D grows by `demand_step` per round up to N (published schedule); 0 means D = N at once."""
    return n_cognates if cfg.demand_step == 0 else min(n_cognates, cfg.demand_step * round_)


def _new_model(ctx: EMContext) -> DecipherModel:
    """A model sized for the run's charsets, on its device."""
    shared = shared_symbols(ctx.lost_charset, ctx.known_charset)
    return build_model(len(ctx.lost_charset), len(ctx.known_charset), ctx.cfg, shared).to(ctx.device)


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
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
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


def initial_flow(ctx: EMContext, restart: int = 0) -> torch.Tensor:
    """f^(0) (n_lost, n_known): uniform, N / (|X| |Y|) (paper), or the decayed mix
    gamma * uniform + (1 - gamma) * F_0, F_0 the min-cost flow (D = N, capacity C) of a cost that
    needs no model and no gold:

    - `init_flow = "edit-distance"`: the normalised edit distance between the words. Alphabets
      that share no symbol (Linear B and Greek) make every distance 1, an arbitrary matching:
      the flow stays uniform there.
    - `init_flow = "channel"`: -log P(x_i | y_j) under a small character channel trained on the
      lexicon objective (engine/channels/), one per restart (its own seed), across any scripts.
    """
    uniform = ctx.n_cognates / (ctx.n_lost * ctx.n_known)
    flow = torch.full((ctx.n_lost, ctx.n_known), uniform, device=ctx.device)
    matching: FlowSolution | None = None
    # shared_symbols always pairs end-of-word with itself: more than that means a shared letter.
    if ctx.cfg.init_flow == "edit-distance" and len(shared_symbols(ctx.lost_charset, ctx.known_charset)) > 1:
        if ctx.edit_distance_matching is None:
            with ctx.timer("flow"):
                cost = edit_distance_costs(ctx.corpus.lost_words, ctx.corpus.known_words).astype(np.float64)
            ctx.edit_distance_matching = ctx.solve(cost, ctx.n_cognates)
        matching = ctx.edit_distance_matching
    elif ctx.cfg.init_flow == "channel":
        matching = ctx.solve(fit_best_channel(ctx, restart).cost, ctx.n_cognates)
    if matching is not None:
        matched = torch.from_numpy(flow_matrix(matching, ctx.n_lost, ctx.n_known)).to(ctx.device)
        flow = ctx.cfg.flow_decay * flow + (1.0 - ctx.cfg.flow_decay) * matched
    return flow


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
    own = {
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
            method=NeuralEM.name, config=ctx.cfg.to_dict(), corpus=ctx.corpus.name, shape=(ctx.n_lost, ctx.n_known),
            restart=state.restart, round=round_, rounds=own["current"]["rounds"], seconds=ctx.elapsed(),
            phases=dict(ctx.phases), refined=ctx.refined, state=own,
        ),
    )  # fmt: skip


def _run_round(
    ctx: EMContext, state: _RestartState, round_: int, rounds: int, seed: int, sample_gen: torch.Generator
) -> None:
    """One EM round: reset and M-step, score all pairs, E-step flow, decay, evaluate."""
    cfg, model, restart = ctx.cfg, state.model, state.restart
    round_start = ctx.elapsed()
    phase_before = dict(ctx.phases)
    # Periodic reset (paper): every M-step starts from fresh parameters and a fresh optimiser,
    # seeded per round so a round's result does not depend on how earlier rounds used the RNG.
    # Without it (warm start) the M-step continues from the last round's parameters. A refinement
    # never resets: the run has found its map, and a fresh M-step on the judged flow can miss it
    # (docs/experiments.md).
    torch.manual_seed(seed * 1009 + round_)
    if (cfg.reset_each_round and not ctx.refined) or not state.rounds:
        model.reset_parameters()
    with ctx.timer("train"):
        batch_gen = torch.Generator().manual_seed(seed * 7919 + round_)
        loss, nll, reg = m_step(ctx, model, state.flow, restart, round_, batch_gen)
    with ctx.timer("score"):
        scores = score_all_pairs(model, ctx.lost, ctx.known, cfg.score_chunk)
    state.objective = objective(ctx, scores, state.flow)
    kept_previous = False
    if cfg.keep_better_model and state.kept_weights is not None and state.scores is not None:
        # A fresh M-step sometimes stalls on the plateau before the character map is found; EM
        # must not go backwards, so the previous round's model (whose scores the state still
        # holds) is kept when it explains the current flow better than the new one.
        previous_objective = objective(ctx, state.scores, state.flow)
        if previous_objective < state.objective:
            model.load_state_dict(state.kept_weights)
            scores, state.objective, kept_previous = state.scores, previous_objective, True
    demand = demand_for_round(cfg, round_, ctx.n_cognates)
    kind = "nll" if round_ <= cfg.warmup_rounds else "eed"
    flow_cost, achieved, cost = 0.0, 0, None
    if cfg.use_flow:
        cost = flow_costs(ctx, scores, kind, sample_gen)
        solution = ctx.solve(cost, demand)
        new_flow = torch.from_numpy(flow_matrix(solution, ctx.n_lost, ctx.n_known)).to(ctx.device)
        state.flow = cfg.flow_decay * state.flow + (1.0 - cfg.flow_decay) * new_flow
        if ctx.review is not None:
            state.flow = ctx.review.apply_to_flow(state.flow)
        flow_cost, achieved = solution.cost, solution.flow
    acc, acc_model, _ = ctx.evaluate(scores.log_prob, cost)
    state.scores, state.cost, state.cost_kind, state.accuracy = scores, cost, kind, acc
    phase = {k: ctx.phases[k] - phase_before.get(k, 0.0) for k in ctx.phases}
    metrics = RoundMetrics(
        round_,
        demand,
        kind,
        loss,
        nll,
        reg,
        flow_cost,
        achieved,
        acc,
        acc_model,
        ctx.elapsed() - round_start,
        phase,
        kept_previous,
    )
    state.rounds.append(metrics)
    # Keep the weights of the last complete round: a cancel mid-M-step must not leak a half-trained model.
    state.kept_weights = {k: v.detach().clone() for k, v in model.state_dict().items()}
    write_checkpoint(ctx, state, round_)
    ctx.on_event(
        RoundEnd(
            restart,
            round_,
            rounds,
            demand,
            kind,
            loss,
            flow_cost,
            achieved,
            acc,
            acc_model,
            ctx.elapsed(),
            phase,
            kept_previous,
        )
    )


def character_map(ctx: EMContext, model: DecipherModel, top: int = 5) -> dict[str, list[tuple[str, float]]]:
    """Lost symbol -> its top known symbols with probabilities, from soft alignments.

    Each decoding step's output distribution p_t(c) is credited to the lost positions it attends
    to (alpha_t), weighted by the chance the word has not yet ended; counts are summed over the
    lost vocabulary and normalised per lost symbol.
    """
    n_lost_chars, n_known_chars = len(ctx.lost_charset), len(ctx.known_charset)
    counts = torch.zeros(n_lost_chars, n_known_chars)
    model.eval()
    with torch.no_grad():
        for start in range(0, len(ctx.lost), ctx.cfg.score_chunk):
            part = ctx.lost.slice(start, start + ctx.cfg.score_chunk)
            dec = model(part.ids, part.lengths, ctx.known.steps)
            probs = dec.log_probs.exp().cpu()  # (n, T, C)
            ended = torch.cumprod(1.0 - probs[:, :, EOW_ID], dim=1)
            alive = torch.cat([torch.ones_like(ended[:, :1]), ended[:, :-1]], dim=1)  # (n, T)
            onehot = torch.nn.functional.one_hot(part.ids.cpu(), n_lost_chars).float()  # (n, L, n_x)
            align = dec.attention.cpu() @ onehot  # (n, T, n_x)
            counts += torch.einsum("ntx,ntc->xc", align * alive[:, :, None], probs)
    counts[:, : len(SPECIALS)] = 0.0  # keep real known symbols only
    result: dict[str, list[tuple[str, float]]] = {}
    for x in range(len(SPECIALS), n_lost_chars):
        row = counts[x]
        total = float(row.sum())
        if total <= 0:
            continue
        probs_row = row / total
        values, idx = probs_row.topk(min(top, ctx.known_charset.n_real))
        result[ctx.lost_charset.symbols[x]] = [
            (ctx.known_charset.symbols[int(j)], float(v)) for v, j in zip(values, idx, strict=True)
        ]
    return result


def proposals(ctx: EMContext, state: _RestartState, n_alternatives: int = 5) -> list[Proposal]:
    """The final flow with D = N: one proposed known word per covered lost word, best first.

    Each proposal carries the model's top alternative known words and its attention grid, so a
    front end can explain it without the model.
    """
    if state.scores is None:
        return []
    cost = state.cost if state.cost is not None else (-state.scores.log_prob).numpy().astype(np.float64)
    solution = ctx.solve(cost, ctx.n_cognates)
    log_prob = state.scores.log_prob  # (n_lost, n_known)
    known_len = ctx.known.lengths.cpu()  # incl. EOW

    def per_symbol(i: int, j: int) -> float:
        return float(log_prob[i, j].double() / int(known_len[j]))

    # Rank alternatives in the table's own precision; only the reported scores are computed in double.
    _, top_known = (log_prob / known_len[None, :]).topk(min(n_alternatives, ctx.n_known), dim=1)  # (n_lost, k)
    pairs = list(zip(solution.lost.tolist(), solution.known.tolist(), strict=True))
    grids = _attention_grids(ctx, state.model, pairs)
    out = []
    for (i, j), grid in zip(pairs, grids, strict=True):
        gold = (j in ctx.corpus.gold.get(i, ())) if ctx.corpus.has_gold else None
        alternatives = [(k, math.exp(per_symbol(i, k))) for k in top_known[i].tolist()]
        reading = attention_path(ctx.corpus.lost_words[i], ctx.corpus.known_words[j], grid)
        out.append(Proposal(i, j, math.exp(per_symbol(i, j)), float(cost[i, j]), gold, alternatives, grid, reading))
    out.sort(key=lambda p: (-p.score, p.lost))
    return out


@torch.no_grad()
def _attention_grids(ctx: EMContext, model: DecipherModel, pairs: list[tuple[int, int]]) -> list[list[list[float]]]:
    """alpha for each (lost, known) pair, cut to (|y| + 1, |x| + 1) and rounded for storage."""
    was_training = model.training
    model.eval()
    lengths = ctx.known.lengths.tolist()
    out: list[list[list[float]]] = []
    chunk = ctx.cfg.score_chunk
    for start in range(0, len(pairs), chunk):
        part = pairs[start : start + chunk]
        rows = torch.tensor([i for i, _ in part], dtype=torch.long, device=ctx.lost.ids.device)
        ids, lost_len = ctx.lost.ids[rows], ctx.lost.lengths[rows]
        ids = ids[:, : int(lost_len.max())]
        attention = model(ids, lost_len, ctx.known.steps).attention.cpu()  # (n, T, L)
        for n, (_, j) in enumerate(part):
            grid = attention[n, : lengths[j], : int(lost_len[n])]
            out.append([[round(float(v), 4) for v in row] for row in grid])
    model.train(was_training)
    return out


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
    on_event(
        RunStarted(
            corpus.name,
            corpus.lost_code,
            corpus.known_code,
            corpus.stats(),
            str(ctx.device),
            rounds,
            cfg.epochs,
            cfg.restarts,
            ctx.n_cognates,
            epochs_for_round(cfg, 1),
            NeuralEM.name,
        )
    )
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
            result.accuracy, result.accuracy_model, result.predictions = ctx.evaluate(best.scores.log_prob, best.cost)
            result.n_evaluated = corpus.n_gold_lost
            if not cfg.use_flow:
                result.accuracy = result.accuracy_model
    result.refined = ctx.refined
    return ctx.finish(result)


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
    # The kept restart: the best completed one, or the current one if it is better (or alone).
    snaps = [s for s in (own["best"], own["current"]) if s is not None and s["rounds"]]
    if not snaps:
        raise CheckpointError("the checkpoint has no complete round to refine")
    snap = min(snaps, key=lambda s: s["objective"])
    restart = snap["restart"]
    seed = derive(cfg.seed, "neural rounds", restart, draw)  # the rounds' dropout and batches, per draw
    state = _RestartState(restart, _new_model(ctx), torch.zeros(0, device=ctx.device))
    _restore_restart(ctx, state, snap)
    if not state.flow.numel():
        if snap is own["current"]:
            state.flow = own["flow"].to(ctx.device)
        else:  # a checkpoint from before flows were kept per restart: start from its last solve
            cost = state.cost if state.cost is not None else (-state.scores.log_prob).numpy().astype(np.float64)
            solution = ctx.solve(cost, ctx.n_cognates)
            state.flow = torch.from_numpy(flow_matrix(solution, ctx.n_lost, ctx.n_known)).to(ctx.device)
    state.flow = review.apply_to_flow(state.flow)
    last = state.rounds[-1].round
    # A fresh, seeded sampling generator per refinement keeps refinements reproducible.
    state.sample_gen = torch.Generator().manual_seed(derive(cfg.seed, "neural samples", restart, draw, ctx.refined))
    total = last + rounds
    on_event(
        RunStarted(
            corpus.name,
            corpus.lost_code,
            corpus.known_code,
            corpus.stats(),
            str(ctx.device),
            total,
            cfg.epochs,
            1,
            ctx.n_cognates,
            epochs_for_round(cfg, 1),
            NeuralEM.name,
        )
    )
    result = empty_result(ctx)
    try:
        for round_ in range(last + 1, total + 1):
            _run_round(ctx, state, round_, total, seed, state.sample_gen)
    except RunCancelled:
        result.status = "cancelled"  # the completed refinement rounds are kept
    ctx.best = state
    return _conclude(ctx, result)


@dataclass
class NeuralFitted:
    """The kept model of a neural EM run, and how its last round turned scores into flow costs."""

    model: DecipherModel
    cfg: DecipherConfig
    cost_kind: str  # the final round's flow cost: "nll" or "eed"

    def sizes(self) -> tuple[int, int]:
        return self.model.lost_weight.shape[0], self.model.known_weight.shape[0]

    def pair_scores(
        self,
        lost_words: list[Word],
        known_words: list[Word],
        lost_charset: Charset,
        known_charset: Charset,
        generator: torch.Generator | None = None,
    ) -> PairScores:
        """Score every pair as the final round would: -log P, or the expected edit distance
        (samples from `generator`, default seeded from the run's seed). Memory: the (n_lost,
        n_known) float32 table, twice for the expected edit distance."""
        cfg, phases = self.cfg, {"score": 0.0}
        device = next(self.model.parameters()).device
        known = KnownIndex(known_words, known_charset, device)
        t0 = time.perf_counter()
        scores = score_all_pairs(self.model, LostBatch.encode(lost_words, lost_charset, device), known, cfg.score_chunk)
        phases["score"] = time.perf_counter() - t0
        if not cfg.use_flow:  # the "-flow" ablation: the model's argmax is the answer
            return PairScores(scores.log_prob, self.cost_kind, use_flow=False, phase_seconds=phases)
        if self.cost_kind != "eed":
            return PairScores(scores.log_prob, self.cost_kind, phase_seconds=phases)
        t0 = time.perf_counter()
        if generator is None:
            generator = torch.Generator().manual_seed(derive(cfg.seed, "neural samples"))
        known_texts = [ids_to_text(ids[:-1]) for ids in known.ids]
        cost = eed_cost(cfg, scores, known_texts, generator).numpy()
        phases["eed"] = time.perf_counter() - t0
        return PairScores(scores.log_prob, self.cost_kind, cost, phase_seconds=phases)


class NeuralEM:
    """The paper's neural EM (engine/methods/base.py's Method)."""

    name = "neural"
    summary = "the paper's neural EM, as its presets run it"
    keeps_rounds = True
    decides_demand = False
    refines_with_signs = False

    def settings_error(self, cfg: DecipherConfig) -> str | None:
        if cfg.known_signs and cfg.init_flow != "channel":
            return (
                "known_signs constrain a character channel: use method auto or channel, "
                "or the neural EM with init_flow = channel"
            )
        return None

    def check_known_signs(self, signs: SignValues, cfg: DecipherConfig) -> None:
        signs.check_channel(cfg.channel_kind)  # the channel of its first flow (init_flow = channel)

    def quick_changes(self, cfg: DecipherConfig, channel_steps: int) -> dict[str, Any]:
        return {"channel_steps": min(cfg.channel_steps, channel_steps)} if cfg.init_flow == "channel" else {}

    def fit(
        self,
        corpus: Corpus,
        cfg: DecipherConfig,
        on_event: EventCallback,
        cancel: threading.Event,
        checkpoint_path: Path | None = None,
        start: Checkpoint | None = None,
        review: ReviewConstraints | None = None,
    ) -> DecipherResult:
        return _fit(corpus, cfg, on_event, cancel, checkpoint_path, start, review)

    def refine(
        self,
        corpus: Corpus,
        start: Checkpoint,
        constraints: ReviewConstraints,
        rounds: int,
        on_event: EventCallback,
        cancel: threading.Event,
        checkpoint_path: Path | None = None,
        draw: int = 0,
        signs: SignValues | None = None,
    ) -> DecipherResult:
        if signs:  # its M-step trains a seq2seq model, which no sign value can hold
            raise ValueError(
                "pinned sign values hold a character channel: refine an auto or channel run with them "
                "(a neural run takes known signs only from its start, with init_flow = channel)"
            )
        return _refine(corpus, start, constraints, rounds, on_event, cancel, checkpoint_path, draw)

    def check(self, corpus: Corpus, cfg: DecipherConfig) -> None:
        """Any corpus the readers accept can run (`Method.check`)."""

    def describe(self, config: dict[str, Any]) -> str:
        return (
            f"{config.get('rounds')} rounds x {config.get('epochs')} steps"
            + (f" (round 1: {config['first_epochs']})" if config.get("first_epochs") else "")
            + f", d={config.get('embed_dim')}, C={config.get('capacity')}, gamma={config.get('flow_decay')}"
        )

    def char_map_source(self, config: dict[str, Any]) -> str:
        return "the attention of the final model"
