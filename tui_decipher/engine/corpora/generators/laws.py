"""Sound laws on segment lists (engine/corpora/generators): each a description and a function from a word's
segments to its reflex's, drawn per seed from a catalogue and applied in the catalogue's order."""

from __future__ import annotations

from collections.abc import Callable

from .phonology import Syllable, word_segments

Law = tuple[str, Callable[[list[str]], list[str]]]

_VOWELS = frozenset("aeiou")
_SONORANTS = frozenset("mnlr")
_FRONT = frozenset("ie")


def _between_vowels(segs: list[str], i: int) -> bool:
    return 0 < i < len(segs) - 1 and segs[i - 1] in _VOWELS and segs[i + 1] in _VOWELS


def _palatalise(to: str) -> Law:
    def law(segs: list[str]) -> list[str]:
        return [to if s == "k" and i + 1 < len(segs) and segs[i + 1] in _FRONT else s for i, s in enumerate(segs)]

    return f"palatalisation: k → {to} before i, e", law


def _intervocalic(changes: dict[str, str], what: str) -> Law:
    def law(segs: list[str]) -> list[str]:
        return [changes.get(s, s) if _between_vowels(segs, i) else s for i, s in enumerate(segs)]

    pairs = ", ".join(f"{a} → {b}" for a, b in changes.items())
    return f"{what}: {pairs} between vowels", law


def _merge(src: str, dst: str) -> Law:
    return f"merger: {src} → {dst} everywhere", lambda segs: [dst if s == src else s for s in segs]


def _h_loss(everywhere: bool) -> Law:
    def law(segs: list[str]) -> list[str]:
        return [s for i, s in enumerate(segs) if not (s == "h" and (everywhere or _between_vowels(segs, i)))]

    return ("h-loss: h is lost" if everywhere else "lenition: h is lost between vowels"), law


def _apocope(segs: list[str]) -> list[str]:
    if len(segs) >= 4 and segs[-1] in _VOWELS and segs[-2] in _SONORANTS:
        return segs[:-1]
    return segs


APOCOPE: Law = ("apocope: a final vowel is lost after m, n, l, r when three segments remain", _apocope)


def _cluster(a: str, b: str) -> Law:
    def law(segs: list[str]) -> list[str]:
        out: list[str] = []
        i = 0
        while i < len(segs):
            if i + 1 < len(segs) and (segs[i], segs[i + 1]) == (a, b):
                out.append(a + b)
                i += 2
            else:
                out.append(segs[i])
                i += 1
        return out

    return f"cluster simplification: {a}{b} → one segment", law


def _anaptyxis(segs: list[str]) -> list[str]:
    """A liquid before a consonant gets a copy of the vowel before it: karta -> karata."""
    out: list[str] = []
    for i, s in enumerate(segs):
        out.append(s)
        if s in "rl" and 0 < i < len(segs) - 1 and segs[i - 1] in _VOWELS and segs[i + 1] not in _VOWELS:
            out.append(segs[i - 1])
    return out


def _paragoge(segs: list[str]) -> list[str]:
    return [*segs, "e"] if segs[-1] not in _VOWELS and segs[-1] not in ("n", "s") else segs


def _initial_s(segs: list[str]) -> list[str]:
    return ["h", *segs[1:]] if len(segs) > 1 and segs[0] == "s" and segs[1] in _VOWELS else segs


def _final_raising(segs: list[str]) -> list[str]:
    return [*segs[:-1], "u"] if segs[-1] == "o" else segs


# Substitution: two of these per seed, applied in this (chronological) order.
SUBSTITUTION_LAWS: tuple[Law, ...] = (
    _palatalise("č"),
    _cluster("n", "t"),
    _intervocalic({"p": "b", "t": "d", "k": "g"}, "voicing"),
    _h_loss(everywhere=False),
    _merge("o", "u"),
    APOCOPE,
)

# Shared alphabet: five of these per seed, applied in this order. New letters: c, v.
SHARED_LAWS: tuple[Law, ...] = (
    _palatalise("c"),
    _intervocalic({"p": "b", "t": "d", "k": "g"}, "voicing"),
    _intervocalic({"b": "v"}, "spirantisation"),
    _h_loss(everywhere=True),
    ("initial s → h before a vowel", _initial_s),
    ("anaptyxis: a vowel is repeated after l, r before a consonant (karta → karata)", _anaptyxis),
    APOCOPE,
    ("final o → u", _final_raising),
    ("paragoge: e is added after a final consonant other than n, s", _paragoge),
    _merge("w", "v"),
)
N_SHARED_LAWS = 5


def apply_laws(laws: tuple[Law, ...], word: tuple[Syllable, ...]) -> list[str]:
    """A known word's segments after `laws`, in their order."""
    segs = word_segments(word)
    for _, law in laws:
        segs = law(segs)
    return segs
