"""Key: the character correspondences the model learned (lost symbol -> known symbols), by symbol or
by confidence (the probability of a symbol's best reading)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ...engine.methods import char_map_source
from ...exports.key import confidence
from ..widgets.mode_bar import ModeBar
from ..widgets.shade import shade_style


class KeyScreen(Screen):
    """Each lost symbol with its top known symbols, shaded by probability; refreshed when a run ends."""

    HELP_TITLE = "Key"
    BINDINGS = [
        Binding("s", "sort", "Sort", tooltip="Sort by symbol or by confidence (the best reading's probability)",
                id="key.sort"),
    ]

    def compose(self) -> ComposeResult:
        yield ModeBar("key")
        yield Static("", id="key-head")
        yield DataTable(id="key-table", cursor_type="row", zebra_stripes=False)
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._shown: int | None = None
        self.by_confidence = False
        self.load()

    def action_sort(self) -> None:
        self.by_confidence = not self.by_confidence
        self.load()

    def on_screen_resume(self) -> None:
        self.load()

    def refresh_from_app(self, event: object = None) -> None:
        if event is None:
            self.load()

    def load(self) -> None:
        run_id = self.app.selected_run
        run = self.app.store.run(run_id) if run_id is not None else None
        char_map = self.app.store.char_map(run_id) if run is not None else {}
        table = self.query_one("#key-table", DataTable)
        table.clear(columns=True)
        head = self.query_one("#key-head", Static)
        if run is None:
            head.update("No run selected: pick one on Runs (1).")
            return
        if not char_map:
            head.update(f"Run #{run.id} ({run.corpus}) has no character map yet ({run.status}).")
            return
        source = char_map_source(run.config)
        order = "most sure first" if self.by_confidence else "by symbol"
        head.update(
            f"[b]Run #{run.id}[/] {run.corpus}: each {run.lost_code} symbol and the {run.known_code} "
            f"symbols it is read as, with probabilities (from {source}); {order}"
        )
        width = max(len(v) for v in char_map.values())
        table.add_column(run.lost_code, key="lost")
        for n in range(1, width + 1):
            table.add_column(f"#{n}", key=f"k{n}", width=9)
        if self.by_confidence:
            symbols = sorted(char_map, key=lambda s: (-confidence(char_map[s]), s))
        else:
            symbols = sorted(char_map)
        for lost, tops in ((s, char_map[s]) for s in symbols):
            cells: list = [Text(f" {lost} ", style="bold")]
            for known, prob in tops:
                cells.append(Text(f" {known} {prob:.2f} ", style=shade_style(self.app, prob)))
            cells += [""] * (width - len(tops))
            table.add_row(*cells, key=lost)
