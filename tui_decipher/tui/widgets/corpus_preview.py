"""A corpus at a glance: vocabulary sizes, symbol counts and a few word pairs."""

from __future__ import annotations

from dataclasses import dataclass

from rich.markup import escape
from textual.widgets import Static

from ...engine.config import DecipherConfig
from ...engine.corpus import CorpusError, word_text
from ...engine.registry import load_corpus


@dataclass
class CorpusSummary:
    text: str
    ok: bool


def summarize_corpus(corpus: str, lost: str = "", known: str = "", lines: int = 4) -> CorpusSummary:
    """Load a corpus (registry name or path) and describe it; a bad one gives its one-line error."""
    try:
        loaded = load_corpus(DecipherConfig(corpus=corpus, lost=lost, known=known))
    except CorpusError as exc:
        return CorpusSummary(f"[red]{escape(str(exc))}[/]", False)
    c = loaded.corpus
    s = c.stats()
    out = [
        f"[b]{escape(c.name)}[/]: {c.lost_code} -> {c.known_code}   {escape(loaded.path)}",
        f"{s['lost_words']} lost words ({s['lost_symbols']} symbols), "
        f"{s['known_words']} known words ({s['known_symbols']} symbols), "
        + (f"{s['gold_lost_words']} with gold cognates" if c.has_gold else "no gold"),
    ]
    for i, known_set in sorted(c.gold.items())[:lines]:
        knowns = " | ".join(word_text(c.known_words[j]) for j in sorted(known_set))
        out.append(f"  {escape(word_text(c.lost_words[i]))}  ~  {escape(knowns)}")
    if not c.has_gold:
        out.append("  " + "  ".join(escape(word_text(w)) for w in c.lost_words[:lines]))
    out.extend(f"[yellow]{escape(w)}[/]" for w in loaded.warnings)
    return CorpusSummary("\n".join(out), True)


class CorpusPreview(Static):
    """Shows a `CorpusSummary` (filled by a worker of the screen that owns it)."""

    def show(self, summary: CorpusSummary | None) -> None:
        self.update("loading..." if summary is None else summary.text)
