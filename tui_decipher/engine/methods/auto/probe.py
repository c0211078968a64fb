"""The probes: channels trained on part of the lost words, D estimated on the rest (held out)
against decoys, null words and the channel's own cognates, and the kept one (`run_probes`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ...channels.protocol import Channel
from ...channels.syllables import SyllableMap
from ...channels.trainer import ChannelFit
from ...constraints.sign_values import SignValues
from ...corpora.corpus import Word
from ...run.demand import Demand, decide_demand
from ...run.problem import Problem
from ...run.seeds import derive
from ..stages import StageMemo
from .calibration import calibrated, calibrates, recalibrated
from .cross_channel import cross_channel
from .decoys import against_decoys
from .demand import DemandEstimate
from .fit_check import _fit_check_evidence
from .map_pins import map_values, pins_map
from .pinned_folds import Fold, fold_probes
from .pooled_demand import pooled_demand, split_scores
from .probe_choice import _probe_why, _Tried
from .probe_search import searched_channel
from .probe_words import ProbeWords, probe_words
from .schedule import Probe, Schedule
from .syllable_search import _Syllables
from .training import LEXICON_SETTLE, _seeded, _train

# The lexicon objective explains every lost word by some known word: its probe is kept without
# trying the next while its held-out evidence allows that at least this share has a cognate. Set
# with the syllabary schedule (f15c5d5), no measurement recorded; on generated tuning syllabaries
# the two probes' held-out wins differed by 1-8 of 80 words at every share (docs/demand.md), so
# it saves the transport probe's steps more than it chooses.
LEXICON_TRUSTED_SHARE = 0.8


def doubted(probe: Probe, estimate: DemandEstimate) -> bool:
    """Whether a probe's own D estimate contradicts its objective's assumption, so that the
    schedule's next candidate is tried: the lexicon objective explains every lost word by some
    known word, and is doubted when even the highest share of lost words with a cognate that its
    held-out evidence allows (`DemandEstimate.share_upper`) is below LEXICON_TRUSTED_SHARE."""
    return probe.objective == "lexicon" and estimate.share_upper() < LEXICON_TRUSTED_SHARE


def kept_probe(held_out_wins: list[int]) -> int:
    """The candidate whose held-out words beat their decoys most often (the first of equals): a
    probe that found the map makes cognates win, one that did not wins by chance."""
    return max(range(len(held_out_wins)), key=lambda k: held_out_wins[k])


def _kept(tried: list[_Tried[_Estimate]]) -> int:
    """The tried candidate `kept_probe` keeps, one ruled out on more splits never (pinned_folds.py)."""
    return kept_probe([-1 if t.ruled_out else t.estimate.held.wins for t in tried])


def run_probes(
    problem: Problem,
    schedule: Schedule,
    syllables: _Syllables | None = None,
    done: int = 0,
    memo: StageMemo | None = None,
    calibrate: bool = True,
) -> _Probed:
    """Train the schedule's probe candidates on part of the lost words, estimate D on the rest
    with each, and keep one (see the module's docstring). Fresh channels start from the
    syllable search's map where it ran; steps are reported after the `done` ones. With `memo`,
    each channel trained is a stage of its own (a stopped run resumes after it). `calibrate`
    False: no calibrated copy reads D again (a refit that keeps its run's D, `kept_demand`)."""
    memo = memo or StageMemo("auto")  # saves nowhere until bound
    words = probe_words(problem, schedule)
    cross, done = cross_channel(problem, schedule, words, done, memo)
    tried, searched, done = _tried_probes(problem, schedule, words, syllables, done, memo, cross)
    kept = _kept(tried)
    estimate, channel = tried[kept].estimate, tried[kept].channel
    # D is read again with a copy of the kept probe calibrated on the words the evidence says have
    # a cognate (calibration.py): its own cognates then lose to decoys as often as real ones.
    if calibrate and calibrates(len(words.train), problem.n_known):
        cal_seed = derive(problem.cfg.seed, "auto calibration")
        calibration = memo.run(
            "calibration",
            lambda: calibrated(problem, channel, estimate.held, words.train, words.train_rows, done, cal_seed,
                               schedule.calibration_steps),
        )  # fmt: skip
        done += schedule.calibration_steps
        # The per-word evidence the fit is checked against (`FitCheck`) stays the probe's own: the
        # fit continues from the probe's channel.
        folds = _folds_like(tried, kept)
        if folds:  # read on the other splits' held-out words too (pooled_demand.py)
            again, done = pooled_demand(problem, schedule, words, calibration.channel, folds, done, memo)
        else:
            again = _estimate(problem, calibration.channel, words.held, words.decoys, words.nulls, words.distances,
                              cross).held  # fmt: skip
        estimate = dataclasses.replace(estimate, held=recalibrated(estimate.held, again))
    single = syllables is not None and syllables.single
    pins = any(t.pinned for t in tried)
    evidence = [
        {"objective": t.probe.objective, "steps": t.probe.total_steps, "held_out": t.estimate.held.n_lost,
         "wins": t.estimate.held.wins, "share": round(t.estimate.share, 4),
         "share_upper": round(t.estimate.held.share_upper(), 4), "kept": k == kept,
         **({"search": searched[k]} if t.probe.search else {}),
         **({"from_single_map": t.from_single} if single else {}),
         **({"held_to_map": t.pinned, "fold_wins": list(t.fold_wins)} if pins else {})}
        for k, t in enumerate(tried)
    ]  # fmt: skip
    why = _probe_why(schedule, tried, kept, single, searched)
    map_pins = map_values(syllables.map) if tried[kept].pinned and syllables is not None else None
    return _Probed(estimate, channel, evidence, why, done, words.held, words.decoys, map_pins)


def _tried_probes(
    problem: Problem,
    schedule: Schedule,
    words: ProbeWords,
    syllables: _Syllables | None,
    done: int,
    memo: StageMemo,
    cross: Channel | None = None,
) -> tuple[list[_Tried[_Estimate]], list[list[dict[str, Any]]], int]:
    """The schedule's probe candidates trained in turn until one is not `doubted`: each candidate
    (its estimate and channel, where it started), each one's search starts (none without a
    search), and the steps run by then."""
    cfg = problem.cfg
    tried: list[_Tried[_Estimate]] = []
    searched: list[list[dict[str, Any]]] = []
    found = syllables.map if syllables and syllables.used else None
    single = syllables.map if syllables and syllables.single else None
    pin = False
    for attempt, probe in enumerate(schedule.probes):
        starts_of = _starts_of(problem, attempt, found, single, pin)
        # Stage names keep the words they had (a stopped run resumes by them): "held" is pinned.
        pinned_name = " held to the map" if pin else ""
        start: Channel | None = None
        starts: list[dict[str, Any]] = []
        if probe.search is not None:
            seed = derive(cfg.seed, "channel start", 0, attempt)
            start, starts = searched_channel(problem, probe, done, seed, found, memo,
                                             f"probe {attempt + 1}{pinned_name} search", words.train_rows,
                                             pin)  # fmt: skip
            done += probe.search.total_steps
        for seeded, pinned in starts_of:
            searched.append(starts)
            where = " from the single map" if seeded is single and single is not None else ""
            name = f"probe {attempt + 1}{where}" + (" held to the map" if pinned else "")
            seed = derive(cfg.seed, "channel start", 0, attempt)

            def train(name: str = name, seeded: SyllableMap | None = seeded, pinned: bool = pinned,
                      start: Channel | None = start, done: int = done, seed: int = seed,
                      probe: Probe = probe) -> ChannelFit:  # fmt: skip
                return _train(problem, words.train, probe.steps, done, seed, max(1, len(words.train) // 2), 1,
                              rows=words.train_rows, objective=probe.objective,
                              start=start or _seeded(problem, seeded, seed, pinned), saving=memo.saving(name),
                              settle=LEXICON_SETTLE if probe.objective == "lexicon" else 0.0)  # fmt: skip

            fit = memo.run(name, train)
            if start is not None:  # a searched start trains in place: the next candidate goes on from it
                start = fit.channel
            done += probe.steps
            estimate = _estimate(problem, fit.channel, words.held, words.decoys, words.nulls, words.distances, cross)
            tried.append(_Tried(probe, estimate, fit.channel, single is not None and seeded is single, pinned))
        if len(starts_of) == 2 and starts_of[0][1]:  # pinned and free: compared on more splits too
            done = _compare_on_folds(problem, schedule, probe, found, words, tried, done, memo)
        kept = tried[_kept(tried)]
        if kept.from_single:
            found = single
        pin = kept.pinned
        if not doubted(probe, kept.estimate.held):
            break
    return tried, searched, done


def _starts_of(problem: Problem, attempt: int, found: SyllableMap | None, single: SyllableMap | None,
               pin: bool) -> tuple[tuple[SyllableMap | None, bool], ...]:  # fmt: skip
    """Where probe `attempt` starts, each (a map or None, pinned to it). The first probe from a map
    only one start found, as well as from where it would start; from a map two starts agreed on
    under a scholar's values, pinned to it as to those values as well as free to leave it
    (`pins_map`; the two compared on more splits of the words too, pinned_folds.py). The one whose
    held-out words beat the decoys more often is kept, the pinned one of equals; the next probes
    start as it did (`found`, `pin`)."""
    if attempt == 0 and single is not None:
        return (found, False), (single, False)
    if attempt == 0 and found is not None and pins_map(problem, found):
        return (found, True), (found, False)
    return ((found, pin),)


def _folds_like(tried: list[_Tried[_Estimate]], kept: int) -> tuple[Fold, ...]:
    """The other splits' probes trained as the kept candidate was (pinned to the map, or free): its
    own where it was compared on them, the first probe's where a later candidate went on from its
    start; none where no candidate was compared."""
    like = [t for t in tried if t.folds and t.pinned == tried[kept].pinned]
    return like[0].folds if like else ()


def _compare_on_folds(
    problem: Problem, schedule: Schedule, probe: Probe, found: SyllableMap | None, words: ProbeWords,
    tried: list[_Tried[_Estimate]], done: int, memo: StageMemo,
) -> int:  # fmt: skip
    """The last two candidates (pinned to the map, then free) trained on more splits (`fold_wins`),
    the one with fewer held-out wins over every split ruled out (the pinned one kept of equals), in
    place in `tried`; returns the steps run by then."""
    assert found is not None
    for k in (-2, -1):
        folds = fold_probes(problem, probe, found, tried[k].pinned, words.decoys, schedule.train_share, done, memo)
        done += len(folds) * probe.steps
        tried[k] = dataclasses.replace(tried[k], folds=tuple(folds))
    loser = -1 if tried[-2].all_wins >= tried[-1].all_wins else -2
    tried[loser] = dataclasses.replace(tried[loser], ruled_out=True)
    return done


def _estimate(
    problem: Problem,
    channel: Channel,
    held_words: list[Word],
    decoys: list[Word],
    nulls: list[Word] | None = None,
    distances: tuple[np.ndarray, np.ndarray] | None = None,
    cross: Channel | None = None,
) -> _Estimate:
    """D from a probe channel: its held-out words against the known words and the decoys, corrected
    by how often its own cognates beat the decoys and how often `nulls` (words without a cognate)
    do, at the held-out words' distances from the training words where `distances` (the null
    words', the held-out words') are given (engine/methods/auto/demand.py); its own cognates read
    by `cross` too where given (cross_channel.py)."""
    scores = split_scores(problem, channel, held_words, decoys, nulls, distances, cross=cross)
    with problem.timer("score"):
        estimate = scores.estimate()
    return _Estimate(estimate, problem.n_lost, *_fit_check_evidence(scores.real, scores.fake, held_words,
                                                                    problem.corpus.known_words))  # fmt: skip


def _held_evidence(problem: Problem, channel: Channel, probed: _Probed) -> tuple[torch.Tensor, torch.Tensor]:
    """A channel's `_fit_check_evidence` on the kept probe's held-out words and decoys."""
    with problem.timer("score"):
        real, fake = against_decoys(problem, channel, probed.held_words, probed.decoys)
        return _fit_check_evidence(real, fake, probed.held_words, problem.corpus.known_words)


@dataclass(frozen=True)
class _Estimate:
    """The held-out estimate scaled to every lost word."""

    held: DemandEstimate
    n_lost_all: int
    wins_each: torch.Tensor  # each held-out word's `word_wins`: (n_held,)
    reads_each: torch.Tensor  # the held-out words' `identity_reads`: (n_identical,)

    @property
    def share(self) -> float:
        return self.held.share

    def demand(self) -> Demand:
        """D over every lost word as the evidence reads it, with the range it allows (none where
        it gives none)."""
        held = self.held
        ranged = held.share_low is not None and held.share_high is not None
        return decide_demand(self.n_lost_all, held.share, "estimate", low=held.share_low if ranged else None,
                             high=held.share_high if ranged else None)  # fmt: skip

    def as_dict(self, demand: Demand | None = None) -> dict[str, Any]:
        """The evidence and the D decided from it (`demand`; None: the evidence's own), as
        summary.json's `decisions["demand"]` holds them."""
        demand = demand or self.demand()
        held = self.held
        allowed = {"demand_low": demand.low, "demand_high": demand.high} if demand.ranged else {}
        evidence: dict[str, Any] = {**held.as_dict(), "n_lost_all": self.n_lost_all, "demand": demand.value, **allowed}
        if demand.source == "given":
            why = f"as given by auto_demand ({demand.value}); the evidence alone read {held.share:.0%}"
            evidence.update(share=round(demand.share, 4), why=f"{why} of the lost words: {held.why}")
        elif demand.source == "kept":
            why = "the run's, kept: pinned values do not change which words have a cognate"
            evidence.update(share=round(demand.share, 4), why=f"{why}; read again here, {held.why}")
        return {**evidence, "source": demand.source}


@dataclass(frozen=True)
class _Probed:
    """The kept probe: its D estimate and channel, every candidate's evidence, why, and the steps run."""

    estimate: _Estimate
    channel: Channel
    evidence: list[dict[str, Any]]
    why: str
    steps: int
    held_words: list[Word]  # the held-out lost words the estimate was made on
    decoys: list[Word]
    # The syllable map's values the kept probe was pinned to (None: free, or no map). A class-level
    # default: a probe stage stored before pins existed reads as free.
    map_pins: SignValues | None = None

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A stage stored before the rename names its map pins `held` (a partial checkpoint written before 0.8)."""
        state = dict(state)
        if "held" in state:
            state["map_pins"] = state.pop("held")
        self.__dict__.update(state)
