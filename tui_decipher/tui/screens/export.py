"""Export the review: accepted pairs (optionally every decision) as TSV and as .cog."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Static

from ...results import write_atomic
from ...store import ACCEPTED, ProposalRow, RunRow, export_cog, export_tsv


def write_export(base: Path, run: RunRow, rows: list[ProposalRow], include_all: bool) -> list[Path]:
    """Write base.tsv and base.cog (atomically); returns the paths written."""
    base.parent.mkdir(parents=True, exist_ok=True)
    outputs = {
        base.with_suffix(".tsv"): export_tsv(rows, include_all),
        base.with_suffix(".cog"): export_cog(rows, run.lost_code, run.known_code),
    }
    for path, text in outputs.items():
        write_atomic(path, text)
    return list(outputs)


class ExportScreen(ModalScreen[list[Path] | None]):
    """Ask where to export; enter or the button writes, escape cancels."""

    BINDINGS = [Binding("escape", "dismiss_none", "Cancel", id="export.cancel")]

    def __init__(self, run: RunRow, rows: list[ProposalRow]) -> None:
        super().__init__()
        self.run, self.rows = run, rows

    def compose(self) -> ComposeResult:
        default = self.app.data_dir / "exports" / f"run-{self.run.id}-{self.run.corpus}-accepted"
        accepted = sum(r.status == ACCEPTED for r in self.rows)
        with Vertical(id="export-body"):
            yield Static(f"[b]Export run #{self.run.id}[/]: {accepted} accepted pair(s) -> .tsv and .cog")
            yield Input(str(default), id="export-path")
            yield Checkbox("also rejected decisions (in the .tsv)", id="export-all")
            with Horizontal(id="export-buttons"):
                yield Button("Export", variant="primary", id="export-go")
                yield Button("Cancel", id="export-cancel")

    @on(Button.Pressed, "#export-go")
    @on(Input.Submitted, "#export-path")
    def _go(self) -> None:
        text = self.query_one("#export-path", Input).value.strip()
        if not text:
            self.notify("Give a file name.", severity="error")
            return
        base = Path(text).expanduser()
        if base.suffix in (".tsv", ".cog"):
            base = base.with_suffix("")
        try:
            paths = write_export(base, self.run, self.rows, self.query_one("#export-all", Checkbox).value)
        except OSError as exc:
            self.notify(f"{base}: {exc.strerror or exc}", title="export failed", severity="error")
            return
        self.app.notify("Exported " + " and ".join(str(p) for p in paths))
        self.dismiss(paths)

    @on(Button.Pressed, "#export-cancel")
    def action_dismiss_none(self) -> None:
        self.dismiss(None)
