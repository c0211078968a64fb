"""The one trainer of every character channel: the lexicon and transport objectives.

A channel (engine/channels/protocol.py) is trained by Adam on the lexicon objective: every lost
word should be the writing of some known word, L = -mean_i log mean_j P(x_i | y_j). Neither gold
nor a shared alphabet is used, so it applies across scripts (Linear B signs against Greek
letters). `channel_objective = "transport"` keeps that gradient, sum_j w_ij grad log P(x_i | y_j),
but takes the weights w from a soft flow (`transport_plan`) instead of the posterior over all
known words: no known word explains more than C lost words' worth, and D units in all reach known
words. With the posterior a few easy known words explain most lost words; with the plan a corpus
where many lost words have no cognate still finds its map (docs/experiments.md). Its costs
-log P(x_i | y_j) go through the same min-cost flow as the neural model's. On long lists a step
and a plan score each lost word's shortlist of known words only (engine/channels/shortlist.py).
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ..constraints.review import ReviewConstraints
from ..corpora.charset import Charset
from ..corpora.corpus import Word
from ..run.adam import Adam
from ..run.config import ChannelKind, DecipherConfig
from .compiled import runs_compiled
from .edit import EditChannel
from .lattice import on_channel
from .pieces import INIT_SCALE, CharacterChannel
from .protocol import Channel
from .scoring import channel_log_probs, encode_both, row_logsumexp, score_every_pair
from .shortlist import REFRESH_EVERY, draw_shortlist, lists
from .step_scores import (
    KNOWN_BUCKETS,
    PADDED_BUCKETS,
    PlanSupport,
    all_log_probs,
    known_buckets,
    listed_log_probs,
    plan_fit,
)
from .training import (
    SAVE_EVERY,
    SAVE_SECONDS,
    ChannelTraining,
    Saving,
    TrainingState,
    losses_settled,
    plan_objective,
    settled,
)
from .transport import PLAN_EVERY, listed_transport_plan, transport_plan

# One class per channel kind: a new channel is one module and one line here.
CHANNEL_KINDS: dict[str, type[Channel]] = {"pieces": CharacterChannel, "edit": EditChannel}


def new_channel(
    kind: ChannelKind,
    lost_charset: Charset,
    known_charset: Charset,
    generator: torch.Generator,
    init_scale: float = INIT_SCALE,
    copy_bias: float = DecipherConfig.channel_copy_bias,
    signs: Sequence[tuple[int, tuple[int, ...]]] = (),
    device: torch.device | str = "cpu",
    gaps: bool = DecipherConfig.channel_gaps,
) -> Channel:
    """An untrained channel of `kind`: "pieces" (one or two known letters per lost symbol) or
    "edit" (letter by letter with insertions, drops and a copy prior), held to the known sign
    values `signs` (lost symbol id, known letter ids; see `Channel.pin_signs`), its parameters on
    `device` (drawn on the CPU first, so a seed starts the same channel on every device); `gaps`:
    a pieces channel's gapped pieces (`DecipherConfig.channel_gaps`)."""
    channel = CHANNEL_KINDS[kind].build(lost_charset, known_charset, generator, init_scale, copy_bias, gaps)
    channel = channel.to(device)
    if signs:
        channel.pin_signs(signs)
    return channel


@dataclass
class ChannelFit:
    """A trained channel's costs for the flow and how it got there."""

    cost: np.ndarray  # (n_lost, n_known) float32: -log P(x_i | y_j)
    loss: float  # final lexicon objective over all lost words (nats per word)
    channel: Channel  # the trained parameters (for its character map)


