"""Real words in an unknown script: a `.cog` corpus's lost side rewritten through a fixed random map
of its symbols onto another script's letters (`decipher corpus encipher`).

Any real pair then becomes a decipherment test with its own gold: the rows, the known side and so
the gold pairs stay as they were, and the lost words keep their real irregularities, which no
generated corpus has. The map is one-to-one, or few-to-one with `merge` (the least frequent
symbols written with the signs of others, as a script that does not tell two sounds apart). The
same file, seed and settings always give the same map.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .corpus import CorpusError, Word, read_cog_table

# Scripts of single code points, no combining marks, unrelated to the IPA and alphabets of the
# corpora: (first, last) code point of each block's letters.
SCRIPTS: dict[str, tuple[int, int]] = {
    "cherokee": (0x13A0, 0x13F5),  # 86 letters
    "vai": (0xA500, 0xA60B),  # 268 syllables
    "yi": (0xA000, 0xA48C),  # 1,165 syllables
}
DEFAULT_SCRIPT = "cherokee"


@dataclass(frozen=True)
class Enciphered:
    """A corpus's text with its lost column rewritten, and the map that rewrote it."""

    text: str  # the new .cog file
    key: dict[str, tuple[str, ...]]  # sign -> the lost symbols it writes (one, or a few merged)
    lost_code: str
    script: str

    def key_text(self) -> str:
        """The key as a --known-signs file (header lost<TAB>known): each sign and the symbol it
        writes, most frequent sign first; merged symbols one line each."""
        lines = [f"{sign}\t{symbol}" for sign, symbols in self.key.items() for symbol in symbols]
        return "lost\tknown\n" + "".join(line + "\n" for line in lines)

    def summary(self) -> str:
        merged = sum(len(s) - 1 for s in self.key.values())
        few = f", {merged} symbol(s) merged into others' signs" if merged else ""
        n_symbols = sum(map(len, self.key.values()))
        return f"{self.lost_code} rewritten in {self.script}: {n_symbols} symbols as {len(self.key)} signs{few}"


def encipher(path: str | Path, seed: int, lost: str | int | None = None, script: str = DEFAULT_SCRIPT,
             merge: int = 0) -> Enciphered:  # fmt: skip
    """The `.cog` file at `path` with its lost column (`lost`: a code or index, default the first)
    written in `script`; `merge` of its least frequent symbols take the signs of others. Bad input
    raises CorpusError (the file) or ValueError (the settings), in one line."""
    if script not in SCRIPTS:
        raise ValueError(f"script {script!r} is not one of {', '.join(SCRIPTS)}")
    if merge < 0:
        raise ValueError(f"--merge {merge}: at least 0")
    table = read_cog_table(path)
    column = table.column(lost, 0, "lost")
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
    return Enciphered("\n".join(lines) + "\n", key, table.codes[column], script)
