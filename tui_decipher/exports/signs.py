"""The sign values pinned on a run, in the `--known-signs` file format (`lost<TAB>known`, one value a
line), so a new run, another corpus of the same script, or a colleague starts from them. Signs
marked unknown are listed as comments: the doubt is kept, and nothing reads it as a value."""

from __future__ import annotations

from ..store import UNKNOWN_VALUE
from .base import ReviewedRun, text_format


def export_signs(pins: list[tuple[str, str]]) -> str:
    """The `--known-signs` file of (lost symbol, value) pins."""
    lines = ["lost\tknown"]
    lines += [f"{symbol}\t{value}" for symbol, value in pins if value != UNKNOWN_VALUE]
    lines += [f"# {symbol}\tunknown" for symbol, value in pins if value == UNKNOWN_VALUE]
    return "\n".join(lines) + "\n"


def _render(reviewed: ReviewedRun, include_all: bool) -> tuple[str, str]:
    values = sum(value != UNKNOWN_VALUE for _, value in reviewed.pins)
    unknown = len(reviewed.pins) - values
    summary = f"{values} pinned sign value(s)" + (f", {unknown} marked unknown" if unknown else "")
    return export_signs(reviewed.pins), summary


FORMAT = text_format(
    "signs", ".tsv", "the sign values pinned on the run, as a --known-signs file", _render, takes_all=False
)
