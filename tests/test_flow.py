"""Tests for the minimum-cost flow matching step (tui_decipher.engine.flow)."""

from __future__ import annotations

import itertools
import time
import types
from collections import Counter

import numpy as np
import pytest
from ortools.graph.python import min_cost_flow

from tui_decipher.engine import flow
from tui_decipher.engine.flow import (
    FlowEdges,
    FlowSolution,
    flow_matrix,
    graph,
    solve_flow,
    solver,
    top_k_edges,
    union_top_k_edges,
)


def edges_of(triples: list[tuple[int, int, float]]) -> FlowEdges:
    lost, known, cost = zip(*triples, strict=True) if triples else ((), (), ())
    return FlowEdges(np.array(lost, np.int64), np.array(known, np.int64), np.array(cost, np.float64))


def pair_list(e: FlowEdges | FlowSolution) -> list[tuple[int, int]]:
    return list(zip(e.lost.tolist(), e.known.tolist(), strict=True))


def pairs_of(e: FlowEdges | FlowSolution) -> set[tuple[int, int]]:
    return set(pair_list(e))


# ---------------------------------------------------------------- brute force


def brute_force(
    n_lost: int,
    cheapest: dict[tuple[int, int], float],
    demand: int,
    capacity: int,
    lost_capacity: int,
    forced: set[tuple[int, int]] | frozenset[tuple[int, int]] = frozenset(),
) -> tuple[int, float]:
    """(flow, cost): flow = min(demand, max achievable), cost = min cost at that flow, by enumeration."""
    options = []
    for i in range(n_lost):
        must = [p for p in forced if p[0] == i]
        free = [p for p in cheapest if p[0] == i and p not in forced]
        opts = [
            tuple(must) + extra
            for r in range(lost_capacity - len(must) + 1)
            for extra in itertools.combinations(free, r)
        ]
        options.append(opts)
    by_flow: dict[int, float] = {}
    for choice in itertools.product(*options):
        used = [p for part in choice for p in part]
        if any(c > capacity for c in Counter(j for _, j in used).values()):
            continue
        cost = sum(cheapest[p] for p in used)
        by_flow[len(used)] = min(cost, by_flow.get(len(used), np.inf))
    target = min(demand, max(by_flow))
    return target, by_flow[target]


def check_valid(
    sol: FlowSolution,
    cheapest: dict[tuple[int, int], float],
    capacity: int,
    lost_capacity: int,
) -> None:
    pairs = pair_list(sol)
    assert len(pairs) == len(set(pairs)) == sol.flow
    assert all(p in cheapest for p in pairs), "solution uses an edge that was not given"
    assert all(c <= lost_capacity for c in Counter(i for i, _ in pairs).values())
    assert all(c <= capacity for c in Counter(j for _, j in pairs).values())
    assert sol.cost == pytest.approx(sum(cheapest[p] for p in pairs))
    assert sol.lost.dtype == np.int64 and sol.known.dtype == np.int64


def random_instance(rng: np.random.Generator, max_known: int = 4):
    n_lost, n_known = int(rng.integers(1, 5)), int(rng.integers(1, max_known + 1))
    triples = []
    for i in range(n_lost):
        for j in range(n_known):
            if rng.random() < 0.6:
                # Integers or quarter-units, so round(100 * d) is exact; some negative costs too.
                d = float(rng.integers(-3, 10)) if rng.random() < 0.5 else float(rng.integers(-8, 40)) / 4
                triples.append((i, j, d))
                while rng.random() < 0.2:  # duplicates with other costs: the cheapest must win
                    triples.append((i, j, d + float(rng.integers(-3, 4))))
    rng.shuffle(triples)
    cheapest: dict[tuple[int, int], float] = {}
    for i, j, d in triples:
        cheapest[(i, j)] = min(d, cheapest.get((i, j), np.inf))
    return n_lost, n_known, triples, cheapest


