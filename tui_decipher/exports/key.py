"""The character key as a correspondence table: each lost symbol, how sure the run is of it, and
its readings with their probabilities."""

from __future__ import annotations

from .base import ReviewedRun, text_format


def confidence(readings: list[tuple[str, float]]) -> float:
    """How sure the run is of a lost symbol: the probability of its best reading."""
    return max((p for _, p in readings), default=0.0)


def export_key(char_map: dict[str, list[tuple[str, float]]], by_confidence: bool = False) -> str:
    """TSV: lost, confidence, then reading1, p1, reading2, p2... (best first); by symbol, or by
    confidence (most sure first)."""
    width = max((len(v) for v in char_map.values()), default=0)
    header = ["lost", "confidence"] + [f"{kind}{n}" for n in range(1, width + 1) for kind in ("reading", "p")]
    order = sorted(char_map, key=lambda s: (-confidence(char_map[s]), s) if by_confidence else (0.0, s))
    lines = ["\t".join(header)]
    for lost in order:
        cells = [lost, f"{confidence(char_map[lost]):.4f}"]
        for known, prob in char_map[lost]:
            cells += [known, f"{prob:.4f}"]
        lines.append("\t".join(cells + [""] * (len(header) - len(cells))))
    return "\n".join(lines) + "\n"


def _render(reviewed: ReviewedRun, include_all: bool) -> tuple[str, str]:
    return export_key(reviewed.char_map), f"{len(reviewed.char_map)} lost symbol(s) with their readings"


FORMAT = text_format(
    "key",
    ".tsv",
    "the character key: each lost symbol, its readings and their probabilities",
    _render,
    takes_all=False,
)
