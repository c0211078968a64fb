"""Known sign values: a lost symbol whose reading a scholar already trusts (from a bilingual, a
place name), given before a run as `decipher run --known-signs FILE.tsv` (config `known_signs`).

The file has the header `lost<TAB>known`, then one value a line: a lost symbol (as the lost words
spell it) and the known letters it writes, e.g. `𐀀<TAB>a` or `𐀒<TAB>ko`. A symbol may have several
values (Linear B's k- signs write k, g and kh), one a line; blank lines and `#` comments are skipped.

A value holds the character channel (engine/channels/) to a reading: the symbol's other readings
start PIN_STRENGTH nats below its values, a syllable value's consonant alone counted as a value
(`with_dead_vowels`: syllabaries write a cluster's consonant with a syllable's sign). A scholar's
value is often right but incomplete (a sign of a merged series also writes the other consonant, a
letter written two ways), so the words may still teach the sign another reading where they demand
it, but only by lowering the other signs a reading writes: training never moves the pinned symbol's
own logits (where it did, training pulled pinned signs to wrong readings, and a complete, correct
key read 76-83% of a 200-word syllabary: docs/pinning.md). A sign pinned on a trained channel first
forgets what training taught it (`Channel.forget_signs`). The syllable search holds the values'
signs fixed.
One-letter values suit both channels; a two-letter value (a syllable) suits the pieces channel only.
The values are checked whole against the corpus before a run starts: the first bad line is one
`FILE:LINE: problem` (CorpusError).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..corpora.charset import Charset
from ..corpora.corpus import (
    SIGN_VALUES_HEADER,
    Corpus,
    CorpusError,
    Word,
    check_symbols,
    parse_word,
    read_lines,
    word_text,
)

HEADER = SIGN_VALUES_HEADER
MAX_LETTERS = 2  # a pieces channel's piece is one or two known letters
# How far below its values a pinned symbol's other readings start: a constant offset on their
# logits, so a reading the scholar did not give needs the words' steady evidence to lead. It is
# the strength a syllable search's map seeds a channel with (channels/syllable_seed.py, SEED_STRENGTH),
# not a tuned value; a mask, and an offset the words could train away, each read worse
# (docs/pinning.md, "A pin leads; the words may still teach another reading", "A pin binds").
PIN_STRENGTH = 2.5


@dataclass(frozen=True)
class SignValue:
    """One reading: the lost symbol `lost` is written from the known letters `known`."""

    lost: str
    known: Word
    line: int = 0  # where the file gave it (0: not from a file)

    @property
    def text(self) -> str:
        """The value as a file or a pin writes it: letters run together ("ko"), or separated by
        spaces where a letter is several characters ("kʷ a"), so it reads back the same."""
        return " ".join(self.known) if any(len(a) > 1 for a in self.known) else "".join(self.known)


@dataclass(frozen=True)
class SignValues:
    """A scholar's known sign values (engine input: never read from gold)."""

    values: tuple[SignValue, ...] = ()
    path: str = ""

    def __len__(self) -> int:
        return len(self.values)

    @property
    def longest(self) -> int:
        """The most known letters one value has (0 when there is none)."""
        return max((len(v.known) for v in self.values), default=0)

    def with_dead_vowels(self, vowels: frozenset[str]) -> SignValues:
        """These values, and for each syllable value (a consonant, then a vowel of `vowels`) its
        consonant alone where not given: a syllabary writes the consonant of a cluster, or of a coda
        it spells, with the sign of a syllable whose vowel is not read (Linear B ko-no-so for Knossos,
        ke-re-te for Krētes), so a pinned `ko` must not forbid its sign's `k`."""
        given = {(v.lost, v.known) for v in self.values}
        dead: list[SignValue] = []
        for v in self.values:
            consonant = v.known[:1]
            if (
                len(v.known) == 2
                and v.known[1] in vowels
                and v.known[0] not in vowels
                and (v.lost, consonant) not in given
            ):
                given.add((v.lost, consonant))
                dead.append(SignValue(v.lost, consonant, v.line))
        return SignValues(self.values + tuple(dead), self.path)

    def resolve(self, lost_charset: Charset, known_charset: Charset) -> list[tuple[int, tuple[int, ...]]]:
        """(lost symbol id, known letter ids) for each value, in the charsets of a run."""
        return [(lost_charset.index[v.lost], tuple(known_charset.index[a] for a in v.known)) for v in self.values]

    def check_channel(self, kind: str) -> None:
        """CorpusError (the file's line) for a value the channel `kind` cannot write: the edit
        channel writes a symbol from one letter."""
        if kind == "edit":
            for v in self.values:
                if len(v.known) > 1:
                    raise CorpusError(
                        self.path or "known sign values",
                        v.line or None,
                        f"value {word_text(v.known)!r} is {len(v.known)} letters; the edit channel writes a symbol "
                        "from one letter (use channel_kind = pieces)",
                    )

    def as_state(self) -> list[list[Any]]:
        """The values as a checkpoint keeps them (a refinement needs no file)."""
        return [[v.lost, list(v.known), v.line] for v in self.values]

    @classmethod
    def from_state(cls, state: Sequence[Sequence[Any]] | None) -> SignValues:
        return cls(tuple(SignValue(str(lost), tuple(known), int(line)) for lost, known, line in state or ()))

    def merged(self, newer: SignValues) -> SignValues:
        """These values with `newer`'s: a symbol `newer` gives values for takes those only."""
        named = {v.lost for v in newer.values}
        return SignValues(tuple(v for v in self.values if v.lost not in named) + newer.values, newer.path or self.path)

    def by_symbol(self) -> dict[str, list[str]]:
        """Each symbol's values as text (`SignValue.text`), in the order given: what the store pins."""
        out: dict[str, list[str]] = {}
        for v in self.values:
            out.setdefault(v.lost, []).append(v.text)
        return out

    def describe(self) -> str:
        """`𐀀=a, 𐀒=ko` for a summary line."""
        return ", ".join(f"{v.lost}={word_text(v.known)}" for v in self.values)


