"""A word list's vowels, found from the words alone (Sukhotin's algorithm): what the syllable search
reads its known alphabet's syllables by, and what `corpus encipher --as` writes a lost side's
syllables by."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from .corpus import Word


def known_vowels(known_words: Sequence[Word]) -> frozenset[str]:
    """The vowels of the known alphabet by Sukhotin's algorithm: letters that alternate with the
    others most, taken one at a time until no letter is left that neighbours non-vowels more than
    vowels. Exact for an alphabet with open syllables; a letter that only ever neighbours itself
    is a consonant."""
    letters = sorted({c for w in known_words for c in w})
    index = {c: i for i, c in enumerate(letters)}
    adjacent = np.zeros((len(letters), len(letters)))
    for w in known_words:
        for a, b in itertools.pairwise(w):
            if a != b:
                adjacent[index[a], index[b]] += 1
                adjacent[index[b], index[a]] += 1
    sums = adjacent.sum(1)
    vowels: set[int] = set()
    while True:
        rest = [i for i in range(len(letters)) if i not in vowels]
        if not rest:
            break
        best = max(rest, key=lambda i: sums[i])
        if sums[best] <= 0:
            break
        vowels.add(best)
        for i in rest:
            sums[i] -= 2 * adjacent[i, best]
    return frozenset(letters[i] for i in vowels)
