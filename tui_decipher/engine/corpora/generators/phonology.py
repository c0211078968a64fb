"""The known language of a synthetic corpus (engine/corpora/generators): words of 2-3 (C)V(C) syllables
drawn from a weighted inventory, the demo corpus's Kalenic or a Greek-like one for the syllabaries."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from ..demo_corpus import _AFTER_CODA, _CODA_WEIGHTS, _ONSET_WEIGHTS, _VOWEL_WEIGHTS, _weighted

Segments = tuple[str, ...]
Syllable = tuple[str, str, str]  # onset, vowel, coda ("" when absent); each a known phoneme


@dataclass(frozen=True)
class Phonology:
    """A weighted (C)V(C) inventory; phonemes are strings, written as themselves (ph = p + h)."""

    vowels: dict[str, int]
    onsets: dict[str, int]
    codas: dict[str, int]
    after_coda: dict[str, dict[str, int]]  # coda -> the onsets allowed after it
    p_onset_initial: float = 0.8
    p_coda: float = 0.35
    syllables: tuple[int, ...] = (2, 2, 3)
    min_len: int = 3
    max_len: int = 9
    forbidden: frozenset[tuple[str, str]] = frozenset({("j", "i"), ("w", "u")})  # onset + vowel


KALENIC = Phonology(vowels=_VOWEL_WEIGHTS, onsets=_ONSET_WEIGHTS, codas=_CODA_WEIGHTS, after_coda=_AFTER_CODA)
"""The demo corpus's known language."""

# A Greek-like known language for the syllabary: aspirated stops, l and r, sonorant and s codas.
_SYLLABARY_CODAS = {"n": 12, "s": 10, "r": 5, "l": 4, "m": 3}
_GREEK_ONSETS = {
    "p": 8, "t": 10, "k": 10, "b": 3, "d": 6, "g": 3, "m": 7, "n": 7, "s": 7, "l": 6, "r": 8, "w": 3, "j": 2,
    "ph": 4, "th": 4, "kh": 4,
}  # fmt: skip
GREEKISH = Phonology(
    vowels={"a": 28, "e": 20, "i": 16, "o": 22, "u": 10},
    onsets=_GREEK_ONSETS,
    codas=_SYLLABARY_CODAS,
    after_coda={c: _AFTER_CODA[c] | {"th": 1, "kh": 1} for c in _SYLLABARY_CODAS},
)


def draw_word(rng: random.Random, ph: Phonology) -> tuple[Syllable, ...]:
    """One known word as syllables: non-initial syllables always have an onset (no hiatus)."""
    while True:
        n = rng.choice(ph.syllables)
        out: list[Syllable] = []
        coda = ""
        for i in range(n):
            if coda:
                onset = _weighted(rng, ph.after_coda[coda])
            elif i > 0 or rng.random() < ph.p_onset_initial:
                onset = _weighted(rng, ph.onsets)
            else:
                onset = ""
            vowel = _weighted(rng, ph.vowels)
            while (onset, vowel) in ph.forbidden:
                vowel = _weighted(rng, ph.vowels)
            coda = _weighted(rng, ph.codas) if rng.random() < ph.p_coda else ""
            out.append((onset, vowel, coda))
        segs = [s for syl in out for s in syl if s]
        if ph.min_len <= len(segs) <= ph.max_len and not any(a == b for a, b in itertools.pairwise(segs)):
            return tuple(out)


def word_segments(word: tuple[Syllable, ...]) -> list[str]:
    """A word's phonemes, its syllables' onsets, vowels and codas in order."""
    return [s for syl in word for s in syl if s]
