"""The boundary review: the pairs whose judgments say most about where a run's correct proposals
end (issue "D the decipherer settles", its first part).

A decipherer judges the top proposals anyway; what a run cannot tell by itself is how far down the
ranking the correct pairs go. So the pairs asked for are drawn evenly across the ranks the
evidence allows D to be (auto's `demand_low` to `demand_high`: proposals above and below the run's
D, and the pairs past it), leaving out pairs already judged. A run without a D range (the channel
method, the neural EM) is asked across its whole ranking.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..store import OPEN, ProposalRow

BOUNDARY_PAIRS = 20  # what a scholar with the run open will judge, if asked for the right ones


def demand_range(decisions: dict[str, Any], n_ranked: int) -> tuple[int, int]:
    """The ranks (1-based, inclusive) the evidence allows D to be: auto's range, clipped to the
    ranking; the whole ranking for a run that read none."""
    demand = decisions.get("demand") or {}
    low, high = int(demand.get("demand_low") or 1), int(demand.get("demand_high") or n_ranked)
    return max(1, min(low, n_ranked)), max(1, min(high, n_ranked))


def boundary_pairs(ranked: Sequence[ProposalRow], low: int, high: int, n: int = BOUNDARY_PAIRS) -> list[ProposalRow]:
    """Up to `n` unjudged pairs of `ranked` (proposals then the pairs past D, best first) at ranks
    `low`..`high`, spread evenly from the first to the last, in rank order."""
    open_ = [row for row in ranked[low - 1 : high] if row.status == OPEN]
    if n <= 0 or not open_:
        return []
    if len(open_) <= n:
        return open_
    if n == 1:
        return [open_[len(open_) // 2]]
    picks = sorted({round(k * (len(open_) - 1) / (n - 1)) for k in range(n)})
    return [open_[k] for k in picks]
