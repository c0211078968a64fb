"""What a corpus format is, and the steps its readers share (vocabularies, gold from cognate sets)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..corpus import Corpus, Word

# read(path, lost, known, name): lost / known pick languages by code or 0-based index ("" or None:
# the first two), name overrides the corpus's name.
Reader = Callable[[Path, str | int | None, str | int | None, str | None], Corpus]


@dataclass(frozen=True)
class CorpusFormat:
    """A corpus file format: its name, whether it claims a path, and its reader."""

    name: str
    sniff: Callable[[Path], bool]  # cheap: a suffix, a folder, a file's first line
    read: Reader


# A morpheme boundary in CLDF Segments and LingPy TOKENS ("i g n + i s"): not a symbol of the script.
MORPHEME_BOUNDARY = "+"


def segments(symbols: Iterable[object]) -> list[str]:
    """The symbols of a Segments / TOKENS value, morpheme boundaries left out."""
    return [str(s) for s in symbols if str(s) != MORPHEME_BOUNDARY]


def word_index(words: Iterable[Word]) -> dict[Word, int]:
    """Each distinct word's index, in first-seen order (the dict's keys are the vocabulary)."""
    index: dict[Word, int] = {}
    for word in words:
        index.setdefault(word, len(index))
    return index


def gold_from_sets(
    sets: Iterable[Iterable[str]],
    forms: Mapping[str, tuple[str, Word]],
    lost_code: str,
    lost_index: Mapping[Word, int],
    known_index: Mapping[Word, int],
) -> dict[int, frozenset[int]]:
    """Gold pairs from cognate sets of form ids: every lost word of a set with every known word of
    it. `forms` maps a form id to (language code, word) for the forms of the two languages."""
    gold: dict[int, set[int]] = {i: set() for i in range(len(lost_index))}
    for members in sets:
        words = [forms[f] for f in members if f in forms]
        lost = {lost_index[w] for code, w in words if code == lost_code}
        known = {known_index[w] for code, w in words if code != lost_code}
        for i in lost:
            gold[i] |= known
    return {i: frozenset(js) for i, js in gold.items()}
