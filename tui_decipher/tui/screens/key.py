"""Key: the character correspondences the model learned (lost symbol -> known symbols), by symbol or
by confidence (the probability of a symbol's best reading), or, for a syllabary, as the grid
decipherers draw (consonants down, vowels across: `g`). The side panel lists, for the selected sign
(or grid cell), how the proposals read it and which proposals lean on each reading, from their
stored alignments, so a doubtful value can be checked against its words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ...exports.key import confidence
from ...session.key_views import NO_VOWEL, SignUses, SyllableGrid, key_source, key_vowels, sign_uses, syllable_grid
from ...store import UNKNOWN_VALUE, ProposalRow
from ..widgets.mode_bar import ModeBar
from ..widgets.row_table import RowTable
from ..widgets.shade import shade_style
from .pin import PinScreen
from .refine import ask_refinement

if TYPE_CHECKING:
    from textual import getters

    from ..app import DecipherApp

# The side panel lists a sign's most used readings and, under each, its best proposals; the rest
# are counted. A frequent sign of a large list has thousands of uses: listing them all re-rendered
# hundreds of lines at every cursor move.
SHOWN_READINGS = 8
SHOWN_PAIRS = 6


class KeyScreen(Screen[None]):
    """Each lost symbol with its top known symbols, shaded by probability; refreshed when a run ends."""

    if TYPE_CHECKING:
        app = getters.app(DecipherApp)  # the typed app, for the type checker only

    HELP_TITLE = "Key"
    BINDINGS = [
        Binding("s", "sort", "Sort", tooltip="Sort by symbol or by confidence (the best reading's probability)",
                id="key.sort"),
        # priority: the table's own g (first row, as on the other screens) must not take the grid's key
        Binding("g", "grid", "Grid", tooltip="A syllabary's key as a grid: consonants down, vowels across",
                id="key.grid", priority=True),
        Binding("p", "pin", "Pin", tooltip="Pin the selected sign's value (a reading shown, or typed; ? unknown; "
                "empty: unpin), kept with the run", id="key.pin"),
        Binding("R", "refine", "Refine", tooltip="Refine the run holding every pinned value (and the review's "
                "judgments); Review's Δ marks what changed", id="key.refine"),
    ]  # fmt: skip

    def compose(self) -> ComposeResult:
        yield ModeBar("key")
        yield Static("", id="key-head")
        with Horizontal(id="key-body"):
            yield RowTable(id="key-table", cursor_type="row", zebra_stripes=False)
            with VerticalScroll(id="key-detail"):
                yield Static("", id="key-uses")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.by_confidence = False
        self.as_grid = False
        self.grid: SyllableGrid | None = None
        self.uses: dict[str, SignUses] = {}
        self.rows: dict[int, ProposalRow] = {}
        self.pins: dict[str, list[str]] = {}
        self.vowels: frozenset[str] = frozenset()
        self._read_for: tuple | None = None  # (run, status, seconds) the proposals were read for
        self.load()

    def action_sort(self) -> None:
        self.by_confidence = not self.by_confidence
        self.load()

    def action_grid(self) -> None:
        if self.grid is None and not self.as_grid:
            self.notify("This key does not read as syllables: no grid (an alphabet's key is the table).")
            return
        self.as_grid = not self.as_grid
        self.load()

    def action_pin(self) -> None:
        run_id = self.app.selected_run
        signs = self.selected_signs()
        if run_id is None or len(signs) != 1:
            self.notify("Select one sign to pin (a row of the table, or a cell holding one sign).")
            return
        (sign,) = signs
        current = [value for symbol, value in self.app.store.pins(run_id) if symbol == sign]
        readings = self.app.store.char_map(run_id).get(sign, [])

        def pin(values: list[str] | None) -> None:
            if values is None:
                return
            self.app.store.set_pins(run_id, sign, values)
            what = "= " + ", ".join(values) if values else "unpinned"
            what = "marked unknown" if values == [UNKNOWN_VALUE] else what
            self.notify(f"{sign} {what}; R refines the run holding the pinned values.")
            self.load()

        self.app.push_screen(PinScreen(sign, current, readings), pin)

    def action_refine(self) -> None:
        run_id = self.app.selected_run
        ask_refinement(self, self.app.store.run(run_id) if run_id is not None else None, "on Review")

    def on_screen_resume(self) -> None:
        self.load()

    def refresh_from_app(self, event: object = None) -> None:
        if event is None:
            self.load()

    def load(self) -> None:
        run_id = self.app.selected_run
        run = self.app.store.run(run_id) if run_id is not None else None
        char_map = self.app.store.char_map(run.id) if run is not None else {}
        table = self.query_one("#key-table", DataTable)
        was = None  # where the cursor was: a redraw (a pin, a finished refinement) puts it back on that row
        if table.row_count:
            was = (table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value, table.cursor_coordinate)
        table.clear(columns=True)
        head = self.query_one("#key-head", Static)
        self.query_one("#key-uses", Static).update("")
        if run is None:
            head.update("No run selected: pick one on Runs (1).")
            return
        if not char_map:
            head.update(f"Run #{run.id} ({run.corpus}) has no character map yet ({run.status}).")
            return
        self.pins = {}
        for symbol, value in self.app.store.pins(run.id):
            self.pins.setdefault(symbol, []).append(value)
        stamp = (run.id, run.status, run.seconds)  # the proposals change only when a run (re)finishes
        if stamp != self._read_for:
            proposals = self.app.store.proposals(run.id)
            self.rows = {r.rank: r for r in proposals}
            self.uses = sign_uses(proposals)
            self.vowels = key_vowels(proposals)
            self._read_for = stamp
        self.grid = syllable_grid(char_map, self.vowels)
        self.as_grid = self.as_grid and self.grid is not None
        source = key_source(run.config)
        if self.as_grid and self.grid is not None:
            pinned = f"; underlined: a cell holding one of the {len(self.pins)} pinned sign(s)" if self.pins else ""
            alone = f"; {NO_VOWEL}: read as the consonant alone" if NO_VOWEL in self.grid.vowels else ""
            head.update(
                f"[b]Run #{run.id}[/] {run.corpus}: each {run.lost_code} sign in the cell of its best reading "
                f"(from {source}); g: the table{alone}{pinned}"
            )
            self._fill_grid(table, self.grid)
        else:
            order = "most sure first" if self.by_confidence else "by symbol"
            grid_hint = "; g: the syllable grid" if self.grid is not None else ""
            if self.pins:
                grid_hint += f"; {len(self.pins)} sign(s) pinned (R refines holding them)"
            head.update(
                f"[b]Run #{run.id}[/] {run.corpus}: each {run.lost_code} symbol and the {run.known_code} "
                f"symbols it is read as, with probabilities (from {source}); {order}{grid_hint}"
            )
            self._fill_table(table, char_map)
        if was is not None and table.row_count:
            key, (row, column) = was
            row = table.get_row_index(key) if key is not None and key in table.rows else min(row, table.row_count - 1)
            table.move_cursor(row=row, column=min(column, len(table.columns) - 1), animate=False)
        self._show_uses()

    def _fill_table(self, table: DataTable, char_map: dict[str, list[tuple[str, float]]]) -> None:
        table.cursor_type = "row"
        table.cell_padding = 1
        width = max(len(v) for v in char_map.values())
        table.add_column("sign", key="lost")
        table.add_column("pinned", key="pinned")
        table.add_column("uses", key="uses")
        for n in range(1, width + 1):
            table.add_column(f"#{n}", key=f"k{n}", width=9)
        if self.by_confidence:
            symbols = sorted(char_map, key=lambda s: (-confidence(char_map[s]), s))
        else:
            symbols = sorted(char_map)
        for lost, tops in ((s, char_map[s]) for s in symbols):
            uses = self.uses.get(lost)
            pinned = Text(",".join(self.pins.get(lost, [])), style="bold reverse" if lost in self.pins else "")
            cells: list = [Text(f" {lost} ", style="bold"), pinned, str(uses.total) if uses else ""]
            for known, prob in tops:
                cells.append(Text(f" {known} {prob:.2f} ", style=shade_style(self.app, prob)))
            cells += [""] * (width - len(tops))
            table.add_row(*cells, key=lost)

    def _fill_grid(self, table: DataTable, grid: SyllableGrid) -> None:
        # Cells pad themselves with one leading space and drop a probability's leading zero, so that
        # five vowels' columns (" 𐀜 .88+1", 8 cells each) fit beside the side panel at 80 columns.
        table.cursor_type = "cell"
        table.cell_padding = 0
        table.add_column("", key="onset")
        for vowel in grid.vowels:
            table.add_column(f" {vowel}", key=f"v:{vowel}")
        for onset in grid.onsets:
            cells: list = [Text(f" {onset or '·'} ", style="bold")]
            for vowel in grid.vowels:
                signs = grid.cells.get((onset, vowel), [])
                if not signs:
                    cells.append("")
                    continue
                sign, p = signs[0]
                more = f"+{len(signs) - 1}" if len(signs) > 1 else ""
                pinned = " bold underline" if any(s in self.pins for s, _ in signs) else ""
                cells.append(Text(f" {sign} {_short(p)}{more}", style=shade_style(self.app, p) + pinned))
            table.add_row(*cells, key=f"o:{onset}")

    # --- the side panel: how the proposals read the selected sign ------------------------------

    @on(DataTable.RowHighlighted, "#key-table")
    @on(DataTable.CellHighlighted, "#key-table")
    def _highlighted(self) -> None:
        self._show_uses()

    def selected_signs(self) -> list[str]:
        """The sign on the cursor's row, or in grid view the signs of the cursor's cell."""
        table = self.query_one("#key-table", DataTable)
        if table.row_count == 0:
            return []
        coordinate = table.cursor_coordinate
        row_key, column_key = table.coordinate_to_cell_key(coordinate)
        if not self.as_grid or self.grid is None:
            return [str(row_key.value)]
        onset, column = str(row_key.value)[2:], str(column_key.value)
        if not column.startswith("v:"):
            return []
        return [sign for sign, _ in self.grid.cells.get((onset, column[2:]), [])]

    def _show_uses(self) -> None:
        lines: list[str] = []
        for sign in self.selected_signs():
            uses = self.uses.get(sign)
            if uses is None:
                lines.append(f"[b]{escape(sign)}[/]: no proposal reads it")
                continue
            lines.append(f"[b]{escape(sign)}[/] in {uses.total} proposal(s)")
            readings = uses.by_count()
            for reading, ranks in readings[:SHOWN_READINGS]:
                lines.append(f" [b]{escape(reading)}[/] x{len(ranks)}")
                for rank in ranks[:SHOWN_PAIRS]:
                    row = self.rows[rank]
                    lines.append(f"  #{rank} {escape(row.lost)} -> {escape(row.known)}")
                if len(ranks) > SHOWN_PAIRS:
                    lines.append(f"  ... {len(ranks) - SHOWN_PAIRS} more")
            if len(readings) > SHOWN_READINGS:
                rest = readings[SHOWN_READINGS:]
                lines.append(f" ... {len(rest)} more reading(s), {sum(len(r) for _, r in rest)} use(s)")
        self.query_one("#key-uses", Static).update("\n".join(lines))


def _short(p: float) -> str:
    """A probability in three characters: ".80", or "1.0" for a certain one."""
    text = f"{p:.2f}"
    return text[1:] if text.startswith("0") else f"{p:.1f}"
