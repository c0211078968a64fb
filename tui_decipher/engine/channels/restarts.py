"""The channel method's restarts: `channel_restarts` channels trained from their own starts, the
one of lowest lexicon loss kept (`fit_best_channel`), each a stage a killed run resumes after."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from ..run.events import ChannelStep
from ..run.problem import Problem, RunCancelled
from ..run.seeds import derive
from .protocol import Channel
from .trainer import ChannelFit, fit_channel, score_channel
from .training import ChannelTraining, Saving

T = TypeVar("T")


class Stages(Protocol):
    """What saves a run's stages as they complete (engine/methods/stages.py's StageMemo)."""

    def run(self, name: str, stage: Callable[[], T]) -> T: ...

    def saving(self, name: str) -> Saving | None: ...


def fit_best_channel(problem: Problem, restart: int, stages: Stages | None = None) -> ChannelFit:
    """Train the restart's channels (`channel_restarts` of them, reporting ChannelStep events) on
    a problem and return the one with the lowest lexicon loss, with its costs -log P(x_i | y_j)
    (n_lost, n_known). With `stages`, each trained channel is a stage saved as it completes (its
    training state every SAVE_EVERY steps), so a killed run resumes there. Raises RunCancelled
    when the cancel flag is set."""
    cfg = problem.cfg
    total = cfg.channel_steps * cfg.channel_restarts
    best = None
    for attempt in range(cfg.channel_restarts):
        done = attempt * cfg.channel_steps

        def on_step(step: int, loss: float, done: int = done) -> None:
            problem.on_event(ChannelStep(restart, done + step, total, loss, problem.elapsed(), cfg.channel_objective))

        def train(attempt: int = attempt, on_step: Callable[[int, float], None] = on_step) -> Channel:
            name = f"restart {restart} channel {attempt}"
            with problem.timer("train"):
                seed = derive(cfg.seed, "channel start", restart, attempt)
                training = ChannelTraining.of(cfg, cfg.channel_steps, seed, demand=problem.demand.value,
                                              score_all=False)  # fmt: skip
                fit = fit_channel(
                    problem.corpus.lost_words, problem.corpus.known_words, problem.lost_charset,
                    problem.known_charset, training, on_step=on_step, should_stop=problem.cancel.is_set,
                    review=problem.review, signs=problem.pinned_signs, device=problem.device,
                    saving=stages.saving(name) if stages is not None else None,
                )  # fmt: skip
            if fit is None:
                raise RunCancelled()
            return fit.channel

        name = f"restart {restart} channel {attempt}"
        channel = stages.run(name, train) if stages is not None else train()
        with problem.timer("train"):  # the costs of every pair: not saved (the full list's are 1.1 GB)
            fit = score_channel(channel, problem.corpus.lost_words, problem.corpus.known_words,
                                problem.lost_charset, problem.known_charset)  # fmt: skip
        if best is None or fit.loss < best.loss:
            best = fit
    assert best is not None  # channel_restarts >= 1 (DecipherConfig.validate, which every run passes)
    return best