def fit_channel(
    lost_words: Sequence[Word],
    known_words: Sequence[Word],
    lost_charset: Charset,
    known_charset: Charset,
    training: ChannelTraining,
    *,
    on_step: Callable[[int, float], None] | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    ends_after: Callable[[int], bool] = lambda _step: False,
    start: Channel | None = None,
    review: ReviewConstraints | None = None,
    rows: np.ndarray | None = None,
    signs: Sequence[tuple[int, tuple[int, ...]]] = (),
    device: torch.device | str = "cpu",
    saving: Saving | None = None,
) -> ChannelFit | None:
    """Train a channel as `training` says (`ChannelTraining`: Adam, `batch` random lost words a
    step against every known word, on the lexicon objective or on the weights of a transport plan
    refreshed every PLAN_EVERY steps) and return its costs for all pairs. `start`: a trained
    channel of that kind and charsets to continue from (it is trained in place; None: a fresh one,
    held to the known sign values `signs`, on `device`). Random draws stay on the CPU, so a seed
    draws the same batches on every device.

    `review`: judgments that constrain the fit (semi-supervision). A rejected pair never explains
    its lost word; an accepted lost word is explained by its accepted known words only, and the
    accepted pairs are also trained on at every step, so a handful of secure pairs pins the
    symbols they spell (`ChannelTraining.sure_share`; a refinement: see `refine_channel`). `rows`:
    the corpus indices of `lost_words` when they are a subset (None: all, in order). `saving`: save
    the training's state as it goes, and resume from a saved one (see `Saving`). `on_step(step,
    loss)` after each step; `ends_after(step)` then, True ending the training there with the
    channel as it is (a caller's early stop). None when `should_stop` said so."""
    generator = torch.Generator().manual_seed(training.seed)
    channel = start or new_channel(training.kind, lost_charset, known_charset, generator, training.init_scale,
                                   training.copy_bias, signs, device, training.gaps)  # fmt: skip
    fit = _Fit(channel, lost_words, known_words, lost_charset, known_charset, training, review, rows)
    optimiser = Adam(channel.parameters(), lr=training.lr)
    first, last_save = 1, time.monotonic()
    if saving is not None and saving.resume_from is not None:
        first = fit.resume(saving.resume_from, optimiser, generator)
    for step in range(first, training.steps + 1):
        if should_stop():
            return None
        fit.draw(step)
        drawn = torch.randint(0, fit.n_lost, (min(training.batch, fit.n_lost),), generator=generator)  # on the CPU
        loss = fit.loss(drawn)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        value = loss.item()
        if on_step is not None:
            on_step(step, value)
        if step < training.steps and (fit.settled(step, value) or ends_after(step)):
            break  # settled, or the caller's early stop
        if saving is not None and fit.saves_after(step, time.monotonic() - last_save):
            last_save = time.monotonic()
            saving.on_save(fit.state(step, optimiser, generator))
    if not training.score_all:
        return ChannelFit(cost=np.empty((0, 0)), loss=math.nan, channel=channel)
    return score_channel(channel, lost_words, known_words, lost_charset, known_charset)


