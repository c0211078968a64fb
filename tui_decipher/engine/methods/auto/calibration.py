"""The probe's channel calibrated before D is read from it: a short pass that trains a copy on the
words the evidence says have a cognate, so that the words it writes lose to decoys as often as
real cognates do.

D / N = (p - q) / (r - q) (demand.py) takes r, the rate at which cognates beat the decoys, from
the probe channel's own cognates: words it writes from real known words. A probe trains with D at
half of its words, and its plan lets a word without a cognate send most of its unit to known words
anyway ("no cognate" scored at the word's average known word, engine/channels/transport.py). Where
fewer than half of the lost words have a cognate, the channel then learns to write those words
too: it writes more edits than real cognates have, its own cognates lose to the decoys more often
than real ones (r 0.78-0.80 against 0.92-0.97 on generated pairs where a third have a cognate),
and D reads far too high (docs/demand.md).

The copy trains on the probe's training words with D at the lowest share the held-out evidence
allows (`DemandEstimate.share_low`: r = 1, p and q two standard errors apart), a share that real
cognates fill, and with "no cognate" scored at each word's second-best known word, what a word
without a cognate reaches by chance. D is then read again with the copy: p, q and r alike, so
all three describe one channel. The kept probe's channel itself is what the fit continues from.
Long lists (the full Ugaritic list) are not calibrated (`calibrates`).
"""

from __future__ import annotations

import copy
import dataclasses

import numpy as np

from ...channels.protocol import Channel
from ...channels.shortlist import shortlisted
from ...channels.trainer import ChannelFit
from ...corpora.corpus import Word
from ...run.problem import Problem
from .demand import DemandEstimate, share_range
from .training import _train


def calibrates(n_train: int, n_known: int) -> bool:
    """Whether the probe is calibrated: not on a long list (`shortlisted`: the full Ugaritic list).
    There 50 steps are under two passes over its 3617 words (17 over the small file's 367); on
    the full list the copy's own cognates won 74% of the time, as the probe's
    did, while the pass and the scores read again took about 76 s of a 311 s run."""
    return not shortlisted(n_train, n_known)


def calibration_share(estimate: DemandEstimate) -> float:
    """The share the calibration pass trains at: the lowest the held-out evidence allows
    (`share_low`; the estimate's own share where no range was measured)."""
    return estimate.share_low if estimate.share_low is not None else estimate.share


def calibration_demand(estimate: DemandEstimate, n_train: int) -> int:
    """D for the calibration pass on `n_train` training words (`calibration_share`)."""
    return max(1, round(calibration_share(estimate) * n_train))


def calibrated(
    problem: Problem,
    channel: Channel,
    estimate: DemandEstimate,
    train_words: list[Word],
    train_rows: np.ndarray,
    done: int,
    seed: int,
    steps: int,
) -> ChannelFit:
    """A copy of the probe's `channel` trained `steps` more steps on its training words (`train_rows`
    of the corpus) with D at `calibration_demand` and "no cognate" at chance level, steps reported
    after the `done` ones (its fit's cost is empty). The probe's channel is left as it was."""
    demand = calibration_demand(estimate, len(train_words))
    return _train(problem, train_words, steps, done, seed, demand, 1, start=copy.deepcopy(channel), rows=train_rows,
                  no_cognate="chance", channel="calibration")  # fmt: skip


def recalibrated(probe: DemandEstimate, calibration: DemandEstimate) -> DemandEstimate:
    """D as the calibrated copy reads it (`calibration`), with the range the evidence allows taken
    from r = 1 to the lower of the two channels' own-cognate rates: the copy trains on the words
    surest to have a cognate, and where cognates vary (Romance) it writes words cleaner than the
    average real cognate, so its r can be the higher one (docs/demand.md)."""
    rates = [e.synthetic_wins / e.n_synthetic for e in (probe, calibration) if e.n_synthetic]
    p, q = calibration.wins / calibration.n_lost, calibration.chance
    low, high = share_range(p, calibration.n_lost, q, calibration.n_null, min(rates) if rates else None)
    why = f"{calibration.why}, calibrated at D = {100 * calibration_share(probe):.0f}% of its words"
    return dataclasses.replace(calibration, why=why, share_low=low, share_high=high)
