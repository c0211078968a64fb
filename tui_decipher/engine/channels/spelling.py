"""How a syllabary spells a known word's consonants, learned from the words (the syllable search's
spelling model, channels/syllables.py).

Syllabaries write one sign per open syllable, and differ in what they do with the consonants no
vowel follows. Linear B leaves codas and most clusters unwritten (ko-no-so for Knossos is one of
its exceptions); the Cypriot syllabary writes every consonant, a cluster's first consonants with
the next syllable's vowel (po-to-li-se) and a word-final one with a dead vowel (e). So the search
does not fix one script's rule. A known word's consonant clusters before a vowel are each either
written in full (every consonant a sign, with that vowel) or as one sign (any one of the cluster's
consonants with the vowel, the rest unwritten); its word-final consonants are written (each the
unit (consonant, FINAL): whichever sign the script uses there, a dead vowel's or its own) or not:

    P(reading | y) = prod_clusters [t if written in full else (1 - t) / k]
                   * prod_final    [f if written else 1 - f]

for a cluster of k >= 2 consonants (a single consonant is its syllable's onset either way). The
two shares t and f are the spelling. Which spelling a script uses shows in its words' lengths: a
Linear B word of three signs reads a Greek word of three vowels, a Cypriot one a word of three
vowels and consonants no vowel follows. So t and f are fitted, by EM, to the lost words' lengths
under the known words' readings (`fit_spelling`) before the search, once for every start: the
part of the search's likelihood that does not depend on the sign map. The search keeps them.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..corpora.corpus import Word

FINAL = "#"  # the "vowel" of a word-final consonant's unit: written with whatever sign the script uses there
Unit = tuple[str, str]  # (consonant or "", vowel or FINAL)
NEGLIGIBLE = 1e-9  # a reading the spelling makes less likely than this writes nothing measurable
FIT_STEPS = 100  # EM steps of `fit_spelling` (two shares: it settles within a few dozen)


@dataclass(frozen=True)
class Reading:
    """One way a known word is written: its units, and the spelling choices it makes (counts)."""

    units: tuple[Unit, ...]
    base: float  # the part of its probability the spelling shares do not set (1/k per one-sign cluster)
    full: int  # clusters written in full
    single: int  # clusters written as one sign
    finals: int  # word-final consonants written
    dropped: int  # word-final consonants not written


def spelled_readings(word: Word, vowels: frozenset[str], most: int) -> list[Reading]:
    """Every reading of a known word (see the module's docstring); none for a word with no vowel
    or with more than `most` readings (so clustered it says little, and it bounds memory)."""
    options: list[list[tuple[tuple[Unit, ...], float, int, int]]] = []  # per cluster: (units, base, full, single)
    cluster: list[str] = []
    for letter in word:
        if letter not in vowels:
            cluster.append(letter)
            continue
        consonants = list(dict.fromkeys(cluster))
        if len(consonants) < 2:
            onset = consonants[0] if consonants else ""
            options.append([(((onset, letter),), 1.0, 0, 0)])
        else:
            written_in_full = (tuple((c, letter) for c in cluster), 1.0, 1, 0)
            options.append([written_in_full, *((((c, letter),), 1.0 / len(consonants), 0, 1) for c in consonants)])
        cluster = []
    if not options:
        return []
    final: list[tuple[tuple[Unit, ...], float, int, int]] = [((), 1.0, 0, 0)]
    if cluster:  # written, or not
        final = [(tuple((c, FINAL) for c in cluster), 1.0, len(cluster), 0), ((), 1.0, 0, len(cluster))]
    n = len(final) * int(np.prod([len(o) for o in options]))
    if n > most:
        return []
    out = []
    for choice in itertools.product(*options):
        units = tuple(u for units, _, _, _ in choice for u in units)
        base = float(np.prod([b for _, b, _, _ in choice]))
        full, single = sum(c[2] for c in choice), sum(c[3] for c in choice)
        for tail, _, written, dropped in final:
            out.append(Reading(units + tail, base, full, single, written, dropped))
    return out


@dataclass(frozen=True)
class Spelling:
    """The spelling shares: `clusters`, how often a consonant cluster is written in full (t); `finals`,
    how often a word-final consonant is written (f)."""

    clusters: float = 0.5
    finals: float = 0.5

    def weights(self, counts: np.ndarray) -> np.ndarray:
        """Each reading's spelling factor, t^full (1-t)^single f^finals (1-f)^dropped, from its counts
        (n_readings, 4) -> (n_readings,)."""
        t, f = self.clusters, self.finals
        return np.exp(counts @ np.log(np.array([t, 1.0 - t, f, 1.0 - f]).clip(1e-300)))

    def describe(self) -> str:
        """In words, for a decision line."""
        finals = "final consonants written" if self.finals > 0.5 else "final consonants unwritten"
        return f"clusters in full {100 * self.clusters:.0f}%, {finals}"


OPEN_SYLLABLES = Spelling(0.0, 0.0)  # Linear B's: one consonant of a cluster, final consonants unwritten


def reading_counts(readings: Sequence[Reading]) -> np.ndarray:
    """The readings' choice counts (n_readings, 4): full, single, finals, dropped."""
    return np.array([(r.full, r.single, r.finals, r.dropped) for r in readings], dtype=np.float64).reshape(-1, 4)


def fit_spelling(lengths: dict[tuple[int, int, int, int, int], float], lost_lengths: dict[int, int]) -> Spelling:
    """The spelling whose readings' lengths best explain the lost words' lengths: EM from t = f =
    1/2 on P(L) = sum over readings of length L of P(y, reading). `lengths`: the readings' mass
    (base / n_known) by (length, full, single, finals, dropped); `lost_lengths`: lost words by
    length. Lost lengths that no reading has say nothing of the spelling and are left out."""
    keys = list(lengths)
    length = np.array([k[0] for k in keys])  # (n,)
    counts = np.array([k[1:] for k in keys], dtype=np.float64).reshape(-1, 4)  # (n, 4)
    base = np.array([lengths[k] for k in keys])  # (n,)
    n_lost = np.array([lost_lengths.get(int(L), 0) for L in length], dtype=np.float64)  # (n,) words of that length
    spelling = Spelling()
    for _ in range(FIT_STEPS):
        mass = base * spelling.weights(counts)  # (n,)
        total = np.bincount(length, mass)  # P(L) for each length
        credit = np.where(total[length] > 0, n_lost / np.maximum(total[length], 1e-300), 0.0) * mass  # (n,)
        full, single, finals, dropped = credit @ counts  # expected choices
        spelling = Spelling(
            full / (full + single) if full + single > 1e-12 else spelling.clusters,
            finals / (finals + dropped) if finals + dropped > 1e-12 else spelling.finals,
        )
    return spelling
