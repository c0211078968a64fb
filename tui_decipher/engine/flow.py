"""Minimum-cost flow matching of lost words to known words (Luo, Cao & Barzilay 2019, section 3.3).

Graph: source -> x_i (capacity ``lost_capacity``, cost 0), x_i -> y_j (capacity 1, cost d_ij, only for
the sparse candidate edges), y_j -> sink (capacity C, cost 0); supply D at the source, -D at the sink.
Solved with OR-Tools' ``SimpleMinCostFlow`` on integer costs ``round(cost_scale * d_ij)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ortools.graph.python import min_cost_flow

# Rows of the cost matrix handled at once by top_k_edges: bounds the temporaries (a 7000 x 40000
# matrix would otherwise need GB-sized boolean / cumsum arrays) while keeping numpy calls large.
_CHUNK_ELEMENTS = 1 << 22
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


def _check_cost_matrix(cost: np.ndarray, k: int) -> np.ndarray:
    cost = np.asarray(cost)
    if not np.issubdtype(cost.dtype, np.floating):
        cost = cost.astype(np.float64)  # float32 stays as is: no copy of a possibly huge matrix
    if cost.ndim != 2:
        raise ValueError(f"cost must be a 2-D (n_lost, n_known) matrix, got shape {cost.shape}")
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if np.isnan(cost).any():
        raise ValueError("cost contains NaN")
    return cost


def row_top_k(cost: np.ndarray, k: int) -> np.ndarray:
    """(n_rows, k) column indices of each row's k smallest entries, ordered by (cost, column).

    Requires 0 < k < n_cols. Among entries equal to a row's k-th smallest value the lowest columns
    are kept, so the result does not depend on argpartition's (unspecified) handling of ties.
    """
    n_rows, n_cols = cost.shape
    out = np.empty((n_rows, k), dtype=np.int64)
    step = max(1, _CHUNK_ELEMENTS // n_cols)
    for start in range(0, n_rows, step):
        c = cost[start : start + step]
        part = np.argpartition(c, k - 1, axis=1)[:, :k]
        vals = np.take_along_axis(c, part, axis=1)
        thr = vals.max(axis=1)  # the k-th smallest value of each row
        n_eq_kept = (vals == thr[:, None]).sum(axis=1)
        n_eq_row = (c == thr[:, None]).sum(axis=1)
        # Rows with more entries tied at the threshold than were kept: argpartition picked an
        # arbitrary subset of the ties, so redo those rows keeping the lowest-index ties.
        amb = np.flatnonzero(n_eq_row > n_eq_kept)
        if amb.size:
            ca, ta = c[amb], thr[amb, None]
            eq = ca == ta
            sel = (ca < ta) | (eq & (np.cumsum(eq, axis=1) <= n_eq_kept[amb, None]))
            part[amb] = np.nonzero(sel)[1].reshape(amb.size, k)  # exactly k per row, columns ascending
        # Order within the kept k by cost; sorting columns first makes the stable sort break ties by index.
        part.sort(axis=1)
        order = np.argsort(np.take_along_axis(c, part, axis=1), axis=1, kind="stable")
        out[start : start + step] = np.take_along_axis(part, order, axis=1)
    return out


def _edges_from_columns(cost: np.ndarray, cols: np.ndarray, col_ids: np.ndarray) -> FlowEdges:
    """Edges for the column positions ``cols`` (n_rows, m) of ``cost``; ``col_ids`` maps them to known ids."""
    n_rows, m = cols.shape
    lost = np.repeat(np.arange(n_rows, dtype=np.int64), m)
    flat_cols = cols.reshape(-1)
    d = cost[lost, flat_cols]
    keep = d != np.inf  # +inf marks an impossible pair: never offer it to the solver
    return FlowEdges(lost[keep], col_ids[flat_cols[keep]].astype(np.int64), d[keep].astype(np.float64))


def top_k_edges(cost: np.ndarray, k: int, known_mask: np.ndarray | None = None) -> FlowEdges:
    """Keep the k cheapest known words for every lost word (the paper's sparsification of the flow graph).

    Args:
        cost: (n_lost, n_known) float matrix of d_ij; NaN is rejected, +inf entries are dropped.
        k: edges kept per lost word; k >= the number of allowed known words keeps them all.
        known_mask: optional (n_known,) bool; False columns are never chosen.

    Returns:
        FlowEdges with min(k, n_allowed) edges per lost word (fewer only where +inf entries were
        dropped), grouped by lost word in increasing order and, within a lost word, sorted by cost
        with ties broken by lower known index. Deterministic regardless of ties.
    """
    cost = _check_cost_matrix(cost, k)
    n_lost, n_known = cost.shape
    col_ids = np.arange(n_known, dtype=np.int64)
    if known_mask is not None:
        known_mask = np.asarray(known_mask, dtype=bool)
        if known_mask.shape != (n_known,):
            raise ValueError(f"known_mask must have shape ({n_known},), got {known_mask.shape}")
        col_ids = np.flatnonzero(known_mask).astype(np.int64)
        cost = cost[:, col_ids]  # work on the allowed columns only; col_ids maps them back
    n_cols = cost.shape[1]
    if k == 0 or n_cols == 0 or n_lost == 0:
        return _empty_edges()
    # k >= n_cols keeps everything, still ordered by (cost, index) within each row for a uniform contract.
    cols = np.argsort(cost, axis=1, kind="stable") if k >= n_cols else row_top_k(cost, k)
    return _edges_from_columns(cost, cols, col_ids)


def union_top_k_edges(cost: np.ndarray, k: int) -> FlowEdges:
    """Published-code variant: every lost word is linked to every known word in ANY lost word's top k.

    Args:
        cost: (n_lost, n_known) float matrix of d_ij; NaN is rejected, +inf entries are dropped.
        k: size of each lost word's candidate list whose union forms the shared candidate set.

    Returns:
        FlowEdges over (all lost words) x (the union of the per-row top-k known words), in row-major
        order (lost index, then known index).
    """
    cost = _check_cost_matrix(cost, k)
    n_lost, n_known = cost.shape
    if k == 0 or n_lost == 0 or n_known == 0:
        return _empty_edges()
    union = np.arange(n_known, dtype=np.int64) if k >= n_known else np.unique(row_top_k(cost, k))
    cols = np.broadcast_to(np.arange(union.size), (n_lost, union.size))
    return _edges_from_columns(cost[:, union], cols, union)


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


COST_SCALE = 100.0  # the solver's integer costs: round(COST_SCALE * d_ij), a hundredth of a nat


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
    forced, forced_keys = _dedup_cheapest(_check_edges(forced, n_lost, n_known, "forced"), n_known)
    lost_left = lost_capacity - np.bincount(forced.lost, minlength=n_lost)
    known_left = capacity - np.bincount(forced.known, minlength=n_known)
    if len(forced) > demand:
        raise ValueError(f"{len(forced)} forced pairs exceed the demand {demand}")
    if (lost_left < 0).any():
        raise ValueError(f"forced pairs give a lost word more than lost_capacity={lost_capacity} matches")
    if (known_left < 0).any():
        raise ValueError(f"forced pairs give a known word more than capacity={capacity} matches")

    # Free edges: not a forced pair (an arc carries at most 1) and both words still have capacity.
    free = ~np.isin(keys, forced_keys) & (lost_left[edges.lost] > 0) & (known_left[edges.known] > 0)
    del keys
    if free.all():  # no forced pairs: no copies of a graph that can hold 10+ million edges
        e_lost, e_known, e_cost = edges.lost, edges.known, edges.cost
    else:
        e_lost, e_known, e_cost = edges.lost[free], edges.known[free], edges.cost[free]
    del free, edges
    remaining = int(demand) - len(forced)
    if remaining == 0 or e_lost.size == 0:
        return _solution(forced.lost, forced.known, forced.cost)

    used = _solve_graph(e_lost, e_known, e_cost, lost_left, known_left, remaining, cost_scale, (n_lost, n_known))
    return _solution(
        np.concatenate([forced.lost, e_lost[used]]),
        np.concatenate([forced.known, e_known[used]]),
        np.concatenate([forced.cost, e_cost[used]]),
    )


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


# "grown-top-k": the sparse graph only approximates the flow over every pair, and each lost word's
# own top 5 can be too narrow for it: with C = 1 and D = N, words crowd one another out of their
# few candidates into dear ones (docs/experiments.md). The graph is widened while that lowers the
# flow's cost by more than this share of it...
GROWN_TOLERANCE = 1e-3
GROWN_MAX_K = 512  # ...up to this many known words per lost word (bounds the graph: 7235 x 512 edges)


def solve_grown(
    cost: np.ndarray, demand: int, capacity: int, top_k: int, forced: FlowEdges | None = None,
    row_scale: np.ndarray | None = None,
) -> FlowSolution:  # fmt: skip
    """The min-cost flow over each lost word's top k known words of a (n_lost, n_known) cost
    matrix, k doubled from `top_k` until doubling it carries no more flow and lowers the flow's
    cost by at most GROWN_TOLERANCE of it, or the graph holds every known word (or GROWN_MAX_K).
    A wider graph's flow is never worse on the flow's own objective; gold plays no part.
    `row_scale`: see `solve_sparsified`."""
    n_lost, n_known = cost.shape
    widest = max(1, min(n_known, max(top_k, GROWN_MAX_K)))
    # Every width's edges: each row's first k of these (a row's order is the same scaled or not).
    edges, forced, cost_scale = _per_row(top_k_edges(cost, widest), forced, row_scale)
    if len(edges) == 0:
        return solve_flow(n_lost, n_known, edges, demand, capacity, cost_scale, forced=forced)
    row_start = np.searchsorted(edges.lost, np.arange(n_lost))  # edges are grouped by lost word
    rank = np.arange(len(edges)) - row_start[edges.lost]  # (n_edges,) each edge's rank in its row

    def solve(k: int) -> FlowSolution:
        keep = rank < k
        return solve_flow(n_lost, n_known, FlowEdges(edges.lost[keep], edges.known[keep], edges.cost[keep]),
                          demand, capacity, cost_scale, forced=forced)  # fmt: skip

    k = max(1, min(top_k, widest))
    best = solve(k)
    while k < widest:
        k = min(2 * k, widest)
        wider = solve(k)
        settled = wider.flow == best.flow and best.cost - wider.cost <= GROWN_TOLERANCE * abs(best.cost)
        best = wider  # the wider graph's flow: as much flow or more, at no more cost per the same flow
        if settled:
            break
    return best


def _per_row(
    edges: FlowEdges, forced: FlowEdges | None, row_scale: np.ndarray | None
) -> tuple[FlowEdges, FlowEdges | None, float]:
    """The edges (and forced pairs) with each cost divided by its lost word's `row_scale`, and the
    integer resolution that keeps (the solver's cost_scale, raised by the mean scale); unchanged
    with the default resolution where `row_scale` is None."""
    if row_scale is None:
        return edges, forced, COST_SCALE

    def scaled(e: FlowEdges) -> FlowEdges:
        return FlowEdges(e.lost, e.known, e.cost / row_scale[e.lost])

    return scaled(edges), None if forced is None else scaled(forced), COST_SCALE * float(np.mean(row_scale))


def solve_sparsified(
    cost: np.ndarray,
    demand: int,
    capacity: int,
    top_k: int,
    sparsify: str = "top-k",
    forced: FlowEdges | None = None,
    row_scale: np.ndarray | None = None,
) -> FlowSolution:
    """Sparsify a (n_lost, n_known) cost matrix ("top-k", "union-top-k" or "grown-top-k", see
    above) and solve the min-cost flow of demand D and capacity C over it, with optional forced pairs.
    `row_scale` (n_lost,), positive: the flow's cost of each pair is its cost divided by its lost
    word's scale (the candidate edges are chosen on the costs as given; within a row the order is
    the same). It changes which D lost words the flow takes where D < N, and which of two lost
    words keeps a contested known word."""
    if sparsify == "grown-top-k":
        return solve_grown(cost, demand, capacity, top_k, forced, row_scale)
    sparsifier = union_top_k_edges if sparsify == "union-top-k" else top_k_edges
    # The edges are built in the call so that no name here keeps them alive while the solver runs.
    edges, forced, cost_scale = _per_row(sparsifier(cost, top_k), forced, row_scale)
    return solve_flow(cost.shape[0], cost.shape[1], edges, demand, capacity, cost_scale, forced=forced)
