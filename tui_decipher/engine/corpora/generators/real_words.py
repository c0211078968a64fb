"""Real words in a generated syllabary (engine/corpora/generators): the known language is a real word
list, and its words are written in a syllabary as Linear B and Cypriot write Greek.

`decipher corpus generate syllabary|dead-vowel --words FILE` puts real words where the other
generators draw words from a made-up phonology, so that the lost side keeps the clusters, finals
and word lengths of a real language (generated words never end as real ones do: the syllable
search once failed on a real Cypriot list and on no generated one). The syllables are read by the
list's own vowels (`vowels.known_vowels`): each consonant with the vowel after it, a cluster in
full (po-to-li, as both scripts write Greek). A word's final consonants are left unwritten
("syllabary", Linear B's codas) or each written with the sign of its consonant and a dead vowel
that the seed draws ("dead-vowel": Cypriot writes a final s with the sign of se), so the final
sign is also a syllable's sign. No sounds are merged: every syllable has a sign of its own.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..corpus import Word
from ..encipher import SCRIPTS, SYLLABIC_SCRIPT, syllables
from ..vowels import known_vowels
from .derivations import LINEAR_B
from .phonology import Segments


@dataclass(frozen=True)
class RealWordSyllabary:
    """How a real word list is written in one generated syllabary: each word's signs, and the key."""

    sign_of: dict[str, str]  # syllable (known letters) -> its sign
    vowels: frozenset[str]
    dead: str | None  # the dead vowel of a final consonant, None where finals are unwritten
    laws: tuple[str, ...]

    def derive(self, word: Word) -> Segments:
        """`word` as the syllabary writes it: a sign a syllable."""
        return tuple(self.sign_of[unit] for unit in _units(word, self.vowels, self.dead))

    @property
    def symbols(self) -> tuple[str, ...]:
        return tuple(self.sign_of.values())

    @property
    def key(self) -> dict[str, str]:
        """Each sign's syllable, in known letters."""
        return {sign: unit for unit, sign in self.sign_of.items()}


def _units(word: Word, vowels: frozenset[str], dead: str | None) -> list[str]:
    """The syllables a sign each writes: final consonants dropped, or each with the dead vowel (a word
    with no vowel is written consonant by consonant, or each consonant with the dead vowel)."""
    if dead is None:
        return list(syllables(word, vowels, finals=False))
    n_final = next((k for k, symbol in enumerate(reversed(word)) if symbol in vowels), len(word))
    body = word[: len(word) - n_final]
    return [*(syllables(body, vowels, finals=False) if body else ()), *(c + dead for c in word[len(body) :])]


def real_word_syllabary(kind: str, words: tuple[Word, ...], rng: random.Random) -> RealWordSyllabary:
    """The syllabary of `kind` ("syllabary" or "dead-vowel") for the real `words`, its signs and dead
    vowel drawn from `rng`: Linear B signs where the syllables fit its 88, else Yi syllables."""
    vowels = known_vowels(words)
    if not vowels:
        raise ValueError("the word list has no vowels to write syllables by")
    dead = rng.choice(sorted(vowels)) if kind == "dead-vowel" else None
    units = sorted({u for w in words for u in _units(w, vowels, dead)})
    if len(units) <= len(LINEAR_B):
        script, signs = "Linear B", LINEAR_B
    else:
        first, last = SCRIPTS[SYLLABIC_SCRIPT]
        script, signs = SYLLABIC_SCRIPT.title(), "".join(chr(c) for c in range(first, last + 1))
        if len(units) > len(signs):
            raise ValueError(f"the word list has {len(units)} syllables, more than {len(signs)} signs")
    sign_of = dict(zip(units, rng.sample(signs, len(units)), strict=True))
    finals = (
        f"every final consonant is written with its sign before the dead vowel {dead}"
        if dead is not None
        else "word-final consonants are not written"
    )
    laws = (
        "real words: the known words as they are, the lost words the same words in a syllabary",
        "a consonant is written with the vowel after it, a cluster in full (po-to-li); no sounds merge",
        finals,
        f"script: one {script} sign per syllable ({len(units)} signs), by the list's vowels {' '.join(sorted(vowels))}",
    )
    return RealWordSyllabary(sign_of, vowels, dead, laws)
