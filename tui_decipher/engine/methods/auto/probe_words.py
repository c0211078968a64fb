"""The words a probe trains on and reads D on (probe.py): a seeded split of the lost words into the
probe's training words and the held-out ones, with the decoys and null words they are compared
with (decoys.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...corpora.corpus import Word
from ...run.problem import Problem
from ...run.seeds import derive
from .decoys import NULL_WORDS, decoy_lexicons, lexicon_count, nearest_distances, null_words, trigram_enough
from .schedule import Schedule

MIN_LOST_WORDS = 2  # one to train the probe on and one held out (`probe_split`): no evidence with fewer
MAX_HELD_OUT = 1000  # held-out lost words the demand is estimated on (bounds its scoring time)


def split_order(n_lost: int, seed: int, train_share: float) -> tuple[np.ndarray, int]:
    """The seeded permutation of the lost words that `probe_split` cuts, and where: its first `cut`
    train, the rest are held out (pinned_folds.py holds out other slices of the same permutation)."""
    order = np.random.default_rng(seed).permutation(n_lost)
    return order, min(max(int(n_lost * train_share), 1), max(n_lost - 1, 1))


def probe_split(n_lost: int, seed: int, train_share: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """(probe's training words, held-out words): a seeded `train_share` of the lost words and the
    rest; at most MAX_HELD_OUT held out. Each side keeps a word where there are two (a channel
    cannot train on none); a single lost word trains and none is held out."""
    order, cut = split_order(n_lost, seed, train_share)
    return np.sort(order[:cut]), np.sort(order[cut:][:MAX_HELD_OUT])


@dataclass(frozen=True)
class ProbeWords:
    """The words the probes train on and read D on: the training words (`train_rows` of the corpus),
    the held-out words, the decoys, the null words, and how far each null word and each held-out
    word lies from the nearest training word (q is measured at the held-out words' distances,
    decoys.chance_at_distances)."""

    train_rows: np.ndarray
    train: list[Word]
    held: list[Word]
    decoys: list[Word]
    nulls: list[Word]
    distances: tuple[np.ndarray, np.ndarray]  # (n_null,), (n_held,)
    held_rows: np.ndarray  # the held-out words' rows of the corpus


def probe_words(problem: Problem, schedule: Schedule) -> ProbeWords:
    """The probes' training and held-out words (`probe_split`), with the decoys and null words."""
    cfg, corpus = problem.cfg, problem.corpus
    train_rows, held = probe_split(problem.n_lost, cfg.seed, schedule.train_share)
    with problem.timer("score"):
        decoys = decoy_lexicons(corpus.known_words, cfg.seed, lexicon_count(problem.n_lost, problem.n_known))
    return split_words(problem, train_rows, held, decoys)


def split_words(
    problem: Problem, train_rows: np.ndarray, held: np.ndarray, decoys: list[Word], split: int = 0
) -> ProbeWords:
    """A split's words (`train_rows` and `held` rows of the lost words) with `decoys` and null words
    drawn from its training words. `split`: 0 the probe's, k another's (pinned_folds.py)."""
    cfg, corpus = problem.cfg, problem.corpus
    lost = corpus.lost_words
    train_words, held_words = [lost[i] for i in train_rows], [lost[i] for i in held]
    seed = derive(cfg.seed, "auto null words", split)
    with problem.timer("score"):
        # Words whose answer is "no cognate", from the trained-on words' letters (decoys.null_words).
        # The lower models' words are less lost-like: they are drawn only where the trigrams give
        # fewer null words than there are held-out words or training words (`trigram_enough`).
        n_null = max(len(held_words), NULL_WORDS)
        nulls = null_words(train_words, n_null, seed, avoid=[*lost, *corpus.known_words],
                           enough=trigram_enough(len(train_words), len(held_words), n_null))  # fmt: skip
        distances = (nearest_distances(nulls, train_words), nearest_distances(held_words, train_words))
    return ProbeWords(train_rows, train_words, held_words, decoys, nulls, distances, held)
