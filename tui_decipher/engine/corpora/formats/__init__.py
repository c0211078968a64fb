"""Corpus file formats: each module reads one format into a `Corpus`; `read_corpus_file` picks it.

- `cldf`: CLDF Wordlists (a metadata JSON, a dataset folder, a metadata-free forms.csv), with pycldf;
- `edictor`: EDICTOR / LingPy wordlist TSVs (DOCULECT, CONCEPT, TOKENS, COGID...), with lingpy;
- `cog`: the project's own `.cog` tables (engine/corpora/corpus.py), for every file the others leave;
- `word_lists`: two plain word lists, one word per line (no gold), read when both are given.

A new format is one module with a `FORMAT` and one line in `FORMATS`. pycldf and lingpy are
imported inside the readers, when a file of theirs is read, never when this package is.
"""

from __future__ import annotations

from pathlib import Path

from ..corpus import Corpus
from . import cldf, cog, edictor
from .base import CorpusFormat

# Asked in order; the first whose sniff claims a path reads it. `.cog` takes what is left.
FORMATS: tuple[CorpusFormat, ...] = (cldf.FORMAT, edictor.FORMAT, cog.FORMAT)


def format_of(path: str | Path) -> CorpusFormat:
    """The format that reads `path`."""
    path = Path(path).expanduser()
    return next(f for f in FORMATS if f.sniff(path))


def read_corpus_file(
    path: str | Path, lost: str | int | None = None, known: str | int | None = None, name: str | None = None
) -> Corpus:
    """Read a corpus file of any format; `lost` / `known` pick its languages (code, index or, for
    CLDF, Glottocode; default: the first two). Bad input raises a one-line CorpusError."""
    path = Path(path).expanduser()
    return format_of(path).read(path, lost, known, name)
