"""Export the review in one of the export formats (tui_decipher/exports/): the formats of `decipher export`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Select, Static

from ...exports import EXPORTS, ExportError, ReviewedRun, default_export_path, holds_no_pair, write_export
from ...store import ACCEPTED, ProposalRow, RunRow
from ..widgets.marked import MarkedCheckbox

if TYPE_CHECKING:
    from textual import getters

    from ..app import DecipherApp


class ExportScreen(ModalScreen[list[Path] | None]):
    """Pick a format and where to write; enter or the button writes, escape cancels."""

    if TYPE_CHECKING:
        app = getters.app(DecipherApp)  # the typed app, for the type checker only

    BINDINGS = [Binding("escape", "dismiss_none", "Cancel", id="export.cancel")]

    def __init__(self, run: RunRow, rows: list[ProposalRow]) -> None:
        super().__init__()
        self.run, self.rows = run, rows
        self._default = ""  # the path last filled in for the format; a path the user typed is kept

    def compose(self) -> ComposeResult:
        accepted = sum(r.status == ACCEPTED for r in self.rows)
        with Vertical(id="export-body"):
            yield Static(f"[b]Export run #{self.run.id}[/]: {accepted} accepted of {len(self.rows)} pair(s)")
            yield Select([(f"{f.name}: {f.help}", f.name) for f in EXPORTS.values()], value="tsv",
                         allow_blank=False, id="export-format")  # fmt: skip
            yield Input(id="export-path")
            yield MarkedCheckbox("every proposal, with its decision (tsv, edictor, cldf)", id="export-all")
            with Horizontal(id="export-buttons"):
                yield Button("Export", variant="primary", id="export-go")
                yield Button("Cancel", id="export-cancel")

    def on_mount(self) -> None:
        self._fill_path()

    def _choice(self) -> tuple[str, bool]:
        fmt = str(self.query_one("#export-format", Select).value)
        return fmt, self.query_one("#export-all", Checkbox).value and EXPORTS[fmt].takes_all

    @on(Select.Changed, "#export-format")
    @on(Checkbox.Changed, "#export-all")
    def _fill_path(self) -> None:
        """The format's default path in the current folder, where `decipher export` writes too (the
        folder named in full, so the dialog says where), unless the user typed another."""
        path = self.query_one("#export-path", Input)
        if path.value and path.value != self._default:
            return
        fmt, include_all = self._choice()
        self._default = str(default_export_path(self.run, EXPORTS[fmt], include_all, Path.cwd()))
        path.value = self._default

    @on(Button.Pressed, "#export-go")
    @on(Input.Submitted, "#export-path")
    def _go(self) -> None:
        text = self.query_one("#export-path", Input).value.strip()
        if not text:
            self.notify("Give a file name.", severity="error")
            return
        fmt, include_all = self._choice()
        reviewed = ReviewedRun(self.run, self.rows, self.app.store.char_map(self.run.id))
        try:
            written = write_export(reviewed, fmt, include_all, Path(text).expanduser())
        except ExportError as exc:
            self.notify(str(exc), title="export failed", severity="error")
            return
        except OSError as exc:
            self.notify(f"{exc.filename or text}: {exc.strerror or exc}", title="export failed", severity="error")
            return
        where = text if EXPORTS[fmt].suffix == "" else str(written.paths[0])
        self.app.notify(f"Exported {where}: {written.summary}")
        if holds_no_pair(reviewed, fmt, include_all):
            self.app.notify("No pair is accepted yet, so the export holds none: tick 'every proposal' to export "
                            "them all with their decisions.", severity="warning")  # fmt: skip
        self.dismiss(written.paths)

    @on(Button.Pressed, "#export-cancel")
    def action_dismiss_none(self) -> None:
        self.dismiss(None)
