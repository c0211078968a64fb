"""Real words in an unknown script: a `.cog` corpus's lost side rewritten through a fixed random map
of its symbols onto another script's letters (`decipher corpus encipher`).

Any real pair then becomes a decipherment test with its own gold: the rows, the known side and so
the gold pairs stay as they were, and the lost words keep their real irregularities, which no
generated corpus has. The map is one-to-one, or few-to-one with `merge` (the least frequent
symbols written with the signs of others, as a script that does not tell two sounds apart). The
same file, seed and settings always give the same map.

`syllabic` writes syllables instead of letters, one sign a syllable, by the lost words' own vowels
(`vowels.known_vowels`): each consonant before a vowel with that vowel (a cluster written in full,
po-to-li, as Linear B and Cypriot write Greek), and a word's final consonants either left
unwritten ("syllabary", Linear B's codas) or each with a sign of its own ("dead-vowel", as Cypriot
writes a final s with a dead vowel's sign). A word with no vowel is written consonant by consonant.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from .corpus import CorpusError, Word, read_cog_table
from .vowels import known_vowels

# Scripts of single code points, no combining marks, unrelated to the IPA and alphabets of the
# corpora: (first, last) code point of each block's letters.
SCRIPTS: dict[str, tuple[int, int]] = {
    "cherokee": (0x13A0, 0x13F5),  # 86 letters
    "vai": (0xA500, 0xA60B),  # 268 syllables
    "yi": (0xA000, 0xA48C),  # 1,165 syllables
}
DEFAULT_SCRIPT = "cherokee"  # letters; syllables default to SYLLABIC_SCRIPT (a syllabary needs hundreds of signs)
SYLLABIC_SCRIPT = "yi"
SYLLABIC = ("syllabary", "dead-vowel")  # finals unwritten, or each written with a sign of its own


def syllables(word: Word, vowels: frozenset[str], finals: bool) -> tuple[str, ...]:
    """The syllables a syllabic script writes `word` with (see the module's docstring): each a
    consonant and the vowel after it, a bare vowel, or (with `finals`, or in a word with no vowel)
    a final consonant alone."""
    out: list[str] = []
    cluster: list[str] = []
    for symbol in word:
        if symbol in vowels:
            out += [c + symbol for c in cluster] if cluster else [symbol]
            cluster = []
        else:
            cluster.append(symbol)
    if cluster and (finals or not out):
        out += cluster
    return tuple(out)


@dataclass(frozen=True)
class Enciphered:
    """A corpus's text with its lost column rewritten, and the map that rewrote it."""

    text: str  # the new .cog file
    key: dict[str, tuple[str, ...]]  # sign -> the lost symbols it writes (one, or a few merged)
    lost_code: str
    script: str
    syllabic: str | None = None  # a syllable a sign ("syllabary", "dead-vowel"), or a letter a sign

    def key_text(self) -> str:
        """The key as a --known-signs file (header lost<TAB>known): each sign and the symbol it
        writes, most frequent sign first; merged symbols one line each."""
        lines = [f"{sign}\t{symbol}" for sign, symbols in self.key.items() for symbol in symbols]
        return "lost\tknown\n" + "".join(line + "\n" for line in lines)

    def summary(self) -> str:
        merged = sum(len(s) - 1 for s in self.key.values())
        units = "syllables" if self.syllabic else "symbols"
        few = f", {merged} {units} merged into others' signs" if merged else ""
        n_units = sum(map(len, self.key.values()))
        how = {"syllabary": ", a sign a syllable, final consonants unwritten",
               "dead-vowel": ", a sign a syllable, final consonants each with a sign"}  # fmt: skip
        return (f"{self.lost_code} rewritten in {self.script}{how.get(self.syllabic or '', '')}: {n_units} {units} "
                f"as {len(self.key)} signs{few}")  # fmt: skip


def encipher(path: str | Path, seed: int, lost: str | int | None = None, script: str | None = None,
             merge: int = 0, syllabic: str | None = None) -> Enciphered:  # fmt: skip
    """The `.cog` file at `path` with its lost column (`lost`: a code or index, default the first)
    written in `script` (default: DEFAULT_SCRIPT, or SYLLABIC_SCRIPT for syllables); `merge` of its
    least frequent symbols take the signs of others; `syllabic` ("syllabary" or "dead-vowel") writes
    a sign a syllable. Bad input raises CorpusError (the file) or ValueError (the settings), in one line."""
    script = script or (SYLLABIC_SCRIPT if syllabic else DEFAULT_SCRIPT)
    if script not in SCRIPTS:
        raise ValueError(f"script {script!r} is not one of {', '.join(SCRIPTS)}")
    if syllabic is not None and syllabic not in SYLLABIC:
        raise ValueError(f"--as {syllabic!r} is not one of {', '.join(SYLLABIC)}")
    if merge < 0:
        raise ValueError(f"--merge {merge}: at least 0")
    table = read_cog_table(path)
    column = table.column(lost, 0, "lost")
    if syllabic is not None:  # each word as its syllables: the units the signs write
        vowels = known_vowels([w for row in table.rows for w in row[column]])
        finals = syllabic == "dead-vowel"
        units = {w: syllables(w, vowels, finals) for row in table.rows for w in row[column]}
        table = replace(table, rows=tuple(
            tuple(tuple(units[w] for w in words) if k == column else words for k, words in enumerate(row))
            for row in table.rows
        ))  # fmt: skip
    counts: Counter[str] = Counter(s for row in table.rows for word in row[column] for s in word)
    symbols = sorted(counts, key=lambda s: (-counts[s], s))  # most frequent first; ties by symbol
    first, last = SCRIPTS[script]
    letters = [chr(c) for c in range(first, last + 1)]
    others = {s for row in table.rows for k, words in enumerate(row) if k != column for word in words for s in word}
    if others & set(letters):
        raise CorpusError(path, None, f"its other languages already write {script} letters: choose another --script")
    if merge >= len(symbols):
        raise ValueError(f"--merge {merge}: the lost side has only {len(symbols)} symbols")
    kept = symbols[: len(symbols) - merge]
    if len(kept) > len(letters):
        raise CorpusError(path, None, f"{len(kept)} lost symbols, more than {script}'s {len(letters)} letters")
    rng = random.Random(seed)
    sign_of = dict(zip(kept, rng.sample(letters, len(kept)), strict=True))
    for symbol in symbols[len(kept) :]:  # each merged symbol writes with the sign of a kept one
        sign_of[symbol] = sign_of[rng.choice(kept)]
    key: dict[str, tuple[str, ...]] = {}
    for symbol in symbols:
        key[sign_of[symbol]] = (*key.get(sign_of[symbol], ()), symbol)

    def cell(words: tuple[Word, ...], rewrite: bool) -> str:
        if not words:
            return "_"
        return "|".join("".join(sign_of[s] if rewrite else s for s in word) for word in words)

    lines = ["\t".join(table.codes)]
    lines += ["\t".join(cell(words, k == column) for k, words in enumerate(row)) for row in table.rows]
    return Enciphered("\n".join(lines) + "\n", key, table.codes[column], script, syllabic)
