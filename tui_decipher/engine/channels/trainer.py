"""The one trainer of every character channel: the lexicon and transport objectives, all-pairs scoring.

A channel (engine/channels/protocol.py) is trained by Adam on the lexicon objective: every lost
word should be the writing of some known word, L = -mean_i log mean_j P(x_i | y_j). Neither gold
nor a shared alphabet is used, so it applies across scripts (Linear B signs against Greek
letters). `channel_objective = "transport"` keeps that gradient, sum_j w_ij grad log P(x_i | y_j),
but takes the weights w from a soft flow (`transport_plan`) instead of the posterior over all
known words: no known word explains more than C lost words' worth, and D units in all reach known
words. With the posterior a few easy known words explain most lost words; with the plan a corpus
where many lost words have no cognate still finds its map (docs/experiments.md). Its costs
-log P(x_i | y_j) go through the same min-cost flow as the neural model's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..charset import Charset
from ..config import ChannelKind, ChannelObjective, DecipherConfig
from ..corpus import Word
from ..events import ChannelStep
from ..problem import Problem, RunCancelled
from ..review import ReviewConstraints
from .edit import EditChannel
from .lattice import NEG, encode_padded
from .pieces import INIT_SCALE, CharacterChannel
from .protocol import Channel

# One class per channel kind: a new channel is one module and one line here.
CHANNEL_KINDS: dict[str, type] = {"pieces": CharacterChannel, "edit": EditChannel}


def new_channel(
    kind: ChannelKind, lost_charset: Charset, known_charset: Charset, generator: torch.Generator,
    init_scale: float = INIT_SCALE, copy_bias: float = DecipherConfig.channel_copy_bias,
    signs: Sequence[tuple[int, tuple[int, ...]]] = (),
) -> Channel:
    """An untrained channel of `kind`: "pieces" (one or two known letters per lost symbol) or
    "edit" (letter by letter with insertions, drops and a copy prior), held to the known sign
    values `signs` (lost symbol id, known letter ids; see `Channel.pin_signs`)."""
    channel = CHANNEL_KINDS[kind].build(lost_charset, known_charset, generator, init_scale, copy_bias)
    if signs:
        channel.pin_signs(signs)
    return channel


@dataclass
class ChannelFit:
    """A trained channel's costs for the flow and how it got there."""

    cost: np.ndarray  # (n_lost, n_known): -log P(x_i | y_j)
    loss: float  # final lexicon objective over all lost words (nats per word)
    channel: Channel  # the trained parameters (for its character map)


def _known_buckets(known: torch.Tensor, known_len: torch.Tensor, n_buckets: int = 4) -> list[torch.Tensor]:
    """Known-word indices in length buckets, so short words are not padded to the longest."""
    order = torch.argsort(known_len, stable=True)
    return [b for b in torch.chunk(order, n_buckets) if len(b)]


def _all_log_probs(
    channel: Channel,
    lost: torch.Tensor,
    lost_len: torch.Tensor,
    known: torch.Tensor,
    known_len: torch.Tensor,
    buckets: list[torch.Tensor],
    lost_idx: torch.Tensor,
) -> torch.Tensor:
    """log P(x_i | y_j) for the lost words `lost_idx` and every known word: (len(lost_idx), n_known)."""
    out = torch.empty(len(lost_idx), known.shape[0])
    parts = [channel.log_prob(lost[lost_idx], lost_len[lost_idx], known[b], known_len[b]) for b in buckets]
    out[:, torch.cat(buckets)] = torch.cat(parts, 1)
    return out


