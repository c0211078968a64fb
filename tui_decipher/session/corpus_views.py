"""A corpus as the front ends offer and preview it: the registry's corpora that are here (the New
run form's choices) and a corpus at a glance (where it was read from, its sizes, a few word pairs,
its warnings), read without any run's settings. Plain text; no UI library."""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.corpora.corpus import CorpusError, preview_lines
from ..engine.corpora.registry import CorpusSpec, entry_path, load_corpus, load_registry


def available_corpora() -> list[str]:
    """The registry's corpora whose files are here (the demo, which is written on demand, always)."""
    return [name for name, entry in load_registry().items() if entry_path(entry) is not None or name == "demo"]


@dataclass(frozen=True)
class CorpusGlance:
    """A corpus at a glance, or the one-line error that kept it from being read (`error`)."""

    error: str = ""
    title: str = ""  # "NAME: LOST -> KNOWN", then where it was read from and its format
    where: str = ""
    sizes: str = ""  # its words and symbols, and how many lost words have a gold cognate
    lines: tuple[str, ...] = ()  # a few of its rows
    warnings: tuple[str, ...] = ()


def corpus_glance(corpus: str, lost: str = "", known: str = "", lines: int = 4) -> CorpusGlance:
    """Read a corpus (registry name or path, with its two languages) and describe it."""
    try:
        loaded = load_corpus(CorpusSpec(corpus, lost, known))
    except CorpusError as exc:
        return CorpusGlance(error=str(exc))
    c, s = loaded.corpus, loaded.corpus.stats()
    fmt = "" if c.format == "cog" else f" ({c.format}{', segmented' if c.segmented else ''})"
    sizes = (f"{s['lost_words']} lost words ({s['lost_symbols']} symbols), "
             f"{s['known_words']} known words ({s['known_symbols']} symbols), "
             + (f"{s['gold_lost_words']} with gold cognates" if c.has_gold else "no gold"))  # fmt: skip
    return CorpusGlance("", f"{c.name}: {c.lost_code} -> {c.known_code}", f"{loaded.path}{fmt}", sizes,
                        tuple(preview_lines(c, lines)), tuple(loaded.warnings))  # fmt: skip
