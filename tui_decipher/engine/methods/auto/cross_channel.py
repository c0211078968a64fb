"""A channel trained on the probe's held-out words, which reads the probe's own cognates too.

D / N = (p - q) / (r - q) (demand.py) takes r, how often a cognate beats the decoys, from the
probe's own cognates: words the probe writes from real known words, scored by the probe itself. A
channel scores its own writing as well as it can, and on a short list the probe has learnt a
rough map from 50-140 words: its own cognates beat the decoys 92-100% of the time where the real
held-out cognates did 60-90% (the dev pairs at seed 1, docs/dev-pairs.md). r then reads high and D
low: a quarter to a half of the gold count on Breton-Cornish, French-Catalan, Irish-Gaelic and
Romanian-Sardinian.

So the probe's own cognates are read a second time by a channel the probe never was: one trained
the same way on the other half of the words, the probe's held-out ones. Where the two channels
disagree, the probe's writing loses to the decoys as a real cognate does. The cross channel errs
from the true correspondences as much as the probe does, and the two errors add, where a real
cognate meets one: r is read with each row of own cognates once by each channel (`split_scores`'
`cross`), half way between the two. The held-out words stay held out from the probe, whose p
and q are read as before.

Only the edit channel has one: a fresh channel with the copy prior reads any pair near an edit
distance from its first step, where a fresh pieces channel on half a two-script list has no map
to read with. Long lists (`shortlisted`) have none either: their probe learns from thousands of
words, and training another there costs as much as the probe.
"""

from __future__ import annotations

from ...channels.protocol import Channel
from ...run.problem import Problem
from ...run.seeds import derive
from ..stages import StageMemo
from .calibration import calibrates
from .probe_words import ProbeWords
from .schedule import Schedule
from .training import _train


def has_cross(problem: Problem, schedule: Schedule, words: ProbeWords) -> bool:
    """Whether the run reads its probe's cognates with a cross channel too (see the module's
    docstring): its schedule has one (the edit channel's), on held-out words of a list not long."""
    return schedule.cross_steps > 0 and len(words.held) > 1 and calibrates(len(words.train), problem.n_known)


def cross_channel(
    problem: Problem, schedule: Schedule, words: ProbeWords, done: int, memo: StageMemo
) -> tuple[Channel | None, int]:
    """The cross channel (None where the run has none, `has_cross`), trained as the first probe is
    (its objective, `cross_steps` steps) on the probe's held-out words, a stage of `memo`; and the
    steps run by then, after `done`."""
    if not has_cross(problem, schedule, words):
        return None, done
    probe, steps = schedule.probes[0], schedule.cross_steps

    def train() -> Channel:
        return _train(problem, words.held, steps, done, derive(problem.cfg.seed, "auto cross"),
                      max(1, len(words.held) // 2), 1, rows=words.held_rows, objective=probe.objective,
                      channel="cross").channel  # fmt: skip

    return memo.run("cross", train), done + steps