def _value_word(path: Path, line: int, cell: str) -> Word:
    # A value is written as a word is: grapheme clusters, or symbols separated by spaces.
    return check_symbols(path, line, cell.split(), cell) if " " in cell else parse_word(path, line, cell)


def read_sign_values(path: str | Path, corpus: Corpus) -> SignValues:
    """Read and check a sign-values file against `corpus`: every lost symbol must occur in its lost
    words and every known letter in its known words. CorpusError `FILE:LINE: problem` otherwise."""
    path = Path(path)
    lines = read_lines(path)
    rows = [(n, text) for n, text in enumerate(lines, start=1) if text.strip() and not text.lstrip().startswith("#")]
    if not rows:
        raise CorpusError(path, None, f"no sign values (expected the header {'<TAB>'.join(HEADER)})")
    header_line, header = rows[0]
    if tuple(c.strip().lower() for c in header.split("\t")) != HEADER:
        raise CorpusError(path, header_line, f"expected the header {'<TAB>'.join(HEADER)}, got {header!r}")
    cells_by_line = []
    for n, text in rows[1:]:
        cells = [c.strip() for c in text.split("\t")]
        if len(cells) != 2 or not all(cells):
            raise CorpusError(path, n, f"expected a lost symbol and its known letters separated by a tab, got {text!r}")
        cells_by_line.append((n, cells[0], cells[1]))
    return checked_sign_values(cells_by_line, corpus, path)


def checked_sign_values(cells: Sequence[tuple[int, str, str]], corpus: Corpus, source: str | Path) -> SignValues:
    """(line, lost symbol, known letters) as typed, checked against `corpus` as a file's lines are
    (`read_sign_values`): CorpusError `SOURCE:LINE: problem` at the first bad one. A decipherer's
    pinned values (the Key screen, the store) are checked by it too, numbered from 1."""
    path = Path(source)
    lost_symbols, known_symbols = corpus.lost_symbols(), corpus.known_symbols()
    values: list[SignValue] = []
    seen: set[tuple[str, Word]] = set()
    for n, lost_cell, known_cell in cells:
        lost = parse_word(path, n, lost_cell) if " " not in lost_cell else lost_cell.split()
        if len(lost) != 1:
            raise CorpusError(path, n, f"{lost_cell!r} is {len(lost)} symbols; a line gives one lost symbol's value")
        symbol = lost[0]
        if symbol not in lost_symbols:
            raise CorpusError(path, n, f"unknown lost symbol {symbol!r}: no lost word of {corpus.name} has it")
        known = _value_word(path, n, known_cell)
        if len(known) > MAX_LETTERS:
            raise CorpusError(path, n, f"value {known_cell!r} is {len(known)} letters; a symbol writes 1 or 2")
        missing = [a for a in known if a not in known_symbols]
        if missing:
            raise CorpusError(path, n, f"unknown known letter {missing[0]!r}: no known word of {corpus.name} has it")
        if (symbol, known) in seen:
            raise CorpusError(path, n, f"{symbol}={known_cell} is given twice")
        seen.add((symbol, known))
        values.append(SignValue(symbol, known, n))
    return SignValues(tuple(values), str(path))
