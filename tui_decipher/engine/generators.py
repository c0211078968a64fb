"""Synthetic corpora of four kinds, for designing and checking methods on pairs the demo is not.

Each kind imitates one decipherment situation. Every corpus starts from a random but plausible
known language: words of 2-3 (C)V(C) syllables drawn from a weighted inventory (by default the
demo corpus's Kalenic phonology, `demo_corpus.py`). Lost words are derived from known words by
regular laws fixed per seed, never per word; a few cognates get one irregular substitution.

* ``substitution``: two sound laws drawn from a small catalogue, then a one-to-one substitution
  into a script that shares no symbol with the known alphabet (Cyrillic, Georgian or Armenian).
* ``shared-alphabet``: both languages in Latin letters; five context-dependent sound changes
  (substitutions, deletions, insertions) drawn from a catalogue, so most letters stay themselves.
* ``syllabary``: a Linear B-like script: one sign (Linear B syllabary, U+10000..) per CV syllable,
  codas and word-final consonants not written, l/r and aspirates (ph, th, kh) merged; by default
  60% of lost words have a cognate and the known lexicon is 1.75x the lost one.
* ``large-known``: a base kind (substitution by default) with a known lexicon five times the lost
  one, the extra known words being distractors.

Lost words without a cognate come from known-language words that are not on the known side, as in
the demo corpus, and every word's regular reflex is distinct, so no lost-only word can pass for
the reflex of a known word. Rows are written as a `.cog` file with header ``lost<TAB>known`` and
``_`` for a missing word; everything is drawn from ``random.Random`` seeded by kind and seed, so
one spec always gives the same bytes.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .demo_corpus import _AFTER_CODA, _CODA_WEIGHTS, _ONSET_WEIGHTS, _VOWEL_WEIGHTS, MISSING, _weighted
from .sign_values import HEADER

LOST_CODE = "lost"
KNOWN_CODE = "known"

KINDS = ("substitution", "shared-alphabet", "syllabary", "dead-vowel", "large-known")
BASE_KINDS = ("substitution", "shared-alphabet", "syllabary", "dead-vowel")
SYLLABARY_KINDS = ("syllabary", "dead-vowel")  # kinds whose lost script is a syllabary (a key is written)
KIND_HELP = {
    "substitution": "sound laws, then a one-to-one cipher into a script disjoint from the known one",
    "shared-alphabet": "both in Latin letters; regular substitutions, deletions, insertions in context",
    "syllabary": "Linear B-like: one sign per CV, codas unwritten, l/r and aspirates merged, 60% cognates",
    "dead-vowel": "Cypriot-like: one sign per CV, every consonant written (a coda with a dead vowel), 60% cognates",
    "large-known": "a base kind with a known lexicon 5x the lost one (distractors)",
}

# (cognate_share, known_ratio) per kind: share of lost words with a cognate, known size / lost size.
KIND_DEFAULTS: dict[str, tuple[float, float]] = {
    "substitution": (0.9, 1.2),
    "shared-alphabet": (0.9, 1.2),
    "syllabary": (0.6, 1.75),
    "dead-vowel": (0.6, 1.75),
    "large-known": (0.9, 5.0),
}

_MAX_TRIES = 200_000

Segments = tuple[str, ...]
Syllable = tuple[str, str, str]  # onset, vowel, coda ("" when absent); each a known phoneme


# --- the known language --------------------------------------------------------------------------


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

_VOWELS = frozenset("aeiou")
_SONORANTS = frozenset("mnlr")
_FRONT = frozenset("ie")


def _syllables(rng: random.Random, ph: Phonology) -> tuple[Syllable, ...]:
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


def _segments(word: tuple[Syllable, ...]) -> list[str]:
    return [s for syl in word for s in syl if s]


# --- sound laws on segment lists ---------------------------------------------------------------

Law = tuple[str, Callable[[list[str]], list[str]]]


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
_SUBSTITUTION_LAWS: tuple[Law, ...] = (
    _palatalise("č"),
    _cluster("n", "t"),
    _intervocalic({"p": "b", "t": "d", "k": "g"}, "voicing"),
    _h_loss(everywhere=False),
    _merge("o", "u"),
    APOCOPE,
)

# Shared alphabet: five of these per seed, applied in this order. New letters: c, v.
_SHARED_LAWS: tuple[Law, ...] = (
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
_N_SHARED_LAWS = 5

# Scripts of the substitution cipher: lowercase letters, one code point each, no combining marks.
_SCRIPTS = {
    "Cyrillic": "".join(chr(c) for c in range(0x0430, 0x0450)),
    "Georgian": "".join(chr(c) for c in range(0x10D0, 0x10F1)),
    "Armenian": "".join(chr(c) for c in range(0x0561, 0x0587)),
}

# The assigned code points of the Linear B Syllabary block (88 signs).
_LINEAR_B_RANGES = ((0x10000, 0x1000B), (0x1000D, 0x10026), (0x10028, 0x1003A), (0x1003C, 0x1003D),
                    (0x1003F, 0x1004D), (0x10050, 0x1005D))  # fmt: skip
_LINEAR_B = "".join(chr(c) for lo, hi in _LINEAR_B_RANGES for c in range(lo, hi + 1))


# --- derivations: known word -> lost symbols ------------------------------------------------


@dataclass(frozen=True)
class _Derivation:
    phonology: Phonology
    derive: Callable[[tuple[Syllable, ...]], Segments]  # regular reflex, as lost symbols
    symbols: tuple[str, ...]  # the lost script (noise draws from it)
    laws: tuple[str, ...]  # human-readable description
    key: dict[str, str] = dataclasses.field(default_factory=dict)  # a syllabary's sign -> its syllable


def _apply(laws: tuple[Law, ...], word: tuple[Syllable, ...]) -> list[str]:
    segs = _segments(word)
    for _, law in laws:
        segs = law(segs)
    return segs


def _substitution(rng: random.Random) -> _Derivation:
    laws = tuple(_SUBSTITUTION_LAWS[i] for i in sorted(rng.sample(range(len(_SUBSTITUTION_LAWS)), 2)))
    script_name = sorted(_SCRIPTS)[rng.randrange(len(_SCRIPTS))]
    # Every segment that can occur gets its own letter, even the ones a merger empties.
    segments = sorted(KALENIC.vowels) + sorted(KALENIC.onsets) + ["č", "nt"]
    letters = rng.sample(_SCRIPTS[script_name], len(segments))
    script = dict(zip(segments, letters, strict=True))

    def derive(word: tuple[Syllable, ...]) -> Segments:
        return tuple(script[s] for s in _apply(laws, word))

    written = ", ".join(f"{s} → {script[s]}" for s in segments)
    return _Derivation(KALENIC, derive, tuple(letters), (*[d for d, _ in laws], f"script ({script_name}): {written}"))


def _shared_alphabet(rng: random.Random) -> _Derivation:
    laws = tuple(_SHARED_LAWS[i] for i in sorted(rng.sample(range(len(_SHARED_LAWS)), _N_SHARED_LAWS)))
    symbols = tuple(sorted(set(KALENIC.vowels) | set(KALENIC.onsets) | {"c", "v"}))

    def derive(word: tuple[Syllable, ...]) -> Segments:
        return tuple(_apply(laws, word))

    return _Derivation(KALENIC, derive, symbols, (*[d for d, _ in laws], "script: Latin, as the known language"))


_SYLLABARY_MERGE = {"l": "r", "ph": "p", "th": "t", "kh": "k"}


def _sign_table(rng: random.Random, consonants: set[str], vowels: list[str]) -> dict[tuple[str, str], str]:
    """A syllabary's signs: one Linear B sign, drawn at random, per bare vowel and per consonant+vowel."""
    syllables = [("", v) for v in vowels] + [(c, v) for c in sorted(consonants) for v in vowels]
    return dict(zip(syllables, rng.sample(_LINEAR_B, len(syllables)), strict=True))