def fit_channel(
    lost_words: Sequence[Word],
    known_words: Sequence[Word],
    lost_charset: Charset,
    known_charset: Charset,
    steps: int,
    lr: float,
    batch: int,
    seed: int,
    init_scale: float = INIT_SCALE,
    on_step: Callable[[int, float], None] | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    objective: ChannelObjective = "lexicon",
    n_cognates: int | None = None,
    capacity: int = 1,
    kind: ChannelKind = "pieces",
    copy_bias: float = DecipherConfig.channel_copy_bias,
    start: Channel | None = None,
    score_all: bool = True,
    review: ReviewConstraints | None = None,
    rows: np.ndarray | None = None,
    sure_share: float | None = None,
    signs: Sequence[tuple[int, tuple[int, ...]]] = (),
) -> ChannelFit | None:
    """Train a channel (Adam, `batch` random lost words a step against every known word) on the
    lexicon objective, or with `objective = "transport"` on the weights of a transport plan with
    D = `n_cognates` (None: every lost word) and C = `capacity`, refreshed every PLAN_EVERY steps;
    return its costs for all pairs. `kind` and `copy_bias`: see `new_channel`; `start`: a trained
    channel of that kind and charsets to continue from (it is trained in place). `score_all`
    False skips the final scoring of every pair (the fit's cost is then empty and its loss nan).

    `review`: judgments that constrain the fit (semi-supervision). A rejected pair never explains
    its lost word; an accepted lost word is explained by its accepted known words only, and the
    accepted pairs are also trained on at every step, so a handful of secure pairs pins the
    symbols they spell: each as one more word of the batch, or with `sure_share` that share of
    every step's loss together (a refinement: see `refine_channel`). `rows`: the corpus indices of
    `lost_words` when they are a subset (None: all, in order). `signs`: known sign values a new
    channel is held to (a `start` channel keeps its own).
    None when `should_stop` said so."""
    generator = torch.Generator().manual_seed(seed)
    channel = start or new_channel(kind, lost_charset, known_charset, generator, init_scale, copy_bias, signs)
    lost, lost_len = encode_padded(lost_words, lost_charset, 0)
    known, known_len = encode_padded(known_words, known_charset, channel.none)
    buckets = _known_buckets(known, known_len)
    log_n_known = math.log(len(known_words))
    optimiser = torch.optim.Adam(channel.parameters(), lr=lr)
    n_lost = len(lost_words)
    plan, potentials = None, None
    demand = n_cognates if n_cognates is not None else n_lost
    corpus_rows = rows if rows is not None else np.arange(n_lost)
    judged = review is not None and len(review) > 0
    sure_lost, sure_known = review.accepted_rows(rows) if judged else (np.zeros(0, np.int64),) * 2
    sure_lost_t, sure_known_t = torch.from_numpy(sure_lost), torch.from_numpy(sure_known)
    for step in range(1, steps + 1):
        if should_stop():
            return None
        if objective == "transport" and (step - 1) % PLAN_EVERY == 0:
            every = channel_log_probs(channel, lost_words, known_words, lost_charset, known_charset)
            if judged:
                every = review.mask_log_probs(every, rows, inplace=True)  # (n_lost, n_known): held once
            plan, potentials = transport_plan(every, demand, capacity, potentials=potentials, forced_rows=sure_lost_t)
        idx = torch.randint(0, n_lost, (min(batch, n_lost),), generator=generator)
        log_p = _all_log_probs(channel, lost, lost_len, known, known_len, buckets, idx)  # (B, n_known)
        # The lexicon, log mean_j P(x_i | y_j), has the posterior over known words as its gradient's
        # weights; the transport objective puts the plan's weights there: sum_j w_ij log P(x_i | y_j).
        if plan is None:
            allowed = review.mask_log_probs(log_p, corpus_rows[idx.numpy()]) if judged else log_p
            log_fit = torch.logsumexp(allowed, 1) - log_n_known
        else:
            log_fit = (plan[idx] * log_p).sum(1)
        if sure_lost.size:  # every accepted pair, at every step
            log_sure = channel.log_prob_pairs(
                lost[sure_lost_t], lost_len[sure_lost_t], known[sure_known_t], known_len[sure_known_t]
            )  # (A,)
            if sure_share is None:  # each as one more word of the batch
                loss = -torch.cat([log_fit, log_sure]).mean()
            else:
                loss = -(1 - sure_share) * log_fit.mean() - sure_share * log_sure.mean()
        else:
            loss = -log_fit.mean()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if on_step is not None:
            on_step(step, loss.item())
    if not score_all:
        return ChannelFit(cost=np.empty((0, 0)), loss=math.nan, channel=channel)
    return score_channel(channel, lost_words, known_words, lost_charset, known_charset)


