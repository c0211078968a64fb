"""The minimum-cost flow itself: a sparse graph's candidate edges in, the matched pairs out
(engine/flow/__init__.py describes the graph)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ortools.graph.python import min_cost_flow

# Largest |scaled cost| accepted: beyond 2**53 float64 -> int64 rounding is no longer exact, and
# OR-Tools multiplies costs by (n_nodes + 1) internally, so leave it headroom against overflow.
_MAX_SCALED_COST = 2**53


@dataclass(frozen=True)
class FlowEdges:
    """Sparse candidate edges x_i -> y_j with their costs d_ij."""

    lost: np.ndarray  # (n_edges,) int64 lost-word index
    known: np.ndarray  # (n_edges,) int64 known-word index
    cost: np.ndarray  # (n_edges,) float64 cost d_ij

    def __len__(self) -> int:
        return int(self.lost.shape[0])


@dataclass(frozen=True)
class FlowSolution:
    """The edges carrying flow (sorted by lost then known index) and the flow's value and cost."""

    lost: np.ndarray  # (n_used,) int64 lost index of each edge carrying flow
    known: np.ndarray  # (n_used,) int64
    flow: int  # total flow achieved (<= demand)
    cost: float  # total cost in the caller's float units (sum of d_ij over used edges)


def _empty_edges() -> FlowEdges:
    return FlowEdges(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64))


def _check_edges(edges: FlowEdges, n_lost: int, n_known: int, name: str) -> FlowEdges:
    lost = np.asarray(edges.lost, dtype=np.int64).reshape(-1)
    known = np.asarray(edges.known, dtype=np.int64).reshape(-1)
    cost = np.asarray(edges.cost, dtype=np.float64).reshape(-1)
    if not (lost.shape == known.shape == cost.shape):
        raise ValueError(f"{name}: lost, known and cost must have the same length")
    if lost.size:
        if lost.min() < 0 or lost.max() >= n_lost:
            raise ValueError(f"{name}: lost index out of range [0, {n_lost})")
        if known.min() < 0 or known.max() >= n_known:
            raise ValueError(f"{name}: known index out of range [0, {n_known})")
        if not np.isfinite(cost).all():
            raise ValueError(f"{name}: costs must be finite")
    return FlowEdges(lost, known, cost)


def _dedup_cheapest(edges: FlowEdges, n_known: int) -> tuple[FlowEdges, np.ndarray]:
    """Drop repeated (lost, known) pairs keeping the cheapest; also returns each kept pair's key."""
    key = edges.lost * n_known + edges.known
    if key.size < 2 or bool((key[1:] > key[:-1]).all()):
        # Already unique and in pair order (union-top-k's row-major edges): skip the sort, which
        # is most of the flow's time on a 2182 x 6000 graph.
        return edges, key
    order = np.lexsort((edges.cost, key))  # by pair, then cheapest first
    key = key[order]
    first = np.ones(key.size, dtype=bool)
    first[1:] = key[1:] != key[:-1]
    idx = order[first]
    return FlowEdges(edges.lost[idx], edges.known[idx], edges.cost[idx]), key[first]


