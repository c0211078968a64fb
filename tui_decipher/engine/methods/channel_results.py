"""What a character channel's run leaves, shared by the channel method (channel.py), auto and the
refinement of either (refinement.py): the fitted channel and its blend with another, the
proposals (the final flow over costs per lost symbol), the pairs past D, their readings, and the
saved channel a refinement continues.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..channels.alignment import segments
from ..channels.protocol import Channel
from ..channels.scoring import add_channel_log_probs, channel_log_probs
from ..channels.trainer import ChannelFit, new_channel
from ..corpora.charset import Charset
from ..corpora.corpus import Word
from ..flow import FlowSolution, row_top_k
from ..flow.hubs import hub_shift
from ..run.checkpoint import Checkpoint, save_checkpoint
from ..run.events import RestartEnd
from ..run.problem import Problem
from .base import DecipherResult, PairScores, Proposal


@dataclass(frozen=True)
class ChannelBlend:
    """A second channel whose log-probabilities weigh `share` of a run's final ones, beside the
    trained channel's 1 - share. auto blends either its kept probe (`auto.Schedule.probe_share`)
    or, with `reverse`, a channel trained the other way, writing the known words from the lost
    ones (`auto.reverse_share`): its log P(known | lost) stands beside log P(lost | known).
    It is saved with the run and left as it is by refinements, which train the other channel."""

    channel: Channel
    share: float
    reverse: bool = False

    def mix(
        self,
        log_p: torch.Tensor,
        lost_words: Sequence[Word],
        known_words: Sequence[Word],
        lost_charset: Charset,
        known_charset: Charset,
    ) -> torch.Tensor:
        """(1 - share) log_p + share log P_blend, in place on `log_p` (n_lost, n_known), one row
        block of the blended channel's scores at a time (no second table of log_p's size)."""
        log_p.mul_(1 - self.share)
        if self.reverse:  # scored as the channel was trained, (n_known, n_lost), then read across
            return add_channel_log_probs(log_p, self.share, self.channel, known_words, lost_words, known_charset,
                                         lost_charset, across=True)  # fmt: skip
        return add_channel_log_probs(log_p, self.share, self.channel, lost_words, known_words, lost_charset,
                                     known_charset)  # fmt: skip

    def mix_fit(self, fit: ChannelFit, problem: Problem) -> ChannelFit:
        """A fit whose costs are blended, in place on `fit.cost` (its channel and loss stay the trained channel's)."""
        corpus = problem.corpus
        log_p = self.mix(torch.from_numpy(fit.cost).neg_(), corpus.lost_words, corpus.known_words,
                         problem.lost_charset, problem.known_charset)  # fmt: skip
        return ChannelFit(cost=log_p.neg_().numpy(), loss=fit.loss, channel=fit.channel)

    def state(self) -> dict[str, Any]:
        return {"channel": {k: v.detach().cpu() for k, v in self.channel.state_dict().items()}, "share": self.share,
                "reverse": self.reverse}  # fmt: skip

    @classmethod
    def from_state(cls, state: dict[str, Any] | None, problem: Problem) -> ChannelBlend | None:
        """The blend a checkpoint saved (None where it saved none: every run before it existed; a
        blend saved before reverse channels existed is the probe's)."""
        if not state:
            return None
        if state.get("reverse", False):  # written the other way: the charsets swapped, no pinned signs
            channel = load_channel(problem, state["channel"], problem.known_charset, problem.lost_charset)
            return cls(channel, float(state["share"]), reverse=True)
        return cls(load_channel(problem, state["channel"]), float(state["share"]))


def load_channel(
    problem: Problem,
    state: dict[str, torch.Tensor],
    lost_charset: Charset | None = None,
    known_charset: Charset | None = None,
) -> Channel:
    """A saved channel of `problem`'s settings, on its device (the masks of pinned signs come from
    the problem, not the state). The charsets are the problem's unless given (a reverse channel's
    are the other way round; it has no pinned signs)."""
    cfg = problem.cfg
    pinned = problem.pinned_signs if lost_charset is None else []
    channel = new_channel(cfg.channel_kind, lost_charset or problem.lost_charset,
                          known_charset or problem.known_charset, torch.Generator().manual_seed(cfg.seed),
                          cfg.channel_init_scale, cfg.channel_copy_bias, pinned, problem.device,
                          cfg.channel_gaps)  # fmt: skip
    channel.load_state_dict(state)
    return channel


@dataclass
class ChannelFitted:
    """A trained channel: its costs of any word lists are -log P(lost | known), always through the
    flow; with a `blend`, mixed with that channel's as the run's own were."""

    channel: Channel
    blend: ChannelBlend | None = None

    def sizes(self) -> tuple[int, int]:
        return self.channel.sizes

    def pair_scores(
        self,
        lost_words: list[Word],
        known_words: list[Word],
        lost_charset: Charset,
        known_charset: Charset,
        generator: torch.Generator | None = None,
    ) -> PairScores:
        """Scored in bounded blocks (channels.scoring.MAX_PAIRS); `generator` is unused (no sampling)."""
        t0 = time.perf_counter()
        log_prob = channel_log_probs(self.channel, lost_words, known_words, lost_charset, known_charset)
        if self.blend is not None:
            log_prob = self.blend.mix(log_prob, lost_words, known_words, lost_charset, known_charset)
        seconds = time.perf_counter() - t0
        return PairScores(log_prob, "channel", phase_seconds={"score": seconds})


def finish_channel_result(
    problem: Problem, result: DecipherResult, fit: ChannelFit, blend: ChannelBlend | None = None
) -> DecipherResult:
    """Fill a result from a trained channel on `problem` (whose D and C its flows use): the
    proposals, the fitted channel, its character map, the evaluation; report RestartEnd, finish.
    With a `blend`, `fit.cost` is already blended (`ChannelBlend.mix_fit`); the map is the channel's."""
    corpus = problem.corpus
    cost = fit.cost  # (n_lost, n_known)
    result.objective = fit.loss
    result.restart_objectives = [fit.loss]
    top_known = best_known_words(problem, cost)  # the proposals' and the pairs past D's alternatives
    with problem.timer("flow"):
        hubs = hub_shift(cost)  # (n_known,): the proposals' flow takes it where D is every lost word
    result.proposals = flow_proposals(problem, cost, top_known=top_known, column_shift=hubs)
    result.beyond = beyond_pairs(problem, cost, result.proposals, top_known, hubs)
    with problem.timer("align"):
        align_proposals(problem, result.proposals + result.beyond, fit.channel)
    result.fitted = ChannelFitted(fit.channel, blend)
    result.char_map = fit.channel.character_map(corpus.known_words, problem.lost_charset, problem.known_charset)
    if corpus.has_gold:
        result.accuracy, result.accuracy_model, result.predictions = problem.evaluate(cost.argmin(axis=1), cost,
                                                                                      hubs=True)  # fmt: skip
        result.n_evaluated = corpus.n_gold_lost
    problem.on_event(RestartEnd(0, fit.loss, result.accuracy))
    return problem.finish(result)


def _lost_lengths(problem: Problem) -> np.ndarray:
    """Each lost word's length in symbols: (n_lost,)."""
    return np.array([len(w) for w in problem.corpus.lost_words], dtype=np.float64)


def proposal_flow(
    problem: Problem, cost: np.ndarray, demand: int, column_shift: np.ndarray | None = None
) -> FlowSolution:
    """Which `demand` lost words are proposed: the flow over each pair's cost per lost symbol (the
    score shown). Over whole costs it passes long words over for short ones, which cost fewer nats
    only for having fewer symbols to explain (docs/demand.md). The paper's protocol
    (`Problem.evaluate`) keeps whole costs: every evaluated word is matched there, and a row's scale
    changes little.

    Where D takes every lost word, the flow only chooses each one's partner, and each known word's
    costs are first moved by its `column_shift` (`hub_shift`, read here where not given), as in the
    protocol's flow: a known word near many lost words then draws fewer it does not explain. Where
    the flow also chooses which lost words to propose (D < N), the shift would favour words near a
    known word far from all others (docs/dev-pairs.md), and the costs are taken as they are."""
    shift = None
    if demand >= problem.n_lost:
        shift = hub_shift(cost) if column_shift is None else column_shift
    return problem.solve(cost, demand, row_scale=_lost_lengths(problem), column_shift=shift)


def best_known_words(problem: Problem, cost: np.ndarray) -> np.ndarray:
    """Each lost word's top 5 known words by cost, best first: (n_lost, 5) (fewer known words: all)."""
    top = min(5, problem.n_known)
    return row_top_k(cost, top) if top < problem.n_known else np.argsort(cost, axis=1, kind="stable")


def flow_proposals(
    problem: Problem, cost: np.ndarray, demand: int | None = None, top_known: np.ndarray | None = None,
    column_shift: np.ndarray | None = None,
) -> list[Proposal]:  # fmt: skip
    """The final flow with the run's D (or `demand`) and C over the channel's costs (n_lost,
    n_known) per lost symbol (`proposal_flow`), best first, each with the channel's top 5 known
    words as alternatives (`top_known`: `best_known_words`, read here where not given). Only the
    cells shown are read again, so a 7235 x 39451 matrix needs no copy of its size."""
    corpus = problem.corpus
    lost_len = _lost_lengths(problem)

    def per_symbol(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        return np.exp(-cost[i, j].astype(np.float64) / lost_len[i])  # P(x | y) ** (1 / |x|)

    solution = proposal_flow(problem, cost, problem.demand.value if demand is None else demand, column_shift)
    top_known = best_known_words(problem, cost) if top_known is None else top_known
    top_score = per_symbol(np.arange(problem.n_lost)[:, None], top_known)  # (n_lost, 5)
    chosen_score = per_symbol(solution.lost, solution.known)  # (n_used,)
    out = [
        Proposal(
            i, j, float(s), float(cost[i, j]),
            (j in corpus.gold.get(i, ())) if corpus.has_gold else None,
            [(int(k), float(p)) for k, p in zip(top_known[i], top_score[i], strict=True)],
        )
        for i, j, s in zip(solution.lost.tolist(), solution.known.tolist(), chosen_score.tolist(), strict=True)
    ]  # fmt: skip
    out.sort(key=lambda p: (-p.score, p.lost))
    return out


def beyond_pairs(
    problem: Problem, cost: np.ndarray, proposals: list[Proposal], top_known: np.ndarray | None = None,
    column_shift: np.ndarray | None = None,
) -> list[Proposal]:  # fmt: skip
    """The pairs past D (`DecipherResult.beyond`): the flow solved again at the most lost words the
    evidence allows (the high end of `Problem.demand`'s range), its pairs of lost words not proposed whose known word
    the proposals leave room for (fewer than C of them read it), best first; none where the run
    has no such bound above D. Where the evidence cannot pin D, the decipherer sees what the
    range would add without the proposals' precision paying for it. `top_known`: as for
    `flow_proposals` (the proposals' own, not read twice), and `column_shift` likewise."""
    high = problem.demand.high
    if high <= problem.demand.value:
        return []
    proposed = {p.lost for p in proposals}
    used = Counter(p.known for p in proposals)  # each known word's readings so far, the kept pairs' counted as kept
    out = []
    for p in flow_proposals(problem, cost, min(high, problem.n_lost), top_known=top_known, column_shift=column_shift):
        if p.lost not in proposed and used[p.known] < problem.cfg.capacity:
            used[p.known] += 1
            out.append(p)
    return out


def align_proposals(problem: Problem, proposals: list[Proposal], channel: Channel) -> None:
    """Each proposal's reading under the trained channel, its best path through the channel's
    lattice (engine/channels/alignment.py), in place. A blended run's is the trained channel's: the blend
    scores pairs, it writes no path."""
    corpus = problem.corpus
    lost = [corpus.lost_words[p.lost] for p in proposals]
    known = [corpus.known_words[p.known] for p in proposals]
    paths = channel.best_paths([problem.lost_charset.encode(w) for w in lost],
                               [problem.known_charset.encode(w) for w in known])  # fmt: skip
    for proposal, path, x, y in zip(proposals, paths, lost, known, strict=True):
        proposal.alignment = segments(path, x, y)


def save_channel(
    path: Path | None,
    problem: Problem,
    method: str,
    channel: Channel,
    refined: int = 0,
    extra: dict[str, Any] | None = None,
) -> None:
    """Save a finished channel run (its trained channel, D and the method's `extra` state) so that
    it can be refined; nothing without a path. A channel run has no rounds: round 0."""
    if path is None:
        return
    state = {"channel": {k: v.detach().cpu() for k, v in channel.state_dict().items()},
             "n_cognates": problem.demand.value, **(extra or {})}  # fmt: skip
    if problem.demand.high:  # a refinement reads the pairs beyond D up to it again
        state["demand_high"] = problem.demand.high
    if problem.signs:  # a refinement holds the channel to them without the file
        state["sign_values"] = problem.signs.as_state()
    if problem.map_pins:  # and to the syllable map auto pinned it to
        state["held_map"] = problem.map_pins.as_state()
    save_checkpoint(
        path,
        Checkpoint(
            method=method, config=problem.cfg.to_dict(), corpus=problem.corpus.name,
            shape=(problem.n_lost, problem.n_known), restart=0, round=0, rounds=[], seconds=problem.elapsed(),
            phases=dict(problem.phases), refined=refined, state=state,
        ),
    )  # fmt: skip