def check_against_brute_force(rng, case, n_lost, n_known, triples, cheapest) -> None:
    """Solve one instance with a random capacity and demand (lost capacity 1); compare with brute force."""
    capacity = int(rng.integers(1, 4))
    demand = int(rng.integers(0, n_lost + 2))
    sol = solve_flow(n_lost, n_known, edges_of(triples), demand, capacity)
    want_flow, want_cost = brute_force(n_lost, cheapest, demand, capacity, 1)
    msg = f"case {case}: {n_lost=} {n_known=} {capacity=} {demand=} {triples=}"
    assert sol.flow == want_flow, msg
    assert sol.cost == pytest.approx(want_cost), msg
    check_valid(sol, cheapest, capacity, 1)


def test_matches_brute_force_on_small_instances() -> None:
    rng = np.random.default_rng(1234)
    for case in range(200):
        check_against_brute_force(rng, case, *random_instance(rng))


def test_pair_ordered_edges_skip_the_dedup_sort_and_still_match_brute_force(monkeypatch: pytest.MonkeyPatch) -> None:
    # union-top-k hands the solver unique edges in (lost, known) order: the dedup sort is skipped.
    rng = np.random.default_rng(4321)
    ordered_instances = []
    for _ in range(120):
        n_lost, n_known, _, cheapest = random_instance(rng)
        triples = [(i, j, d) for (i, j), d in sorted(cheapest.items())]
        ordered_instances.append((n_lost, n_known, triples, cheapest))

    lexsort = np.lexsort

    def no_dedup_sort(keys, *args, **kwargs):
        # The dedup sort orders by (pair, cost): its first key is the float cost.
        assert not np.issubdtype(np.asarray(keys[0]).dtype, np.floating), "pair-ordered unique edges were sorted"
        return lexsort(keys, *args, **kwargs)

    monkeypatch.setattr(solver.np, "lexsort", no_dedup_sort)
    for case, instance in enumerate(ordered_instances):
        check_against_brute_force(rng, case, *instance)


def test_compact_is_unique_with_inverse() -> None:
    rng = np.random.default_rng(5)
    ids = rng.integers(0, 50, size=400)
    got_ids, got_pos = solver._compact(ids, 60)
    want_ids, want_pos = np.unique(ids, return_inverse=True)
    np.testing.assert_array_equal(got_ids, want_ids)
    np.testing.assert_array_equal(got_pos, want_pos)


def test_matches_brute_force_with_lost_capacity() -> None:
    rng = np.random.default_rng(99)
    for case in range(60):
        n_lost, n_known, triples, cheapest = random_instance(rng, max_known=3)
        capacity, lost_capacity = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        demand = int(rng.integers(0, lost_capacity * n_lost + 2))
        sol = solve_flow(n_lost, n_known, edges_of(triples), demand, capacity, lost_capacity=lost_capacity)
        want_flow, want_cost = brute_force(n_lost, cheapest, demand, capacity, lost_capacity)
        msg = f"case {case}: {n_lost=} {n_known=} {capacity=} {lost_capacity=} {demand=} {triples=}"
        assert sol.flow == want_flow, msg
        assert sol.cost == pytest.approx(want_cost), msg
        check_valid(sol, cheapest, capacity, lost_capacity)


def test_matches_brute_force_with_forced_edges() -> None:
    rng = np.random.default_rng(7)
    checked = 0
    for case in range(150):
        n_lost, n_known, triples, cheapest = random_instance(rng, max_known=3)
        capacity, lost_capacity = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        # Forced pairs: a random valid partial assignment over the candidate pairs.
        forced: set[tuple[int, int]] = set()
        lost_load: Counter[int] = Counter()
        known_load: Counter[int] = Counter()
        for i, j in sorted(cheapest):
            if lost_load[i] < lost_capacity and known_load[j] < capacity and rng.random() < 0.3:
                forced.add((i, j))
                lost_load[i] += 1
                known_load[j] += 1
        if not forced:
            continue
        demand = int(rng.integers(len(forced), lost_capacity * n_lost + 2))
        forced_edges = edges_of([(i, j, cheapest[(i, j)]) for i, j in sorted(forced)])
        kw = {"lost_capacity": lost_capacity, "forced": forced_edges}
        sol = solve_flow(n_lost, n_known, edges_of(triples), demand, capacity, **kw)
        want_flow, want_cost = brute_force(n_lost, cheapest, demand, capacity, lost_capacity, forced)
        msg = f"case {case}: {n_lost=} {n_known=} {capacity=} {lost_capacity=} {demand=} {forced=} {triples=}"
        assert forced <= pairs_of(sol), msg
        assert sol.flow == want_flow, msg
        assert sol.cost == pytest.approx(want_cost), msg
        check_valid(sol, cheapest, capacity, lost_capacity)
        checked += 1
    assert checked > 50


