"""A cipher of an alphabet read again as one alphabet, through the map its own channel learnt.

Two scripts of about as many symbols (a one-to-one substitution: an alphabet written in signs of
another block) get the pieces channel, which learns from nothing which letter each sign writes.
On 100-300 real words it learns part of the map; the edit channel, the channel that reads one
alphabet, then reads far more from the same words when its copy prior is placed by that map (each
sign's write logit starts `copy_bias` above the others at the letter it reads as) than the pieces
channel does from its own training: its priors are the ones that suit two related alphabets (most
letters written as themselves, insertions and drops anywhere), and it corrects a wrong sign by
training, as it corrects a sound change. The edit channel's own map then places the prior of a
next pass, until the map stands still (docs/dev-pairs.md, "A cipher read again through its own map").

The map is read from the channel alone (its `character_map`, P(letter | sign)), never from gold,
and made one-to-one (`linear_sum_assignment`): two signs read as one letter would read two lost
words as one. A sign with no letter left keeps no prior.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from ...channels.protocol import Channel
from ...constraints.sign_values import SignValues
from ...corpora.charset import SPECIALS
from ...run.events import ChannelStep, Decided, EventCallback
from ...run.problem import Problem
from ...run.state_data import ClassTable
from ..stages import StageMemo
from .fitting import FittedStages, Prepared, ProbeStage, fit_stages
from .schedule import schedule_for
from .scripts import ScriptProfile

# At most this many passes read the words again: each is a run of the one-alphabet path (a probe, D,
# the fit and the reverse channel), and a third pass read no better than the second on the dev
# pairs (docs/dev-pairs.md, "A cipher read again through its own map").
MAX_PASSES = 3
# A reading below this probability is no evidence for a sign's letter: such a sign keeps no prior.
LEAST_READING = 0.02


@dataclass(frozen=True)
class SignReading:
    """Each lost sign's letter (lost symbol -> known symbol), one-to-one."""

    letters: dict[str, str]
    n_signs: int  # the lost script's signs (those left unread included)

    def changed_from(self, other: SignReading | None) -> int:
        """How many signs read otherwise than in `other` (every read sign where there is none)."""
        if other is None:
            return len(self.letters)
        signs = set(self.letters) | set(other.letters)
        return sum(1 for s in signs if self.letters.get(s) != other.letters.get(s))


def reads_again(profile: ScriptProfile, signs: SignValues | None) -> bool:
    """Whether auto reads the words again as one alphabet: two scripts, the lost one not a
    syllabary (a sign there writes a syllable, which the edit channel cannot write), and no
    scholar's value of more than one letter (the edit channel holds one-letter values only)."""
    return not profile.one_alphabet and not profile.syllabary and (signs is None or signs.longest <= 1)


def sign_reading(channel: Channel, problem: Problem) -> SignReading:
    """The one-to-one map of lost signs to known letters that `channel` reads most probably: the
    assignment that maximises the summed log P(letter | sign) over the signs' single-letter
    readings (`character_map`), each at least LEAST_READING."""
    letters = list(problem.known_charset.symbols[len(SPECIALS) :])
    column = {letter: j for j, letter in enumerate(letters)}
    readings = channel.character_map(
        problem.corpus.known_words, problem.lost_charset, problem.known_charset, top=len(problem.known_charset)
    )
    signs = list(readings)
    unread = 1e3  # a cost no real reading has: a sign assigned at it is left unread
    cost = np.full((len(signs), len(letters)), unread)  # (n_signs, n_letters): -log P(letter | sign)
    for i, sign in enumerate(signs):
        for piece, p in readings[sign]:
            if piece in column and p >= LEAST_READING:
                cost[i, column[piece]] = -math.log(p)
    rows, cols = linear_sum_assignment(cost)
    chosen = {signs[i]: letters[j] for i, j in zip(rows, cols, strict=True) if cost[i, j] < unread}
    return SignReading(chosen, len(signs))


def read_through(problem: Problem, reading: SignReading) -> Problem:
    """`problem` with its lost signs read as `reading`'s letters by every channel's copy prior."""
    return dataclasses.replace(problem, lost_charset=problem.lost_charset.with_reading(reading.letters))