def _compact(ids: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``ids`` (all in [0, n)), ascending, and each entry's position among
    them: np.unique(ids, return_inverse=True) in O(len + n) instead of a sort."""
    present = np.zeros(n, dtype=bool)
    present[ids] = True
    position = np.cumsum(present) - 1
    return np.flatnonzero(present), position[ids]


def _solution(lost: np.ndarray, known: np.ndarray, cost: np.ndarray) -> FlowSolution:
    order = np.lexsort((known, lost))
    return FlowSolution(
        lost=lost[order].astype(np.int64),
        known=known[order].astype(np.int64),
        flow=int(lost.size),
        cost=float(np.sum(cost[order])),
    )


COST_SCALE = 10_000.0  # the solver's integer costs: round(COST_SCALE * d_ij), a ten-thousandth of a nat


def solve_flow(
    n_lost: int,
    n_known: int,
    edges: FlowEdges,
    demand: int,
    capacity: int,
    cost_scale: float = COST_SCALE,
    lost_capacity: int = 1,
    forced: FlowEdges | None = None,
) -> FlowSolution:
    """Min-cost flow of value min(demand, max feasible) through the sparse candidate edges.

    Args:
        n_lost, n_known: number of lost words x_i and known words y_j.
        edges: candidate edges with float costs d_ij; repeated pairs are de-duplicated keeping the cheapest.
        demand: D, the flow wanted; if the graph cannot carry D the maximum feasible flow is returned.
        capacity: C, how many lost words each known word may be matched to.
        cost_scale: the solver works on integer costs round(cost_scale * d_ij).
        lost_capacity: how many known words each lost word may be matched to (1 in the paper).
        forced: optional pairs that must carry flow 1 (their own costs are used). They count toward
            the demand and use up the capacities of their words; they need not appear in ``edges``.

    Returns:
        FlowSolution with the used edges (forced ones included), the flow achieved and the total
        cost as the sum of the float d_ij of the used edges.

    Raises:
        ValueError: bad indices, non-finite costs, or forced pairs that exceed the demand or a capacity.
        RuntimeError: the OR-Tools solver did not report OPTIMAL.
    """
    if n_lost < 0 or n_known < 0 or capacity < 0 or lost_capacity < 0:
        raise ValueError("n_lost, n_known, capacity and lost_capacity must be >= 0")
    if not (np.isfinite(cost_scale) and cost_scale > 0):
        raise ValueError(f"cost_scale must be a positive finite number, got {cost_scale}")
    edges, keys = _dedup_cheapest(_check_edges(edges, n_lost, n_known, "edges"), n_known)

    # Forced pairs are committed before solving rather than merely made very cheap: a cheap arc
    # would still be dropped whenever the *maximum* flow needs its words elsewhere, whereas
    # committing them first always honours them and leaves the rest of the graph to the solver.
    if forced is None or len(forced) == 0:
        if demand <= 0:
            return _solution(edges.lost[:0], edges.known[:0], edges.cost[:0])
        forced = _empty_edges()
    forced, forced_keys, lost_left, known_left = _committed(forced, n_lost, n_known, demand, capacity, lost_capacity)
    e_lost, e_known, e_cost = _free_edges(edges, keys, forced_keys, lost_left, known_left)
    del keys, edges
    remaining = int(demand) - len(forced)
    if remaining == 0 or e_lost.size == 0:
        return _solution(forced.lost, forced.known, forced.cost)

    used = _solve_graph(e_lost, e_known, e_cost, lost_left, known_left, remaining, cost_scale, (n_lost, n_known))
    return _solution(
        np.concatenate([forced.lost, e_lost[used]]),
        np.concatenate([forced.known, e_known[used]]),
        np.concatenate([forced.cost, e_cost[used]]),
    )


def _free_edges(
    edges: FlowEdges, keys: np.ndarray, forced_keys: np.ndarray, lost_left: np.ndarray, known_left: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The edges the solver may still use (lost, known, cost): not a forced pair (an arc carries at
    most 1) and both words with capacity left."""
    free = ~np.isin(keys, forced_keys) & (lost_left[edges.lost] > 0) & (known_left[edges.known] > 0)
    if free.all():  # no forced pairs: no copies of a graph that can hold 10+ million edges
        return edges.lost, edges.known, edges.cost
    return edges.lost[free], edges.known[free], edges.cost[free]


def _committed(
    forced: FlowEdges, n_lost: int, n_known: int, demand: int, capacity: int, lost_capacity: int
) -> tuple[FlowEdges, np.ndarray, np.ndarray, np.ndarray]:
    """The forced pairs checked and de-duplicated, their keys, and the capacity each lost word
    (n_lost,) and each known word (n_known,) has left once they carry their flow."""
    forced, forced_keys = _dedup_cheapest(_check_edges(forced, n_lost, n_known, "forced"), n_known)
    lost_left = lost_capacity - np.bincount(forced.lost, minlength=n_lost)
    known_left = capacity - np.bincount(forced.known, minlength=n_known)
    if len(forced) > demand:
        raise ValueError(f"{len(forced)} forced pairs exceed the demand {demand}")
    if (lost_left < 0).any():
        raise ValueError(f"forced pairs give a lost word more than lost_capacity={lost_capacity} matches")
    if (known_left < 0).any():
        raise ValueError(f"forced pairs give a known word more than capacity={capacity} matches")
    return forced, forced_keys, lost_left, known_left


def _solve_graph(
    e_lost: np.ndarray,
    e_known: np.ndarray,
    e_cost: np.ndarray,
    lost_left: np.ndarray,
    known_left: np.ndarray,
    remaining: int,
    cost_scale: float,
    sizes: tuple[int, int],
) -> np.ndarray:
    """Max flow at min cost (OR-Tools) of `remaining` units over the free edges, each word within
    its capacity left (`lost_left` (n_lost,), `known_left` (n_known,)); which edges carry flow:
    a bool mask over the edges. `sizes`: (n_lost, n_known)."""
    scaled = np.rint(e_cost * cost_scale)
    if np.abs(scaled).max() > _MAX_SCALED_COST:
        raise ValueError(f"cost_scale * cost exceeds {_MAX_SCALED_COST:.3g}; lower cost_scale")

    # Only words touched by a free edge become nodes, so huge vocabularies with few candidates stay small.
    # Nodes: 0 = source, 1 = sink, then the used lost words, then the used known words.
    lost_ids, lost_node = _compact(e_lost, sizes[0])
    known_ids, known_node = _compact(e_known, sizes[1])
    lost_node = lost_node + 2
    known_node = known_node + 2 + lost_ids.size
    lost_nodes = np.arange(lost_ids.size) + 2
    known_nodes = np.arange(known_ids.size) + 2 + lost_ids.size
    source, sink = 0, 1

    tails = np.concatenate([np.full(lost_ids.size, source), lost_node, known_nodes]).astype(np.int32)
    heads = np.concatenate([lost_nodes, known_node, np.full(known_ids.size, sink)]).astype(np.int32)
    caps = np.concatenate([lost_left[lost_ids], np.ones(e_lost.size), known_left[known_ids]]).astype(np.int64)
    costs = np.concatenate([np.zeros(lost_ids.size), scaled, np.zeros(known_ids.size)]).astype(np.int64)

    smcf = min_cost_flow.SimpleMinCostFlow()
    arcs = np.asarray(smcf.add_arcs_with_capacity_and_unit_cost(tails, heads, caps, costs))
    smcf.set_node_supply(source, remaining)
    smcf.set_node_supply(sink, -remaining)
    # Max flow with min cost: when the sparse graph cannot carry the demand we still get the best
    # partial matching instead of an INFEASIBLE status.
    status = smcf.solve_max_flow_with_min_cost()
    if status != smcf.OPTIMAL:
        raise RuntimeError(
            f"OR-Tools min-cost flow failed with status {status!r} "
            f"({sizes[0]} lost, {sizes[1]} known, {e_lost.size} edges, demand {remaining})"
        )
    edge_arcs = arcs[lost_ids.size : lost_ids.size + e_lost.size]
    used = np.asarray(smcf.flows(edge_arcs)) > 0
    if int(used.sum()) != int(smcf.maximum_flow()):
        raise RuntimeError("OR-Tools min-cost flow returned inconsistent flows")
    return used


def flow_matrix(solution: FlowSolution, n_lost: int, n_known: int) -> np.ndarray:
    """Dense (n_lost, n_known) float32 0/1 matrix with a 1 at every edge carrying flow."""
    m = np.zeros((n_lost, n_known), dtype=np.float32)
    m[solution.lost, solution.known] = 1.0
    return m