# ---------------------------------------------------------------- solve_flow behaviour


def test_infeasible_demand_returns_max_flow() -> None:
    # Three lost words all competing for known word 0 (capacity 1): only one can be matched.
    edges = edges_of([(0, 0, 3.0), (1, 0, 1.0), (2, 0, 2.0)])
    sol = solve_flow(3, 2, edges, demand=3, capacity=1)
    assert sol.flow == 1
    assert pairs_of(sol) == {(1, 0)}
    assert sol.cost == pytest.approx(1.0)
    # With capacity 2 two of them fit, the two cheapest.
    sol = solve_flow(3, 2, edges, demand=3, capacity=2)
    assert sol.flow == 2 and pairs_of(sol) == {(1, 0), (2, 0)} and sol.cost == pytest.approx(3.0)


def test_demand_zero_and_empty_graph() -> None:
    edges = edges_of([(0, 0, 1.0)])
    for demand in (0, -3):
        sol = solve_flow(1, 1, edges, demand=demand, capacity=1)
        assert sol.flow == 0 and sol.lost.size == 0 and sol.known.size == 0 and sol.cost == 0.0
    sol = solve_flow(2, 2, edges_of([]), demand=2, capacity=1)
    assert sol.flow == 0 and sol.cost == 0.0


def test_dedup_keeps_cheapest() -> None:
    edges = edges_of([(0, 0, 5.0), (0, 0, 1.0), (0, 0, 3.0), (0, 1, 2.0)])
    sol = solve_flow(1, 2, edges, demand=1, capacity=1)
    assert pairs_of(sol) == {(0, 0)} and sol.cost == pytest.approx(1.0)
    # A duplicate pair can never carry flow twice, even with lost_capacity 2 and room at the known word.
    sol = solve_flow(1, 2, edges, demand=2, capacity=2, lost_capacity=2)
    assert pairs_of(sol) == {(0, 0), (0, 1)} and sol.flow == 2 and sol.cost == pytest.approx(3.0)


def test_forced_edges_count_toward_demand() -> None:
    edges = edges_of([(0, 1, 0.0), (1, 0, 0.0), (1, 1, 5.0)])
    forced = edges_of([(0, 0, 50.0)])  # expensive and not even among the candidate edges
    sol = solve_flow(2, 2, edges, demand=1, capacity=1, forced=forced)
    assert pairs_of(sol) == {(0, 0)} and sol.flow == 1 and sol.cost == pytest.approx(50.0)
    # Forced (0, 0) uses up lost 0 and known 0, so lost 1 must take its expensive edge to known 1.
    sol = solve_flow(2, 2, edges, demand=2, capacity=1, forced=forced)
    assert pairs_of(sol) == {(0, 0), (1, 1)} and sol.flow == 2 and sol.cost == pytest.approx(55.0)
    # A forced pair that is also a (cheap) candidate edge is used once, not twice.
    sol = solve_flow(1, 1, edges_of([(0, 0, 0.0)]), demand=2, capacity=2, lost_capacity=2, forced=forced)
    assert pairs_of(sol) == {(0, 0)} and sol.flow == 1 and sol.cost == pytest.approx(50.0)


def test_forced_edge_kept_even_when_it_lowers_the_max_flow() -> None:
    # Flow 2 needs lost 1 -> known 1, but lost 1 -> known 0 is forced, which leaves lost 0 stranded.
    edges = edges_of([(0, 0, 1.0), (1, 0, 1.0), (1, 1, 1.0)])
    sol = solve_flow(2, 2, edges, demand=2, capacity=1, forced=edges_of([(1, 0, 1.0)]))
    assert pairs_of(sol) == {(1, 0)} and sol.flow == 1


