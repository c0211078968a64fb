"""A radio button whose choice shows by a mark, not by colour alone."""

from __future__ import annotations

from textual.widgets import RadioButton


class MarkedRadioButton(RadioButton):
    """A RadioButton that draws its dot only when it is chosen (Textual's draws it in both states, a
    colour apart, which a monochrome terminal or a colour-blind reader cannot tell)."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # Textual's glyph, read where it draws the button
        return "●" if self.value else " "
