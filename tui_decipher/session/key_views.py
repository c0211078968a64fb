"""The key as a decipherer's worksheet, read from a stored run: which proposals read each sign how
(from their alignments), and a syllabary's key as the grid decipherers draw (consonants down,
vowels across). Plain data for the Key screen and the CLI; no Textual here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..engine.corpora.vowels import known_vowels
from ..store import ProposalRow

NONE = "∅"  # a sign read from no letter (inserted), as the edit channel's key names it
NO_VOWEL = "–"  # a grid column: signs read as a consonant alone (a final consonant's sign)


@dataclass
class SignUses:
    """How the proposals read one lost sign: each reading (its known letters, NONE for none) with the
    ranks of the proposals that read it so, best rank first."""

    sign: str
    readings: dict[str, list[int]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(len(r) for r in self.readings.values())

    def by_count(self) -> list[tuple[str, list[int]]]:
        """Readings, the most used first."""
        return sorted(self.readings.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def sign_uses(rows: Iterable[ProposalRow]) -> dict[str, SignUses]:
    """Every lost sign the proposals' readings hold, with how each proposal reads it (a segment of
    one lost symbol; a proposal stored without a reading adds nothing)."""
    out: dict[str, SignUses] = {}
    for row in sorted(rows, key=lambda r: r.rank):
        for seg in row.alignment:
            if len(seg.lost) != 1:
                continue
            uses = out.setdefault(seg.lost[0], SignUses(seg.lost[0]))
            ranks = uses.readings.setdefault("".join(seg.known) or NONE, [])
            if not ranks or ranks[-1] != row.rank:  # a sign twice in one word counts its word once
                ranks.append(row.rank)
    return out


@dataclass
class SyllableGrid:
    """A syllabary's key as a grid: `onsets` down ("" for a bare vowel), `vowels` across (NO_VOWEL
    last where a sign reads as a consonant alone), each cell the signs whose best reading is that
    syllable, with the reading's probability, most sure first."""

    onsets: list[str]
    vowels: list[str]
    cells: dict[tuple[str, str], list[tuple[str, float]]]


def syllable_grid(char_map: Mapping[str, Sequence[tuple[str, float]]], vowels: Iterable[str]) -> SyllableGrid | None:
    """The grid of a key whose signs read as syllables (at least half of the signs' best readings
    are two or more letters); None for an alphabet's key. `vowels` are the known alphabet's
    (`known_vowels`, Sukhotin's algorithm on the known words, as the syllable search finds them).
    A best reading that ends in a vowel sits in that vowel's column, on the row of the letters
    before it ("" for a bare vowel); one that ends in a consonant (a final consonant's sign, or a
    reading that is no syllable) in the NO_VOWEL column, on its own row."""
    vowels = set(vowels)
    best = {sign: tops[0] for sign, tops in char_map.items() if tops}
    syllables = [reading for reading, _ in best.values() if len(reading) >= 2]
    if not best or 2 * len(syllables) < len(best):
        return None
    cells: dict[tuple[str, str], list[tuple[str, float]]] = {}
    for sign, (reading, p) in best.items():
        if reading == NONE:
            continue
        place = (reading[:-1], reading[-1]) if reading[-1] in vowels else (reading, NO_VOWEL)
        cells.setdefault(place, []).append((sign, p))
    for signs in cells.values():
        signs.sort(key=lambda sp: (-sp[1], sp[0]))
    used = {v for _, v in cells}
    columns = sorted(v for v in used if v != NO_VOWEL) + ([NO_VOWEL] if NO_VOWEL in used else [])
    onsets = sorted({o for o, _ in cells}, key=lambda o: (o != "", len(o), o))
    return SyllableGrid(onsets, columns, cells)


def key_vowels(rows: Iterable[ProposalRow]) -> frozenset[str]:
    """The known alphabet's vowels, read from the proposals' known words as the syllable search reads
    them (`known_vowels`, Sukhotin's algorithm): the grid's columns."""
    return known_vowels([tuple(r.known_tokens) for r in rows])


def key_source(config: dict[str, Any]) -> str:
    """Where a stored run's key (its character map) comes from, in a few words (its method's)."""
    from ..engine.methods import char_map_source  # the methods import torch: only where shown

    return char_map_source(config)
