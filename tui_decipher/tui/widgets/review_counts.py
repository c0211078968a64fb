"""Review's line of counts: the proposals by judgment, the pairs past D, D as judgments settled it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.markup import escape
from textual.widgets import Static

from ...session.run_views import unproposed_note
from ...store import ACCEPTED, OPEN, REJECTED, STATUSES, UNSURE, ProposalRow


class ReviewCounts(Static):
    """`run #3  12 accepted  2 rejected  0 unsure  40 open  +20 past D (3 judged)  D 43 -> 89 (20
    judged)  |  showing 74/74`: the proposals counted by judgment, the pairs past D apart."""

    def show(self, title: str, rows: Sequence[ProposalRow], judged: int, settled: dict[str, Any] | None,
             change: str, shown: str) -> None:  # fmt: skip
        """`judged`: the run's decisions, on pairs shown or not (a refinement may have dropped some);
        `settled`: the run's `decisions["settled"]` (session/settled_demand.py); `change`: what the last
        refinement changed (markup, or ""); `shown`: which pairs the list shows (plain text)."""
        counts = dict.fromkeys(STATUSES, 0)
        beyond = beyond_judged = 0
        for row in rows:
            if row.beyond:
                beyond += 1
                beyond_judged += row.status != OPEN
            else:
                counts[row.status] += 1
        off_list = unproposed_note(counts, judged - beyond_judged)  # judged, no longer proposed
        if beyond:
            judged_past = f" ({beyond_judged} judged)" if beyond_judged else ""
            off_list += f"  [dim]+{beyond} past D{judged_past}[/]"
        if settled and settled.get("judged"):
            change = f"  [b]D {settled['before']} -> {settled['demand']}[/] ({settled['judged']} judged){change}"
        self.update(
            f"{title}[green]{counts[ACCEPTED]} accepted[/]  [red]{counts[REJECTED]} rejected[/]  "
            f"[yellow]{counts[UNSURE]} unsure[/]  {counts[OPEN]} open{off_list}{change}  |  {escape(shown)}"
        )
