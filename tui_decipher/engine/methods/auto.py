"""`method = "auto"`: choose the method and its settings from the two word lists alone, then decipher.

A user with a new pair of word lists knows neither which channel reads their scripts nor how
many lost words have a cognate. This method decides both, and says why, from the words alone
(never from gold):

1. **Script** (engine/scripts.py): lists that share most symbols are written in one alphabet and
   get the edit channel with its copy prior; different scripts get the pieces channel. Where the
   lost script reads as a syllabary (many more symbols than the known alphabet, shorter words),
   its sign map is first searched as a whole (`SyllableSearch`, engine/channels/syllables.py):
   the map that explains the lost words best starts every channel auto trains, where two starts
   agree on it and it explains them better than the signs' own frequencies do. A map that one
   start alone found (on a long list a start finds it rarely) may be the map or part of it, so
   the first probe is trained from it and from a random start, and the one whose held-out words
   beat the decoys more often is kept (2. below); otherwise channels start at random. Where the
   first starts explain the words about as well as a true map would and alike (`planted_gain`,
   CHANCE_SHARE, CHANCE_SPREAD: too few lost words to pin a map), no start can be told from
   chance: the search stops there.
2. **Demand D** (engine/demand.py): a probe channel is trained on part of the lost words (half
   for the edit channel; 80% for the pieces channel, whose sign map a syllabary's short words
   pin only with more of them); on the rest, held out, each lost word's best known word is
   compared with its best decoy (known-language-like words of the same lengths). Held-out
   words with a cognate beat the decoys, words without one win half the time: D / N = 2p - 1,
   divided by 2r - 1, r the rate at which the probe's own cognates (words it writes from real
   known words) beat the decoys, since a cognate does not always win where spelling is lossy.
   Holding out matters: a channel trained on a lost word fits it to *some* known word, so a
   trained-on word without a cognate beats the decoys far more often than half.
   The pieces channel's probe has two candidates (`Schedule`): the lexicon objective, which finds
   a syllabary's map fast where nearly every lost word has a cognate, and the transport objective
   (D guessed at half), which finds it where many have none. The lexicon's is kept when its own
   evidence allows that nearly every lost word has a cognate (its assumption holds); otherwise the
   transport probe is trained too and the one whose held-out words beat the decoys more often
   is kept: a probe that found the map makes cognates win, one that did not wins by chance.
   The transport objective finds a map from some random starts only, so its probe starts from a
   `Search`: two starts trained on every lost word, the one with the lower loss kept. Its held-out
   words were trained on in the search, so they beat the decoys more often than fresh ones would:
   D reads high there, and the comparison with the lexicon probe leans its way (docs/experiments.md).
3. **Fit**: the kept probe channel goes on training on every lost word with the transport objective
   and the estimated D (C: the least that lets D lost words reach the known list). On long lists
   (the full Ugaritic list) both train through shortlists (engine/channels/shortlist.py).
   The fit is kept unless, on the probe's held-out words, it does clearly worse than the probe
   did, though it has trained on them (`FitCheck`: paired tests): its words beat the decoys less
   often, or it reads fewer of those spelled as a known word as that word. Then it has drifted
   from the map the probe found, and the probe's channel is kept. On the full Ugaritic list the
   fit's channel drifts to drop Hebrew's y and h and read them into other letters, and prefers
   known words spelled with them (docs/experiments.md).
4. **Capacity C** (engine/capacity.py): read from the fitted channel's surest readings: 1 unless
   a fair share of them choose the same known word as another (inflected forms of one word). On a
   syllabary only a word and a longer form of it count: its lossy spelling lets words without a
   cognate read confidently as another word's known word, so other collisions there do not show
   inflected forms.
5. **Both directions** (one alphabet): a second edit channel is trained the other way, writing
   the known words from the lost ones (transport, D pairs, C = 1), and its log P(known | lost)
   weighs n_lost / (n_lost + n_known) of the final log-probabilities beside the fit's log P(lost |
   known) (`reverse_share`). Each direction charges what the other leaves out (docs/experiments.md).
   Lists long enough to train through shortlists read one direction (`reverse_steps`).
   The final costs then give the proposals (a flow with D and C) and the evaluation, each flow over
   a graph widened until a wider one no longer lowers its cost (FLOW_GRAPH).

Every decision and its evidence is in the result's `decisions` (summary.json), and in one line.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..capacity import estimate_capacity, least_capacity
from ..channels.pieces import seed_channel
from ..channels.protocol import Channel
from ..channels.scoring import channel_log_probs
from ..channels.shortlist import shortlisted
from ..channels.syllables import SyllableMap, known_vowels, planted_gain, search_starts, value_units
from ..channels.trainer import ChannelFit, Saving, fit_channel, new_channel, score_channel
from ..checkpoint import Checkpoint
from ..config import SECTIONS, ChannelKind, ChannelObjective, DecipherConfig, Sparsify
from ..corpus import Corpus, Word
from ..demand import DemandEstimate, decoy_lexicon, estimate_demand, paired_z, synthetic_cognates, word_wins
from ..device import usable_cores
from ..events import ChannelStep, Decided, EventCallback, RunStarted
from ..problem import Problem, RunCancelled
from ..review import ReviewConstraints
from ..scripts import ScriptProfile
from ..sign_values import SignValues, read_sign_values
from .base import DecipherResult, empty_result
from .channel import ChannelBlend, finish_channel_result, refine_channel, save_channel
from .stages import StageMemo


@dataclass(frozen=True)
class SyllableSearch:
    """Before any probe, on a syllabary: the sign map searched as a whole (channels/syllables.py)
    from random maps, `moves` annealing moves each: at least `starts`, and more up to `max_starts`
    until two of them agree (AGREEMENT; an annealing from one start finds the map only sometimes,
    and found maps agree where chance ones do not). The map that explains the lost words best
    (its log-likelihood over the signs' own frequencies) starts every channel auto trains."""

    starts: int
    max_starts: int
    moves: int

    @property
    def steps_each(self) -> int:
        """One start's length on the progress bar: MOVES_A_STEP moves count as one channel step."""
        return max(1, self.moves // MOVES_A_STEP)

    @property
    def total_steps(self) -> int:
        """Its most steps (every start tried)."""
        return self.max_starts * self.steps_each


@dataclass(frozen=True)
class Search:
    """A search for the sign map before a probe: its objective trained on every lost word from
    `starts` random starts, `steps` each, the start with the lowest final loss kept. On every word
    more starts find the map than on the probe's share of them, and a start that found it fits
    them far better than one that missed it (docs/experiments.md)."""

    starts: int
    steps: int

    @property
    def total_steps(self) -> int:
        return self.starts * self.steps


@dataclass(frozen=True)
class Probe:
    """One candidate probe: the objective it trains with and its steps on the probe's share of the
    lost words, after a `search` on every word where it has one."""

    objective: ChannelObjective
    steps: int
    search: Search | None = None

    @property
    def total_steps(self) -> int:
        """Its steps, its search's included."""
        return self.steps + (self.search.total_steps if self.search else 0)


@dataclass(frozen=True)
class Schedule:
    """How auto trains a channel kind: the probe's candidates (the first always, the next only when
    the first's assumption fails), the fit's steps, and the share of lost words the probe trains on."""

    probes: tuple[Probe, ...]
    fit_steps: int
    train_share: float
    syllables: SyllableSearch | None = None  # run where the lost script reads as a syllabary
    # The kept probe's share of the final log-probabilities where the fit is kept (`ChannelBlend`):
    # two channels trained from one start on different objectives and words, averaged.
    probe_share: float = 0.0
    # A channel trained the other way (the known words written from the lost ones): its steps on
    # every known word (`reverse_share` gives its weight in the final costs).
    reverse_steps: int = 0

    def __post_init__(self) -> None:
        if self.probe_share and self.reverse_steps:
            raise ValueError("a schedule blends one second channel: the probe or the reverse channel")

    @property
    def budget(self) -> int:
        """Every step the schedule may take (the progress bar's length)."""
        # The first probe may train twice (`_Syllables.single`): the probes' steps still fit in the
        # budget, as the fit's steps equal the lexicon probe's, and the fit's progress total
        # becomes the steps the run took.
        search = self.syllables.total_steps if self.syllables else 0
        return search + sum(p.total_steps for p in self.probes) + self.fit_steps + self.reverse_steps

    def scaled(self, steps: int) -> Schedule:
        """The same schedule within a budget of `steps` (the user's `auto_steps`), split as its own."""

        def part(n: int) -> int:
            return max(1, n * steps // self.budget)

        probes = tuple(
            dataclasses.replace(p, steps=part(p.steps), search=p.search and dataclasses.replace(
                p.search, steps=part(p.search.steps)))
            for p in self.probes
        )  # fmt: skip
        syllables = self.syllables and dataclasses.replace(
            self.syllables, moves=max(MOVES_A_STEP, self.syllables.moves * steps // self.budget))
        return dataclasses.replace(self, probes=probes, fit_steps=part(self.fit_steps), syllables=syllables,
                                   reverse_steps=self.reverse_steps and part(self.reverse_steps))


# Per channel kind. A syllabary's map needs more words and steps than an alphabet's: the pieces
# probe trains on 80% of the lost words (on half, Linear B's map was not found in 300 steps).
# Where many lost words lack a cognate (the lexicon probe doubted), the transport objective finds
# the map from some starts only, and on 80% of the words less often than on all of them: it
# searches on every word from two starts first, then trains on the probe's words before D is
# estimated on the rest. One syllable search start finds a 1000-word syllabary's map only now and
# then (1 to 5 starts in 8 on generated ones, Linear B's about 1 in 2), so up to 20 are tried
# (docs/experiments.md). The pieces probe, trained on most of the words, also weighs a quarter of
# the final costs: in 8 runs on generated tuning corpora that read 0.0 to 2.4 points above the fit
# alone (mean 1.0, never below); the edit probe, on half the words, gained nothing there.
SCHEDULES: dict[str, Schedule] = {
    "edit": Schedule((Probe("transport", 150),), 150, 0.5, reverse_steps=300),
    "pieces": Schedule(
        (Probe("lexicon", 300), Probe("transport", 150, Search(2, 600))), 300, 0.8, SyllableSearch(2, 20, 300_000),
        probe_share=0.25,
    ),
}
# The flows' graph: each lost word's top 5 known words is too narrow where D nears N and C = 1 (on
# Romance, words crowd one another out into dear candidates); it is widened while that lowers the
# flow's own cost (engine/flow.py), a check on the flow's objective, not on gold.
FLOW_GRAPH: Sparsify = "grown-top-k"
MOVES_A_STEP = 6000  # annealing moves shown as one step of the progress bar (about a channel step's time;
# 20 starts of 300,000 moves fill the 1000 steps that 5 starts of 200,000 did: no scaled schedule changed)
# Two searched maps that send this share of the known words' syllables to the same signs found one
# map: chance maps share a few percent, maps that found a generated syllabary's key over 90%.
AGREEMENT = 0.5
# A map that only one start found is tried where it explains the lost words by at least this many
# nats a word beyond the signs' frequencies: maps that found a generated syllabary's key gain
# 0.65-1.2 (Linear B's 1.1-2.2), chance maps at most 0.19 on 1000 words but up to 0.46 on 400
# (docs/experiments.md). It only spares a probe: the probes' held-out evidence decides.
SINGLE_MAP_GAIN = 0.25
# The search stops after its first starts where none agree, even the weakest explains the lost
# words at least CHANCE_SHARE as well as a true map would (`planted_gain`), and none explains them
# more than CHANCE_SPREAD times as well as the weakest: chance maps then reach a true map's gain and
# look alike, so no start can be told from chance, and more starts do not agree. On generated tuning
# syllabaries the weakest of two starts reached 0.77-0.87 of it at 200 lost words, 0.69-0.85 at 250,
# at most 0.63 from 300 up; two chance starts parted by at most 1.33 times, where a start that found
# the map explained 2.1-3.5 times as much as the other (docs/experiments.md).
CHANCE_SHARE = 0.7
CHANCE_SPREAD = 1.5
# The final loss of a search start: the mean batch loss over its last tenth of steps (one batch is noisy).
SEARCH_LOSS_TAIL = 0.1
# The lexicon objective explains every lost word by some known word: its probe is kept without
# trying the next while its held-out evidence allows that at least this share has a cognate.
LEXICON_TRUSTED_SHARE = 0.8
MIN_LOST_WORDS = 2  # one to train the probe on and one held out (`probe_split`): no evidence with fewer
MAX_HELD_OUT = 1000  # held-out lost words the demand is estimated on (bounds its scoring time)
# The fit is kept unless the probe leads it on its held-out words by this many standard errors of
# a paired test (decoy wins, or shared spellings read as themselves): the fit trained on those
# words, so it is expected to do at least as well, and chance alone rarely puts the probe 2 ahead.
DRIFT_Z = 2.0


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
    probes: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # each candidate's evidence
    probe_why: str = ""  # which probe was kept and why, where there was a choice
    syllables: dict[str, Any] = dataclasses.field(default_factory=dict)  # the syllable search, where it ran
    fit_check: dict[str, Any] = dataclasses.field(default_factory=dict)  # the fit against its probe (FitCheck)
    probe_share: float = 0.0  # the kept probe's share of the final costs beside the fit (ChannelBlend)
    reverse_share: float = 0.0  # the reverse channel's share of them (ChannelBlend with reverse)
    reverse_why: str = ""  # why no reverse channel was trained, where the schedule has one

    def line(self) -> str:
        """The decisions in one line, for the CLI summary and the TUI's run detail."""
        syllables = f"; {self.syllables['why']}" if self.syllables else ""
        probe = f"; {self.probe_why}" if self.probe_why else ""
        drift = f"; {self.fit_check['why']}" if self.fit_check and not self.fit_check["kept_fit"] else ""
        blend = f"; the probe weighs {100 * self.probe_share:.0f}% of the final costs" if self.probe_share else ""
        if self.reverse_share:
            blend += f"; both directions: the reverse channel weighs {100 * self.reverse_share:.0f}% of the final costs"
        elif self.reverse_why:
            blend += f"; {self.reverse_why}"
        return (
            f"auto: {self.channel_kind} channel ({self.channel_why}){syllables}{probe}; "
            f"{_demand_phrase(self.demand)}{drift}{blend}; C = {self.capacity} ({self.capacity_why})"
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


def doubted(probe: Probe, estimate: DemandEstimate) -> bool:
    """Whether a probe's own D estimate contradicts its objective's assumption, so that the
    schedule's next candidate is tried: the lexicon objective explains every lost word by some
    known word, and is doubted when even the highest share of lost words with a cognate that its
    held-out evidence allows (`DemandEstimate.share_upper`) is below LEXICON_TRUSTED_SHARE."""
    return probe.objective == "lexicon" and estimate.share_upper() < LEXICON_TRUSTED_SHARE


def identity_reads(real_log_p: torch.Tensor, lost: list[Word], known_words: list[Word]) -> torch.Tensor:
    """Of the lost words spelled exactly as some known word, whether the channel reads each as a
    known word of that spelling (1) or as another (0): (n_identical,), in `lost`'s order. From
    log P(x | y) of `lost` against every known word (n, n_known); empty where no spelling is shared."""
    spelled = set(known_words)
    rows = [i for i, word in enumerate(lost) if word in spelled]
    if not rows:
        return torch.zeros(0, dtype=torch.float64)
    best = real_log_p[rows].argmax(1).tolist()  # (n_identical,)
    return torch.tensor([float(known_words[j] == lost[i]) for i, j in zip(rows, best, strict=True)],
                        dtype=torch.float64)  # fmt: skip


@dataclass(frozen=True)
class FitCheck:
    """The fit against the probe it started from, on the probe's held-out words, by two paired
    tests. The fit trained on those words, so it should do at least as well on both.

    - Decoys: how often each channel's best real known word beats its best decoy. A channel that
      lost the map loses these.
    - Shared spellings: of the held-out words spelled exactly as a known word, how many each
      channel reads as that word (`identity_reads`). A channel that drifted to longer spellings
      ("aby" read as "abyh") still beats the decoys with them, but loses these. On the full
      Ugaritic list that share fell with the fit's drift where the decoy wins did not
      (docs/experiments.md). Where no spelling is shared (two scripts) this test is silent."""

    n_held: int
    probe_wins: float
    fit_wins: float
    z: float  # the probe's lead in paired standard errors (`demand.paired_z`)
    n_identical: int = 0  # held-out words spelled as a known word
    probe_identical: float = 0.0  # of them, those the probe reads as that word
    fit_identical: float = 0.0  # and the fit
    identity_z: float = 0.0  # the probe's lead there, in paired standard errors

    @classmethod
    def of(
        cls, probe_wins: torch.Tensor, fit_wins: torch.Tensor, probe_reads: torch.Tensor | None = None,
        fit_reads: torch.Tensor | None = None,
    ) -> FitCheck:  # fmt: skip
        """From the two channels' `word_wins` on the same held-out words (n,), and their
        `identity_reads` on the same words (n_identical,) where given."""
        identity = {}
        if probe_reads is not None and fit_reads is not None and len(probe_reads):
            identity = {
                "n_identical": len(probe_reads), "probe_identical": float(probe_reads.sum()),
                "fit_identical": float(fit_reads.sum()), "identity_z": paired_z(probe_reads, fit_reads),
            }  # fmt: skip
        return cls(len(probe_wins), float(probe_wins.sum()), float(fit_wins.sum()), paired_z(probe_wins, fit_wins),
                   **identity)  # fmt: skip

    @property
    def kept_fit(self) -> bool:
        """Whether the fit is kept: unless the probe leads it by DRIFT_Z paired errors or more in either test."""
        return self.z < DRIFT_Z and self.identity_z < DRIFT_Z

    @property
    def why(self) -> str:
        kept = "the fit kept" if self.kept_fit else "the probe's channel kept (the fit drifted)"
        decoys = (f"held-out words beat decoys {100 * self.fit_wins / self.n_held:.0f}% after the fit, "
                  f"{100 * self.probe_wins / self.n_held:.0f}% after the probe (z = {self.z:.1f})")  # fmt: skip
        if self.identity_z < DRIFT_Z or self.z >= DRIFT_Z:
            return f"{kept}: {decoys}"
        fit, probe = (100 * x / self.n_identical for x in (self.fit_identical, self.probe_identical))
        return (f"{kept}: of {self.n_identical} held-out words spelled as a known word the fit reads {fit:.0f}% "
                f"as that word, the probe {probe:.0f}% (z = {self.identity_z:.1f}); {decoys}")  # fmt: skip

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "z": round(self.z, 2), "identity_z": round(self.identity_z, 2),
                "kept_fit": self.kept_fit, "why": self.why}  # fmt: skip


def kept_probe(held_out_wins: list[int]) -> int:
    """The candidate whose held-out words beat their decoys most often (the first of equals): a
    probe that found the map makes cognates win, one that did not wins by chance."""
    return max(range(len(held_out_wins)), key=lambda k: held_out_wins[k])


def _demand_phrase(d: dict[str, Any]) -> str:
    """'D = 383 of 485 (why)', from a demand estimate's dict (`_Estimate.as_dict`)."""
    return f"D = {d['demand']} of {d['n_lost_all']} ({d['why']})"


def probe_split(n_lost: int, seed: int, train_share: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """(probe's training words, held-out words): a seeded `train_share` of the lost words and the
    rest; at most MAX_HELD_OUT held out. Each side keeps a word where there are two (a channel
    cannot train on none); a single lost word trains and none is held out."""
    order = np.random.default_rng(seed).permutation(n_lost)
    cut = min(max(int(n_lost * train_share), 1), max(n_lost - 1, 1))
    return np.sort(order[:cut]), np.sort(order[cut:][:MAX_HELD_OUT])


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
        memo = StageMemo.resuming(start, self.name)  # a killed run's completed stages, read back
        review = review if review is not None else memo.review
        profile = ScriptProfile.of(corpus.lost_words, corpus.known_words)
        signs = read_sign_values(cfg.known_signs, corpus) if cfg.known_signs else None
        kind, kind_why = choose_channel(profile, signs)
        schedule = SCHEDULES[kind] if not cfg.auto_steps else SCHEDULES[kind].scaled(cfg.auto_steps)
        chosen = own_settings(cfg).replace(
            channel_kind=kind, channel_objective="transport", channel_steps=schedule.budget, sparsify=FLOW_GRAPH
        )
        problem = Problem.prepare(corpus, chosen, on_event, cancel, review=review, signs=signs,
                                  seconds_before=memo.seconds, phases_before=memo.phases)  # fmt: skip
        memo.bind(checkpoint_path, cfg, problem)
        on_event(
            RunStarted(
                corpus.name, corpus.lost_code, corpus.known_code, corpus.stats(), str(problem.device),
                0, chosen.epochs, 1, problem.n_cognates, 0, self.name,
            )
        )  # fmt: skip
        on_event(Decided("script", f"{kind} channel: {kind_why}", problem.elapsed()))
        if kind == "pieces" and shortlisted(problem.n_lost, problem.n_known):
            # Shortlists list each lost word's best known words under the channel as it is: before a
            # sign map is found (two scripts) they list noise, and the map may never be found.
            on_event(Decided("warning", f"warning: {problem.n_lost} x {problem.n_known} words train through "
                             "shortlists, and on two scripts they cannot list a cognate before the signs are read: "
                             "the map may not be found; a shorter known list or known sign values (--known-signs) "
                             "help", problem.elapsed()))  # fmt: skip
        result = empty_result(problem)
        try:
            syllables, searched = None, 0
            if schedule.syllables is not None and profile.syllabary:
                before, on_map = memo.progress("syllables")  # the starts a stopped run had found
                syllables = memo.run("syllables", lambda: _search_syllables(problem, schedule.syllables, before,
                                                                            on_map))  # fmt: skip
                searched = len(syllables.starts) * schedule.syllables.steps_each
                on_event(Decided("syllables", syllables.why, problem.elapsed()))
            probed = memo.run("probe", lambda: self._probe(problem, schedule, syllables, searched, memo))
            estimate = probed.estimate
            demand = estimate.demand_all
            least = least_capacity(demand, problem.n_known)
            if probed.why:
                on_event(Decided("probe", probed.why, problem.elapsed()))
            on_event(Decided("demand", _demand_phrase(estimate.as_dict()), problem.elapsed()))
            # The kept probe's channel goes on training on every lost word with the decided D (and
            # the least C that D needs); C for the flows is then read from its confident readings.
            # The progress total becomes the steps this run takes: a probe not tried is not counted.
            # Lists long enough to train through shortlists train no reverse channel (`reverse_steps`).
            back_steps, back_why = reverse_steps(schedule, problem.n_lost, problem.n_known)
            back_share = reverse_share(problem.n_lost, problem.n_known) if back_steps else 0.0
            steps_run = probed.steps + schedule.fit_steps + back_steps  # the search's included
            training = dataclasses.replace(
                problem, n_cognates=demand,
                cfg=chosen.replace(capacity=least, cognate_fraction=max(0.001, estimate.share),
                                   channel_steps=steps_run),
            )  # fmt: skip
            fit = memo.run("fit", lambda: _train(
                training, corpus.lost_words, schedule.fit_steps, probed.steps, chosen.seed + 13, demand, least,
                start=copy.deepcopy(probed.channel), saving=memo.saving("fit")))  # fmt: skip
            fit_wins, fit_reads = _held_evidence(problem, fit.channel, probed)
            check = FitCheck.of(probed.estimate.wins_each, fit_wins, probed.estimate.reads_each, fit_reads)
            if not check.kept_fit:
                on_event(Decided("fit", check.why, problem.elapsed()))
            share = schedule.probe_share if check.kept_fit else 0.0
            blend = ChannelBlend(probed.channel, share) if share else None
            with problem.timer("score"):
                fit = score_channel(fit.channel if check.kept_fit else probed.channel, corpus.lost_words,
                                    corpus.known_words, problem.lost_charset, problem.known_charset)  # fmt: skip
            with problem.timer("capacity"):  # read from the kept channel's own readings, as it was chosen
                forms_of = corpus.lost_words if profile.syllabary else None
                capacity = estimate_capacity(fit.cost, demand, problem.n_known, forms_of)
            if back_steps:
                done = steps_run - back_steps
                reverse = memo.run("reverse", lambda: _train_reverse(training, demand, back_steps, done,
                                                                     memo.saving("reverse")))  # fmt: skip
                blend = ChannelBlend(reverse, back_share, reverse=True)
            if blend is not None:
                with problem.timer("score"):
                    fit = blend.mix_fit(fit, problem)  # in place on fit.cost
        except RunCancelled:
            result.status = "cancelled"
            return problem.finish(result)
        # The flows' D: the decided one, unless one-to-one readings kept it to the known list.
        flows_demand = capacity.demand
        flows_cfg = training.cfg.replace(capacity=capacity.capacity)
        if flows_demand != demand:
            flows_cfg = flows_cfg.replace(cognate_fraction=max(0.001, flows_demand / problem.n_lost))
        fitted = dataclasses.replace(training, n_cognates=flows_demand, cfg=flows_cfg)
        decisions = AutoDecisions(
            profile.as_dict(), kind, kind_why, estimate.as_dict(), capacity.capacity, capacity.why,
            steps_run, capacity.as_dict(), probed.evidence, probed.why, syllables.as_dict() if syllables else {},
            check.as_dict(), share, back_share, back_why,
        )  # fmt: skip
        result.decisions = decisions.as_dict()
        on_event(Decided("capacity", decisions.line(), problem.elapsed()))
        result.config = fitted.cfg  # what ran: the decided channel, D (as its share) and C
        result.n_cognates = fitted.n_cognates
        extra: dict[str, Any] = {"decisions": result.decisions}
        if blend is not None:
            extra["blend"] = blend.state()
        save_channel(checkpoint_path, fitted, self.name, fit.channel, extra=extra)
        return finish_channel_result(fitted, result, fit, blend)

    def _probe(
        self, problem: Problem, schedule: Schedule, syllables: _Syllables | None = None, done: int = 0,
        memo: StageMemo | None = None,
    ) -> _Probed:
        """Train the schedule's probe candidates on part of the lost words, estimate D on the rest
        with each, and keep one (see the module's docstring). Fresh channels start from the
        syllable search's map where it ran; steps are reported after the `done` ones. With `memo`,
        each channel trained is a stage of its own (a stopped run resumes after it)."""
        memo = memo or StageMemo(self.name)  # saves nowhere until bound
        cfg, corpus = problem.cfg, problem.corpus
        train, held = probe_split(problem.n_lost, cfg.seed, schedule.train_share)
        lost = corpus.lost_words
        train_words, held_words = [lost[i] for i in train], [lost[i] for i in held]
        with problem.timer("score"):
            decoys = decoy_lexicon(corpus.known_words, cfg.seed + 17)
        tried: list[tuple[Probe, _Estimate, Channel]] = []
        searched: list[list[dict[str, Any]]] = []  # each tried probe's search starts (none without a search)
        found = syllables.map if syllables and syllables.used else None
        single = syllables.map if syllables and syllables.single else None
        from_map: list[bool] = []  # whether each tried probe started from the single map
        for attempt, probe in enumerate(schedule.probes):
            start, starts = None, []
            if probe.search is not None:
                start, starts = _search(problem, probe, done, cfg.seed + 11 + 101 * attempt, found, memo,
                                        f"probe {attempt + 1} search")  # fmt: skip
                done += probe.search.total_steps
            # The first probe from a map only one start found, as well as from where it would start:
            # the one whose held-out words beat the decoys more often is kept, and the next probes
            # start where it started.
            for c, seeded in enumerate((found, single) if attempt == 0 and single is not None else (found,)):
                searched.append(starts)
                name = f"probe {attempt + 1}" + (" from the single map" if c else "")
                seed = cfg.seed + 11 + 101 * attempt

                def train(name: str = name, seeded: SyllableMap | None = seeded, start: Channel | None = start,
                          done: int = done, seed: int = seed, probe: Probe = probe) -> ChannelFit:  # fmt: skip
                    return _train(problem, train_words, probe.steps, done, seed, max(1, len(train_words) // 2), 1,
                                  rows=train, objective=probe.objective, start=start or _seeded(problem, seeded, seed),
                                  saving=memo.saving(name))  # fmt: skip

                fit = memo.run(name, train)
                if start is not None:  # a searched start trains in place: the next candidate goes on from it
                    start = fit.channel
                done += probe.steps
                tried.append((probe, _estimate(problem, fit.channel, held_words, decoys), fit.channel))
                from_map.append(single is not None and seeded is single)
            kept = kept_probe([e.held.wins for _, e, _ in tried])
            if from_map[kept]:
                found = single
            if not doubted(probe, tried[kept][1].held):
                break
        _, estimate, channel = tried[kept]
        evidence = [
            {"objective": p.objective, "steps": p.total_steps, "held_out": e.held.n_lost, "wins": e.held.wins,
             "share": round(e.share, 4), "share_upper": round(e.held.share_upper(), 4), "kept": k == kept,
             **({"search": searched[k]} if p.search else {}),
             **({"from_single_map": from_map[k]} if single is not None else {})}
            for k, (p, e, _) in enumerate(tried)
        ]  # fmt: skip
        why = _probe_why(schedule, tried, kept, from_map if single is not None else None)
        return _Probed(estimate, channel, evidence, why, done, held_words, decoys)

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
    ) -> DecipherResult:
        # Its decisions stand: a refinement trains the channel it chose, with its D and C.
        return refine_channel(
            self.name, corpus, start, constraints, rounds, on_event, cancel, checkpoint_path, draw
        )

    def check(self, corpus: Corpus, cfg: DecipherConfig) -> None:
        """auto decides from held-out words: it needs a word to train on and one to hold out."""
        if len(corpus.lost_words) < MIN_LOST_WORDS:
            raise ValueError(
                f"{corpus.name}: {len(corpus.lost_words)} lost word(s); auto needs at least {MIN_LOST_WORDS} "
                "(one to train its channel on, one held out to decide D): add words, or use --method channel"
            )

    def describe(self, config: dict[str, Any]) -> str:
        # A finished run's own line is its decisions' (describe_run); this is the line before them.
        return "auto: the channel, D and C chosen from the word lists"

    def char_map_source(self, config: dict[str, Any]) -> str:
        return "the channel auto chose (its decisions say which): P(written symbol | known letters)"


def _estimate(problem: Problem, channel: Channel, held_words: list[Word], decoys: list[Word]) -> _Estimate:
    """D from a probe channel: its held-out words against the known words and the decoys, corrected
    by how often its own cognates beat the decoys (engine/demand.py)."""
    cfg, corpus = problem.cfg, problem.corpus
    with problem.timer("score"):
        # The channel's own cognates (answer known) measure how often a cognate loses to decoys.
        synthetic = synthetic_cognates(
            channel, corpus.known_words, problem.lost_charset, problem.known_charset, len(held_words), cfg.seed + 19,
        )  # fmt: skip

        real, fake = _against(problem, channel, held_words, decoys)
        if synthetic:
            estimate = estimate_demand(real, fake, *_against(problem, channel, synthetic, decoys))
        else:  # a channel that drops every letter writes nothing to measure on
            estimate = estimate_demand(real, fake)
    return _Estimate(estimate, problem.n_lost, *_fit_check_evidence(real, fake, held_words, corpus.known_words))


def _against(
    problem: Problem, channel: Channel, lost: list[Word], decoys: list[Word]
) -> tuple[torch.Tensor, torch.Tensor]:
    """A channel's log P(x | y) of `lost` words against the known words and against the decoys:
    (n, n_known) and (n, n_decoys)."""
    cs = (problem.lost_charset, problem.known_charset)
    return (channel_log_probs(channel, lost, problem.corpus.known_words, *cs),
            channel_log_probs(channel, lost, decoys, *cs))  # fmt: skip


def _fit_check_evidence(
    real: torch.Tensor, fake: torch.Tensor, held_words: list[Word], known_words: list[Word]
) -> tuple[torch.Tensor, torch.Tensor]:
    """One channel's evidence for `FitCheck` from its `_against` scores of the held-out words: its
    `word_wins` (n_held,) and its `identity_reads` (n_identical,). The probe's and the fit's are
    both taken here, so that the paired tests compare like with like."""
    return word_wins(real, fake), identity_reads(real, held_words, known_words)


def _held_evidence(problem: Problem, channel: Channel, probed: _Probed) -> tuple[torch.Tensor, torch.Tensor]:
    """A channel's `_fit_check_evidence` on the kept probe's held-out words and decoys."""
    with problem.timer("score"):
        real, fake = _against(problem, channel, probed.held_words, probed.decoys)
        return _fit_check_evidence(real, fake, probed.held_words, problem.corpus.known_words)


def _probe_why(
    schedule: Schedule, tried: list[tuple[Probe, _Estimate, Channel]], kept: int, from_map: list[bool] | None = None
) -> str:
    """Which probe was kept and why, in a phrase; empty where the schedule has one candidate.
    `from_map`: whether each tried probe started from a map only one syllable search start found."""
    if len(schedule.probes) == 1:
        return ""

    def started(k: int) -> str:
        return ("" if from_map is None else " from the map one start found" if from_map[k] else " from a random start")

    probe, estimate, _ = tried[kept]
    if len(tried) == 1:
        return (f"probe: {probe.objective} objective (up to {100 * estimate.held.share_upper():.0f}% of lost "
                f"words have a cognate, as it assumes)")  # fmt: skip
    others = ", ".join(
        f"the {p.objective} probe{started(k)}'s {100 * e.held.wins / e.held.n_lost:.0f}%"
        for k, (p, e, _) in enumerate(tried) if k != kept
    )  # fmt: skip
    searched = f", its map searched from {probe.search.starts} starts on every word" if probe.search else ""
    return (f"probe: {probe.objective} objective{started(kept)}{searched} (its held-out words beat decoys "
            f"{100 * estimate.held.wins / estimate.held.n_lost:.0f}% against {others})")  # fmt: skip


def _search(
    problem: Problem, probe: Probe, done: int, seed: int, found: SyllableMap | None, memo: StageMemo, stage: str,
) -> tuple[Channel, list[dict[str, Any]]]:  # fmt: skip
    """The probe's search (`Search`): its objective on every lost word from each start (D = half the
    lost words, C = 1; each start from the syllable search's map `found` where there is one),
    reporting steps after the `done` ones. Returns the kept channel, and each start's final loss
    (mean over its last SEARCH_LOSS_TAIL of steps) and whether it was kept. Each start is a stage
    of `memo` (`stage` and its number): its batch losses decide, so it is saved whole, not mid-way."""
    assert probe.search is not None
    losses, channels = [], []
    for k in range(probe.search.starts):

        def start(k: int = k) -> tuple[ChannelFit, list[float]]:
            batch_losses: list[float] = []
            fit = _train(problem, problem.corpus.lost_words, probe.search.steps, done + k * probe.search.steps,
                         seed + 7 * (k + 1), max(1, problem.n_lost // 2), 1, objective=probe.objective,
                         losses=batch_losses, start=_seeded(problem, found, seed + 7 * (k + 1)),
                         channel=f"search start {k + 1}")  # fmt: skip
            return fit, batch_losses

        fit, batch_losses = memo.run(f"{stage} start {k + 1}", start)
        losses.append(float(np.mean(batch_losses[-max(1, int(len(batch_losses) * SEARCH_LOSS_TAIL)) :])))
        channels.append(fit.channel)
    kept = int(np.argmin(losses))
    return channels[kept], [{"start": k, "loss": round(x, 4), "kept": k == kept} for k, x in enumerate(losses)]


@dataclass(frozen=True)
class _Syllables:
    """The syllable search's kept map and every start's evidence."""

    map: SyllableMap
    starts: list[dict[str, Any]]
    # Where the search stopped because its starts explain the words as well as a true map would
    # (CHANCE_SHARE): that map's gain (`planted_gain`); None where it did not stop for that.
    chance_of: float | None = None

    @property
    def chance(self) -> bool:
        """Whether no start can be told from chance: too few lost words to pin a sign map."""
        return self.chance_of is not None

    @property
    def used(self) -> bool:
        """Whether channels start from the map: only where two starts found one map (a map no other
        start reproduces is partly chance: on Linear B five such maps each read part of it) and it
        explains the lost words better than their signs' own frequencies do (a gain above 0)."""
        return self.agreed and self.map.gain > 0

    @property
    def agreed(self) -> bool:
        return any(s["agrees"] for s in self.starts)

    @property
    def single(self) -> bool:
        """Whether the kept map is one that no other start reproduced but that explains the lost words
        well (SINGLE_MAP_GAIN): on a large list a start finds the map rarely, so one may be alone, and
        a partial map looks the same (Linear B). It is not trusted as `used` is; the first probe is
        trained from it and from a random start, and its held-out evidence decides (`AutoMethod._probe`)."""
        return not self.agreed and not self.chance and self.map.gain >= SINGLE_MAP_GAIN

    @property
    def why(self) -> str:
        vowels = "".join(self.map.vowels)
        gain = f"{self.map.gain:.2f} nats a word beyond the signs' frequencies (vowels {vowels})"
        tried = f"of {len(self.starts)} maps ({'two agree' if self.agreed else 'none agree'})"
        if self.chance:
            gains = [s["gain"] for s in self.starts]
            return (f"signs searched as syllables, no map can be told from chance: {tried} all explain "
                    f"{min(gains):.2f}-{max(gains):.2f} nats a word, a true map about {self.chance_of:.2f} (too "
                    "few lost words to pin a sign map; known sign values would)")  # fmt: skip
        if self.single:
            return (f"signs searched as syllables: {tried} the best explains the lost words {gain}; one start "
                    "alone found it, so the probe is trained from it and from a random start")  # fmt: skip
        if not self.used:
            return f"signs searched as syllables, no map found: {tried} the best explains {gain}"
        return f"signs searched as syllables: {tried} the best explains the lost words {gain}"

    def as_dict(self) -> dict[str, Any]:
        chance = {"planted_gain": round(self.chance_of, 4)} if self.chance_of is not None else {}
        return {**self.map.as_dict(), "starts": self.starts, "used": self.used, **chance, "why": self.why}


def _search_syllables(
    problem: Problem, search: SyllableSearch, found_before: list[SyllableMap] | None = None,
    on_map: Callable[[list[SyllableMap]], None] | None = None,
) -> _Syllables:  # fmt: skip
    """The syllable search (`SyllableSearch`): anneal from each start, keep the map of highest
    log-likelihood, reporting its moves as steps (MOVES_A_STEP a step) from the first. The
    scholar's known sign values, where given, hold their units' signs in every start.
    `found_before`: the maps of the first starts, found by a run that was stopped (they are not
    searched again); `on_map(maps so far)` after each start."""
    cfg, corpus = problem.cfg, problem.corpus
    steps_each = search.steps_each
    values = [(v.lost, v.known) for v in problem.signs.values] if problem.signs else []
    fixed = value_units(values, known_vowels(corpus.known_words)) if values else None
    maps: list[SyllableMap] = list(found_before or [])
    chance_of: float | None = None  # where the starts are at chance level: a true map's gain (`planted_gain`)
    last = [len(maps) * steps_each]

    def on_progress(moves: int, loss: float) -> None:
        step = (moves + len(found_before or []) * search.moves) * steps_each // search.moves
        if step > last[0]:  # a step at a time, as the channel reports them
            for s in range(last[0] + 1, step + 1):
                problem.on_event(ChannelStep(0, s, cfg.channel_steps, loss, problem.elapsed(), "syllables"))
            last[0] = step

    def enough() -> bool:
        """Whether the starts taken so far settle the search (sets `chance_of` where at chance)."""
        nonlocal chance_of
        k = len(maps)
        if k >= search.starts and any(_agreeing(maps)):
            return True
        if k == search.starts and fixed is None:  # a scholar's values pin the map: starts are not chance there
            planted = planted_gain(corpus.lost_words, corpus.known_words, cfg.seed)
            if _chance_level([m.gain for m in maps], planted):
                chance_of = planted
                return True
        return False

    seeds = [cfg.seed + 23 + 31 * k for k in range(search.max_starts)][len(maps) :]
    workers = cfg.threads or usable_cores()  # the cores the run may use, as torch's threads
    with problem.timer("syllables"), closing(search_starts(
        corpus.lost_words, corpus.known_words, seeds, search.moves, workers, should_stop=problem.cancel.is_set,
        on_progress=on_progress, fixed=fixed,
    )) as starts:  # fmt: skip
        if not (maps and enough()):
            for found in starts:
                if found is None:
                    raise RunCancelled()
                maps.append(found)
                if on_map is not None:
                    on_map(maps)
                if enough():  # the starts taken so far: is another needed?
                    break
    kept, agrees = kept_syllable_map(maps)
    starts = [
        {"start": k, "gain": round(m.gain, 4), "agrees": a, "kept": k == kept}
        for k, (m, a) in enumerate(zip(maps, agrees, strict=True))
    ]
    return _Syllables(maps[kept], starts, chance_of)


def _chance_level(gains: list[float], planted: float) -> bool:
    """Whether search starts of these gains can none be told from chance, where a true map would
    gain `planted`: even the weakest reaches CHANCE_SHARE of it, and none stands out from the weakest
    by more than CHANCE_SPREAD (a start that found the map does)."""
    weakest = min(gains)
    return weakest >= CHANCE_SHARE * planted and max(gains) <= CHANCE_SPREAD * weakest


def kept_syllable_map(maps: list[SyllableMap]) -> tuple[int, list[bool]]:
    """(the kept map, whether each map agrees with another): the map that explains the lost words
    best among those another start reproduced, or among all where none was."""
    agrees = _agreeing(maps)
    candidates = [k for k in range(len(maps)) if agrees[k]] or list(range(len(maps)))
    return max(candidates, key=lambda k: maps[k].log_likelihood), agrees


def _agreeing(maps: list[SyllableMap]) -> list[bool]:
    """For each map, whether another agrees with it (AGREEMENT)."""
    return [any(a.agreement(b) >= AGREEMENT for j, b in enumerate(maps) if j != k) for k, a in enumerate(maps)]


def _seeded(problem: Problem, found: SyllableMap | None, seed: int) -> Channel | None:
    """A fresh channel started from the syllable search's map (None where there is no map: the
    trainer then makes its own random start)."""
    if found is None:
        return None
    cfg = problem.cfg
    channel = new_channel(cfg.channel_kind, problem.lost_charset, problem.known_charset,
                          torch.Generator().manual_seed(seed), cfg.channel_init_scale, cfg.channel_copy_bias,
                          problem.pinned_signs, problem.device)  # fmt: skip
    seed_channel(channel, found, problem.lost_charset, problem.known_charset)  # type: ignore[arg-type]
    return channel


def reverse_steps(schedule: Schedule, n_lost: int, n_known: int) -> tuple[int, str]:
    """The reverse channel's steps (0: none) and, where the schedule has one but it is left out, why.

    Where writing the known words from the lost ones would train through shortlists (the full
    Ugaritic list: 39451 x 7235 words), the reverse channel costs more than the rest of the run:
    on an H100 its steps took 1 s each where the fit's took 0.4 s, about 5 minutes added to a
    2-minute run, and more on a CPU. A run there reads one direction."""
    if not schedule.reverse_steps:
        return 0, ""
    if shortlisted(n_known, n_lost):
        return 0, (f"one direction: {n_known} x {n_lost} words are too many pairs to also write the known words"
                   " from the lost ones")  # fmt: skip
    return schedule.reverse_steps, ""


def reverse_share(n_lost: int, n_known: int) -> float:
    """The reverse channel's share of the final log-probabilities, n_lost / (n_lost + n_known).

    A channel learns its letters from the words it writes that have a cognate: with D pairs, D /
    n_lost of the lost words and D / n_known of the known ones. Each direction weighs as that
    share, normalised, which is this whatever D is. Lists of one size weigh alike; a known list
    six times the lost one (the small Ugaritic file) gives the reverse 15%: most of the known words
    it learnt to write have no cognate (docs/experiments.md, "Both directions")."""
    return n_lost / (n_lost + n_known)


def _train_reverse(problem: Problem, demand: int, steps: int, done: int, saving: Saving | None = None) -> Channel:
    """A fresh channel trained the other way: every known word written from the lost words, with
    the transport objective, D = the run's `demand` (at most one pair a known word) and C = 1 (one
    known word a lost word), reporting its steps after the `done` ones.

    Why: each direction's log-probability leaves out what the other weighs. log P(lost | known)
    does not charge a known word for letters the lost word's spelling does not explain, and a
    known word that writes many lost words well (short, common letters) attracts them; log P(known
    | lost) charges exactly those; the two are blended by `reverse_share` (docs/experiments.md,
    "Both directions")."""
    back = problem.reversed(min(demand, problem.n_known))
    problem.on_event(Decided("reverse", f"both directions: a reverse channel writes the {problem.n_known} known"
                             f" words from the lost ones ({steps} steps)", problem.elapsed()))  # fmt: skip
    return _train(back, list(back.corpus.lost_words), steps, done, problem.cfg.seed + 29, back.n_cognates, 1,
                  channel="reverse", saving=saving).channel


def _train(
    problem: Problem, lost_words: list[Word], steps: int, done: int, seed: int, demand: int, capacity: int,
    start: Channel | None = None, rows: np.ndarray | None = None, objective: ChannelObjective = "transport",
    losses: list[float] | None = None, channel: str = "", saving: Saving | None = None,
) -> ChannelFit:
    """Train the problem's channel kind on `lost_words` (the corpus's lost words `rows`, None: all)
    against every known word with `objective` (transport: D = `demand`, C = `capacity`) under the
    problem's judgments, from `start` (None: a fresh channel), reporting steps after the `done`
    ones (as `channel`'s, `ChannelStep.channel`) and appending each batch loss to `losses`. No
    pair is scored after training (the fit's cost is empty): the caller scores the channel it
    keeps. `saving`: its state saved as it goes, and where a resumed run continues it. Raises
    RunCancelled when the cancel flag is set."""
    cfg = problem.cfg

    def on_step(step: int, loss: float) -> None:
        if losses is not None:
            losses.append(loss)
        problem.on_event(ChannelStep(0, done + step, cfg.channel_steps, loss, problem.elapsed(), objective, channel))

    with problem.timer("train"):
        fit = fit_channel(
            lost_words, problem.corpus.known_words, problem.lost_charset, problem.known_charset, steps,
            cfg.channel_lr, cfg.channel_batch, seed, cfg.channel_init_scale, on_step=on_step,
            should_stop=problem.cancel.is_set, objective=objective, n_cognates=demand, capacity=capacity,
            kind=cfg.channel_kind, copy_bias=cfg.channel_copy_bias, start=start, score_all=False,
            review=problem.review, rows=rows, signs=problem.pinned_signs, device=problem.device, saving=saving,
        )  # fmt: skip
    if fit is None:
        raise RunCancelled()
    return fit


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

    @property
    def demand_all(self) -> int:
        return max(1, round(self.held.share * self.n_lost_all))

    def as_dict(self) -> dict[str, Any]:
        return {**self.held.as_dict(), "n_lost_all": self.n_lost_all, "demand": self.demand_all}


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