def test_forced_edges_validated() -> None:
    edges = edges_of([(0, 0, 1.0), (1, 1, 1.0)])
    with pytest.raises(ValueError, match="exceed the demand"):
        solve_flow(2, 2, edges, demand=1, capacity=1, forced=edges_of([(0, 0, 1.0), (1, 1, 1.0)]))
    with pytest.raises(ValueError, match="known word"):
        solve_flow(2, 2, edges, demand=2, capacity=1, forced=edges_of([(0, 0, 1.0), (1, 0, 1.0)]))
    with pytest.raises(ValueError, match="lost word"):
        solve_flow(2, 2, edges, demand=2, capacity=2, forced=edges_of([(0, 0, 1.0), (0, 1, 1.0)]))


def test_bad_inputs_rejected() -> None:
    with pytest.raises(ValueError, match="out of range"):
        solve_flow(1, 1, edges_of([(0, 1, 1.0)]), demand=1, capacity=1)
    with pytest.raises(ValueError, match="finite"):
        solve_flow(1, 1, edges_of([(0, 0, np.inf)]), demand=1, capacity=1)
    with pytest.raises(ValueError, match="cost_scale"):
        solve_flow(1, 1, edges_of([(0, 0, 1e300)]), demand=1, capacity=1)


def test_solver_failure_raises_runtime_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real = min_cost_flow.SimpleMinCostFlow

    class Failing:
        OPTIMAL = real.OPTIMAL

        def __init__(self) -> None:
            self._inner = real()

        def __getattr__(self, name: str):
            return getattr(self._inner, name)

        def solve_max_flow_with_min_cost(self):
            return real.BAD_COST_RANGE

    monkeypatch.setattr(solver, "min_cost_flow", types.SimpleNamespace(SimpleMinCostFlow=Failing))
    with pytest.raises(RuntimeError, match="BAD_COST_RANGE"):
        solve_flow(1, 1, edges_of([(0, 0, 1.0)]), demand=1, capacity=1)


def test_cost_scale_rounds_costs() -> None:
    # 0.011 and 0.014 both round to 1 at scale 100 (a tie), but differ at scale 1000.
    edges = edges_of([(0, 0, 0.014), (0, 1, 0.011)])
    sol = solve_flow(1, 2, edges, demand=1, capacity=1, cost_scale=1000.0)
    assert pairs_of(sol) == {(0, 1)} and sol.cost == pytest.approx(0.011)


def test_default_resolution_keeps_rounding_from_choosing() -> None:
    # Rounded to hundredths of a nat, x0-y0 and x1-y1 (0.0049 each, 0.0098 in all) would cost 0 and
    # beat x0-y1 and x1-y0 (0.0051 in all, rounded to 0.01); on a 584-word list such rounding
    # chose among near ties and moved the paper's protocol by 1.4 points (docs/dev-pairs.md).
    edges = edges_of([(0, 0, 0.0049), (1, 1, 0.0049), (0, 1, 0.0051), (1, 0, 0.0)])
    sol = solve_flow(2, 2, edges, demand=2, capacity=1)
    assert pairs_of(sol) == {(0, 1), (1, 0)} and sol.cost == pytest.approx(0.0051)
    coarse = solve_flow(2, 2, edges, demand=2, capacity=1, cost_scale=100.0)
    assert pairs_of(coarse) == {(0, 0), (1, 1)}  # what the old resolution chose


def test_flow_matrix() -> None:
    sol = solve_flow(2, 3, edges_of([(0, 2, 1.0), (1, 0, 1.0)]), demand=2, capacity=1)
    m = flow_matrix(sol, 2, 3)
    assert m.dtype == np.float32
    np.testing.assert_array_equal(m, [[0, 0, 1], [1, 0, 0]])


# ---------------------------------------------------------------- sparsification


def reference_top_k(cost: np.ndarray, k: int) -> np.ndarray:
    """Full stable argsort: k smallest per row, ties broken by lower index."""
    return np.argsort(cost, axis=1, kind="stable")[:, :k]


