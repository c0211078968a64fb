"""Pin a sign's value (`p` on Key): the known letters it writes, taken from a reading shown or typed;
`?` marks the sign unknown; an empty value unpins it. A refinement (`R`) holds the pinned values."""

from __future__ import annotations

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ...store import UNKNOWN_VALUE


def parse_pin(text: str) -> list[str]:
    """The values typed (comma-separated: a sign may write several, Linear B's k- sign k, g, kh);
    [] unpins; [UNKNOWN_VALUE] marks the sign unknown."""
    values = [v.strip() for v in text.split(",") if v.strip()]
    return [UNKNOWN_VALUE] if UNKNOWN_VALUE in values else values


class PinScreen(ModalScreen[list[str] | None]):
    """Type a sign's value(s); enter pins, escape cancels."""

    HELP_TITLE = "Pin a sign"
    AUTO_FOCUS = "#pin-value"
    BINDINGS = [Binding("escape", "dismiss_none", "Cancel", tooltip="Close without pinning", id="pin.cancel")]

    def __init__(self, sign: str, current: list[str], readings: list[tuple[str, float]]) -> None:
        super().__init__()
        self.sign, self.current, self.readings = sign, current, readings

    def compose(self) -> ComposeResult:
        shown = ", ".join(f"{r} {p:.2f}" for r, p in self.readings[:5]) or "none"
        start = ", ".join(self.current) if self.current else (self.readings[0][0] if self.readings else "")
        with Vertical(id="pin-body"):
            yield Static(f"[b]Pin {escape(self.sign)}[/]: the known letters it writes (readings: {escape(shown)}).")
            yield Input(start, placeholder="e.g. ko; several: k, g, kh; ? unknown; empty: unpin", id="pin-value")
            yield Static("enter pins, escape cancels; R on Key refines the run holding every pinned value",
                         classes="hint")  # fmt: skip

    @on(Input.Submitted, "#pin-value")
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(parse_pin(event.value))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
