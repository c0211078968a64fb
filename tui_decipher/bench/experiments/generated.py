"""auto on sets of corpora the bench writes itself, a part (a job) each with their average: one
generated corpus of every kind (`generated_kinds`), generated pairs of known shares with a cognate
(`generated_shares`), and small lexica, generated or cut from Romance (`small_generated`,
`small_syllabary`, `small_romance`). Each corpus is written to one fixed path a machine, so a job's
config, and with it its fingerprint, is the same each time."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from ..core import JobReporter, RowResult
from ..engine_api import (
    CorpusError,
    DecipherConfig,
    GeneratorSpec,
    entry_path,
    load_registry,
    run_decipherment,
    write_generated,
)
from .experiment import Experiment, average_row, baseline_row, corpus_of, row_from_run, schedule

# --- generated corpora: the kinds of pair a user may bring, none of them tuned on ------------------

# One corpus of each kind `decipher corpus generate` makes (engine/corpora/generators.py), each a part (its
# own job) run with no preset: the default, `auto`, as a user with new word lists gets it. Generator
# seeds from GENERATED_SEED up are for measuring only: no setting of auto was chosen on them (the
# generated corpora its settings were read from are named in docs/experiments.md, all below 300).
GENERATED_SEED = 301
GENERATED: dict[str, dict[str, Any]] = {
    "substitution": {"kind": "substitution", "lost_words": 400},
    "shared-alphabet": {"kind": "shared-alphabet", "lost_words": 400},
    "syllabary": {"kind": "syllabary", "lost_words": 400},
    "syllabary-1000": {"kind": "syllabary", "lost_words": 1000},
    "dead-vowel": {"kind": "dead-vowel", "lost_words": 400},  # Cypriot-like: every consonant written
    "large-known": {"kind": "large-known", "lost_words": 400},
    # One alphabet where reading by spelling is often wrong: 30% of the cognates' lost forms are
    # also spelled as an unrelated known word, as in real pairs the baseline reads at 60-75%.
    "false-friends": {"kind": "shared-alphabet", "lost_words": 400, "false_friends": 0.3},
}
GENERATED_PARTS = tuple(GENERATED)


def generated_path(key: str) -> Path:
    """Where the generated corpus `key` is written: one fixed path a machine (the same spec always
    writes the same file), so a job's config, and with it its fingerprint, is the same each time."""
    return Path(tempfile.gettempdir()) / "tui-decipher-bench" / f"{key}-seed{GENERATED_SEED}.cog"


def generated_kinds(**changes: Any) -> Experiment:
    """The GENERATED corpora, each with the default config (and `changes`); a job runs one corpus
    (its part), and the average row needs all of a seed's."""
    return corpus_set(_generator_writers(GENERATED), changes, generated_path)


def _generator_writers(specs: dict[str, dict[str, Any]]) -> dict[str, Callable[[Path], Any]]:
    """Per key, a writer of the generated corpus of its spec at GENERATED_SEED."""
    return {key: partial(_write_spec, spec=spec) for key, spec in specs.items()}


def _write_spec(path: Path, spec: dict[str, Any]) -> Any:
    return write_generated(path, GeneratorSpec(seed=GENERATED_SEED, **spec))


# --- how many lost words have a cognate: D against a known share (issue 64) -----------------------

# auto's D on generated pairs whose share of lost words with a cognate is known and varied: one
# alphabet (the edit channel) and a cipher (the pieces channel), a third, two thirds and all of the
# lost words with a cognate, half as many known words again as lost ones (the small Ugaritic file's
# shape where the share is a third). Each report row's D / gold says how far D is from the truth.
# Generator seeds 101-102 of these kinds and shares are the tuning corpora (docs/demand.md).
SHARES = (0.3, 0.6, 1.0)
GENERATED_SHARES: dict[str, dict[str, Any]] = {
    f"{kind}-{round(100 * share)}": {"kind": kind, "lost_words": 400, "cognate_share": share, "known_ratio": 1.5}
    for kind in ("shared-alphabet", "substitution")
    for share in SHARES
}


def generated_shares(**changes: Any) -> Experiment:
    """auto on the GENERATED_SHARES corpora, a job each, with their average."""
    return corpus_set(_generator_writers(GENERATED_SHARES), changes, shares_path)


def shares_path(key: str) -> Path:
    """Where the generated corpus `key` of GENERATED_SHARES is written (one fixed path a machine)."""
    return Path(tempfile.gettempdir()) / "tui-decipher-bench" / f"share-{key}-seed{GENERATED_SEED}.cog"


# --- small lexica: a user's real pair is often 40-170 words ----------------------------------------

