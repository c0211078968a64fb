"""The capacity C, read from a trained channel's costs: how many lost words one known word may take.

Most language pairs are one-to-one (C = 1), and a one-to-one flow corrects a channel's near
misses: a known word taken by its true cognate is no longer free for a wrong one. But some lost
lists hold several forms of one word (Ugaritic's inflected forms share a Hebrew word), and there
C = 1 forces all but one of them onto wrong words. The evidence is in the channel's own confident
readings: among the lost words whose best known word beats their second best by the widest
margins (those the channel is surest of, so rarely wrong), the share whose best known word is
also another confident word's best. On one-to-one data such a collision needs a confident
mistake and is rare; where known words have several lost cognates it is common. No gold is read.

On a syllabary against an alphabet that evidence misleads: spelling drops codas and merges
consonants, so short lost words without a cognate read confidently as some known word, and on
Linear B's names and generated syllabaries nearly every collision among the surest readings holds
such a word. There (`forms_of`) a collision counts only between a word and a longer form of it
(one begins the other: an ending written as added signs), which such chance pairs rarely are
(docs/experiments.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...corpora.corpus import Word

# The confident words: this share of D, by margin. A reason, not a measurement: D is an estimate,
# often above the truth (docs/demand.md), and while it is at most twice the truth its surer half is
# no more words than have a cognate; the readings of words without one, which collide by chance,
# fall in its less sure half.
CONFIDENT_SHARE = 0.5
# The share of the confident words sharing their best known word from which C > 1: between what
# one-to-one pairs and pairs with second lost forms read on generated tuning corpora
# (docs/experiments.md, "C from the surest readings").
SHARED_MIN = 0.04
# The most C this evidence can choose: the paper's C for Ugaritic against Hebrew, whose lost list
# holds several inflected forms of one word (docs/experiments.md).
MAX_CAPACITY = 3


@dataclass(frozen=True)
class CapacityEstimate:
    """The chosen C and its evidence."""

    n_confident: int  # lost words read with the widest margins
    shared: int  # of them, those whose best known word is also another confident word's best
    max_claims: int  # the most confident words that chose one known word
    capacity: int
    why: str
    most_demand: int  # the most D the flows take: the known list where C = 1 could not take D, else D
    collisions: int | None = None  # with `forms_of`: the confident words sharing a known word, any two

    @property
    def shared_share(self) -> float:
        return self.shared / max(1, self.n_confident)

    def as_dict(self) -> dict[str, float | int | str]:
        return {
            "n_confident": self.n_confident, "shared": self.shared, "shared_share": round(self.shared_share, 4),
            "max_claims": self.max_claims, "capacity": self.capacity, "why": self.why, "demand": self.most_demand,
            **({} if self.collisions is None else {"collisions": self.collisions}),
        }  # fmt: skip


def least_capacity(demand: int, n_known: int) -> int:
    """The smallest C that lets D lost words reach the known list: ceil(D / n_known), at least 1."""
    return max(1, -(-demand // max(1, n_known)))


def _best_and_margin(cost: np.ndarray, chunk_elements: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    """Each row's cheapest column and its margin over the second cheapest: (n_rows,) each. In row
    chunks, so a 7235 x 39451 matrix needs no index array of its size."""
    n_rows, n_cols = cost.shape
    best, margin = np.empty(n_rows, dtype=np.int64), np.empty(n_rows)
    step = max(1, chunk_elements // n_cols)
    for start in range(0, n_rows, step):
        c = cost[start : start + step]
        two = np.argpartition(c, 1, axis=1)[:, :2]  # (rows, 2), unordered
        a, b = np.take_along_axis(c, two[:, :1], 1)[:, 0], np.take_along_axis(c, two[:, 1:], 1)[:, 0]
        best[start : start + step] = np.where(a <= b, two[:, 0], two[:, 1])
        margin[start : start + step] = np.abs(a.astype(np.float64) - b)
    return best, margin


def estimate_capacity(
    cost: np.ndarray, demand: int, n_known: int, forms_of: Sequence[Word] | None = None
) -> CapacityEstimate:
    """C from a channel's costs -log P(x_i | y_j) (n_lost, n_known) and the demand D: 1 unless
    at least SHARED_MIN of the confident words share their best known word, then never below what
    D needs to reach the known list (ceil(D / n_known)). Where the readings are one-to-one and D
    exceeds the known list, D is kept to it (the estimate's `demand`) rather than C raised: D is
    an estimate, often high where many lost words lack a cognate, while the readings are seen.
    With `forms_of` (the lost words, on a syllabary) only words sharing a known word with a
    longer or shorter form of themselves count."""
    least = least_capacity(demand, n_known)
    n_lost = cost.shape[0]
    if n_known < 2 or n_lost < 2:
        return CapacityEstimate(0, 0, 0, least, "too few words to read collisions", demand)
    best, margin = _best_and_margin(cost)  # (n_lost,) each
    n_confident = max(2, min(n_lost, round(CONFIDENT_SHARE * demand)))
    confident = np.argsort(-margin, kind="stable")[:n_confident]
    readers: dict[int, list[int]] = defaultdict(list)  # known word -> the confident words reading it
    for i in confident.tolist():
        readers[int(best[i])].append(i)
    collisions = sum(len(g) for g in readers.values() if len(g) >= 2)
    if forms_of is not None:
        readers = {j: [i for i in g if any(_one_begins_the_other(forms_of[i], forms_of[k]) for k in g if k != i)]
                   for j, g in readers.items()}  # fmt: skip
    groups = [g for g in readers.values() if len(g) >= 2]
    shared = sum(len(g) for g in groups)
    max_claims = max((len(g) for g in groups), default=1)
    share = shared / n_confident
    between = " with a longer or shorter form of themselves" if forms_of is not None else ""
    kept = demand
    if share >= SHARED_MIN:
        capacity = max(least, min(MAX_CAPACITY, max_claims))
        why = (
            f"{100 * share:.0f}% of the {n_confident} surest readings share a known word{between} (up to {max_claims})"
        )
    else:
        # One-to-one readings with D above the known list: D is what was estimated, so it gives way.
        capacity, kept = 1, min(demand, n_known)
        why = f"one-to-one: {100 * share:.0f}% of the {n_confident} surest readings share a known word{between}"
        if forms_of is not None:
            why += f" ({100 * collisions / n_confident:.0f}% with any other)"
        if kept < demand:
            why += f"; D kept to the {n_known} known words (from {demand})"
    return CapacityEstimate(
        n_confident, shared, max_claims, capacity, why, kept, collisions if forms_of is not None else None
    )


def _one_begins_the_other(a: Word, b: Word) -> bool:
    """Whether the shorter word is the longer one's first signs (a form with an ending added)."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) < len(long) and long[: len(short)] == short