def score_channel(
    channel: Channel, lost_words: Sequence[Word], known_words: Sequence[Word], lost_charset: Charset,
    known_charset: Charset,
) -> ChannelFit:
    """A trained channel's costs of every pair and its lexicon loss over all lost words."""
    log_p = channel_log_probs(channel, lost_words, known_words, lost_charset, known_charset)  # (n_lost, n_known)
    final = float(-(torch.logsumexp(log_p, 1) - math.log(len(known_words))).mean())
    return ChannelFit(cost=(-log_p).numpy().astype(np.float64), loss=final, channel=channel)


PLAN_EVERY = 5  # channel steps between two transport plans (a plan scores every pair)
PLAN_ITERS = 50  # Sinkhorn sweeps per plan; warm-started from the last plan's potentials


def transport_plan(
    log_p: torch.Tensor, n_cognates: int, capacity: int, iters: int = PLAN_ITERS,
    potentials: tuple[torch.Tensor, torch.Tensor] | None = None, forced_rows: torch.Tensor | None = None,
) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """A soft flow for the channel's objective: the entropic transport plan (Sinkhorn, in log
    space) of log_p (n_lost, n_known) in which each lost word sends one unit, each known word
    takes at most `capacity`, and `n_cognates` (D) units reach known words. A "no cognate" column
    takes the other n_lost - D units and a slack row fills the known words' unused capacity
    (n_known * C - D units). "No cognate" scores each word at its average known word, so it does
    not sort words by length; it takes about 1 - D/N of every word's unit, more of a word whose
    known words are taken by others. Within a word the plan is the posterior over known words,
    reshaped so that no known word is over capacity. `forced_rows`: lost words that must send
    their unit to known words (accepted by a reviewer): their "no cognate" is closed. Returns the
    plan over real pairs (n_lost, n_known) and the potentials, to warm-start the next plan."""
    n_lost, n_known = log_p.shape
    d = min(n_cognates, n_lost, n_known * capacity)
    scores = torch.zeros(n_lost + 1, n_known + 1)  # the slack row scores 0 everywhere...
    scores[:n_lost, :n_known] = log_p
    scores[:n_lost, n_known] = torch.logsumexp(log_p, 1) - math.log(n_known)  # "no cognate"
    scores[n_lost, n_known] = NEG  # ...but never fills "no cognate": then exactly D units are real
    if forced_rows is not None and forced_rows.numel():
        scores[forced_rows, n_known] = NEG
    # Marginals; a zero one would be log 0, so the dummies keep a sliver when D fills everything.
    row_mass = torch.cat([torch.zeros(n_lost), torch.tensor([math.log(max(n_known * capacity - d, 1e-6))])])
    col_mass = torch.cat([torch.full((n_known,), math.log(capacity)), torch.tensor([math.log(max(n_lost - d, 1e-6))])])
    u, v = potentials if potentials is not None else (torch.zeros(n_lost + 1), torch.zeros(n_known + 1))
    for _ in range(iters):
        u = row_mass - torch.logsumexp(scores + v[None, :], 1)
        v = col_mass - torch.logsumexp(scores + u[:, None], 0)
    plan = (scores + u[:, None] + v[None, :]).exp()
    return plan[:n_lost, :n_known], (u, v)


MAX_PAIRS = 1 << 18  # pairs in one forward pass of channel_log_probs: about 0.3 GB of DP tables