def _syllabary(rng: random.Random) -> _Derivation:
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
    return _Derivation(ph, derive, tuple(signs), laws, {sign: c + v for (c, v), sign in sign_of.items()})


# The Cypriot-like script keeps l and r apart but, like Linear B, writes aspirates as plain stops.
_DEAD_VOWEL_MERGE = {"ph": "p", "th": "t", "kh": "k"}


def _dead_vowel(rng: random.Random) -> _Derivation:
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
    return _Derivation(ph, derive, tuple(signs), laws, {sign: c + v for (c, v), sign in sign_of.items()})


def syllabary_key(seed: int, kind: str = "syllabary") -> dict[str, str]:
    """The key of the generated syllabary of `kind` and `seed`: each sign's syllable, in known
    letters (a merged series reads as its plain one: the r-series, p, t, k). What a bilingual would
    give a scholar; tests and the bench use it as known sign values, the engine never reads it."""
    return _DERIVATIONS[kind](random.Random(f"{kind}-{seed}")).key


def syllabary_key_text(generated: GeneratedCorpus) -> str:
    """A generated syllabary's key as a known-signs file (`lost<TAB>known`, engine/sign_values.py),
    the signs its lost words use, most frequent first (ties by sign): its first n lines after the
    header are the n values a scholar is likeliest to know."""
    if generated.spec.kind not in SYLLABARY_KINDS:
        raise ValueError(f"a key is written for a syllabary only, not for {generated.spec.kind!r}")
    key = syllabary_key(generated.spec.seed, generated.spec.kind)
    counts = Counter(
        sign for lost, _ in generated.rows if lost != MISSING for word in lost.split("|") for sign in word
    )  # fmt: skip
    order = sorted(counts, key=lambda sign: (-counts[sign], sign))
    return "\t".join(HEADER) + "\n" + "".join(f"{sign}\t{key[sign]}\n" for sign in order if sign in key)


