"""The top bar: the app's name, the four screens with their keys (current one highlighted), a note."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

MODES = (("1", "runs", "Runs"), ("2", "progress", "Progress"), ("3", "review", "Review"), ("4", "key", "Key"))


class ModeBar(Static):
    """Shows which screen is current; the digit keys switch (bindings live on the app)."""

    note: reactive[str] = reactive("")

    def __init__(self, current: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.current = current

    def render(self) -> Text:
        text = Text(" tui-decipher ", style="bold")
        for key, mode, label in MODES:
            style = "reverse bold" if mode == self.current else ""
            text.append(" ")
            text.append(f" {key} {label} ", style=style)
        if self.note:
            text.append("  ")
            text.append(self.note, style="italic")
        return text
