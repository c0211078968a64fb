"""Review's detail pane: the selected pair, its reading, the model's other candidates and its gold."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...store import ACCEPTED, OPEN, REJECTED, UNSURE, ProposalRow
from .alignment import AlignmentGrid

STATUS_STYLE = {OPEN: "dim", ACCEPTED: "bold green", REJECTED: "bold red", UNSURE: "bold yellow"}
BEYOND_NOTE = "past the run's D, within the range its evidence allows: not proposed, not in its F1"


def status_cell(status: str) -> Text:
    """A judgment as a table cell, in its colour."""
    return Text(status, style=STATUS_STYLE[status])


class PairDetail(VerticalScroll):
    """The pair's words, place and score (`#pair-title`), its reading as a grid of segments with
    their probabilities, and a neural run's attention (`#alignment`), then the model's candidates
    for the lost word and, where the corpus has them, the gold cognates (`#pair-extra`)."""

    def compose(self) -> ComposeResult:
        yield Static("", id="pair-title")
        yield AlignmentGrid("", id="alignment")
        yield Static("", id="pair-extra")

    def message(self, text: str) -> None:
        """A line in place of a pair (no run, no proposals, nothing matches the filter)."""
        self.query_one("#pair-title", Static).update(text)
        self.query_one("#alignment", AlignmentGrid).update("")
        self.query_one("#pair-extra", Static).update("")

    def show(self, row: ProposalRow, n_proposed: int, has_gold: bool) -> None:
        """Show `row`, ranked among `n_proposed` proposals (a pair past D says how far past)."""
        status = f"[{STATUS_STYLE[row.status]}]{row.status}[/]"
        place = f"+{row.rank - n_proposed} past D" if row.beyond else f"#{row.rank}"
        note = f"\n[dim]{BEYOND_NOTE}[/]" if row.beyond else ""
        self.query_one("#pair-title", Static).update(
            f"[b]{escape(row.lost)}[/] -> [b]{escape(row.known)}[/]  {place}\n"
            f"score {row.score:.3f}  cost {row.cost:.2f}  {status}{note}"
        )
        self.query_one("#alignment", AlignmentGrid).show(row.lost_tokens, row.known_tokens, row.attention,
                                                         row.alignment)  # fmt: skip
        lines = ["[b]model's candidates[/]"]
        for known, score in row.alternatives:
            mark = " <" if known == row.known else ""
            lines.append(f"  {escape(known)}  {score:.3f}{mark}")
        if has_gold:
            gold = ", ".join(escape(g) for g in row.gold_known) or "(none: no cognate)"
            lines.append(f"[b]gold[/] {gold}")
        self.query_one("#pair-extra", Static).update("\n".join(lines))