_DERIVATIONS = {
    "substitution": _substitution, "shared-alphabet": _shared_alphabet, "syllabary": _syllabary,
    "dead-vowel": _dead_vowel,
}  # fmt: skip


# --- the corpus ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GeneratorSpec:
    """What to generate; ``None`` picks the kind's default (`KIND_DEFAULTS`)."""

    kind: str = "substitution"
    seed: int = 0
    lost_words: int = 200
    cognate_share: float | None = None  # share of lost words that have a cognate
    known_ratio: float | None = None  # known words / lost words
    noise: float = 0.05  # probability that a cognate gets one irregular substitution
    base: str = "substitution"  # the derivation of large-known
    # Share of cognates that also appear as a second lost form (the reflex plus an ending), so that
    # one known word has two lost cognates, as Ugaritic's inflected forms share a Hebrew word.
    variants: float = 0.0
    # Share of cognates whose lost form is also written as an unrelated known word (added as a
    # known word with no lost cognate): a false friend, where reading by identical spelling is
    # wrong. Only where the scripts share symbols (shared-alphabet, or large-known on it).
    false_friends: float = 0.0

    def resolved(self) -> GeneratorSpec:
        """The spec with defaults filled in and checked; raises ValueError naming the problem."""
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind {self.kind!r} (kinds: {', '.join(KINDS)})")
        if self.kind == "large-known" and self.base not in BASE_KINDS:
            raise ValueError(f"unknown base kind {self.base!r} (base kinds: {', '.join(BASE_KINDS)})")
        share, ratio = KIND_DEFAULTS[self.kind]
        spec = dataclasses.replace(
            self,
            cognate_share=share if self.cognate_share is None else self.cognate_share,
            known_ratio=ratio if self.known_ratio is None else self.known_ratio,
        )
        if spec.lost_words < 1:
            raise ValueError(f"lost words must be at least 1, got {spec.lost_words}")
        if not 0.0 <= spec.cognate_share <= 1.0:
            raise ValueError(f"cognate share must be in 0..1, got {spec.cognate_share:g}")
        if not 0.0 <= spec.noise <= 1.0:
            raise ValueError(f"noise must be in 0..1, got {spec.noise:g}")
        if not 0.0 <= spec.variants <= 1.0:
            raise ValueError(f"variants must be in 0..1, got {spec.variants:g}")
        if not 0.0 <= spec.false_friends <= 1.0:
            raise ValueError(f"false friends must be in 0..1, got {spec.false_friends:g}")
        if spec.false_friends and spec.derivation != "shared-alphabet":
            raise ValueError(
                f"false friends need one alphabet on both sides (shared-alphabet), not {spec.derivation!r}"
            )
        n_cognates, _, n_known_only = spec.sizes()
        if n_cognates + n_known_only < 1 or n_known_only < 0:
            raise ValueError(
                f"known ratio {spec.known_ratio:g} leaves fewer known words than cognates "
                f"(cognate share {spec.cognate_share:g}); use a known ratio of at least the cognate share"
            )
        return spec

    @property
    def derivation(self) -> str:
        """The base kind whose laws derive the lost words (large-known enlarges `base`)."""
        return self.base if self.kind == "large-known" else self.kind

    def sizes(self) -> tuple[int, int, int]:
        """(cognate rows, lost-only rows, known-only rows); call on a resolved spec."""
        assert self.cognate_share is not None and self.known_ratio is not None
        n_cognates = round(self.cognate_share * self.lost_words)
        n_known = round(self.known_ratio * self.lost_words)
        return n_cognates, self.lost_words - n_cognates, n_known - n_cognates


