"""The project's own synthetic corpus: "Old Veshic" (lost) and its relative "Kalenic" (known).

``decipher run`` needs a corpus that exists without any download, so the project generates one.
The corpus imitates the situation the decipherment model (Luo, Cao & Barzilay 2019) is built for:

* Kalenic words come from a small phonotactic generator: (C)V(C) syllables, weighted choices.
* Each Old Veshic cognate is derived from its Kalenic word by *regular* sound changes applied in
  order (palatalisation, a cluster simplification, lenition, a merger, apocope), then written in
  the Greek alphabet through a fixed one-to-one letter mapping. Plain string similarity between
  the two sides is therefore useless: a method has to learn the character correspondence.
* A little irregular noise (one random substitution in about 5% of cognates) keeps it honest.
* Distractors: Veshic words whose Kalenic ancestor did not survive (no cognate in the corpus),
  and Kalenic words whose Veshic descendant is not attested.

Everything is drawn from ``random.Random(seed)``, so one spec always gives the same bytes.
"""

from __future__ import annotations

import itertools
import random
import sys
from dataclasses import dataclass
from pathlib import Path

LOST_CODE = "ves"
KNOWN_CODE = "kal"

MISSING = "_"
"""The cell value for "no word in this language"."""

# --- Kalenic phonology -----------------------------------------------------------------------

KNOWN_VOWELS = "aeiou"
KNOWN_CONSONANTS = "ptkbdgfmnslrhwj"
KNOWN_ALPHABET = KNOWN_VOWELS + KNOWN_CONSONANTS  # 20 Latin letters

# Weights make the lexicon look like a language rather than noise: a is the commonest vowel,
# unmarked stops and sonorants dominate onsets, and only a few consonants close a syllable.
_VOWEL_WEIGHTS = {"a": 30, "e": 18, "i": 20, "o": 16, "u": 12}
_ONSET_WEIGHTS = dict(zip(KNOWN_CONSONANTS, (7, 9, 10, 5, 6, 4, 3, 8, 7, 8, 7, 6, 5, 4, 3), strict=True))
_CODA_WEIGHTS = {"n": 12, "s": 9, "r": 5, "l": 4, "m": 3, "t": 2, "k": 2}
# Coda-onset contacts are restricted, as in many languages: nasals are followed by a homorganic
# stop, s by a voiceless stop, liquids by a stop or m, and a stop coda only by s or another stop.
# This also makes the clusters the cluster law targets (nt, nd, st) frequent enough to learn.
_AFTER_CODA = {
    "n": {"t": 5, "d": 3, "k": 2, "g": 1},
    "m": {"p": 3, "b": 2},
    "s": {"t": 6, "k": 2, "p": 1},
    "r": {"t": 3, "k": 3, "p": 2, "d": 2, "g": 1, "b": 1, "m": 1},
    "l": {"t": 3, "k": 3, "p": 2, "d": 2, "g": 1, "b": 1, "m": 1},
    "t": {"s": 2, "k": 1},
    "k": {"s": 2, "t": 1},
}
_P_ONSET_INITIAL = 0.8  # a word-initial syllable may start with a vowel
_P_CODA = 0.35
_SONORANTS = frozenset("mnlr")
_FRONT_VOWELS = frozenset("ie")

# --- Old Veshic: intermediate segments created by the sound laws ------------------------------

_PALATAL = "č"  # k before a front vowel
# Candidate cluster simplifications and (de)voicing mergers; the seed picks one of each.
_CLUSTERS = (("n", "t"), ("s", "t"), ("n", "d"))
_MERGERS = (("b", "p"), ("d", "t"), ("g", "k"))

# Greek lowercase, split so vowels stay vowels (a plausible adaptation of a borrowed script).
_GREEK_VOWELS = "αεηιουω"
_GREEK_CONSONANTS = "βγδζθκλμνξπρστφχψ"

P_NOISE = 0.05
"""Probability that a cognate gets one irregular (random) substitution."""

_MAX_TRIES = 200_000


@dataclass(frozen=True)
class DemoSpec:
    """Parameters of the demo corpus; the same spec always yields the same corpus."""

    seed: int = 7
    n_cognates: int = 200
    n_lost_only: int = 40
    n_known_only: int = 160


@dataclass(frozen=True)
class _Laws:
    """The sound laws fixed for one seed (mappings are per seed, never per word)."""

    cluster: tuple[str, str]
    merger: tuple[str, str]  # (lost sound, sound it merges into)
    script: dict[str, str]  # Veshic segment -> Greek letter, one-to-one


