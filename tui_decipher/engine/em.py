"""The EM loop of Luo et al. (2019), Algorithm 1: M-step training on the flow, E-step flow solve.

`run_decipherment(corpus, cfg, on_event, cancel)` is the engine's one entry point for front ends.
It reports progress through `on_event`, checks `cancel` (a threading.Event) between epochs, and
returns a `DecipherResult`. Gold is read only by `evaluation` (accuracy figures), never by training.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from . import evaluation
from .baseline import edit_distance_costs
from .channels.protocol import Channel
from .channels.trainer import ChannelFit, fit_channel
from .charset import EOW_ID, SPECIALS, Charset, shared_symbols
from .checkpoint import CheckpointError, checkpoint_config, save_checkpoint
from .config import DecipherConfig
from .corpus import Corpus
from .device import flush_denormals, make_repeatable, select_device
from .events import (
    ChannelStep,
    EpochEnd,
    EventCallback,
    RestartEnd,
    RoundEnd,
    RunFinished,
    RunStarted,
    epochs_of_round,
    ignore,
)
from .flow import FlowSolution, flow_matrix, solve_sparsified
from .neural.edit_distance import expected_edit_distance, ids_to_text, sample_strings
from .neural.model import DecipherModel, build_model
from .neural.regularizers import regularizer
from .neural.scoring import KnownIndex, LostBatch, Scores, score_all_pairs
from .review import ReviewConstraints


class RunCancelled(Exception):
    """Raised inside the loop when the cancel event is set; caught by `run_decipherment`."""


@dataclass
class RoundMetrics:
    round: int
    demand: int
    cost_kind: str
    loss: float
    nll: float
    reg: float
    flow_cost: float
    flow: int
    accuracy: float | None
    accuracy_model: float | None
    seconds: float
    phase_seconds: dict[str, float]
    kept_previous: bool = False  # the new M-step explained the flow worse; the last model was kept


@dataclass
class Proposal:
    """A proposed cognate pair: indices into the corpus vocabularies."""

    lost: int
    known: int
    score: float  # model confidence: exp(mean per-symbol log P(known | lost)), in (0, 1]
    cost: float  # flow cost of the pair (lower is better)
    gold: bool | None  # whether it is a gold pair; None without gold
    # The model's best known words for this lost word, (known index, score), best first.
    alternatives: list[tuple[int, float]] = field(default_factory=list)
    # Soft alignment alpha for this pair: one row per known symbol (and EOW), one column per
    # lost symbol (and EOW): (|y| + 1, |x| + 1), rows sum to 1.
    attention: list[list[float]] = field(default_factory=list)


@dataclass
class DecipherResult:
    config: DecipherConfig
    corpus_name: str
    lost_code: str
    known_code: str
    n_cognates: int
    status: str  # "finished" | "cancelled"
    device: str
    proposals: list[Proposal] = field(default_factory=list)
    char_map: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    rounds: list[RoundMetrics] = field(default_factory=list)
    accuracy: float | None = None
    accuracy_model: float | None = None
    n_evaluated: int = 0
    seconds: float = 0.0
    objective: float | None = None
    restart: int = 0
    restart_objectives: list[float] = field(default_factory=list)
    phase_seconds: dict[str, float] = field(default_factory=dict)
    model: DecipherModel | None = None  # the kept model (for scoring other corpora)
    channel: Channel | None = None  # method = "channel": the trained channel (likewise)
    # Flow-mode prediction per lost word (known index, -1 = none), from the evaluation flow: (n_lost,)
    predictions: np.ndarray | None = None
    refined: int = 0  # how many refinements (reviewer-guided continuations) this result has had


@dataclass
class _Context:
    """Everything fixed for a run: encoded vocabularies, sizes, callbacks."""

    corpus: Corpus
    cfg: DecipherConfig
    device: torch.device
    lost_charset: Charset
    known_charset: Charset
    lost: LostBatch
    known: KnownIndex
    known_texts: list[str]
    n_cognates: int
    on_event: EventCallback
    cancel: threading.Event
    started: float
    phases: dict[str, float]
    checkpoint_path: Path | None = None  # written after every complete round
    best: _RestartState | None = None  # best completed restart so far (by objective)
    restart_objectives: list[float] = field(default_factory=list)
    review: ReviewConstraints | None = None  # reviewer judgments imposed on every flow (refinement)
    refined: int = 0
    # init_flow = "edit-distance": the words' own matching, solved once and shared by all restarts.
    edit_distance_matching: FlowSolution | None = None

    @property
    def n_lost(self) -> int:
        return len(self.corpus.lost_words)

    @property
    def n_known(self) -> int:
        return len(self.corpus.known_words)

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


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


class _Timer:
    def __init__(self, phases: dict[str, float], name: str) -> None:
        self.phases, self.name = phases, name

    def __enter__(self) -> None:
        self.t0 = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.phases[self.name] += time.perf_counter() - self.t0


def n_cognates_for(cfg: DecipherConfig, n_lost: int, n_known: int) -> int:
    """N: how many cognate pairs the flow should find (a prior, never read from gold)."""
    return max(1, min(n_lost, cfg.capacity * n_known, round(cfg.cognate_fraction * n_lost)))


def demand_for_round(cfg: DecipherConfig, round_: int, n_cognates: int) -> int:
    """D grows by `demand_step` per round up to N (published schedule); 0 means D = N at once."""
    return n_cognates if cfg.demand_step == 0 else min(n_cognates, cfg.demand_step * round_)


def _new_model(ctx: _Context) -> DecipherModel:
    """A model sized for the run's charsets, on its device."""
    shared = shared_symbols(ctx.lost_charset, ctx.known_charset)
    return build_model(len(ctx.lost_charset), len(ctx.known_charset), ctx.cfg, shared).to(ctx.device)


