"""`?`: every binding of the screen underneath (and the app's), with its id for keymap.toml."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static


class HelpScreen(ModalScreen[None]):
    """A modal list of key bindings; escape, q or ? closes it."""

    BINDINGS = [
        Binding("escape,q,question_mark", "dismiss", "Close", id="help.close"),
    ]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Static(self._table(), id="help-table")
            yield Static(
                'Keys can be changed in keymap.toml in the data folder: [keymap] "review.accept" = "y"',
                classes="hint",
            )

    def _table(self) -> Table:
        title = getattr(self.under, "HELP_TITLE", type(self.under).__name__)
        table = Table(title=f"Keys: {title}", title_justify="left", expand=True)
        table.add_column("key", style="bold", no_wrap=True)
        table.add_column("action")
        table.add_column("id", style="dim", no_wrap=True)
        # The screen's own bindings first, then the app's (what works everywhere, but not in a modal
        # dialog, which hides them); keys grouped per id.
        rows: dict[str, tuple[list[str], str]] = {}
        for node in (self.under,) if self.under.is_modal else (self.under, self.app):
            for _key, binding in node._bindings:
                if not binding.description:
                    continue
                ident = binding.id or binding.description
                keys, _ = rows.setdefault(ident, ([], binding.tooltip or binding.description))
                display = self.app.get_key_display(binding)
                if display not in keys:
                    keys.append(display)
        # Bindings with an id (this project's) first; Textual's generic ones (tab, copy) after.
        ordered = sorted(rows.items(), key=lambda item: "." not in item[0])
        for ident, (keys, description) in ordered:
            table.add_row(" ".join(keys), description, ident if "." in ident else "")
        return table
