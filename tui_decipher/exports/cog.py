"""`.cog`: the accepted pairs as a two-column cognate table, which `decipher run --corpus` reads back."""

from __future__ import annotations

from ..store import ACCEPTED, ProposalRow
from .base import ReviewedRun, pairs_summary, text_format


def export_cog(rows: list[ProposalRow], lost_code: str, known_code: str) -> str:
    """Accepted pairs as a two-column .cog file (several known words for one lost word joined by |)."""
    by_lost: dict[str, list[str]] = {}
    for r in rows:
        if r.status == ACCEPTED:
            by_lost.setdefault(r.lost, []).append(r.known)
    lines = [f"{lost_code}\t{known_code}"] + [f"{lost}\t{'|'.join(known)}" for lost, known in by_lost.items()]
    return "\n".join(lines) + "\n"


def _render(reviewed: ReviewedRun, include_all: bool) -> tuple[str, str]:
    run = reviewed.run
    return export_cog(reviewed.rows, run.lost_code, run.known_code), pairs_summary(reviewed.chosen(False), False)


FORMAT = text_format(
    "cog", ".cog", "the accepted pairs as a .cog table (decipher run --corpus reads it)", _render, takes_all=False
)
