"""The flow's sparse graph: each lost word's cheapest known words as candidate edges (top-k, their
union, or a graph widened until a wider one no longer lowers the flow's cost), and the flow solved
over it (`solve_sparsified`)."""

from __future__ import annotations

import numpy as np

from .solver import COST_SCALE, FlowEdges, FlowSolution, _empty_edges, solve_flow

# Rows of the cost matrix handled at once by top_k_edges: bounds the temporaries (a 7000 x 40000
# matrix would otherwise need GB-sized boolean / cumsum arrays) while keeping numpy calls large.
_CHUNK_ELEMENTS = 1 << 22


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


# "grown-top-k": the sparse graph only approximates the flow over every pair, and each lost word's
# own top 5 can be too narrow for it: with C = 1 and D = N, words crowd one another out of their
# few candidates into dear ones (docs/experiments.md). The graph is widened while that lowers the
# flow's cost by more than this share of it...
GROWN_TOLERANCE = 1e-3
GROWN_MAX_K = 512  # ...up to this many known words per lost word (bounds the graph: 7235 x 512 edges)


def solve_grown(
    cost: np.ndarray, demand: int, capacity: int, top_k: int, forced: FlowEdges | None = None,
    row_scale: np.ndarray | None = None, column_shift: np.ndarray | None = None,
) -> FlowSolution:  # fmt: skip
    """The min-cost flow over each lost word's top k known words of a (n_lost, n_known) cost
    matrix, k doubled from `top_k` until doubling it carries no more flow and lowers the flow's
    cost by at most GROWN_TOLERANCE of it, or the graph holds every known word (or GROWN_MAX_K).
    A wider graph's flow is never worse on the flow's own objective; gold plays no part.
    `row_scale`, `column_shift`: see `solve_sparsified`."""
    n_lost, n_known = cost.shape
    widest = max(1, min(n_known, max(top_k, GROWN_MAX_K)))
    # Every width's edges: each row's first k of these (a row's order is the same scaled or not).
    edges, forced, cost_scale = _adjusted(top_k_edges(cost, widest), forced, row_scale, column_shift)
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


def _adjusted(
    edges: FlowEdges, forced: FlowEdges | None, row_scale: np.ndarray | None, column_shift: np.ndarray | None
) -> tuple[FlowEdges, FlowEdges | None, float]:
    """The edges (and forced pairs) with each cost raised by its known word's `column_shift` and
    divided by its lost word's `row_scale`, and the integer resolution that keeps (the solver's
    cost_scale, raised by the mean scale); unchanged, at the default resolution, where both are None."""
    if row_scale is None and column_shift is None:
        return edges, forced, COST_SCALE

    def adjusted(e: FlowEdges) -> FlowEdges:
        cost = e.cost if column_shift is None else e.cost + column_shift[e.known]
        return FlowEdges(e.lost, e.known, cost if row_scale is None else cost / row_scale[e.lost])

    scale = COST_SCALE * (1.0 if row_scale is None else float(np.mean(row_scale)))
    return adjusted(edges), None if forced is None else adjusted(forced), scale


def solve_sparsified(
    cost: np.ndarray,
    demand: int,
    capacity: int,
    top_k: int,
    sparsify: str = "top-k",
    forced: FlowEdges | None = None,
    row_scale: np.ndarray | None = None,
    column_shift: np.ndarray | None = None,
) -> FlowSolution:
    """Sparsify a (n_lost, n_known) cost matrix ("top-k", "union-top-k" or "grown-top-k", see
    above) and solve the min-cost flow of demand D and capacity C over it, with optional forced pairs.
    `row_scale` (n_lost,), positive: the flow's cost of each pair is its cost divided by its lost
    word's scale (the candidate edges are chosen on the costs as given; within a row the order is
    the same). It changes which D lost words the flow takes where D < N, and which of two lost
    words keeps a contested known word. `column_shift` (n_known,): each known word's amount added to
    its pairs' costs in the flow, before any row's scale (flow/hubs.py), the candidates still chosen
    on the costs as given."""
    if sparsify == "grown-top-k":
        return solve_grown(cost, demand, capacity, top_k, forced, row_scale, column_shift)
    sparsifier = union_top_k_edges if sparsify == "union-top-k" else top_k_edges
    # The edges are built in the call so that no name here keeps them alive while the solver runs.
    edges, forced, cost_scale = _adjusted(sparsifier(cost, top_k), forced, row_scale, column_shift)
    return solve_flow(cost.shape[0], cost.shape[1], edges, demand, capacity, cost_scale, forced=forced)