class _Fit:
    """One `fit_channel` under way: the encoded words, the judgments, and the shortlist and plan
    it last drew."""

    def __init__(
        self, channel: Channel, lost_words: Sequence[Word], known_words: Sequence[Word], lost_charset: Charset,
        known_charset: Charset, training: ChannelTraining, review: ReviewConstraints | None, rows: np.ndarray | None,
    ) -> None:  # fmt: skip
        self.channel, self.training, self.review, self.rows = channel, training, review, rows
        self.lost, self.lost_len, self.known, self.known_len = on_channel(
            channel, *encode_both(channel, lost_words, known_words, lost_charset, known_charset)
        )
        self.on = self.lost.device
        compiled = runs_compiled(next(channel.parameters()))
        self.buckets = known_buckets(self.known, self.known_len, KNOWN_BUCKETS if compiled else PADDED_BUCKETS)
        self.n_lost, self.n_known = len(lost_words), len(known_words)
        self.log_n_known = math.log(self.n_known)
        self.plan: torch.Tensor | None = None
        self.support: PlanSupport | None = None  # the plan's, once a batch needs it
        self.potentials: Any = None
        self.objectives: list[tuple[int, float]] = []  # each plan's (step, objective): `settled` (the lexicon's: -loss)
        self.demand = training.demand if training.demand is not None else self.n_lost
        self.corpus_rows = rows if rows is not None else np.arange(self.n_lost)
        self.judged = review is not None and len(review) > 0
        sure_lost, sure_known = (
            review.accepted_rows(rows) if review is not None and self.judged else (np.zeros(0, np.int64),) * 2
        )
        self.sure_lost = torch.from_numpy(sure_lost).to(self.on)  # (A,)
        self.sure_known = torch.from_numpy(sure_known).to(self.on)  # (A,)
        # Long lists train through each lost word's listed known words (engine/channels/shortlist.py):
        # `cols` (n_lost, M) then indexes the plan's and the batch's columns; None: every known word.
        listing = training.shortlist
        self.listing = lists(channel, self.n_lost, self.n_known) if listing is None else listing
        self.cols: torch.Tensor | None = None

    def saves_after(self, step: int, since_save: float) -> bool:
        """Whether the training's state is saved after `step`, `since_save` seconds after the last
        save: where the plan (and the shortlist, when listing) are drawn afresh next step, so a
        resumed run draws them too, every SAVE_EVERY steps or sooner once SAVE_SECONDS have passed."""
        due = step % SAVE_EVERY == 0 or since_save >= SAVE_SECONDS
        aligned = step % PLAN_EVERY == 0 and (not self.listing or step % REFRESH_EVERY == 0)
        return due and aligned and step < self.training.steps

    def resume(self, state: TrainingState, optimiser: Adam, generator: torch.Generator) -> int:
        """Continue from a saved `state`: returns the step to go on from."""
        self.channel.load_state_dict(state.channel)
        optimiser.load_state_dict(state.optimiser)
        generator.set_state(state.generator)
        self.potentials, self.objectives = state.potentials, list(state.objectives)  # () in older states
        return state.step + 1

    def state(self, step: int, optimiser: Adam, generator: torch.Generator) -> TrainingState:
        """What a resumed training needs after `step` steps (copies, not views)."""
        return TrainingState(
            step, {k: v.detach().cpu().clone() for k, v in self.channel.state_dict().items()},
            copy.deepcopy(optimiser.state_dict()), generator.get_state(), copy.deepcopy(self.potentials),
            tuple(self.objectives),
        )  # fmt: skip

    def draw(self, step: int) -> None:
        """Before `step`: the shortlist (every REFRESH_EVERY steps, when listing) and the transport
        plan (every PLAN_EVERY steps) drawn afresh from the channel as it is."""
        ch, lost, lost_len, known, known_len = self.channel, self.lost, self.lost_len, self.known, self.known_len
        review = self.review if self.judged else None
        if self.listing and (step - 1) % REFRESH_EVERY == 0:
            self.cols = draw_shortlist(ch, lost, lost_len, known, known_len, review=review, rows=self.rows)
        if self.training.objective != "transport" or (step - 1) % PLAN_EVERY != 0:
            return
        self.support = None
        t = self.training
        if self.cols is None:
            every = score_every_pair(ch, lost, lost_len, known, known_len)
            if review is not None:
                every = review.mask_log_probs(every, self.rows, inplace=True)  # (n_lost, n_known): held once
            self.plan, self.potentials = transport_plan(
                every, self.demand, t.capacity, potentials=self.potentials, forced_rows=self.sure_lost,
                no_cognate=t.no_cognate,
            )  # fmt: skip
            self._read_objective(step, every)
            return
        with torch.no_grad():
            every = listed_log_probs(ch, lost, lost_len, known, known_len, torch.arange(self.n_lost, device=self.on),
                                     self.cols)  # fmt: skip
        if review is not None:
            every = review.mask_listed(every, self.cols, self.rows, inplace=True)  # (n_lost, M)
        self.plan, self.potentials = listed_transport_plan(every, self.cols, self.n_known, self.demand, t.capacity,
                                                           potentials=self.potentials, forced_rows=self.sure_lost,
                                                           no_cognate=t.no_cognate)  # fmt: skip
        self._read_objective(step, every)

    def _support(self) -> PlanSupport:
        """The plan's support, sorted at the first batch that reads it."""
        assert self.plan is not None
        if self.support is None:
            self.support = PlanSupport(self.plan)
        return self.support

    def settled(self, step: int, loss: float) -> bool:
        """Whether the training has settled after `step`, whose batch loss was `loss` (`settled`; the
        lexicon's, which has no plan, by its batch losses: `losses_settled`)."""
        if self.training.objective == "lexicon":
            if self.training.settle > 0:
                self.objectives.append((step, -loss))
            return losses_settled(self.objectives, self.training.settle)
        return settled(self.objectives, self.training.settle)

    def _read_objective(self, step: int, log_p: torch.Tensor) -> None:
        """The new plan's objective, kept where the training stops once settled (`settled`)."""
        if self.training.settle > 0 and self.plan is not None:
            self.objectives.append((step, plan_objective(self.plan, log_p)))

    def loss(self, drawn: torch.Tensor) -> torch.Tensor:
        """The step's loss on the batch's lost words `drawn` (B,): the lexicon's, or the plan's
        weights' (`plan_fit`), with the accepted pairs' (see `fit_channel`)."""
        ch, lost, lost_len, known, known_len = self.channel, self.lost, self.lost_len, self.known, self.known_len
        idx, cols = drawn.to(self.on), self.cols
        # The lexicon, log mean_j P(x_i | y_j), has the posterior over known words as its gradient's
        # weights; the transport objective puts the plan's weights there: sum_j w_ij log P(x_i | y_j),
        # over the pairs that carry the plan (`plan_support`), not every pair.
        if self.plan is not None:
            log_fit = plan_fit(ch, lost, lost_len, known, known_len, self.buckets, idx, self.plan[idx], cols,
                               self._support)  # fmt: skip
        else:
            if cols is None:
                log_p = all_log_probs(ch, lost, lost_len, known, known_len, self.buckets, idx)  # (B, n_known)
            else:
                log_p = listed_log_probs(ch, lost, lost_len, known, known_len, idx, cols[idx])  # (B, M)
            allowed = log_p
            if self.review is not None and self.judged:
                batch_rows = self.corpus_rows[drawn.numpy()]
                allowed = (self.review.mask_log_probs(log_p, batch_rows) if cols is None
                           else self.review.mask_listed(log_p, cols[idx], batch_rows))  # fmt: skip
            log_fit = torch.logsumexp(allowed, 1) - self.log_n_known
        if not self.sure_lost.numel():
            return -log_fit.mean()
        sure_lost, sure_known = self.sure_lost, self.sure_known  # every accepted pair, at every step
        log_sure = ch.log_prob_pairs(
            lost[sure_lost], lost_len[sure_lost], known[sure_known], known_len[sure_known]
        )  # (A,)
        share = self.training.sure_share
        if share is None:  # each as one more word of the batch
            return -torch.cat([log_fit, log_sure]).mean()
        return -(1 - share) * log_fit.mean() - share * log_sure.mean()


def score_channel(
    channel: Channel,
    lost_words: Sequence[Word],
    known_words: Sequence[Word],
    lost_charset: Charset,
    known_charset: Charset,
) -> ChannelFit:
    """A trained channel's costs of every pair (float32: 1.1 GB on the full Ugaritic list, where
    float64 would be 2.3) and its lexicon loss over all lost words."""
    log_p = channel_log_probs(channel, lost_words, known_words, lost_charset, known_charset)  # (n_lost, n_known)
    final = float(-(row_logsumexp(log_p) - math.log(len(known_words))).mean())
    return ChannelFit(cost=log_p.neg_().numpy(), loss=final, channel=channel)
