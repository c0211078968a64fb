"""Pinned or free, on more held-out words: where auto's first probe is tried pinned to the syllable
map and free to leave it (map_pins.py), the two are also trained on COMPARED_FOLDS - 1 more splits of the
lost words, each holding out another disjoint part, and their held-out wins are summed over every
fold (`fold_probes`). One split's held-out words (40 of a 200-word list) decided between the two by a
few words, either way: on a generated syllabary, one more correct value flipped the choice and cost
5 points (docs/pinning.md). D is then read on every split's held-out words too (pooled_demand.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...channels.protocol import Channel
from ...channels.syllables import SyllableMap
from ...channels.trainer import ChannelFit
from ...corpora.corpus import Word
from ...run.problem import Problem
from ...run.seeds import derive
from ..stages import StageMemo
from .decoys import against_decoys
from .demand import win_count
from .probe_words import MAX_HELD_OUT, split_order
from .schedule import Probe
from .training import LEXICON_SETTLE, _seeded, _train

# Splits the pinned and free probes are compared on: the probes' own and two more, each holding out
# a part of the lost words disjoint from the others' (the pieces schedule holds out a fifth, so up
# to five fit). Three triple the held-out words the choice rests on, for four more probe trainings.
COMPARED_FOLDS = 3


def fold_rows(
    n_lost: int, seed: int, train_share: float, folds: int = COMPARED_FOLDS
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (training rows, held-out rows) of each split after the probes' own (`probe_split` with
    the same seed and share): the same permutation of the lost words, each split holding out the
    next slice of it, as many words as the probes' own hold out (at most MAX_HELD_OUT). Fewer
    where the list has fewer disjoint slices."""
    order, cut = split_order(n_lost, seed, train_share)
    size = min(n_lost - cut, MAX_HELD_OUT)
    out = []
    for k in range(folds - 1):
        held = order[k * size : (k + 1) * size]
        if size == 0 or (k + 1) * size > cut:
            break
        out.append((np.sort(np.setdiff1d(order, held)), np.sort(held)))
    return out


@dataclass(frozen=True)
class Fold:
    """A probe trained on another split of the lost words (`fold_rows`): the split's number (2, 3,
    as its stage is named; the seed streams take it as their split, the probe's own being 0), its
    training and held-out rows, the channel and its held-out wins."""

    split: int
    train_rows: np.ndarray
    held_rows: np.ndarray
    channel: Channel
    wins: float


def fold_probes(
    problem: Problem, probe: Probe, found: SyllableMap, pinned: bool, decoys: Sequence[Word], train_share: float,
    done: int, memo: StageMemo,
) -> list[Fold]:  # fmt: skip
    """The probe `probe` started from the map `found`, pinned to it or not, trained on each split of
    `fold_rows`, with its held-out wins there (words whose best known word beats their best decoy),
    reporting its steps after the `done` ones; each training is a stage of `memo`."""
    cfg, lost = problem.cfg, problem.corpus.lost_words
    folds = []
    for k, (train_rows, held_rows) in enumerate(fold_rows(problem.n_lost, cfg.seed, train_share), start=2):
        train_words, held_words = [lost[i] for i in train_rows], [lost[i] for i in held_rows]
        # The seed stream and the stage name keep the words they had: a stopped run resumes by its stage names.
        seed = derive(cfg.seed, "held or free fold", k)
        name = f"probe 1 fold {k}" + (" held to the map" if pinned else "")

        def train(train_words: list[Word] = train_words, train_rows: np.ndarray = train_rows, seed: int = seed,
                  at: int = done + (k - 2) * probe.steps, name: str = name, split: int = k) -> ChannelFit:  # fmt: skip
            # Its steps are its own curve and its settling its own line ("probe split K"), not the probe's.
            return _train(problem, train_words, probe.steps, at, seed, max(1, len(train_words) // 2), 1,
                          rows=train_rows, objective=probe.objective, start=_seeded(problem, found, seed, pinned),
                          channel=f"probe split {split}", saving=memo.saving(name), settle=LEXICON_SETTLE)  # fmt: skip

        channel = memo.run(name, train).channel
        with problem.timer("score"):
            wins = win_count(*against_decoys(problem, channel, held_words, list(decoys)))
        folds.append(Fold(k, train_rows, held_rows, channel, wins))
    return folds