# Issue 30's real pairs (one alphabet, never seen here) had 40-170 lost words. Two sets at that size,
# each part a job of auto with no flag: generated corpora of the one-alphabet kinds and the cipher
# (GENERATED_SEED), and Romance pairs cut down to 50 and 150 lost words. Romance is a corpus auto's
# settings were read from at its full size, so its cuts test the size, with real sound changes.
SMALL_SIZES = (40, 80, 150)
SMALL_GENERATED: dict[str, dict[str, Any]] = {
    f"{name}-{n}": {**spec, "lost_words": n}
    for name, spec in (
        ("shared-alphabet", {"kind": "shared-alphabet"}),
        ("false-friends", {"kind": "shared-alphabet", "false_friends": 0.3}),
        ("substitution", {"kind": "substitution"}),
    )
    for n in SMALL_SIZES
}
# A syllabary that small: its sign map is not pinned by so few words (auto's syllable search stops
# where no start can be told from chance, engine/methods/auto/), so these rows measure what such a
# run costs and what it reads without known sign values, around issue 30's lexicon of ~200 words.
# Both spellings (issue 64): Linear B-like, codas unwritten; Cypriot-like, every consonant written,
# whose longer words the search reads more often at this size.
SMALL_SYLLABARY: dict[str, dict[str, Any]] = {
    f"{kind}-{n}": {"kind": kind, "lost_words": n} for kind in ("syllabary", "dead-vowel") for n in (150, 200, 250)
}
SMALL_ROMANCE: dict[str, tuple[str, str, int]] = {
    f"{lost}-{known}-{n}": (lost, known, n)
    for lost, known in (("es", "it"), ("it", "pt"), ("pt", "es"))
    for n in (50, 150)
}


def small_generated(**changes: Any) -> Experiment:
    """auto on the SMALL_GENERATED corpora, a job each, with their average."""
    return corpus_set(_generator_writers(SMALL_GENERATED), changes, small_path)


def small_syllabary(**changes: Any) -> Experiment:
    """auto on the SMALL_SYLLABARY corpora, a job each, with their average."""
    return corpus_set(_generator_writers(SMALL_SYLLABARY), changes, small_path)


def small_romance(**changes: Any) -> Experiment:
    """auto on Romance pairs cut to SMALL_ROMANCE's sizes (`write_romance_cut`), a job each, with their average."""
    return corpus_set(
        {key: partial(_write_small_romance, key=key) for key in SMALL_ROMANCE},
        changes, small_path,
    )  # fmt: skip


def _write_small_romance(path: Path, key: str) -> None:
    write_romance_cut(path, *SMALL_ROMANCE[key])


def small_path(key: str) -> Path:
    """Where the small corpus `key` is written: one fixed path a machine (the same key always
    writes the same file), so a job's config, and with it its fingerprint, is the same each time."""
    return Path(tempfile.gettempdir()) / "tui-decipher-bench" / f"small-{key}.cog"


def write_romance_cut(path: Path, lost: str, known: str, n: int) -> None:
    """Write the Romance pair `lost` -> `known` cut to `n` lost words, drawn by a seeded generator
    from the table's rows: 90% with their cognate, 10% without it (their known word left out), and
    half as many unrelated known words again. The same pair and size always give the same file."""
    source = entry_path(load_registry()["romance"])
    if source is None:
        raise CorpusError("romance", None, "the corpus file is not here (see README, Corpora)")
    lines = source.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    rows = [line.split("\t") for line in lines[1:] if line.strip()]
    li, ki = header.index(lost), header.index(known)
    rng = random.Random(f"romance-cut-{lost}-{known}-{n}")
    drawn = rng.sample(range(len(rows)), n + n // 2)
    paired, lost_only, known_only = drawn[: n - n // 10], drawn[n - n // 10 : n], drawn[n:]
    body = [f"{rows[i][li]}\t{rows[i][ki]}" for i in paired]
    body += [f"{rows[i][li]}\t_" for i in lost_only] + [f"_\t{rows[i][ki]}" for i in known_only]
    rng.shuffle(body)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([f"{lost}\t{known}", *body]) + "\n", encoding="utf-8")


def corpus_set(
    writers: dict[str, Callable[[Path], Any]], changes: dict[str, Any], path_of: Callable[[str], Path]
) -> Experiment:
    """The default config (auto, with `changes`) on each corpus `writers[key](path)` writes at
    `path_of(key)`, a part (a job) each; the average row once a seed has them all."""
    parts = tuple(writers)

    def written(key: str) -> Path:
        path = path_of(key)
        writers[key](path)
        return path

    def configs(seed: int, quick: bool) -> list[DecipherConfig]:
        return [schedule(DecipherConfig(corpus=str(path_of(key)), seed=seed, **changes), quick) for key in parts]

    def run(seed: int, quick: bool, reporter: JobReporter, part: str) -> list[RowResult]:
        written(part)
        cfg = configs(seed, quick)[parts.index(part)]
        corpus = corpus_of(cfg)
        reporter.stage(f"training on {part} ({len(corpus.lost_words)} lost x {len(corpus.known_words)} known words)")
        return [row_from_run(part, run_decipherment(corpus, cfg, reporter))]

    def baseline(reporter: JobReporter) -> list[RowResult]:
        rows = []
        for key in parts:
            reporter.stage(f"baseline on {key}")
            rows.append(baseline_row(key, corpus_of(DecipherConfig(corpus=str(written(key))))))
        return [*rows, average_row(rows)]

    def combine(rows: list[RowResult]) -> list[RowResult]:
        return [average_row(rows)] if [r.key for r in rows] == list(parts) else []

    return Experiment(configs, run, baseline, parts, combine)