def epochs_for_round(cfg: DecipherConfig, round_: int) -> int:
    """M-step steps of a round: `first_epochs` for round 1 when set (learning the character map
    from the uniform flow is the slow part), `epochs` afterwards."""
    return epochs_of_round(cfg.first_epochs, cfg.epochs, round_)


def m_step(
    ctx: _Context, model: DecipherModel, flow: torch.Tensor, restart: int, round_: int,
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
        ctx.on_event(
            EpochEnd(restart, round_, epoch, epochs, loss.item(), nll.item(), reg.item(), ctx.elapsed())
        )
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
    where a known word teaches something only if its cognate is in the batch. Measured on
    ugaritic-small: 1000 steps of 184-word batches ended round 1 at 0.0 model accuracy, where
    250 full steps find the map. Later flows are concentrated, and a batch trains on its pairs.
    """
    if cfg.lost_batch == 0 or round_ == 1:
        return n_lost
    return min(cfg.lost_batch, n_lost)


def flow_costs(ctx: _Context, scores: Scores, kind: str, generator: torch.Generator) -> np.ndarray:
    """Pair costs (n_lost, n_known): -log P in warm-up, the expected edit distance afterwards."""
    if kind == "nll":
        return (-scores.log_prob).numpy().astype(np.float64)
    with _Timer(ctx.phases, "eed"):
        texts, sample_lp = sample_strings(
            scores.step_log_probs, ctx.cfg.eed_samples, ctx.cfg.eed_sharpen, generator,
            score_sharpened=ctx.cfg.eed_sample_weights == "sharpened",
        )
        cost = expected_edit_distance(scores.log_prob, texts, sample_lp, ctx.known_texts)
    return cost.numpy().astype(np.float64)


def solve(ctx: _Context, cost: np.ndarray, demand: int, rows: np.ndarray | None = None) -> FlowSolution:
    """Sparsify the cost matrix (n_rows, n_known) and solve the min-cost flow for demand D.

    `rows` names the lost words of a row subset (evaluation), so that reviewer judgments, when a
    run has them, land on the right rows: rejected pairs leave the graph, accepted ones are forced.
    """
    with _Timer(ctx.phases, "flow"):
        forced = None
        if ctx.review is not None and len(ctx.review):
            cost = ctx.review.mask_rejected(cost, rows)
            forced = ctx.review.forced_edges(cost, demand, ctx.cfg.capacity, rows)
        return solve_sparsified(cost, demand, ctx.cfg.capacity, ctx.cfg.top_k, ctx.cfg.sparsify, forced)


def flow_predictions(ctx: _Context, cost: np.ndarray) -> np.ndarray:
    """The evaluation flow's known word per lost word (-1 = none): (n_lost,).

    As in the published evaluation, the flow is solved afresh over the evaluated lost words only
    (those with a gold cognate) with D = their number and capacity C, so each gets a prediction.
    """
    rows = np.asarray(evaluation.evaluated_lost(ctx.corpus.gold), dtype=np.int64)
    solution = solve(ctx, cost[rows], len(rows), rows)
    predictions = np.full(ctx.n_lost, -1, dtype=np.int64)
    predictions[rows] = evaluation.flow_predictions(solution, len(rows))
    return predictions


def evaluate(
    ctx: _Context, log_prob: torch.Tensor, cost: np.ndarray | None
) -> tuple[float | None, float | None, np.ndarray | None]:
    """(flow accuracy, model-argmax accuracy, flow predictions), Nones without gold or without a
    cost (see `flow_predictions`); log_prob (n_lost, n_known) is the model's (or the channel's)
    score, whose argmax is the model prediction."""
    gold = ctx.corpus.gold
    if not ctx.corpus.has_gold:
        return None, None, None
    with _Timer(ctx.phases, "eval"):
        acc_model, _, _ = evaluation.accuracy(evaluation.model_predictions(log_prob), gold)
        acc_flow = predictions = None
        if cost is not None:
            predictions = flow_predictions(ctx, cost)
            acc_flow, _, _ = evaluation.accuracy(predictions, gold)
    return acc_flow, acc_model, predictions


def objective(ctx: _Context, scores: Scores, flow: torch.Tensor) -> float:
    """Training objective of a finished restart (eval mode): the flow-weighted NLL. Chooses restarts."""
    flow = flow.cpu()
    w = flow.sum(0)
    active = w > 0
    ll = torch.logsumexp(flow[:, active].log() + scores.log_prob[:, active], dim=0)
    return float(-(w[active] * ll).sum() / w[active].sum())


def initial_flow(ctx: _Context, restart: int = 0) -> torch.Tensor:
    """f^(0) (n_lost, n_known): uniform, N / (|X| |Y|) (paper), or the decayed mix
    gamma * uniform + (1 - gamma) * F_0, F_0 the min-cost flow (D = N, capacity C) of a cost that
    needs no model and no gold:

    - `init_flow = "edit-distance"`: the normalised edit distance between the words. Alphabets
      that share no symbol (Linear B and Greek) make every distance 1, an arbitrary matching:
      the flow stays uniform there.
    - `init_flow = "channel"`: -log P(x_i | y_j) under a small character channel trained on the
      lexicon objective (engine/channel.py), one per restart (its own seed), across any scripts.
    """
    uniform = ctx.n_cognates / (ctx.n_lost * ctx.n_known)
    flow = torch.full((ctx.n_lost, ctx.n_known), uniform, device=ctx.device)
    matching: FlowSolution | None = None
    # shared_symbols always pairs end-of-word with itself: more than that means a shared letter.
    if ctx.cfg.init_flow == "edit-distance" and len(shared_symbols(ctx.lost_charset, ctx.known_charset)) > 1:
        if ctx.edit_distance_matching is None:
            with _Timer(ctx.phases, "flow"):
                cost = edit_distance_costs(ctx.corpus.lost_words, ctx.corpus.known_words).astype(np.float64)
            ctx.edit_distance_matching = solve(ctx, cost, ctx.n_cognates)
        matching = ctx.edit_distance_matching
    elif ctx.cfg.init_flow == "channel":
        matching = solve(ctx, _fit_channel(ctx, restart).cost, ctx.n_cognates)
    if matching is not None:
        matched = torch.from_numpy(flow_matrix(matching, ctx.n_lost, ctx.n_known)).to(ctx.device)
        flow = ctx.cfg.flow_decay * flow + (1.0 - ctx.cfg.flow_decay) * matched
    return flow


def _fit_channel(ctx: _Context, restart: int) -> ChannelFit:
    """Train the restart's character channels (`channel_restarts` of them, reporting ChannelStep
    events) and return the one with the lowest lexicon loss, with its costs -log P(x_i | y_j)
    (n_lost, n_known). Raises RunCancelled when the cancel flag is set."""
    cfg = ctx.cfg
    total = cfg.channel_steps * cfg.channel_restarts
    best = None
    for attempt in range(cfg.channel_restarts):
        done = attempt * cfg.channel_steps

        def on_step(step: int, loss: float, done: int = done) -> None:
            ctx.on_event(ChannelStep(restart, done + step, total, loss, ctx.elapsed(), cfg.channel_objective))

        with _Timer(ctx.phases, "train"):
            fit = fit_channel(
                ctx.corpus.lost_words, ctx.corpus.known_words, ctx.lost_charset, ctx.known_charset,
                cfg.channel_steps, cfg.channel_lr, cfg.channel_batch, cfg.seed + 1000 * restart + 11 + 101 * attempt,
                cfg.channel_init_scale,
                on_step=on_step, should_stop=ctx.cancel.is_set,
                objective=cfg.channel_objective, n_cognates=ctx.n_cognates, capacity=cfg.capacity,
                kind=cfg.channel_kind, copy_bias=cfg.channel_copy_bias,
            )  # fmt: skip
        if fit is None:
            raise RunCancelled()
        if best is None or fit.loss < best.loss:
            best = fit
    return best


def _channel_result(ctx: _Context, result: DecipherResult) -> DecipherResult:
    """`method = "channel"`: decipher with the character channel alone (beyond the paper). Its
    costs -log P(x_i | y_j) give the proposals (final flow, D = N) and the evaluation flow; its
    argmax is the "model" accuracy; its parameters give the character map. No rounds and no
    checkpoint: a cancel keeps only the status."""
    try:
        fit = _fit_channel(ctx, 0)
    except RunCancelled:
        result.status = "cancelled"
        return _finish(ctx, result)
    cost = fit.cost  # (n_lost, n_known)
    result.objective = fit.loss
    result.restart_objectives = [fit.loss]
    lost_len = np.array([len(w) for w in ctx.corpus.lost_words], dtype=np.float64)[:, None]  # (n_lost, 1)
    per_symbol = np.exp(-cost / lost_len)  # P(x | y) ** (1 / |x|): (n_lost, n_known)
    solution = solve(ctx, cost, ctx.n_cognates)
    top_known = np.argsort(cost, axis=1, kind="stable")[:, : min(5, ctx.n_known)]  # (n_lost, 5)
    gold = ctx.corpus.gold
    for i, j in zip(solution.lost.tolist(), solution.known.tolist(), strict=True):
        result.proposals.append(
            Proposal(
                i, j, float(per_symbol[i, j]), float(cost[i, j]),
                (j in gold.get(i, ())) if ctx.corpus.has_gold else None,
                [(int(k), float(per_symbol[i, k])) for k in top_known[i]],
            )
        )  # fmt: skip
    result.proposals.sort(key=lambda p: (-p.score, p.lost))
    result.channel = fit.channel
    result.char_map = fit.channel.character_map(ctx.corpus.known_words, ctx.lost_charset, ctx.known_charset)
    if ctx.corpus.has_gold:
        result.accuracy, result.accuracy_model, result.predictions = evaluate(ctx, torch.from_numpy(-cost), cost)
        result.n_evaluated = ctx.corpus.n_gold_lost
    ctx.on_event(RestartEnd(0, fit.loss, result.accuracy))
    return _finish(ctx, result)


def run_restart(ctx: _Context, restart: int, resume: dict | None = None) -> _RestartState:
    """One EM run from a fresh initialisation (seeded by config seed and restart index), or from
    the checkpoint of a round of this restart when `resume` is given."""
    cfg = ctx.cfg
    seed = cfg.seed + 1000 * restart
    torch.manual_seed(seed)
    model = _new_model(ctx)
    # A resumed restart continues from its saved flow: no initial flow to build.
    state = _RestartState(restart, model, resume["flow"].to(ctx.device) if resume is not None else torch.zeros(0))
    state.sample_gen = torch.Generator().manual_seed(seed + 7)
    first_round = 1
    if resume is not None:
        _restore_restart(ctx, state, resume["current"])
        state.flow = resume["flow"].to(ctx.device)  # the decayed flow, not the snapshot's
        state.sample_gen.set_state(resume["sample_gen"])
        first_round = resume["round"] + 1
    rounds = cfg.rounds if cfg.use_flow else 1
    try:
        if resume is None:
            state.flow = initial_flow(ctx, restart)
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


def _restore_restart(ctx: _Context, state: _RestartState, snap: dict) -> None:
    """Load a snapshot into a restart state; the scores are recomputed from the kept weights."""
    state.kept_weights = {k: v.to(ctx.device) for k, v in snap["weights"].items()}
    state.model.load_state_dict(state.kept_weights)
    state.rounds = [RoundMetrics(**m) for m in snap["rounds"]]
    state.cost, state.cost_kind = snap["cost"], snap["cost_kind"]
    state.objective, state.accuracy = snap["objective"], snap["accuracy"]
    if snap.get("flow") is not None and snap["flow"].numel():
        state.flow = snap["flow"].to(ctx.device)
    with _Timer(ctx.phases, "score"):
        state.scores = score_all_pairs(state.model, ctx.lost, ctx.known, ctx.cfg.score_chunk)


def write_checkpoint(ctx: _Context, state: _RestartState, round_: int) -> None:
    """Save the run after a complete round (atomically), if the run has a checkpoint path."""
    if ctx.checkpoint_path is None:
        return
    save_checkpoint(
        ctx.checkpoint_path,
        {
            "config": ctx.cfg.to_dict(),
            "corpus": ctx.corpus.name,
            "shape": (ctx.n_lost, ctx.n_known),
            "restart": state.restart,
            "round": round_,
            "flow": state.flow.cpu(),
            "sample_gen": state.sample_gen.get_state(),
            "current": _snapshot(state),
            "best": None if ctx.best is None else _snapshot(ctx.best),
            "restart_objectives": list(ctx.restart_objectives),
            "phases": dict(ctx.phases),
            "seconds": ctx.elapsed(),
            "refined": ctx.refined,
        },
    )


def _run_round(
    ctx: _Context, state: _RestartState, round_: int, rounds: int, seed: int, sample_gen: torch.Generator
) -> None:
    """One EM round: reset and M-step, score all pairs, E-step flow, decay, evaluate."""
    cfg, model, restart = ctx.cfg, state.model, state.restart
    round_start = ctx.elapsed()
    phase_before = dict(ctx.phases)
    # Periodic reset (paper): every M-step starts from fresh parameters and a fresh optimiser,
    # seeded per round so a round's result does not depend on how earlier rounds used the RNG.
    # Without it (warm start) the M-step continues from the last round's parameters.
    torch.manual_seed(seed * 1009 + round_)
    if cfg.reset_each_round or not state.rounds:
        model.reset_parameters()
    with _Timer(ctx.phases, "train"):
        batch_gen = torch.Generator().manual_seed(seed * 7919 + round_)
        loss, nll, reg = m_step(ctx, model, state.flow, restart, round_, batch_gen)
    with _Timer(ctx.phases, "score"):
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
        solution = solve(ctx, cost, demand)
        new_flow = torch.from_numpy(flow_matrix(solution, ctx.n_lost, ctx.n_known)).to(ctx.device)
        state.flow = cfg.flow_decay * state.flow + (1.0 - cfg.flow_decay) * new_flow
        if ctx.review is not None:
            state.flow = ctx.review.apply_to_flow(state.flow)
        flow_cost, achieved = solution.cost, solution.flow
    acc, acc_model, _ = evaluate(ctx, scores.log_prob, cost)
    state.scores, state.cost, state.cost_kind, state.accuracy = scores, cost, kind, acc
    phase = {k: ctx.phases[k] - phase_before.get(k, 0.0) for k in ctx.phases}
    metrics = RoundMetrics(
        round_, demand, kind, loss, nll, reg, flow_cost, achieved, acc, acc_model,
        ctx.elapsed() - round_start, phase, kept_previous,
    )
    state.rounds.append(metrics)
    # Keep the weights of the last complete round: a cancel mid-M-step must not leak a half-trained model.
    state.kept_weights = {k: v.detach().clone() for k, v in model.state_dict().items()}
    write_checkpoint(ctx, state, round_)
    ctx.on_event(
        RoundEnd(
            restart, round_, rounds, demand, kind, loss, flow_cost, achieved, acc, acc_model,
            ctx.elapsed(), phase, kept_previous,
        )
    )


def character_map(ctx: _Context, model: DecipherModel, top: int = 5) -> dict[str, list[tuple[str, float]]]:
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


def proposals(ctx: _Context, state: _RestartState, n_alternatives: int = 5) -> list[Proposal]:
    """The final flow with D = N: one proposed known word per covered lost word, best first.

    Each proposal carries the model's top alternative known words and its attention grid, so a
    front end can explain it without the model.
    """
    if state.scores is None:
        return []
    cost = state.cost if state.cost is not None else (-state.scores.log_prob).numpy().astype(np.float64)
    solution = solve(ctx, cost, ctx.n_cognates)
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
        out.append(Proposal(i, j, math.exp(per_symbol(i, j)), float(cost[i, j]), gold, alternatives, grid))
    out.sort(key=lambda p: (-p.score, p.lost))
    return out


@torch.no_grad()
def _attention_grids(ctx: _Context, model: DecipherModel, pairs: list[tuple[int, int]]) -> list[list[list[float]]]:
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


def prepare(corpus: Corpus, cfg: DecipherConfig, on_event: EventCallback, cancel: threading.Event) -> _Context:
    """Encode the vocabularies once for the whole run."""
    device = select_device(cfg.device)
    make_repeatable(device)
    flush_denormals(device)
    lost_cs = Charset.from_words(corpus.lost_words)
    known_cs = Charset.from_words(corpus.known_words)
    known = KnownIndex(corpus.known_words, known_cs, device)
    return _Context(
        corpus=corpus,
        cfg=cfg,
        device=device,
        lost_charset=lost_cs,
        known_charset=known_cs,
        lost=LostBatch.encode(corpus.lost_words, lost_cs, device),
        known=known,
        known_texts=[ids_to_text(ids[:-1]) for ids in known.ids],
        n_cognates=n_cognates_for(cfg, len(corpus.lost_words), len(corpus.known_words)),
        on_event=on_event,
        cancel=cancel,
        started=time.perf_counter(),
        phases=defaultdict(float),
    )


def run_decipherment(
    corpus: Corpus,
    cfg: DecipherConfig,
    on_event: EventCallback = ignore,
    cancel: threading.Event | None = None,
    checkpoint: str | Path | None = None,
    resume: dict | None = None,
) -> DecipherResult:
    """Run EM (with restarts) on a corpus; the engine's entry point for the CLI and the TUI.

    With `checkpoint`, the run is saved there after every complete round; `resume` (a loaded
    checkpoint of the same config and corpus) continues from its last round and reaches the
    same result as an uninterrupted run.
    """
    cfg.validate()
    ctx = prepare(corpus, cfg, on_event, cancel or threading.Event())
    ctx.checkpoint_path = Path(checkpoint) if checkpoint is not None else None
    if resume is not None:
        _check_resumable(resume, ctx)
        ctx.phases.update(resume["phases"])
        ctx.started -= resume["seconds"]  # elapsed time includes the interrupted part
        ctx.restart_objectives = list(resume["restart_objectives"])
        if resume["best"] is not None:
            best_snap = resume["best"]
            model = _new_model(ctx)
            ctx.best = _RestartState(best_snap["restart"], model, torch.zeros(0))
            _restore_restart(ctx, ctx.best, best_snap)
    channel_only = cfg.method == "channel"
    rounds = 0 if channel_only else cfg.rounds if cfg.use_flow else 1
    on_event(
        RunStarted(
            corpus.name, corpus.lost_code, corpus.known_code, corpus.stats(), str(ctx.device),
            rounds, cfg.epochs, 1 if channel_only else cfg.restarts, ctx.n_cognates,
            epochs_for_round(cfg, 1), cfg.method,
        )
    )
    result = DecipherResult(
        config=cfg,
        corpus_name=corpus.name,
        lost_code=corpus.lost_code,
        known_code=corpus.known_code,
        n_cognates=ctx.n_cognates,
        status="finished",
        device=str(ctx.device),
    )
    if channel_only:
        return _channel_result(ctx, result)
    first_restart = resume["restart"] if resume is not None else 0
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


def _conclude(ctx: _Context, result: DecipherResult) -> DecipherResult:
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
        result.model = best.model
        result.proposals = proposals(ctx, best)
        result.char_map = character_map(ctx, best.model)
        if corpus.has_gold and best.scores is not None:
            result.accuracy, result.accuracy_model, result.predictions = evaluate(ctx, best.scores.log_prob, best.cost)
            result.n_evaluated = corpus.n_gold_lost
            if not cfg.use_flow:
                result.accuracy = result.accuracy_model
    result.refined = ctx.refined
    return _finish(ctx, result)


def _finish(ctx: _Context, result: DecipherResult) -> DecipherResult:
    """Stamp the run's time and phases on the result and report RunFinished."""
    result.seconds = ctx.elapsed()
    result.phase_seconds = dict(ctx.phases)
    ctx.on_event(RunFinished(result.status, result.accuracy, result.accuracy_model, result.seconds))
    return result


