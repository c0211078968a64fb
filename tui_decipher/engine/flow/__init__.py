"""Minimum-cost flow matching of lost words to known words (Luo, Cao & Barzilay 2019, section 3.3).

Graph: source -> x_i (capacity ``lost_capacity``, cost 0), x_i -> y_j (capacity 1, cost d_ij, only for
the sparse candidate edges), y_j -> sink (capacity C, cost 0); supply D at the source, -D at the sink.
Solved with OR-Tools' ``SimpleMinCostFlow`` on integer costs ``round(cost_scale * d_ij)``.
"""

from .graph import (
    GROWN_MAX_K,
    GROWN_TOLERANCE,
    row_top_k,
    solve_grown,
    solve_sparsified,
    top_k_edges,
    union_top_k_edges,
)
from .solver import COST_SCALE, FlowEdges, FlowSolution, flow_matrix, solve_flow

__all__ = [
    "COST_SCALE",
    "GROWN_MAX_K",
    "GROWN_TOLERANCE",
    "FlowEdges",
    "FlowSolution",
    "flow_matrix",
    "row_top_k",
    "solve_flow",
    "solve_grown",
    "solve_sparsified",
    "top_k_edges",
    "union_top_k_edges",
]
