"""`method = "auto"`: choose the method and its settings from the two word lists alone, then decipher.

A user with a new pair of word lists knows neither which channel reads their scripts nor how
many lost words have a cognate. This method decides both, and says why, from the words alone
(never from gold):

1. **Script** (engine/scripts.py): lists that share most symbols are written in one alphabet and
   get the edit channel with its copy prior; different scripts get the pieces channel.
2. **Demand D** (engine/demand.py): a probe channel is trained on half the lost words (transport
   objective, D guessed at half); on the other half, held out, each lost word's best known word
   is compared with its best decoy (known-language-like words of the same lengths). Held-out
   words with a cognate beat the decoys, words without one win half the time: D / N = 2p - 1,
   divided by 2r - 1, r the rate at which the probe's own cognates (words it writes from real
   known words) beat the decoys, since a cognate does not always win where spelling is lossy.
   The held-out half matters: a channel trained on a lost word fits it to *some* known word, so
   a trained-on word without a cognate beats the decoys far more often than half.
3. **Fit**: the probe channel goes on training on every lost word with the transport objective
   and the estimated D (C: the least that lets D lost words reach the known list).
4. **Capacity C** (engine/capacity.py): read from the fitted channel's surest readings: 1 unless
   a fair share of them choose the same known word as another (inflected forms of one word).
   Its costs then give the proposals (a flow with D and C) and the evaluation.

Every decision and its evidence is in the result's `decisions` (summary.json), and in one line.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..capacity import estimate_capacity, least_capacity
from ..channels.protocol import Channel
from ..channels.trainer import ChannelFit, channel_log_probs, fit_channel
from ..checkpoint import Checkpoint, CheckpointError
from ..config import SECTIONS, ChannelKind, DecipherConfig
from ..corpus import Corpus, Word
from ..demand import DemandEstimate, decoy_lexicon, estimate_demand, synthetic_cognates
from ..events import ChannelStep, Decided, EventCallback, RunStarted
from ..problem import Problem, RunCancelled
from ..review import ReviewConstraints
from ..scripts import ScriptProfile
from ..sign_values import SignValues, read_sign_values
from .base import DecipherResult, empty_result
from .channel import finish_channel_result, refine_channel, save_channel

# Channel steps (probe + fit) per kind: the pieces channel learns a syllabary's map slower.
STEPS: dict[str, tuple[int, int]] = {"edit": (150, 150), "pieces": (300, 300)}
MAX_HELD_OUT = 1000  # held-out lost words the demand is estimated on (bounds its scoring time)


@dataclass
class AutoDecisions:
    """What `auto` chose and why; summary.json's `decisions`."""

    script: dict[str, Any]
    channel_kind: str
    channel_why: str
    demand: dict[str, Any]
    capacity: int
    capacity_why: str
    steps: int
    capacity_evidence: dict[str, Any] = dataclasses.field(default_factory=dict)

    def line(self) -> str:
        """The decisions in one line, for the CLI summary and the TUI's run detail."""
        return (
            f"auto: {self.channel_kind} channel ({self.channel_why}); {_demand_phrase(self.demand)}; "
            f"C = {self.capacity} ({self.capacity_why})"
        )

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "line": self.line()}


def choose_channel(profile: ScriptProfile, signs: SignValues | None = None) -> tuple[ChannelKind, str]:
    """The channel for two scripts (and the scholar's known sign values, if any), with why."""
    share = f"{100 * profile.shared_share:.0f}% of lost symbols are known symbols"
    if signs is not None and signs.longest > 1:  # only the pieces channel writes a symbol from a syllable
        return "pieces", f"known sign values read symbols as syllables; {share}"
    if profile.one_alphabet:
        return "edit", f"one alphabet: {share}"
    return "pieces", f"two scripts: {share}"


