"""The hub shift (engine/flow/hubs.py): CSLS's column term, in the flows' costs."""

from __future__ import annotations

import threading

import numpy as np

from tui_decipher.engine.corpora.corpus import Corpus
from tui_decipher.engine.flow import FlowSolution, hubs, solve_sparsified
from tui_decipher.engine.flow.hubs import HUB_NEIGHBOURS, hub_shift
from tui_decipher.engine.methods.channel_results import proposal_flow
from tui_decipher.engine.run.config import DecipherConfig
from tui_decipher.engine.run.problem import Problem


def _csls_cost(cost: np.ndarray, k: int) -> np.ndarray:
    """2 c(x, y) - r(x) - r(y), r the mean cost of the k nearest on the other side (CSLS on costs)."""
    r_lost = np.sort(cost, axis=1)[:, :k].mean(axis=1, keepdims=True)
    r_known = np.sort(cost, axis=0)[:k, :].mean(axis=0, keepdims=True)
    return 2 * cost - r_lost - r_known


def test_shift_orders_each_row_as_csls_does() -> None:
    cost = np.random.default_rng(3).gamma(2.0, 3.0, size=(40, 25))
    shifted = cost + hub_shift(cost)
    csls = _csls_cost(cost, HUB_NEIGHBOURS)
    # Within each row, and between any two pairs (CSLS's row term is one constant per row, halved here).
    np.testing.assert_allclose(2 * shifted - 2 * shifted[:, :1], csls - csls[:, :1], atol=1e-9)


def test_chunks_and_unreachable_pairs() -> None:
    cost = np.random.default_rng(4).gamma(2.0, 3.0, size=(30, 17)).astype(np.float32)
    whole = hub_shift(cost)
    original = hubs._CHUNK_ELEMENTS
    try:
        hubs._CHUNK_ELEMENTS = 30 * 4  # four columns at a time
        np.testing.assert_allclose(hub_shift(cost), whole)
    finally:
        hubs._CHUNK_ELEMENTS = original
    # Read from row blocks (a matrix too large to hold whole), the same shift.
    np.testing.assert_allclose(hub_shift(cost[:4], more=[cost[4:13], cost[13:]]), whole)
    cost[:, 5] = np.inf  # a known word no lost word may take
    shift = hub_shift(cost)
    assert np.isfinite(shift).all() and shift[5] == 0.0  # not shifted: no flow takes it
    np.testing.assert_allclose(np.delete(shift, 5), np.delete(whole, 5), rtol=1e-6)


def test_a_hub_gives_way_in_the_flow() -> None:
    # Known word 0 is cheap for both lost words; known word 1 only for lost word 0. One pair to
    # propose: over the raw costs the hub takes lost word 0, shifted the word only it explains does.
    cost = np.array([[1.0, 1.1], [1.05, 5.0]])
    raw = solve_sparsified(cost, 1, 1, 2)
    shifted = solve_sparsified(cost, 1, 1, 2, column_shift=hub_shift(cost))
    assert list(zip(raw.lost, raw.known, strict=True)) == [(0, 0)]
    assert list(zip(shifted.lost, shifted.known, strict=True)) == [(0, 1)]


def test_no_words() -> None:
    assert hub_shift(np.zeros((0, 3))).tolist() == [0.0, 0.0, 0.0]


def test_the_proposals_take_the_shift_only_where_they_pair_every_lost_word() -> None:
    letters = "abcdefghijkl"
    lost = tuple((x, "z") for x in letters)  # 12 lost words of two symbols: every row's scale alike
    known = tuple((x, "y") for x in letters[:8])
    corpus = Corpus("c", "l", "k", lost, known)
    cfg = DecipherConfig(corpus="c", device="cpu", capacity=2, top_k=8)
    problem = Problem.prepare(corpus, cfg, lambda e: None, threading.Event())
    cost = np.random.default_rng(1).gamma(2.0, 2.0, size=(12, 8))  # a matrix where the shift moves both flows

    def pairs(solution: FlowSolution) -> set[tuple[int, int]]:
        return set(zip(solution.lost.tolist(), solution.known.tolist(), strict=True))

    for demand, shifted in ((12, True), (5, False)):
        raw = pairs(solve_sparsified(cost, demand, 2, 8))
        moved = pairs(solve_sparsified(cost, demand, 2, 8, column_shift=hub_shift(cost)))
        assert raw != moved
        assert pairs(proposal_flow(problem, cost, demand)) == (moved if shifted else raw)
