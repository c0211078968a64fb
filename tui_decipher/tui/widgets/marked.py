"""A radio button and a checkbox whose choice shows by a mark, not by colour alone.

Textual draws a toggle's glyph in both states, a colour apart, which a monochrome terminal or a
colour-blind reader cannot tell; these draw it only when the toggle is on."""

from __future__ import annotations

from textual.widgets import Checkbox, RadioButton


class MarkedRadioButton(RadioButton):
    """A RadioButton whose dot shows only when it is chosen."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # Textual's glyph, read where it draws the button
        return "●" if self.value else " "


class MarkedCheckbox(Checkbox):
    """A Checkbox whose X shows only when it is ticked."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # as above
        return "X" if self.value else " "
