"""A cognate pair's reading: its segments (lost over known, with probabilities) and, for a neural
run, its attention grid, each cell shaded by its probability."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from ...engine.channels.alignment import Alignment
from .shade import shade_style

END = "#"  # the end-of-word position, shown as '#'
# A segment below one chance in ten is marked weak: the model would read those letters as another
# symbol (or another step) nine times out of ten. A stated threshold, not a fitted one.
WEAK = 0.1
FALLBACK_WIDTH = 34  # columns for the segments before the widget has been laid out


class AlignmentGrid(Static):
    """Segments in columns: the lost symbols, under them the known letters they were read from,
    under those the step's probability; weak segments in the warning colour. Below, for a run that
    stores attention, the grid itself: rows known symbols (and end of word), columns lost symbols
    (and end of word), each cell alpha in tenths on a background shaded by it."""

    def show(
        self, lost: list[str], known: list[str], attention: list[list[float]], alignment: Alignment | None = None
    ) -> None:
        """Show a pair's reading; `lost` and `known` are the words' symbols (a segment may be several characters)."""
        parts: list[RenderableType] = []
        if alignment:
            parts.append(self._segments(alignment))
        if attention:
            parts.append(self._grid(lost, known, attention))
        self.update(Group(*parts) if parts else Text("no alignment stored", style="dim"))

    def _segments(self, alignment: Alignment) -> RenderableType:
        """Rows of segment columns, wrapped to the widget's width."""
        width = self.size.width or FALLBACK_WIDTH
        warning = self.app.theme_variables.get("warning", "yellow")
        lines: list[Text] = []
        top, middle, bottom = Text(), Text(), Text()
        for seg in alignment:
            cells = seg.cells()
            cell_width = max(cell_len(c) for c in cells) + 1
            if top.cell_len and top.cell_len + cell_width > width:
                lines += [top, middle, bottom, Text()]
                top, middle, bottom = Text(), Text(), Text()
            weak = seg.p < WEAK
            style = shade_style(self.app, seg.p)
            top.append(_pad(cells[0], cell_width), style=f"bold {warning}" if weak else "bold")
            middle.append(_pad(cells[1], cell_width), style=warning if weak else "")
            bottom.append(_pad(cells[2], cell_width), style=style)
        lines += [top, middle, bottom]
        n_weak = sum(seg.p < WEAK for seg in alignment)
        lines.append(Text(f"lost / known / p{f', {n_weak} weak (p < {WEAK:g})' if n_weak else ''}", style="dim"))
        return Group(*lines)

    def _grid(self, lost: list[str], known: list[str], attention: list[list[float]]) -> RenderableType:
        lost_symbols = [*lost, END]
        known_symbols = [*known, END]
        table = Table(box=None, padding=(0, 0), show_edge=False, pad_edge=False)
        table.add_column("", justify="right", style="bold")
        for symbol in lost_symbols[: len(attention[0])]:
            table.add_column(f" {symbol} ", justify="center", header_style="bold")
        for symbol, row in zip(known_symbols, attention, strict=False):
            cells = [Text(f" {min(9, int(w * 10))} ", style=shade_style(self.app, w)) for w in row]
            table.add_row(f"{symbol} ", *cells)
        return table


def _pad(text: str, width: int) -> str:
    """`text` padded with spaces to `width` terminal cells (a wide glyph takes two)."""
    return text + " " * max(0, width - cell_len(text))