@pytest.mark.parametrize("chunk", [1 << 22, 37])  # 37 elements forces many row chunks
def test_top_k_is_k_smallest_with_deterministic_ties(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    monkeypatch.setattr(graph, "_CHUNK_ELEMENTS", chunk)
    rng = np.random.default_rng(5)
    tie_heavy = rng.integers(0, 3, size=(40, 30)).astype(float)
    for cost in (rng.random((40, 30)), tie_heavy):
        for k in (1, 3, 7, 29):
            e = top_k_edges(cost, k)
            assert e.lost.dtype == e.known.dtype == np.int64 and e.cost.dtype == np.float64
            np.testing.assert_array_equal(np.bincount(e.lost, minlength=40), k)
            np.testing.assert_array_equal(e.lost, np.repeat(np.arange(40), k))
            np.testing.assert_array_equal(e.known.reshape(40, k), reference_top_k(cost, k))
            np.testing.assert_array_equal(e.cost, cost[e.lost, e.known])


def test_top_k_all_ties_takes_lowest_indices() -> None:
    e = top_k_edges(np.zeros((3, 10)), 4)
    np.testing.assert_array_equal(e.known.reshape(3, 4), np.tile(np.arange(4), (3, 1)))


def test_top_k_known_mask() -> None:
    rng = np.random.default_rng(11)
    cost = rng.integers(0, 4, size=(20, 15)).astype(float)
    mask = rng.random(15) < 0.5
    allowed = np.flatnonzero(mask)
    for k in (1, 2, 5):
        e = top_k_edges(cost, k, known_mask=mask)
        assert mask[e.known].all()
        want = allowed[reference_top_k(cost[:, allowed], k)]
        np.testing.assert_array_equal(e.known.reshape(20, k), want)
    # k beyond the number of allowed columns keeps every allowed column.
    e = top_k_edges(cost, 100, known_mask=mask)
    assert len(e) == 20 * allowed.size and set(e.known.tolist()) == set(allowed.tolist())


def test_top_k_keeps_all_when_k_large() -> None:
    cost = np.random.default_rng(3).random((4, 6))
    for k in (6, 10):
        e = top_k_edges(cost, k)
        assert len(e) == 24
        np.testing.assert_array_equal(e.known.reshape(4, 6), reference_top_k(cost, 6))
    assert len(top_k_edges(cost, 0)) == 0


def test_top_k_drops_inf_and_rejects_nan() -> None:
    cost = np.array([[1.0, np.inf, 0.0], [np.inf, np.inf, 2.0]])
    e = top_k_edges(cost, 2)
    assert pair_list(e) == [(0, 2), (0, 0), (1, 2)]
    with pytest.raises(ValueError, match="NaN"):
        top_k_edges(np.array([[np.nan, 1.0]]), 1)


def test_union_top_k_edges() -> None:
    cost = np.array(
        [
            [0.0, 1.0, 9.0, 9.0, 9.0],
            [9.0, 9.0, 0.0, 9.0, 1.0],
            [0.0, 9.0, 9.0, 9.0, 9.0],
        ]
    )
    e = union_top_k_edges(cost, 1)  # row tops: 0, 2, 0
    assert pair_list(e) == [(i, j) for i in range(3) for j in (0, 2)]
    np.testing.assert_array_equal(e.cost, cost[e.lost, e.known])
    e = union_top_k_edges(cost, 2)  # {0,1}, {2,4}, {0,1}: the tie in row 2 goes to the lower index 1
    assert pair_list(e) == [(i, j) for i in range(3) for j in (0, 1, 2, 4)]
    assert len(union_top_k_edges(cost, 5)) == 15


def crowded_costs(n_lost: int, n_known: int, seed: int) -> np.ndarray:
    """Costs whose rows all prefer the same few known words: each row's own top few crowd out."""
    rng = np.random.default_rng(seed)
    popular = np.linspace(0.0, 3.0, n_known)[None, :]  # every row likes the low columns best
    return popular + rng.random((n_lost, n_known))


def test_grown_graph_reaches_the_full_flow_where_top_k_crowds_out() -> None:
    from scipy.optimize import linear_sum_assignment

    cost = crowded_costs(40, 120, seed=3)
    rows, cols = linear_sum_assignment(cost)  # the exact one-to-one matching over every pair
    exact = float(cost[rows, cols].sum())
    narrow = flow.solve_sparsified(cost, 40, 1, 2, "top-k")
    grown = flow.solve_sparsified(cost, 40, 1, 2, "grown-top-k")
    assert narrow.flow < 40 or narrow.cost > exact * 1.01  # the narrow graph cannot reach the exact flow
    assert grown.flow == 40
    assert exact <= grown.cost <= exact * (1 + 2 * flow.GROWN_TOLERANCE)
    assert np.bincount(grown.known).max() == 1


def test_grown_graph_stops_where_widening_no_longer_pays(monkeypatch: pytest.MonkeyPatch) -> None:
    widths: list[int] = []
    real_solve = graph.solve_flow

    def counting(n_lost: int, n_known: int, edges: FlowEdges, *args: object, **kwargs: object) -> FlowSolution:
        widths.append(int(np.bincount(edges.lost).max()))
        return real_solve(n_lost, n_known, edges, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(graph, "solve_flow", counting)
    cost = np.random.default_rng(5).random((30, 600))  # no crowding: each row's own top 2 suffice
    flow.solve_sparsified(cost, 30, 1, 2, "grown-top-k")
    assert widths[:2] == [2, 4] and len(widths) < 6  # widened a little, never to the 512 cap
    widths.clear()
    flow.solve_sparsified(crowded_costs(60, 600, seed=4), 60, 1, 2, "grown-top-k")
    assert len(widths) >= 4  # the crowded graph is widened further


def test_grown_graph_honours_forced_pairs() -> None:
    cost = crowded_costs(10, 30, seed=6)
    forced = edges_of([(0, 29, float(cost[0, 29]))])  # the dearest known word, forced on word 0
    sol = flow.solve_sparsified(cost, 10, 1, 1, "grown-top-k", forced)
    assert (0, 29) in pairs_of(sol) and sol.flow == 10
    assert np.bincount(sol.lost).max() == 1 and np.bincount(sol.known).max() == 1


# ---------------------------------------------------------------- scale


def test_scale_top5_flow() -> None:
    rng = np.random.default_rng(2019)
    cost = rng.random((2000, 3000))
    edges = top_k_edges(cost, 5)
    assert len(edges) == 2000 * 5
    start = time.perf_counter()
    sol = solve_flow(2000, 3000, edges, demand=1000, capacity=1)
    elapsed = time.perf_counter() - start
    print(f"solve_flow 2000x3000 top-5, demand 1000: {elapsed * 1000:.1f} ms")
    assert sol.flow == 1000
    top5 = pairs_of(edges)
    assert pairs_of(sol) <= top5
    assert np.bincount(sol.lost).max() == 1 and np.bincount(sol.known).max() == 1
    assert elapsed < 5.0


@pytest.mark.parametrize("sparsify", ["top-k", "union-top-k", "grown-top-k"])
def test_a_row_scale_makes_the_flow_take_words_by_their_cost_per_symbol(sparsify: str) -> None:
    # Lost word 0: 2 symbols at 3.0 nats in all (1.5 a symbol); lost word 1: 6 symbols at 6.0 (1.0).
    cost = np.array([[3.0, 9.0], [9.0, 6.0]])
    lengths = np.array([2.0, 6.0])
    whole = flow.solve_sparsified(cost, 1, 1, 2, sparsify)
    per_symbol = flow.solve_sparsified(cost, 1, 1, 2, sparsify, row_scale=lengths)
    assert pair_list(whole) == [(0, 0)]  # the cheaper word in all: the short one
    assert pair_list(per_symbol) == [(1, 1)]  # the better word per symbol: the long one
    # With every word matched and no known word contested, the scale changes nothing.
    both = flow.solve_sparsified(cost, 2, 1, 2, sparsify, row_scale=lengths)
    assert pair_list(both) == pair_list(flow.solve_sparsified(cost, 2, 1, 2, sparsify)) == [(0, 0), (1, 1)]
    # A forced pair (a reviewer's acceptance) still carries flow under a scale.
    forced = edges_of([(0, 1, 9.0)])
    kept = flow.solve_sparsified(cost, 1, 1, 2, sparsify, forced=forced, row_scale=lengths)
    assert pair_list(kept) == [(0, 1)]