def own_settings(cfg: DecipherConfig) -> DecipherConfig:
    """The settings auto starts from: the user's corpus, method and run sections (which corpus,
    auto's step budget, seed, device), every other field at its default, so that no preset,
    registry entry or stray flag tunes auto per corpus; auto then sets the fields it decides."""
    kept = {name: getattr(cfg, name) for section in ("corpus", "method", "run") for name in SECTIONS[section]}
    return DecipherConfig(**kept)


def _demand_phrase(d: dict[str, Any]) -> str:
    """'D = 383 of 485 (why)', from a demand estimate's dict (`_Estimate.as_dict`)."""
    return f"D = {d['demand']} of {d['n_lost_all']} ({d['why']})"


def probe_split(n_lost: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(probe's training words, held-out words): a seeded half each; at most MAX_HELD_OUT held out."""
    order = np.random.default_rng(seed).permutation(n_lost)
    half = n_lost // 2
    return np.sort(order[:half]), np.sort(order[half:][:MAX_HELD_OUT])


class AutoMethod:
    """Decide the channel, D and C from the word lists, then decipher (engine/methods/base.py's Method)."""

    name = "auto"

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
        if start is not None:
            raise CheckpointError("an auto run has no rounds to resume: start it again, or refine a finished one")
        profile = ScriptProfile.of(corpus.lost_words, corpus.known_words)
        signs = read_sign_values(cfg.known_signs, corpus) if cfg.known_signs else None
        kind, kind_why = choose_channel(profile, signs)
        probe_steps, fit_steps = STEPS[kind]
        if cfg.auto_steps:  # the user's budget, split as auto's own
            probe_steps = max(1, cfg.auto_steps * probe_steps // (probe_steps + fit_steps))
            fit_steps = max(1, cfg.auto_steps - probe_steps)
        chosen = own_settings(cfg).replace(
            channel_kind=kind, channel_objective="transport", channel_steps=probe_steps + fit_steps
        )
        problem = Problem.prepare(corpus, chosen, on_event, cancel, review=review, signs=signs)
        on_event(
            RunStarted(
                corpus.name, corpus.lost_code, corpus.known_code, corpus.stats(), str(problem.device),
                0, chosen.epochs, 1, problem.n_cognates, 0, self.name,
            )
        )  # fmt: skip
        on_event(Decided("script", f"{kind} channel: {kind_why}", problem.elapsed()))
        result = empty_result(problem)
        try:
            estimate, channel = self._probe(problem, probe_steps)
            demand = estimate.demand_all
            least = least_capacity(demand, problem.n_known)
            on_event(Decided("demand", _demand_phrase(estimate.as_dict()), problem.elapsed()))
            # The probe's channel goes on training on every lost word with the decided D (and the
            # least C that D needs); C for the flows is then read from its confident readings.
            training = dataclasses.replace(
                problem, cfg=chosen.replace(capacity=least, cognate_fraction=max(0.001, estimate.share)),
                n_cognates=demand,
            )  # fmt: skip
            fit = _train(training, corpus.lost_words, fit_steps, probe_steps, chosen.seed + 13, demand, least,
                         start=channel)  # fmt: skip
            with problem.timer("capacity"):
                capacity = estimate_capacity(fit.cost, demand, problem.n_known)
        except RunCancelled:
            result.status = "cancelled"
            return problem.finish(result)
        fitted = dataclasses.replace(training, cfg=training.cfg.replace(capacity=capacity.capacity))
        decisions = AutoDecisions(
            profile.as_dict(), kind, kind_why, estimate.as_dict(), capacity.capacity, capacity.why,
            probe_steps + fit_steps, capacity.as_dict(),
        )  # fmt: skip
        result.decisions = decisions.as_dict()
        on_event(Decided("capacity", decisions.line(), problem.elapsed()))
        result.config = fitted.cfg  # what ran: the decided channel, D (as its share) and C
        result.n_cognates = fitted.n_cognates
        save_channel(checkpoint_path, fitted, self.name, fit.channel, extra={"decisions": result.decisions})
        return finish_channel_result(fitted, result, fit)

    def _probe(self, problem: Problem, steps: int) -> tuple[_Estimate, Channel]:
        """Train the probe channel on half the lost words and estimate D on the other half."""
        cfg, corpus = problem.cfg, problem.corpus
        train, held = probe_split(problem.n_lost, cfg.seed)
        lost = corpus.lost_words
        fit = _train(problem, [lost[i] for i in train], steps, 0, cfg.seed + 11, max(1, len(train) // 2), 1, rows=train)
        with problem.timer("score"):
            held_words = [lost[i] for i in held]
            decoys = decoy_lexicon(corpus.known_words, cfg.seed + 17)
            # The channel's own cognates (answer known) measure how often a cognate loses to decoys.
            synthetic = synthetic_cognates(
                fit.channel, corpus.known_words, problem.lost_charset, problem.known_charset, len(held_words),
                cfg.seed + 19,
            )  # fmt: skip

            def score(lost: list[Word], known: list[Word]) -> torch.Tensor:
                return channel_log_probs(fit.channel, lost, known, problem.lost_charset, problem.known_charset)

            real, fake = score(held_words, corpus.known_words), score(held_words, decoys)
            if synthetic:
                estimate = estimate_demand(real, fake, score(synthetic, corpus.known_words), score(synthetic, decoys))
            else:  # a channel that drops every letter writes nothing to measure on
                estimate = estimate_demand(real, fake)
        return _Estimate(estimate, problem.n_lost), fit.channel

    def refine(
        self,
        corpus: Corpus,
        start: Checkpoint,
        constraints: ReviewConstraints,
        rounds: int,
        on_event: EventCallback,
        cancel: threading.Event,
        checkpoint_path: Path | None = None,
    ) -> DecipherResult:
        # Its decisions stand: a refinement trains the channel it chose, with its D and C.
        return refine_channel(self.name, corpus, start, constraints, rounds, on_event, cancel, checkpoint_path)

    def describe(self, config: dict[str, Any]) -> str:
        # A finished run's own line is its decisions' (describe_run); this is the line before them.
        return "auto: the channel, D and C chosen from the word lists"

    def char_map_source(self, config: dict[str, Any]) -> str:
        return "the channel auto chose (its decisions say which): P(written symbol | known letters)"


def _train(
    problem: Problem, lost_words: list[Word], steps: int, done: int, seed: int, demand: int, capacity: int,
    start: Channel | None = None, rows: np.ndarray | None = None,
) -> ChannelFit:
    """Train the problem's channel kind on `lost_words` (the corpus's lost words `rows`, None: all)
    against every known word with the transport objective (D = `demand`, C = `capacity`) under the
    problem's judgments, reporting steps after the `done` ones; only the final fit (with `start`)
    scores every pair. Raises RunCancelled when the cancel flag is set."""
    cfg = problem.cfg

    def on_step(step: int, loss: float) -> None:
        problem.on_event(ChannelStep(0, done + step, cfg.channel_steps, loss, problem.elapsed(), "transport"))

    with problem.timer("train"):
        fit = fit_channel(
            lost_words, problem.corpus.known_words, problem.lost_charset, problem.known_charset, steps,
            cfg.channel_lr, cfg.channel_batch, seed, cfg.channel_init_scale, on_step=on_step,
            should_stop=problem.cancel.is_set, objective="transport", n_cognates=demand, capacity=capacity,
            kind=cfg.channel_kind, copy_bias=cfg.channel_copy_bias, start=start, score_all=start is not None,
            review=problem.review, rows=rows, signs=problem.pinned_signs,
        )  # fmt: skip
    if fit is None:
        raise RunCancelled()
    return fit


@dataclass(frozen=True)
class _Estimate:
    """The held-out estimate scaled to every lost word."""

    held: DemandEstimate
    n_lost_all: int

    @property
    def share(self) -> float:
        return self.held.share

    @property
    def demand_all(self) -> int:
        return max(1, round(self.held.share * self.n_lost_all))

    def as_dict(self) -> dict[str, Any]:
        return {**self.held.as_dict(), "n_lost_all": self.n_lost_all, "demand": self.demand_all}
