"""A corpus at a glance: vocabulary sizes, symbol counts and a few word pairs."""

from __future__ import annotations

from dataclasses import dataclass

from rich.markup import escape
from textual.widgets import Static

from ...engine.corpora.corpus import CorpusError, preview_lines
from ...engine.corpora.registry import CorpusSpec, load_corpus


@dataclass
class CorpusSummary:
    text: str
    ok: bool


def summarize_corpus(corpus: str, lost: str = "", known: str = "", lines: int = 4) -> CorpusSummary:
    """Load a corpus (registry name or path) and describe it; a bad one gives its one-line error."""
    try:
        loaded = load_corpus(CorpusSpec(corpus, lost, known))
    except CorpusError as exc:
        return CorpusSummary(f"[red]{escape(str(exc))}[/]", False)
    c = loaded.corpus
    s = c.stats()
    fmt = "" if c.format == "cog" else f" ({c.format}{', segmented' if c.segmented else ''})"
    out = [
        f"[b]{escape(c.name)}[/]: {escape(c.lost_code)} -> {escape(c.known_code)}   {escape(loaded.path)}{fmt}",
        f"{s['lost_words']} lost words ({s['lost_symbols']} symbols), "
        f"{s['known_words']} known words ({s['known_symbols']} symbols), "
        + (f"{s['gold_lost_words']} with gold cognates" if c.has_gold else "no gold"),
    ]
    out.extend(f"  {escape(line)}" for line in preview_lines(c, lines))
    out.extend(f"[yellow]{escape(w)}[/]" for w in loaded.warnings)
    return CorpusSummary("\n".join(out), True)


class CorpusPreview(Static):
    """Shows a `CorpusSummary` (filled by a worker of the screen that owns it)."""

    def show(self, summary: CorpusSummary | None) -> None:
        self.update("loading..." if summary is None else summary.text)
