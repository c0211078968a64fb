"""Derivations (engine/corpora/generators): how each kind writes a known word as lost symbols, its sound laws
and its script fixed per seed, never per word; and a generated syllabary's key."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass

from .laws import N_SHARED_LAWS, SHARED_LAWS, SUBSTITUTION_LAWS, apply_laws
from .phonology import GREEKISH, KALENIC, Phonology, Segments, Syllable

# Scripts of the substitution cipher: lowercase letters, one code point each, no combining marks.
_SCRIPTS = {
    "Cyrillic": "".join(chr(c) for c in range(0x0430, 0x0450)),
    "Georgian": "".join(chr(c) for c in range(0x10D0, 0x10F1)),
    "Armenian": "".join(chr(c) for c in range(0x0561, 0x0587)),
}

# The assigned code points of the Linear B Syllabary block (88 signs).
_LINEAR_B_RANGES = ((0x10000, 0x1000B), (0x1000D, 0x10026), (0x10028, 0x1003A), (0x1003C, 0x1003D),
                    (0x1003F, 0x1004D), (0x10050, 0x1005D))  # fmt: skip
LINEAR_B = "".join(chr(c) for lo, hi in _LINEAR_B_RANGES for c in range(lo, hi + 1))


@dataclass(frozen=True)
class Derivation:
    """How a kind writes a known word: its known language, its regular reflexes, its script."""

    phonology: Phonology
    derive: Callable[[tuple[Syllable, ...]], Segments]  # regular reflex, as lost symbols
    symbols: tuple[str, ...]  # the lost script (noise draws from it)
    laws: tuple[str, ...]  # human-readable description
    key: dict[str, str] = dataclasses.field(default_factory=dict)  # a syllabary's sign -> its syllable


def _substitution(rng: random.Random) -> Derivation:
    laws = tuple(SUBSTITUTION_LAWS[i] for i in sorted(rng.sample(range(len(SUBSTITUTION_LAWS)), 2)))
    script_name = sorted(_SCRIPTS)[rng.randrange(len(_SCRIPTS))]
    # Every segment that can occur gets its own letter, even the ones a merger empties.
    segments = sorted(KALENIC.vowels) + sorted(KALENIC.onsets) + ["č", "nt"]
    letters = rng.sample(_SCRIPTS[script_name], len(segments))
    script = dict(zip(segments, letters, strict=True))

    def derive(word: tuple[Syllable, ...]) -> Segments:
        return tuple(script[s] for s in apply_laws(laws, word))

    written = ", ".join(f"{s} → {script[s]}" for s in segments)
    return Derivation(KALENIC, derive, tuple(letters), (*[d for d, _ in laws], f"script ({script_name}): {written}"))


def _shared_alphabet(rng: random.Random) -> Derivation:
    laws = tuple(SHARED_LAWS[i] for i in sorted(rng.sample(range(len(SHARED_LAWS)), N_SHARED_LAWS)))
    symbols = tuple(sorted(set(KALENIC.vowels) | set(KALENIC.onsets) | {"c", "v"}))

    def derive(word: tuple[Syllable, ...]) -> Segments:
        return tuple(apply_laws(laws, word))

    return Derivation(KALENIC, derive, symbols, (*[d for d, _ in laws], "script: Latin, as the known language"))


_SYLLABARY_MERGE = {"l": "r", "ph": "p", "th": "t", "kh": "k"}


def _sign_table(rng: random.Random, consonants: set[str], vowels: list[str]) -> dict[tuple[str, str], str]:
    """A syllabary's signs: one Linear B sign, drawn at random, per bare vowel and per consonant+vowel."""
    syllables = [("", v) for v in vowels] + [(c, v) for c in sorted(consonants) for v in vowels]
    return dict(zip(syllables, rng.sample(LINEAR_B, len(syllables)), strict=True))


def _syllabary(rng: random.Random) -> Derivation:
    ph = GREEKISH
    sign_of = _sign_table(rng, {_SYLLABARY_MERGE.get(c, c) for c in ph.onsets}, sorted(ph.vowels))
    signs = list(sign_of.values())

    def derive(word: tuple[Syllable, ...]) -> Segments:
        return tuple(sign_of[_SYLLABARY_MERGE.get(onset, onset), vowel] for onset, vowel, _ in word)

    laws = (
        "l and r merge (written with the r-series signs)",
        "aspirates merge with plain stops: ph → p, th → t, kh → k",
        "codas, word-final consonants included, are not written",
        f"script: one Linear B sign per CV or V syllable ({len(signs)} signs)",
    )
    return Derivation(ph, derive, tuple(signs), laws, {sign: c + v for (c, v), sign in sign_of.items()})


# The Cypriot-like script keeps l and r apart but, like Linear B, writes aspirates as plain stops.
_DEAD_VOWEL_MERGE = {"ph": "p", "th": "t", "kh": "k"}


def _dead_vowel(rng: random.Random) -> Derivation:
    """A syllabary that writes every consonant, as the Cypriot syllabary does: a coda before another
    consonant with the next syllable's vowel (po-to-li-se), a word-final one with a fixed dead vowel
    that the seed draws (e in Cypriot), so that no engine can count on one script's choice."""
    ph = GREEKISH
    vowels = sorted(ph.vowels)
    sign_of = _sign_table(rng, {_DEAD_VOWEL_MERGE.get(c, c) for c in ph.onsets} | set(ph.codas), vowels)
    signs = list(sign_of.values())
    final = rng.choice(vowels)

    def derive(word: tuple[Syllable, ...]) -> Segments:
        out: list[str] = []
        for i, (onset, vowel, coda) in enumerate(word):
            out.append(sign_of[_DEAD_VOWEL_MERGE.get(onset, onset), vowel])
            if coda:
                dead = word[i + 1][1] if i + 1 < len(word) else final
                out.append(sign_of[_DEAD_VOWEL_MERGE.get(coda, coda), dead])
        return tuple(out)

    laws = (
        "aspirates merge with plain stops: ph → p, th → t, kh → k",
        "every consonant is written: a coda with the next syllable's vowel, a word-final one with "
        f"the dead vowel {final}",
        f"script: one Linear B sign per CV or V syllable ({len(signs)} signs)",
    )
    return Derivation(ph, derive, tuple(signs), laws, {sign: c + v for (c, v), sign in sign_of.items()})


def syllabary_key(seed: int, kind: str = "syllabary") -> dict[str, str]:
    """The key of the generated syllabary of `kind` and `seed`: each sign's syllable, in known
    letters (a merged series reads as its plain one: the r-series, p, t, k). What a bilingual would
    give a scholar; tests and the bench use it as known sign values, the engine never reads it."""
    return DERIVATIONS[kind](random.Random(f"{kind}-{seed}")).key


DERIVATIONS = {
    "substitution": _substitution, "shared-alphabet": _shared_alphabet, "syllabary": _syllabary,
    "dead-vowel": _dead_vowel,
}  # fmt: skip
