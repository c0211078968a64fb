"""A corpus at a glance: vocabulary sizes, symbol counts and a few word pairs (session/corpus_views.py)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.markup import escape
from textual.widgets import Static

from ...session.corpus_views import corpus_glance


@dataclass
class CorpusSummary:
    text: str
    ok: bool


def summarize_corpus(corpus: str, lost: str = "", known: str = "", lines: int = 4) -> CorpusSummary:
    """Load a corpus (registry name or path) and describe it; a bad one gives its one-line error."""
    glance = corpus_glance(corpus, lost, known, lines)
    if glance.error:
        return CorpusSummary(f"[red]{escape(glance.error)}[/]", False)
    out = [f"[b]{escape(glance.title)}[/]   {escape(glance.where)}", escape(glance.sizes)]
    out.extend(f"  {escape(line)}" for line in glance.lines)
    out.extend(f"[yellow]{escape(w)}[/]" for w in glance.warnings)
    return CorpusSummary("\n".join(out), True)


class CorpusPreview(Static):
    """Shows a `CorpusSummary` (filled by a worker of the screen that owns it)."""

    def show(self, summary: CorpusSummary | None) -> None:
        self.update("loading..." if summary is None else summary.text)