@torch.no_grad()
def channel_log_probs(
    channel: Channel,
    lost_words: Sequence[Word],
    known_words: Sequence[Word],
    lost_charset: Charset,
    known_charset: Charset,
    max_pairs: int = MAX_PAIRS,
) -> torch.Tensor:
    """log P(x_i | y_j) for every pair: (n_lost, n_known), float32.

    The words are encoded with the charsets the channel was trained with (a symbol they lack is
    the unknown symbol, whose parameters were never trained), so a channel trained on one corpus
    scores another of the same scripts. Words are sorted by length and scored in blocks of at most
    `max_pairs` pairs, so memory stays bounded on large lists (2182 x 39451 for the full Ugaritic
    list) and short words are not padded to the longest."""
    lost, lost_len = encode_padded(lost_words, lost_charset, 0)
    known, known_len = encode_padded(known_words, known_charset, channel.none)
    lost_order = torch.argsort(lost_len, stable=True)
    known_order = torch.argsort(known_len, stable=True)
    lost_chunk = max(1, min(len(lost_words), 128))
    known_chunk = max(1, max_pairs // lost_chunk)
    out = torch.empty(len(lost_words), len(known_words))
    for i in range(0, len(lost_words), lost_chunk):
        rows = lost_order[i : i + lost_chunk]
        for j in range(0, len(known_words), known_chunk):
            cols = known_order[j : j + known_chunk]
            block = channel.log_prob(lost[rows], lost_len[rows], known[cols], known_len[cols])  # (rows, cols)
            out[rows[:, None], cols[None, :]] = block
    return out


@torch.no_grad()
def pair_log_probs(
    channel: Channel,
    lost_words: Sequence[Word],
    known_words: Sequence[Word],
    lost_idx: np.ndarray,
    known_idx: np.ndarray,
    lost_charset: Charset,
    known_charset: Charset,
    max_pairs: int = MAX_PAIRS,
) -> torch.Tensor:
    """log P(x_i | y_j) for the listed pairs only (lost_idx[p], known_idx[p]): (P,), float32; the
    cells of `channel_log_probs` at those pairs, at the cost of P pairs. Pairs are sorted by their
    words' lengths and scored in blocks of at most `max_pairs`, so a block pads little."""
    lost_idx, known_idx = torch.as_tensor(lost_idx, dtype=torch.long), torch.as_tensor(known_idx, dtype=torch.long)
    out = torch.empty(len(lost_idx))
    if not len(lost_idx):
        return out
    lost, lost_len = encode_padded(lost_words, lost_charset, 0)
    known, known_len = encode_padded(known_words, known_charset, channel.none)
    width = int(known_len.max()) + 1
    order = torch.argsort(lost_len[lost_idx] * width + known_len[known_idx], stable=True)  # (P,)
    for start in range(0, len(order), max_pairs):
        block = order[start : start + max_pairs]
        i, j = lost_idx[block], known_idx[block]
        out[block] = channel.log_prob_pairs(lost[i], lost_len[i], known[j], known_len[j])
    return out


def fit_best_channel(problem: Problem, restart: int) -> ChannelFit:
    """Train the restart's channels (`channel_restarts` of them, reporting ChannelStep events) on
    a problem and return the one with the lowest lexicon loss, with its costs -log P(x_i | y_j)
    (n_lost, n_known). Raises RunCancelled when the cancel flag is set."""
    cfg = problem.cfg
    total = cfg.channel_steps * cfg.channel_restarts
    best = None
    for attempt in range(cfg.channel_restarts):
        done = attempt * cfg.channel_steps

        def on_step(step: int, loss: float, done: int = done) -> None:
            problem.on_event(ChannelStep(restart, done + step, total, loss, problem.elapsed(), cfg.channel_objective))

        with problem.timer("train"):
            fit = fit_channel(
                problem.corpus.lost_words, problem.corpus.known_words, problem.lost_charset, problem.known_charset,
                cfg.channel_steps, cfg.channel_lr, cfg.channel_batch, cfg.seed + 1000 * restart + 11 + 101 * attempt,
                cfg.channel_init_scale,
                on_step=on_step, should_stop=problem.cancel.is_set,
                objective=cfg.channel_objective, n_cognates=problem.n_cognates, capacity=cfg.capacity,
                kind=cfg.channel_kind, copy_bias=cfg.channel_copy_bias, review=problem.review,
                signs=problem.pinned_signs,
            )  # fmt: skip
        if fit is None:
            raise RunCancelled()
        if best is None or fit.loss < best.loss:
            best = fit
    return best