@dataclass(frozen=True)
class ReadAgain:
    """What the passes did: each pass's count of signs read otherwise than before, and the last
    pass's map; summary.json's `decisions["reading"]`."""

    changed: tuple[int, ...]
    reading: SignReading

    @property
    def why(self) -> str:
        passes = len(self.changed)
        moved = f"; its last moved {self.changed[-1]} sign(s)" if passes > 1 else ""
        return (
            f"read again as one alphabet through its own map of the signs ({passes} pass{'es' if passes > 1 else ''}"
            f"{moved}; {len(self.reading.letters)} of {self.reading.n_signs} signs read as a letter)"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "passes": len(self.changed), "changed": list(self.changed), "read": len(self.reading.letters),
            "signs": self.reading.n_signs, "why": self.why,
        }  # fmt: skip


class PassSteps:
    """The channel steps of a run that reads again, counted as one run's: each pass's steps continue
    from the last pass's, and the total counts the passes that may follow (at most MAX_PASSES, each at
    most the edit schedule's budget), so the progress bar runs on across passes; where the map
    stands still, `close` ends it at the steps run. An event callback in front of the run's own."""

    def __init__(self, on_event: EventCallback, pass_budget: int) -> None:
        self.on_event, self.pass_budget = on_event, pass_budget
        self.before = 0  # the steps of the passes done
        self.total = 0  # the total the pass under way reports
        self.passes_left = MAX_PASSES
        self.furthest: ChannelStep | None = None  # the step furthest on, as reported

    def __call__(self, event: object) -> None:
        if isinstance(event, ChannelStep):
            self.total = event.steps
            ahead = self.passes_left * self.pass_budget
            event = dataclasses.replace(event, step=self.before + event.step, steps=self.before + event.steps + ahead)
            if self.furthest is None or event.step >= self.furthest.step:
                self.furthest = event
        self.on_event(event)

    def close(self) -> None:
        """The passes are over: the bar ends at the steps they ran (its last step again, as the total)."""
        if self.furthest is not None and self.furthest.step < self.furthest.steps:
            self.on_event(dataclasses.replace(self.furthest, steps=self.furthest.step))

    def next_pass(self) -> None:
        """A pass begins: the steps so far are the passes' before it."""
        self.before += self.total
        self.total = 0
        self.passes_left -= 1

    @classmethod
    def around(cls, run: Prepared) -> tuple[Prepared, PassSteps]:
        """`run` with its events counted as one run's passes (`run.problem.on_event` wrapped), and the count."""
        steps = cls(run.problem.on_event, schedule_for("edit", run.chosen.auto_steps).budget)
        return dataclasses.replace(run, problem=dataclasses.replace(run.problem, on_event=steps)), steps


def read_again(run: Prepared, fitted: FittedStages, probe: ProbeStage, method: str, classes: ClassTable,
               steps: PassSteps) -> tuple[Prepared, FittedStages, ReadAgain]:  # fmt: skip
    """The run's stages trained again on one alphabet, pass after pass, each through the map of
    the channel the pass before kept (`sign_reading`), until the map stands still or MAX_PASSES:
    the last pass's problem and stages, and what the passes did. A pass saves no stages (a stopped
    run resumes after its first pass's and trains the passes again, from the same seeds).
    Raises RunCancelled when the cancel flag is set."""
    changed: list[int] = []
    reading, previous = sign_reading(fitted.fit.channel, fitted.training), None
    while len(changed) < MAX_PASSES and (moved := reading.changed_from(previous)):
        changed.append(moved)
        problem = run.problem
        steps.next_pass()
        problem.on_event(Decided(
            "script", f"pass {len(changed)}: the words read again as one alphabet, {len(reading.letters)} of "
            f"{reading.n_signs} signs read as a letter ({moved} otherwise than before)", problem.elapsed(),
        ))  # fmt: skip
        run = _one_alphabet(run, reading)
        memo = StageMemo(method, classes=classes)
        memo.bind(None, run.chosen, run.problem)
        fitted = fit_stages(run, memo, probe)
        previous = reading
        if len(changed) < MAX_PASSES:  # the next pass's map, where there may be one
            reading = sign_reading(fitted.fit.channel, fitted.training)
    assert previous is not None
    steps.close()
    done = ReadAgain(tuple(changed), previous)
    return dataclasses.replace(run, kind_why=f"{run.kind_why}; {done.why}"), fitted, done


def _one_alphabet(run: Prepared, reading: SignReading) -> Prepared:
    """`run` decided again for the edit channel, its lost signs read through `reading`."""
    schedule = schedule_for("edit", run.chosen.auto_steps)
    chosen = run.chosen.replace(channel_kind="edit", channel_steps=schedule.budget, channel_gaps=False)
    problem = dataclasses.replace(read_through(run.problem, reading), cfg=chosen)
    return dataclasses.replace(run, kind="edit", schedule=schedule, chosen=chosen, problem=problem)
