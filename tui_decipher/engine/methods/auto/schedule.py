"""How auto trains each channel kind: the probes, the fit, the reverse channel and the syllable
search, as step budgets (`SCHEDULES`), and the flows' graph."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...run.config import ChannelObjective, Sparsify


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
    """A search for the sign map before a probe: its objective trained on the probe's training
    words from `starts` random starts, `steps` each, the start with the lowest final loss kept: a
    start that found the map fits them far better than one that missed it (docs/experiments.md).
    It once trained on every word, where more starts find the map, but then the held-out words
    that decide D and the probe were trained on (docs/demand.md)."""

    starts: int
    steps: int

    @property
    def total_steps(self) -> int:
        return self.starts * self.steps


@dataclass(frozen=True)
class Probe:
    """One candidate probe: the objective it trains with and its steps on the probe's share of the
    lost words, after a `search` on the same words where it has one."""

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
    # Steps of the pass that calibrates the kept probe before D is read (calibration.py): on
    # generated tuning corpora 50 brought its own cognates' rate within a few points of the rate
    # real cognates reach, and 150 did no better (docs/demand.md).
    calibration_steps: int = 50
    # Steps of the cross channel, trained on the probe's held-out words as the first probe is on its
    # own (cross_channel.py: the edit channel only); 0: none.
    cross_steps: int = 0

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
        probes = sum(p.total_steps for p in self.probes) + self.calibration_steps + self.cross_steps
        return search + probes + self.fit_steps + self.reverse_steps

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
            self.syllables, moves=max(MOVES_A_STEP, self.syllables.moves * steps // self.budget)
        )
        return dataclasses.replace(
            self,
            probes=probes,
            fit_steps=part(self.fit_steps),
            calibration_steps=part(self.calibration_steps),
            syllables=syllables,
            reverse_steps=self.reverse_steps and part(self.reverse_steps),
            cross_steps=self.cross_steps and part(self.cross_steps),
        )


def schedule_for(kind: str, steps: int) -> Schedule:
    """The channel kind's schedule, within the user's budget of `steps` (`auto_steps`; 0: its own)."""
    return SCHEDULES[kind].scaled(steps) if steps else SCHEDULES[kind]


# Per channel kind. A syllabary's map needs more words and steps than an alphabet's, so the pieces
# probe trains on 80% of the lost words. Where many lack a cognate, its transport probe searches
# from two starts before training. A syllable search start finds a long syllabary's map only now
# and then, so up to 20 are tried. The pieces probe, trained on most of the words, weighs a quarter
# of the final costs; the edit probe, on half of them, gained nothing from it (docs/experiments.md:
# "auto's probe on a syllabary", "The syllable search, faster, and tried from more starts", "auto's
# probe blended into its final costs on two scripts").
SCHEDULES: dict[str, Schedule] = {
    "edit": Schedule((Probe("transport", 150),), 150, 0.5, reverse_steps=300, cross_steps=150),
    "pieces": Schedule(
        (Probe("lexicon", 300), Probe("transport", 150, Search(2, 600))),
        300,
        0.8,
        SyllableSearch(2, 20, 300_000),
        probe_share=0.25,
    ),
}
# The flows' graph: each lost word's top 5 known words is too narrow where D nears N and C = 1 (on
# Romance, words crowd one another out into dear candidates); it is widened while that lowers the
# flow's own cost (engine/flow/graph.py), a check on the flow's objective, not on gold.
FLOW_GRAPH: Sparsify = "grown-top-k"
MOVES_A_STEP = 6000  # annealing moves shown as one step of the progress bar (a channel step's time when the
# moves ran interpreted; compiled, such steps pass some ten times faster, but the bar's length is kept so
# that no schedule's budget changes. 20 starts of 300,000 moves fill the 1000 steps that 5 starts of
# 200,000 did: no scaled schedule changed)