def _weighted(rng: random.Random, weights: dict[str, int]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _laws(rng: random.Random) -> _Laws:
    """Draw the sound laws for a seed: which cluster, which merger, and the letter mapping."""
    cluster = _CLUSTERS[rng.randrange(len(_CLUSTERS))]
    merger = _MERGERS[rng.randrange(len(_MERGERS))]
    # Segments that survive into Veshic: every Kalenic sound except the merged one, plus the
    # palatal and the simplified cluster, each of which gets its own letter.
    consonants = [c for c in KNOWN_CONSONANTS if c != merger[0]] + [_PALATAL, "".join(cluster)]
    vowel_letters = rng.sample(_GREEK_VOWELS, len(KNOWN_VOWELS))
    consonant_letters = rng.sample(_GREEK_CONSONANTS, len(consonants))
    script = dict(zip(KNOWN_VOWELS, vowel_letters, strict=False))
    script |= dict(zip(consonants, consonant_letters, strict=False))
    return _Laws(cluster=cluster, merger=merger, script=script)


def _known_word(rng: random.Random) -> str:
    """One Kalenic word: 2-3 syllables of shape (C)V(C), 3-9 letters, no vowel hiatus."""
    while True:
        n_syllables = rng.choice((2, 2, 3))
        word = coda = ""
        for i in range(n_syllables):
            # Non-initial syllables always have an onset, so Kalenic has no vowel sequences.
            if coda:
                onset = _weighted(rng, _AFTER_CODA[coda])
            elif i > 0 or rng.random() < _P_ONSET_INITIAL:
                onset = _weighted(rng, _ONSET_WEIGHTS)
            else:
                onset = ""
            vowel = _weighted(rng, _VOWEL_WEIGHTS)
            while (onset, vowel) in (("j", "i"), ("w", "u")):
                vowel = _weighted(rng, _VOWEL_WEIGHTS)  # no glide + homorganic vowel (ji, wu)
            coda = _weighted(rng, _CODA_WEIGHTS) if rng.random() < _P_CODA else ""
            word += onset + vowel + coda
        # Reject doubled consonants across a syllable boundary (coda == next onset) too.
        if 3 <= len(word) <= 9 and not any(a == b for a, b in itertools.pairwise(word)):
            return word


def _regular_segments(word: str, laws: _Laws) -> list[str]:
    """Apply the ordered sound laws to a Kalenic word; returns Veshic segments (pre-script)."""
    segs = list(word)
    # 1. Palatalisation: k -> č before a front vowel.
    segs = [
        _PALATAL if s == "k" and i + 1 < len(segs) and segs[i + 1] in _FRONT_VOWELS else s for i, s in enumerate(segs)
    ]
    # 2. Cluster simplification: the two-consonant cluster becomes one segment.
    out: list[str] = []
    i = 0
    while i < len(segs):
        if i + 1 < len(segs) and (segs[i], segs[i + 1]) == laws.cluster:
            out.append("".join(laws.cluster))
            i += 2
        else:
            out.append(segs[i])
            i += 1
    segs = out
    # 3. Lenition: h is lost between vowels.
    segs = [
        s
        for i, s in enumerate(segs)
        if not (s == "h" and 0 < i < len(segs) - 1 and segs[i - 1] in KNOWN_VOWELS and segs[i + 1] in KNOWN_VOWELS)
    ]
    # 4. Merger: one sound falls together with another (after 2, so clusters are unaffected).
    segs = [laws.merger[1] if s == laws.merger[0] else s for s in segs]
    # 5. Apocope: a word-final vowel is lost after a sonorant, if three segments remain.
    if len(segs) >= 4 and segs[-1] in KNOWN_VOWELS and segs[-2] in _SONORANTS:
        segs = segs[:-1]
    return segs


def _regular_lost(word: str, laws: _Laws) -> str:
    """The Veshic reflex of a Kalenic word with no irregularity: sound laws, then the script."""
    return "".join(laws.script[s] for s in _regular_segments(word, laws))


def _add_noise(lost: str, laws: _Laws, rng: random.Random) -> str:
    """One irregular substitution: a random position gets a different random Veshic letter."""
    letters = sorted(set(laws.script.values()))
    pos = rng.randrange(len(lost))
    new = rng.choice([c for c in letters if c != lost[pos]])
    return lost[:pos] + new + lost[pos + 1 :]


def _build(spec: DemoSpec) -> tuple[_Laws, list[tuple[str, str]]]:
    """Draw the laws and the (lost, known) rows, unshuffled order: cognates, lost-only, known-only."""
    for n in (spec.n_cognates, spec.n_lost_only, spec.n_known_only):
        if n < 0:
            raise ValueError(f"sizes must be non-negative, got {spec}")
    rng = random.Random(spec.seed)
    laws = _laws(rng)

    # Underlying Kalenic forms for every row, including the ancestors of the lost-only words
    # (words the known language lost). Their *regular* Veshic reflexes must all differ, so no
    # lost-only word can pass for the reflex of a word present on the known side.
    total = spec.n_cognates + spec.n_known_only + spec.n_lost_only
    known: list[str] = []
    seen_known: set[str] = set()
    regular: dict[str, str] = {}  # regular Veshic reflex -> its Kalenic source
    tries = 0
    while len(known) < total:
        tries += 1
        if tries > _MAX_TRIES:
            raise ValueError(f"cannot draw {total} distinct words; sizes too large for {spec}")
        word = _known_word(rng)
        reflex = _regular_lost(word, laws)
        if word in seen_known or reflex in regular:
            continue
        seen_known.add(word)
        regular[reflex] = word
        known.append(word)

    cognate_src = known[: spec.n_cognates]
    known_only = known[spec.n_cognates : spec.n_cognates + spec.n_known_only]
    lost_only_src = known[spec.n_cognates + spec.n_known_only :]

    rows: list[tuple[str, str]] = []
    used_lost: set[str] = set()
    for word in cognate_src:
        lost = _regular_lost(word, laws)
        if rng.random() < P_NOISE:
            noisy = _add_noise(lost, laws, rng)
            # A noisy form must not collide with any regular reflex (or another noisy form).
            if noisy not in regular and noisy not in used_lost:
                lost = noisy
        used_lost.add(lost)
        rows.append((lost, word))
    for word in lost_only_src:
        lost = _regular_lost(word, laws)  # distinct from every reflex and noisy form above
        used_lost.add(lost)
        rows.append((lost, MISSING))
    for word in known_only:
        rows.append((MISSING, word))
    return laws, rows


def generate_demo_lines(spec: DemoSpec = DemoSpec()) -> list[tuple[str, str]]:
    """(lost_cell, known_cell) rows, '_' for a missing word; deterministic for a spec.

    Cognate rows hold both words; lost-only rows are ``(word, "_")``; known-only rows are
    ``("_", word)``. The rows are shuffled with a generator derived from the seed, so the
    position of a row says nothing about its kind.
    """
    _, rows = _build(spec)
    random.Random(f"shuffle-{spec.seed}").shuffle(rows)
    return rows


def demo_cog_text(spec: DemoSpec = DemoSpec()) -> str:
    """The full .cog text: header 'ves\\tkal', one row per line, trailing newline."""
    lines = [f"{LOST_CODE}\t{KNOWN_CODE}"]
    lines += [f"{lost}\t{known}" for lost, known in generate_demo_lines(spec)]
    return "\n".join(lines) + "\n"


def write_demo_corpus(path: Path, spec: DemoSpec = DemoSpec()) -> Path:
    """Write the demo corpus to ``path`` (UTF-8, LF line ends), creating parent folders."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # write_bytes, not write_text: no platform newline translation, so the bytes are reproducible.
    path.write_bytes(demo_cog_text(spec).encode("utf-8"))
    return path


def sound_changes(spec: DemoSpec = DemoSpec()) -> list[str]:
    """Human-readable description of the sound laws used (for the corpus README)."""
    laws, _ = _build(spec)
    s = laws.script
    cluster = "".join(laws.cluster)
    lost_from, lost_to = laws.merger
    vowels = ", ".join(f"{v} → {s[v]}" for v in KNOWN_VOWELS)
    consonants = ", ".join(f"{c} → {s[c]}" for c in KNOWN_CONSONANTS if c != lost_from)
    return [
        f"Palatalisation: k → č before the front vowels i, e (written {s[_PALATAL]}).",
        f"Cluster simplification: {cluster} → a single segment (written {s[cluster]}).",
        "Lenition: h is lost between vowels.",
        (
            f"Merger: {lost_from} merges with {lost_to} (both written {s[lost_to]}); "
            f"applies after the cluster law, so {cluster} is not affected."
        ),
        "Apocope: a word-final vowel is dropped after a sonorant (m, n, l, r) when at least three segments remain.",
        f"Script (one-to-one, Greek letters): {vowels}; {consonants}.",
        f"Irregular noise: about {P_NOISE:.0%} of cognates get one random letter substitution.",
    ]


def _default_path() -> Path:
    # The corpora folder at the repository root: tui_decipher/engine/corpora/demo_corpus.py -> parents[3].
    return Path(__file__).resolve().parents[3] / "corpora" / "demo.cog"


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: write the default demo corpus to PATH (default corpora/demo.cog)."""
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else _default_path()
    write_demo_corpus(path)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
