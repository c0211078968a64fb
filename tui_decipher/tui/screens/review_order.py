"""Which of a run's pairs Review shows, and in what order: its filters (text, status, the boundary
queue) and its sort (by rank, as the run ranks them, or by a column)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...session.boundary import boundary_pairs, demand_range
from ...store import ProposalRow, RunRow

# The columns Review sorts by, in the order `s` cycles through them; rank is the run's own order
# (its proposals by score, then the pairs past D), and the one a run opens in.
SORTS: dict[str, Callable[[ProposalRow], Any]] = {
    "rank": lambda row: row.rank,
    "lost": lambda row: (row.lost.casefold(), row.rank),
    "known": lambda row: (row.known.casefold(), row.rank),
    "status": lambda row: (row.status, row.rank),
}
# A header of a column not sorted by itself: the one whose order it shows.
SORT_OF_COLUMN = {"rank": "rank", "score": "rank", "lost": "lost", "known": "known", "status": "status"}


def matches(row: ProposalRow, text: str, status_filter: str, queue: Sequence[int] | None) -> bool:
    """Whether the filters let `row` through: its status, the boundary queue, the typed text (casefolded)."""
    if status_filter != "all" and row.status != status_filter:
        return False
    if queue is not None and row.rank not in queue:
        return False
    return not text or text in row.lost.casefold() or text in row.known.casefold()


def shown_ranks(
    rows: Sequence[ProposalRow], text: str, status_filter: str, queue: Sequence[int] | None, sort_by: str = "rank",
    reverse: bool = False,
) -> list[int]:  # fmt: skip
    """The ranks of the rows the filters let through, in the sort's order (ties by rank)."""
    kept = [row for row in rows if matches(row, text, status_filter, queue)]
    return [row.rank for row in sorted(kept, key=SORTS[sort_by], reverse=reverse)]


def next_sort(sort_by: str) -> str:
    """The sort after `sort_by` in SORTS' cycle."""
    names = list(SORTS)
    return names[(names.index(sort_by) + 1) % len(names)]


def kept_row(shown: Sequence[ProposalRow], place: ProposalRow, index: int) -> int:
    """Where the cursor goes when the run's pairs are read again (a refinement rewrote them): the
    row of the same pair, else of the same lost word's new pair, else the same row (`index`)."""
    pair = (place.lost_index, place.known_index)
    same_pair = [k for k, r in enumerate(shown) if (r.lost_index, r.known_index) == pair]
    same_lost = [k for k, r in enumerate(shown) if r.lost_index == place.lost_index]
    return (same_pair or same_lost or [min(index, len(shown) - 1)])[0]


def shown_line(
    n_shown: int, n_rows: int, status_filter: str, queue: tuple[int, int] | None, text: str, sort_by: str,
    reverse: bool,
) -> str:  # fmt: skip
    """What Review shows, for its counts line: "showing 12/240 open, by lost ~'ka'", with the
    boundary queue's (judged, asked) first where it is shown."""
    shown = f"showing {n_shown}/{n_rows}"
    if status_filter != "all":
        shown += f" {status_filter}"
    if sort_by != "rank" or reverse:
        shown += f", by {sort_by}{' (reversed)' if reverse else ''}"
    if queue is not None:
        shown = f"boundary queue: {queue[0]} of {queue[1]} judged, " + shown
    return shown + (f" ~{text!r}" if text else "")


def boundary_queue(run: RunRow | None, rows: Sequence[ProposalRow]) -> tuple[list[int] | None, str]:
    """The boundary queue's ranks (`boundary_pairs` over the ranks the evidence allows D to be), or
    None and why there is none."""
    if run is None or not rows:
        return None, "No run with proposals to ask about."
    low, high = demand_range(run.decisions, len(rows))
    asked = boundary_pairs(rows, low, high)
    if not asked:
        return None, f"Every pair at ranks {low}-{high} is judged: nothing left to ask."
    return [r.rank for r in asked], ""
