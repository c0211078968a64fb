"""A yes/no question (y / n or escape)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-body"):
            yield Static(self.question, id="confirm-question")
            yield Static("[b]y[/] yes    [b]n[/] no", classes="hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
