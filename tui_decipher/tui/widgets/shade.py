"""Background shades for probabilities, blended from the theme's colours so every theme reads."""

from __future__ import annotations

from textual.app import App
from textual.color import Color


def shade_style(app: App, weight: float) -> str:
    """A Rich style whose background goes from the panel colour (0) to the primary colour (1)."""
    variables = app.theme_variables
    base = Color.parse(variables.get("panel", "#202020"))
    top = Color.parse(variables.get("primary", "#0178D4"))
    weight = min(1.0, max(0.0, weight))
    background = base.blend(top, weight)
    foreground = background.get_contrast_text(1.0)
    return f"{foreground.hex} on {background.hex}"
