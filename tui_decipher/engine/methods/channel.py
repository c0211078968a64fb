"""Beyond the paper: decipher with a character channel alone (engine/channels/), no neural model.

The channel's costs -log P(x_i | y_j) give the proposals (the final flow, D = N) and the
evaluation flow; its argmax is the "model" accuracy; its parameters give the character map.
It has no rounds and no checkpoint: a cancel keeps only the status.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..channels.protocol import Channel
from ..channels.trainer import ChannelFit, channel_log_probs, fit_best_channel
from ..charset import Charset
from ..checkpoint import Checkpoint, CheckpointError
from ..config import DecipherConfig
from ..corpus import Corpus, Word
from ..events import EventCallback, RestartEnd, RunStarted, epochs_of_round
from ..problem import Problem, RunCancelled
from ..review import ReviewConstraints
from .base import DecipherResult, PairScores, Proposal, empty_result


@dataclass
class ChannelFitted:
    """A trained channel: its costs of any word lists are -log P(lost | known), always through the flow."""

    channel: Channel

    def sizes(self) -> tuple[int, int]:
        return self.channel.sizes

    def pair_scores(
        self, lost_words: list[Word], known_words: list[Word], lost_charset: Charset, known_charset: Charset,
        generator: torch.Generator | None = None,
    ) -> PairScores:
        """Scored in bounded blocks (channels.trainer.MAX_PAIRS); `generator` is unused (no sampling)."""
        t0 = time.perf_counter()
        log_prob = channel_log_probs(self.channel, lost_words, known_words, lost_charset, known_charset)
        seconds = time.perf_counter() - t0
        return PairScores(log_prob, "channel", phase_seconds={"score": seconds})


class ChannelAlone:
    """The character channel alone (engine/methods/base.py's Method)."""

    name = "channel"

    def fit(
        self, corpus: Corpus, cfg: DecipherConfig, on_event: EventCallback, cancel: threading.Event,
        checkpoint_path: Path | None = None, start: Checkpoint | None = None,
    ) -> DecipherResult:
        if start is not None:
            raise CheckpointError("a channel run keeps no checkpoint to resume from; start it again")
        problem = Problem.prepare(corpus, cfg, on_event, cancel)
        on_event(
            RunStarted(
                corpus.name, corpus.lost_code, corpus.known_code, corpus.stats(), str(problem.device),
                0, cfg.epochs, 1, problem.n_cognates, epochs_of_round(cfg.first_epochs, cfg.epochs, 1), self.name,
            )
        )
        result = empty_result(problem)
        try:
            fit = fit_best_channel(problem, 0)
        except RunCancelled:
            result.status = "cancelled"
            return problem.finish(result)
        return finish_channel_result(problem, result, fit)

    def refine(
        self, corpus: Corpus, start: Checkpoint, constraints: ReviewConstraints, rounds: int,
        on_event: EventCallback, cancel: threading.Event, checkpoint_path: Path | None = None,
    ) -> DecipherResult:
        raise CheckpointError("a channel run cannot be refined yet: it keeps no checkpoint")

    def describe(self, config: dict[str, Any]) -> str:
        # Runs stored before a field existed read as its default: the pieces channel, the lexicon objective.
        kind = "edit channel" if config.get("channel_kind") == "edit" else "character channel"
        steps, objective = config.get("channel_steps"), config.get("channel_objective", "lexicon")
        return f"{kind} alone ({steps} steps, {objective} objective, no neural model), C={config.get('capacity')}"

    def char_map_source(self, config: dict[str, Any]) -> str:
        if config.get("channel_kind") == "edit":
            return "the edit channel's P(letter | symbol); ∅ = inserted, written from no letter"
        return "the character channel's P(symbol | piece)"


def finish_channel_result(problem: Problem, result: DecipherResult, fit: ChannelFit) -> DecipherResult:
    """Fill a result from a trained channel on `problem` (whose D and C its flows use): the
    proposals, the fitted channel, its character map, the evaluation; report RestartEnd, finish."""
    corpus = problem.corpus
    cost = fit.cost  # (n_lost, n_known)
    result.objective = fit.loss
    result.restart_objectives = [fit.loss]
    result.proposals = flow_proposals(problem, cost)
    result.fitted = ChannelFitted(fit.channel)
    result.char_map = fit.channel.character_map(corpus.known_words, problem.lost_charset, problem.known_charset)
    if corpus.has_gold:
        result.accuracy, result.accuracy_model, result.predictions = problem.evaluate(torch.from_numpy(-cost), cost)
        result.n_evaluated = corpus.n_gold_lost
    problem.on_event(RestartEnd(0, fit.loss, result.accuracy))
    return problem.finish(result)


def flow_proposals(problem: Problem, cost: np.ndarray) -> list[Proposal]:
    """The final flow with D = N over the channel's costs (n_lost, n_known), best first, each with
    the channel's top 5 known words as alternatives."""
    corpus = problem.corpus
    lost_len = np.array([len(w) for w in corpus.lost_words], dtype=np.float64)[:, None]  # (n_lost, 1)
    per_symbol = np.exp(-cost / lost_len)  # P(x | y) ** (1 / |x|): (n_lost, n_known)
    solution = problem.solve(cost, problem.n_cognates)
    top_known = np.argsort(cost, axis=1, kind="stable")[:, : min(5, problem.n_known)]  # (n_lost, 5)
    out = [
        Proposal(
            i, j, float(per_symbol[i, j]), float(cost[i, j]),
            (j in corpus.gold.get(i, ())) if corpus.has_gold else None,
            [(int(k), float(per_symbol[i, k])) for k in top_known[i]],
        )
        for i, j in zip(solution.lost.tolist(), solution.known.tolist(), strict=True)
    ]  # fmt: skip
    out.sort(key=lambda p: (-p.score, p.lost))
    return out
