"""The attention alignment of a cognate pair as a coloured character grid."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from .shade import shade_style

END = "#"  # the end-of-word position, shown as '#'


class AlignmentGrid(Static):
    """Rows: known symbols (and end of word); columns: lost symbols (and end of word).

    Each cell shows alpha (0-9, tenths) on a background shaded by it: a monotonic diagonal is
    what the regularizer asks for.
    """

    def show(self, lost: list[str], known: list[str], attention: list[list[float]]) -> None:
        """Show a pair's grid; `lost` and `known` are the words' symbols (a segment may be several characters)."""
        if not attention:
            self.update(Text("no alignment stored", style="dim"))
            return
        lost_symbols = [*lost, END]
        known_symbols = [*known, END]
        table = Table(box=None, padding=(0, 0), show_edge=False, pad_edge=False)
        table.add_column("", justify="right", style="bold")
        for symbol in lost_symbols[: len(attention[0])]:
            table.add_column(f" {symbol} ", justify="center", header_style="bold")
        for symbol, row in zip(known_symbols, attention, strict=False):
            cells = [Text(f" {min(9, int(w * 10))} ", style=shade_style(self.app, w)) for w in row]
            table.add_row(f"{symbol} ", *cells)
        self.update(table)
