"""TSV: one line per pair, its score, its review status and the method's reading of it."""

from __future__ import annotations

from ..engine.channels.alignment import alignment_text
from ..store import ACCEPTED, ProposalRow
from .base import ReviewedRun, pairs_summary, text_format


def export_tsv(rows: list[ProposalRow], include_all: bool = False) -> str:
    """Accepted pairs (or every proposal, with its status: accepted, rejected, unsure or open) as TSV."""
    chosen = [r for r in rows if include_all or r.status == ACCEPTED]
    header = ["lost", "known", "score", "status", "alignment"]
    lines = ["\t".join(header)] + [
        f"{r.lost}\t{r.known}\t{r.score:.6f}\t{r.status}\t{alignment_text(r.alignment)}" for r in chosen
    ]
    return "\n".join(lines) + "\n"


def _render(reviewed: ReviewedRun, include_all: bool) -> tuple[str, str]:
    return export_tsv(reviewed.rows, include_all), pairs_summary(reviewed.chosen(include_all), include_all)


FORMAT = text_format("tsv", ".tsv", "lost, known, score, review status and reading, one pair a line", _render)
