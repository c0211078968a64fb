"""The search before a probe (`Search`): its objective trained on the probe's training words from
a few random starts, the start with the lowest final loss kept (a start that found the sign map
fits the words far better than one that missed it)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...channels.protocol import Channel
from ...channels.syllables import SyllableMap
from ...channels.trainer import ChannelFit
from ...run.problem import Problem
from ...run.seeds import derive
from ...run.side_by_side import Job
from ..stages import StageMemo
from .schedule import Probe
from .training import _seeded, _train

# The final loss of a search start: the mean batch loss over its last tenth of steps (one batch is noisy).
SEARCH_LOSS_TAIL = 0.1


def probe_search_starts(probe: Probe, found: SyllableMap | None) -> int:
    """How many starts the probe's search trains: its `Search.starts` from random starts, one where
    every start would begin at the syllable search's map `found` (one two of its starts agreed on,
    or one start's map whose probe led). The search is there to find the map, which random starts
    do only sometimes; starts that all begin at one map differ only in their batches (on the Linear
    B names, two such starts ended within 2% of each other's loss, seeds 1 and 2)."""
    assert probe.search is not None
    return 1 if found is not None else probe.search.starts


def searched_channel(
    problem: Problem, probe: Probe, done: int, seed: int, found: SyllableMap | None, memo: StageMemo, stage: str,
    rows: np.ndarray, hold: bool = False,
) -> tuple[Channel, list[dict[str, Any]]]:  # fmt: skip
    """The probe's search (`Search`): its objective on the probe's training words `rows` from each
    start (`probe_search_starts`; D = half of them, C = 1; each start from the syllable search's map
    `found` where there is one, held to it with `hold`; never on the held-out words, whose decoy
    wins must come from words no channel trained on), reporting steps after the `done` ones.
    Returns the kept channel, and each start's final loss (mean over its last SEARCH_LOSS_TAIL of
    steps) and whether it was kept. Each start is a stage of `memo` (`stage` and its number): its
    batch losses decide, so it is saved whole, not mid-way. The starts train side by side where the
    run has two cores or more (`side_by_side`)."""
    search = probe.search
    assert search is not None
    names = [f"{stage} start {k + 1}" for k in range(probe_search_starts(probe, found))]

    def job(k: int) -> Job:
        def start(own: Problem) -> tuple[ChannelFit, list[float]]:
            batch_losses: list[float] = []
            words = [own.corpus.lost_words[i] for i in rows]
            start_seed = derive(seed, "probe search start", k)
            fit = _train(own, words, search.steps, done + k * search.steps,
                         start_seed, max(1, len(words) // 2), 1, rows=rows, objective=probe.objective,
                         losses=batch_losses, start=_seeded(own, found, start_seed, hold),
                         channel=f"search start {k + 1}")  # fmt: skip
            return fit, batch_losses

        return Job(done + k * search.steps, start)

    # Side by side where the run has the cores: each start is a function of its own seed, and a
    # compiled kernel's gradient does not depend on the threads it is split over, so side by side
    # they end as in turn, bit for bit.
    trained = memo.run_side_by_side(problem, {name: job(k) for k, name in enumerate(names)})
    losses, channels = [], []
    for name in names:
        fit, batch_losses = trained[name]
        losses.append(float(np.mean(batch_losses[-max(1, int(len(batch_losses) * SEARCH_LOSS_TAIL)) :])))
        channels.append(fit.channel)
    kept = int(np.argmin(losses))
    return channels[kept], [{"start": k, "loss": round(x, 4), "kept": k == kept} for k, x in enumerate(losses)]