def refine_decipherment(
    corpus: Corpus,
    checkpoint_payload: dict,
    review: ReviewConstraints,
    rounds: int,
    on_event: EventCallback = ignore,
    cancel: threading.Event | None = None,
    checkpoint: str | Path | None = None,
) -> DecipherResult:
    """Continue EM from a run's checkpoint for `rounds` more rounds under the reviewer's judgments.

    The kept restart (lowest objective) continues from its decayed flow and weights; in every
    later flow solve accepted pairs are forced and rejected pairs removed, and the M-step trains
    on the flow with the judgments imposed (see `review`). Settings come from the checkpoint.
    The result's proposals, character map and accuracy replace the run's; with `checkpoint`, the
    refined state is saved after every round, so the run can be refined again.
    """
    cfg = checkpoint_config(checkpoint_payload)
    if not 1 <= rounds <= 1000:
        raise ValueError(f"refinement rounds = {rounds} is out of range (allowed 1..1000)")
    ctx = prepare(corpus, cfg, on_event, cancel or threading.Event())
    _check_same_corpus(checkpoint_payload, ctx)
    review.check(ctx.n_lost, ctx.n_known)
    ctx.review = review
    ctx.refined = int(checkpoint_payload.get("refined", 0)) + 1
    ctx.checkpoint_path = Path(checkpoint) if checkpoint is not None else None
    ctx.phases.update(checkpoint_payload["phases"])
    ctx.started -= checkpoint_payload["seconds"]
    ctx.restart_objectives = list(checkpoint_payload["restart_objectives"])
    # The kept restart: the best completed one, or the current one if it is better (or alone).
    snaps = [s for s in (checkpoint_payload["best"], checkpoint_payload["current"]) if s is not None and s["rounds"]]
    if not snaps:
        raise CheckpointError("the checkpoint has no complete round to refine")
    snap = min(snaps, key=lambda s: s["objective"])
    restart = snap["restart"]
    seed = cfg.seed + 1000 * restart
    model = _new_model(ctx)
    state = _RestartState(restart, model, torch.zeros(0, device=ctx.device))
    _restore_restart(ctx, state, snap)
    if not state.flow.numel():
        if snap is checkpoint_payload["current"]:
            state.flow = checkpoint_payload["flow"].to(ctx.device)
        else:  # a checkpoint from before flows were kept per restart: start from its last solve
            cost = state.cost if state.cost is not None else (-state.scores.log_prob).numpy().astype(np.float64)
            solution = solve(ctx, cost, ctx.n_cognates)
            state.flow = torch.from_numpy(flow_matrix(solution, ctx.n_lost, ctx.n_known)).to(ctx.device)
    state.flow = review.apply_to_flow(state.flow)
    last = state.rounds[-1].round
    # A fresh, seeded sampling generator per refinement keeps refinements reproducible.
    state.sample_gen = torch.Generator().manual_seed(seed + 7 + 7919 * ctx.refined)
    total = last + rounds
    on_event(
        RunStarted(
            corpus.name, corpus.lost_code, corpus.known_code, corpus.stats(), str(ctx.device),
            total, cfg.epochs, 1, ctx.n_cognates, epochs_for_round(cfg, 1),
        )
    )
    result = DecipherResult(
        config=cfg, corpus_name=corpus.name, lost_code=corpus.lost_code, known_code=corpus.known_code,
        n_cognates=ctx.n_cognates, status="finished", device=str(ctx.device),
    )  # fmt: skip
    try:
        for round_ in range(last + 1, total + 1):
            _run_round(ctx, state, round_, total, seed, state.sample_gen)
    except RunCancelled:
        result.status = "cancelled"  # the completed refinement rounds are kept
    ctx.best = state
    return _conclude(ctx, result)


def _check_resumable(resume: dict, ctx: _Context) -> None:
    """A checkpoint continues only the run it came from: same settings, same corpus."""
    if resume.get("refined"):
        raise CheckpointError("this run has been refined; continue it with --refine, not --resume")
    saved = checkpoint_config(resume)
    if saved != ctx.cfg:
        changed = [k for k, v in saved.to_dict().items() if getattr(ctx.cfg, k) != v]
        raise CheckpointError(f"checkpoint was made with other settings ({', '.join(changed)})")
    _check_same_corpus(resume, ctx)


def _check_same_corpus(payload: dict, ctx: _Context) -> None:
    if payload["corpus"] != ctx.corpus.name or tuple(payload["shape"]) != (ctx.n_lost, ctx.n_known):
        raise CheckpointError(f"checkpoint was made on another corpus ({payload['corpus']} {tuple(payload['shape'])})")