@dataclass(frozen=True)
class GeneratedCorpus:
    """A generated corpus: its resolved spec, rows ('_' for a missing word), laws, and the file."""

    spec: GeneratorSpec
    rows: tuple[tuple[str, str], ...]
    laws: tuple[str, ...]
    path: Path | None = None

    @property
    def n_cognates(self) -> int:
        """Lost words with a cognate (a row's variants included)."""
        return sum(len(lost.split("|")) for lost, known in self.rows if lost != MISSING and known != MISSING)

    @property
    def n_lost(self) -> int:
        return sum(len(lost.split("|")) for lost, _ in self.rows if lost != MISSING)

    @property
    def n_known(self) -> int:
        return sum(1 for _, known in self.rows if known != MISSING)

    def cog_text(self) -> str:
        lines = [f"{LOST_CODE}\t{KNOWN_CODE}", *(f"{lost}\t{known}" for lost, known in self.rows)]
        return "\n".join(lines) + "\n"

    def summary(self) -> str:
        kind = self.spec.kind + (f" (base {self.spec.base})" if self.spec.kind == "large-known" else "")
        return (
            f"{kind}, seed {self.spec.seed}: {self.n_lost} lost words ({self.n_cognates} with a cognate), "
            f"{self.n_known} known words"
        )


def _add_noise(lost: Segments, symbols: tuple[str, ...], rng: random.Random) -> Segments:
    pos = rng.randrange(len(lost))
    new = rng.choice([c for c in symbols if c != lost[pos]])
    return (*lost[:pos], new, *lost[pos + 1 :])


def generate(spec: GeneratorSpec) -> GeneratedCorpus:
    """Generate a corpus in memory; deterministic for a spec. Raises ValueError on a bad spec."""
    spec = spec.resolved()
    rng = random.Random(f"{spec.kind}-{spec.seed}")
    derivation = _DERIVATIONS[spec.derivation](rng)
    n_cognates, n_lost_only, n_known_only = spec.sizes()
    total = n_cognates + n_known_only + n_lost_only

    # Known-language words for every row (lost-only rows too: their ancestors); distinct written
    # forms and distinct regular reflexes of at least two symbols.
    known: list[str] = []
    reflexes: list[Segments] = []
    seen_known: set[str] = set()
    seen_reflex: set[Segments] = set()
    tries = 0
    while len(known) < total:
        tries += 1
        if tries > _MAX_TRIES:
            raise ValueError(f"cannot draw {total} distinct words for {spec.kind}; ask for fewer words")
        word = _syllables(rng, derivation.phonology)
        written = "".join(_segments(word))
        reflex = derivation.derive(word)
        if written in seen_known or reflex in seen_reflex or len(reflex) < 2:
            continue
        seen_known.add(written)
        seen_reflex.add(reflex)
        known.append(written)
        reflexes.append(reflex)

    rows: list[tuple[str, str]] = []
    used: set[Segments] = set()
    # Variants draw from their own generator, so a spec without them gives the same bytes as before.
    variant_rng = random.Random(f"variants-{spec.kind}-{spec.seed}")
    endings = variant_rng.sample(derivation.symbols, 2)
    for word, reflex in zip(known[:n_cognates], reflexes[:n_cognates], strict=True):
        lost = reflex
        if rng.random() < spec.noise:
            noisy = _add_noise(reflex, derivation.symbols, rng)
            if noisy not in seen_reflex and noisy not in used:  # a noisy form must not collide
                lost = noisy
        used.add(lost)
        cell = "".join(lost)
        if spec.variants and variant_rng.random() < spec.variants:
            variant = (*lost, variant_rng.choice(endings))
            if variant not in seen_reflex and variant not in used:
                used.add(variant)
                cell += "|" + "".join(variant)
        rows.append((cell, word))
    # A false friend: a known word spelled as a cognate's lost form but unrelated to it (its own
    # generator, so a spec without them gives the same bytes as before).
    friend_rng = random.Random(f"false-friends-{spec.kind}-{spec.seed}")
    friends: list[str] = []
    for cell, _ in rows:
        written = cell.split("|")[0]
        if friend_rng.random() < spec.false_friends and written not in seen_known and written not in friends:
            friends.append(written)
    rows += [(MISSING, w) for w in friends]
    rows += [("".join(r), MISSING) for r in reflexes[n_cognates + n_known_only :]]
    rows += [(MISSING, w) for w in known[n_cognates : n_cognates + n_known_only]]
    random.Random(f"shuffle-{spec.kind}-{spec.seed}").shuffle(rows)
    return GeneratedCorpus(spec=spec, rows=tuple(rows), laws=derivation.laws)


def write_generated(path: str | Path, spec: GeneratorSpec) -> GeneratedCorpus:
    """Generate a corpus and write it to ``path`` as a `.cog` file (UTF-8, LF), creating folders."""
    corpus = generate(spec)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(corpus.cog_text().encode("utf-8"))
    return dataclasses.replace(corpus, path=path)
