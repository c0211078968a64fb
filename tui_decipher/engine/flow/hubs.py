"""Hubs: known words that lie near many lost words, and the shift that keeps them from drawing
lost words they do not explain best.

A short known word of common letters is cheap to write many lost words from, so it is among the
cheapest candidates of many rows, cognate or not; one-to-one, the flow gives it one of them and
passes its true partner's claim to a dearer word. Cross-domain similarity local scaling (CSLS,
Conneau et al. 2018, "Word translation without parallel data") corrects the same "hubness" in
bilingual lexicons: a pair's score less how near each side lies to its k nearest neighbours. A
known word's shift here is minus half the mean cost of its k nearest lost words: the CSLS score's
column term, in the costs' own units. Its row term is left out: one constant per lost word, it
cannot move a flow that matches every row it is given. Such flows take the shift: the paper's
protocol (every lost word with a gold cognate matched) and the proposals where D is every lost
word. Where the flow also chooses which lost words to propose, the shift, which makes a known word
far from all others cheap for every row, would favour the lost words near one (docs/dev-pairs.md
measures both), so the proposals at D < N do without it. The shifted costs may be negative; the flow takes
them. k is CSLS's own 10.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

HUB_NEIGHBOURS = 10  # CSLS's k (Conneau et al. 2018): the lost words that say how near a known word lies
_CHUNK_ELEMENTS = 1 << 22  # columns handled at once: bounds the copy a partition makes of a 7235 x 39451 matrix


def hub_shift(cost: np.ndarray, neighbours: int = HUB_NEIGHBOURS, more: Iterable[np.ndarray] = ()) -> np.ndarray:
    """Each known word's shift (n_known,) for a (n_lost, n_known) cost matrix: -h_j / 2, h_j the
    mean cost of known word j's `neighbours` cheapest lost words. `more`: further rows of the same
    matrix, (n_rows, n_known) blocks, read one at a time (a matrix too large to hold whole). A
    known word no lost word may take (every cost infinite) is not shifted."""
    near = nearest_costs(cost, neighbours)
    for block in more:
        near = nearest_costs(np.vstack([near, np.asarray(block, dtype=np.float64)]), neighbours)
    n_known = cost.shape[1]
    if near.shape[0] == 0:
        return np.zeros(n_known)
    mean = near.mean(axis=0)
    return np.where(np.isfinite(mean), -mean / 2, 0.0)


def nearest_costs(cost: np.ndarray, neighbours: int = HUB_NEIGHBOURS) -> np.ndarray:
    """Each column's `neighbours` smallest costs, (min(neighbours, n_lost), n_known), in no order."""
    n_lost, n_known = cost.shape
    k = min(neighbours, n_lost)
    near = np.empty((k, n_known))
    if k == 0:
        return near
    step = max(1, _CHUNK_ELEMENTS // n_lost)
    for start in range(0, n_known, step):
        block = np.asarray(cost[:, start : start + step], dtype=np.float64)
        near[:, start : start + step] = np.partition(block, k - 1, axis=0)[:k]
    return near
