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

The syllabaries (and large-known on one) take real words too (`words`, a word list): the known
language is then that list and its words are written in a syllabary of their own (`real_words`).

Lost words without a cognate come from known-language words that are not on the known side, as in
the demo corpus, and every word's regular reflex is distinct, so no lost-only word can pass for
the reflex of a known word. Rows are written as a `.cog` file with header ``lost<TAB>known`` and
``_`` for a missing word; everything is drawn from ``random.Random`` seeded by kind and seed, so
one spec always gives the same bytes.

The known language is `phonology`'s, the sound laws `laws`', each kind's writing of a known word
`derivations`'; this module draws a corpus's words and rows.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..corpus import SIGN_VALUES_HEADER
from ..demo_corpus import MISSING
from ..formats.word_lists import read_word_list
from .derivations import DERIVATIONS, Derivation
from .derivations import syllabary_key as syllabary_key  # a drawn syllabary's key, for tests and the bench
from .phonology import Segments, draw_word, word_segments
from .real_words import real_word_syllabary

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
    # A real word list (one word per line) that is the known language, in place of drawn words:
    # the syllabaries only, whose script is then read by the list's own vowels (`real_words`).
    words: Path | None = None

    def resolved(self) -> GeneratorSpec:
        """The spec with defaults filled in and checked; raises ValueError naming the problem."""
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind {self.kind!r} (kinds: {', '.join(KINDS)})")
        if self.kind == "large-known" and self.base not in BASE_KINDS:
            raise ValueError(f"unknown base kind {self.base!r} (base kinds: {', '.join(BASE_KINDS)})")
        share, ratio = KIND_DEFAULTS[self.kind]
        cognate_share = share if self.cognate_share is None else self.cognate_share
        spec = dataclasses.replace(
            self,
            cognate_share=cognate_share,
            known_ratio=ratio if self.known_ratio is None else self.known_ratio,
        )
        if spec.lost_words < 1:
            raise ValueError(f"lost words must be at least 1, got {spec.lost_words}")
        if not 0.0 <= cognate_share <= 1.0:
            raise ValueError(f"cognate share must be in 0..1, got {cognate_share:g}")
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
        if spec.words is not None and spec.derivation not in SYLLABARY_KINDS:
            raise ValueError(
                f"--words: real words are written in a syllabary ({', '.join(SYLLABARY_KINDS)}, or large-known on "
                f"one), not {spec.derivation!r}; `decipher corpus encipher` rewrites a real pair in any script"
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
    key: dict[str, str] = dataclasses.field(default_factory=dict)  # a syllabary's sign -> its syllable

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
    n_cognates, n_lost_only, n_known_only = spec.sizes()
    total = n_cognates + n_known_only + n_lost_only
    if spec.words is None:
        derivation = DERIVATIONS[spec.derivation](rng)
        known, reflexes = _draw_words(spec, derivation, rng, total)
        symbols, laws, key = derivation.symbols, derivation.laws, derivation.key
    else:
        known, reflexes, symbols, laws, key = _real_words(spec, spec.words, rng, total)
    seen_known, seen_reflex = set(known), set(reflexes)
    rows = _cognate_rows(spec, symbols, rng, known[:n_cognates], reflexes[:n_cognates], seen_reflex)
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
    return GeneratedCorpus(spec=spec, rows=tuple(rows), laws=laws, key=key)


def _draw_words(
    spec: GeneratorSpec, derivation: Derivation, rng: random.Random, total: int
) -> tuple[list[str], list[Segments]]:
    """`total` known-language words, as written and as their regular reflexes, drawn from `rng`."""
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
        word = draw_word(rng, derivation.phonology)
        written = "".join(word_segments(word))
        reflex = derivation.derive(word)
        if written in seen_known or reflex in seen_reflex or len(reflex) < 2:
            continue
        seen_known.add(written)
        seen_reflex.add(reflex)
        known.append(written)
        reflexes.append(reflex)
    return known, reflexes


def _real_words(
    spec: GeneratorSpec, path: Path, rng: random.Random, total: int
) -> tuple[list[str], list[Segments], tuple[str, ...], tuple[str, ...], dict[str, str]]:
    """`total` words of the word list at `path` in an order drawn from `rng`, as written and as the
    syllabary writes them (distinct writings of at least two signs), with the script's signs, laws and key."""
    words = read_word_list(path)  # a bad file raises a CorpusError naming its line
    if total > len(words):
        raise ValueError(
            f"{path}: {len(words)} distinct words, fewer than the {total} that {spec.lost_words} lost words need "
            f"(cognate share {spec.cognate_share:g}, known ratio {spec.known_ratio:g}): ask for --lost-words "
            f"{_most_lost_words(spec, len(words))} or fewer"
        )
    syllabary = real_word_syllabary(spec.derivation, words, rng)
    order = list(words)
    rng.shuffle(order)
    known: list[str] = []
    reflexes: list[Segments] = []
    seen_reflex: set[Segments] = set()
    for word in order:
        reflex = syllabary.derive(word)
        if reflex in seen_reflex or len(reflex) < 2:  # one writing for two words would be no test
            continue
        seen_reflex.add(reflex)
        known.append("".join(word))
        reflexes.append(reflex)
        if len(known) == total:
            return known, reflexes, syllabary.symbols, syllabary.laws, syllabary.key
    raise ValueError(
        f"{path}: only {len(known)} of its words have writings of two signs or more that no other word shares, "
        f"fewer than the {total} needed: ask for fewer --lost-words"
    )


def _most_lost_words(spec: GeneratorSpec, n_words: int) -> int:
    """The most lost words that `n_words` distinct words allow at the spec's share and ratio."""
    lost = spec.lost_words
    while lost > 1 and sum(dataclasses.replace(spec, lost_words=lost).sizes()) > n_words:
        lost -= 1
    return lost


def _cognate_rows(
    spec: GeneratorSpec,
    symbols: tuple[str, ...],
    rng: random.Random,
    known: list[str],
    reflexes: list[Segments],
    seen_reflex: set[Segments],
) -> list[tuple[str, str]]:
    """A row (lost cell, known word) for each of `known`: its reflex, or at `spec.noise` a noisy form
    drawn from `rng` (over the script's `symbols`) that is no word's reflex (`seen_reflex`); at
    `spec.variants`, a variant after it."""
    rows: list[tuple[str, str]] = []
    used: set[Segments] = set()
    # Variants draw from their own generator, so a spec without them gives the same bytes as before.
    variant_rng = random.Random(f"variants-{spec.kind}-{spec.seed}")
    endings = variant_rng.sample(symbols, 2)
    for word, reflex in zip(known, reflexes, strict=True):
        lost = reflex
        if rng.random() < spec.noise:
            noisy = _add_noise(reflex, symbols, rng)
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
    return rows


def write_generated(path: str | Path, spec: GeneratorSpec) -> GeneratedCorpus:
    """Generate a corpus and write it to ``path`` as a `.cog` file (UTF-8, LF), creating folders."""
    corpus = generate(spec)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(corpus.cog_text().encode("utf-8"))
    return dataclasses.replace(corpus, path=path)


def syllabary_key_text(generated: GeneratedCorpus) -> str:
    """A generated syllabary's key as a known-signs file (`lost<TAB>known`, engine/constraints/sign_values.py),
    the signs its lost words use, most frequent first (ties by sign): its first n lines after the
    header are the n values a scholar is likeliest to know."""
    if generated.spec.kind not in SYLLABARY_KINDS:
        raise ValueError(f"a key is written for a syllabary only, not for {generated.spec.kind!r}")
    key = generated.key
    counts = Counter(
        sign for lost, _ in generated.rows if lost != MISSING for word in lost.split("|") for sign in word
    )  # fmt: skip
    order = sorted(counts, key=lambda sign: (-counts[sign], sign))
    return "\t".join(SIGN_VALUES_HEADER) + "\n" + "".join(f"{sign}\t{key[sign]}\n" for sign in order if sign in key)
