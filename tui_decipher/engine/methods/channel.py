"""Beyond the paper: decipher with a character channel alone (engine/channels/), no neural model.

The channel's costs -log P(x_i | y_j) give the proposals (the final flow, D = N) and the
evaluation flow; its argmax is the "model" accuracy; its parameters give the character map.
It has no rounds: a cancel keeps only the status. A finished run saves its trained channel
(`checkpoint.pt`), which a refinement continues under the reviewer's judgments
(engine/methods/refinement.py, shared with `auto`): accepted pairs train at every step and are forced into
the flows, rejected pairs leave them.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from ..channels.restarts import fit_best_channel
from ..constraints.review import ReviewConstraints
from ..constraints.sign_values import SignValues
from ..corpora.corpus import Corpus
from ..run.checkpoint import Checkpoint
from ..run.config import DecipherConfig
from ..run.events import EventCallback, RunStarted, epochs_of_round
from ..run.method_summaries import SUMMARIES
from ..run.problem import Problem, RunCancelled
from .base import DecipherResult, empty_result
from .channel_results import finish_channel_result, save_channel
from .refinement import refine_channel
from .stages import StageMemo, check_refinable, check_resumable


class ChannelAlone:
    """The character channel alone (engine/methods/base.py's Method)."""

    name = "channel"
    summary = SUMMARIES["channel"]
    keeps_rounds = False
    decides_demand = False
    refines_with_signs = True

    def check_known_signs(self, signs: SignValues, cfg: DecipherConfig) -> None:
        signs.check_channel(cfg.channel_kind)

    def quick_changes(self, cfg: DecipherConfig, channel_steps: int) -> dict[str, Any]:
        return {"channel_steps": min(cfg.channel_steps, channel_steps)}

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
        stages = StageMemo.resuming(start, self.name)  # a killed run's trained channels, read back
        review = review if review is not None else stages.review
        problem = Problem.prepare(corpus, cfg, on_event, cancel, review=review, seconds_before=stages.seconds,
                                  phases_before=stages.phases)  # fmt: skip
        stages.bind(checkpoint_path, cfg, problem)
        on_event(
            RunStarted(
                corpus.name,
                corpus.lost_code,
                corpus.known_code,
                corpus.stats(),
                str(problem.device),
                0,
                cfg.epochs,
                1,
                problem.demand.value,
                epochs_of_round(cfg.first_epochs, cfg.epochs, 1),
                self.name,
            )
        )
        result = empty_result(problem)
        try:
            fit = fit_best_channel(problem, 0, stages)
        except RunCancelled:
            result.status = "cancelled"
            return problem.finish(result)
        save_channel(checkpoint_path, problem, self.name, fit.channel)
        return finish_channel_result(problem, result, fit)

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
        return refine_channel(self.name, corpus, start, constraints, rounds, on_event, cancel, checkpoint_path, draw,
                              signs)  # fmt: skip

    def check(self, corpus: Corpus, cfg: DecipherConfig) -> None:
        """Any corpus the readers accept can run (`Method.check`)."""

    def check_resume(self, start: Checkpoint) -> None:
        check_resumable(start)

    def check_refine(self, start: Checkpoint) -> None:
        check_refinable(start)

    def describe(self, config: dict[str, Any]) -> str:
        # Runs stored before a field existed read as its default: the pieces channel, the lexicon objective.
        kind = "edit channel" if config.get("channel_kind") == "edit" else "character channel"
        steps, objective = config.get("channel_steps"), config.get("channel_objective", "lexicon")
        return f"{kind} alone ({steps} steps, {objective} objective, no neural model), C={config.get('capacity')}"

    def char_map_source(self, config: dict[str, Any]) -> str:
        if config.get("channel_kind") == "edit":
            return "the edit channel's P(letter | symbol); ∅ = inserted, written from no letter"
        return "the character channel's P(symbol | piece)"
