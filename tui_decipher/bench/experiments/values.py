"""A scholar's sign values on generated syllabaries (issue 65): auto on each corpus without values
and with the key's values of its ten most frequent signs (`decipher run --known-signs`), a part (a
job) each, and the two averages. Gold plays the scholar here, in this benchmark only: the values
are the generator's own key, which a run never reads otherwise."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import Any

from ..core import JobReporter, RowResult
from ..engine_api import DecipherConfig, GeneratorSpec, run_decipherment, syllabary_key_text, write_generated
from .experiment import Experiment, average_row, corpus_of, row_from_run, schedule

# Generator seeds from 301 up are for measuring only (bench/experiments/generated.py); issue 65's
# measure is three syllabaries of 200 lost words with ten values, for both spellings.
VALUES_SEEDS = (301, 302, 303)
VALUES_KINDS = ("syllabary", "dead-vowel")
VALUES_WORDS = 200
KNOWN_VALUES = 10  # the key's lines a scholar knows: its most frequent signs' values
VALUES_CORPORA: dict[str, dict[str, Any]] = {
    f"{kind}-{seed}": {"kind": kind, "seed": seed, "lost_words": VALUES_WORDS}
    for kind in VALUES_KINDS
    for seed in VALUES_SEEDS
}
MODES = ("without", "with")
VALUES_PARTS = tuple(f"{key}-{mode}" for key in VALUES_CORPORA for mode in MODES)


def values_path(key: str) -> Path:
    """Where the corpus `key` is written (its values beside it, `.signs.tsv`): one fixed path a
    machine, so a job's config, and with it its fingerprint, is the same each time."""
    return Path(tempfile.gettempdir()) / "tui-decipher-bench" / f"values-{key}.cog"


def write_with_values(key: str) -> tuple[Path, Path]:
    """Write the corpus `key` and the first KNOWN_VALUES values of its key (most frequent sign
    first); returns both paths."""
    path = values_path(key)
    generated = write_generated(path, GeneratorSpec(**VALUES_CORPORA[key]))
    lines = syllabary_key_text(generated).splitlines()
    signs = path.with_suffix(".signs.tsv")
    signs.write_text("\n".join(lines[: 1 + KNOWN_VALUES]) + "\n", encoding="utf-8")
    return path, signs


def _averaged(key: str, rows: list[RowResult]) -> RowResult:
    """`average_row` of `rows` as `key`, with their proposals' mean precision, recall and F1 at
    each run's own D (and D summed against the gold counts summed), the user's metric."""
    row = average_row(rows)
    scored = [r.extra.get("proposal_scores") for r in rows]
    if scored and all(scored):
        mean = {k: sum(d[k] for d in scored) / len(scored) for k in ("precision", "recall", "f1")}  # type: ignore[index]
        sums = {k: sum(d[k] for d in scored) for k in ("n_proposals", "n_gold")}  # type: ignore[index]
        row.extra["proposal_scores"] = {**mean, **sums, "calibration_error": None}
    return dataclasses.replace(row, key=key)


def _split(part: str) -> tuple[str, str]:
    key, _, mode = part.rpartition("-")
    return key, mode


def scholar_values(**changes: Any) -> Experiment:
    """auto (with `changes`) on each VALUES_CORPORA corpus, once without values and once with ten
    (`write_with_values`), a part each; rows `without` and `with` average a seed's parts."""

    def config(seed: int, quick: bool, part: str) -> DecipherConfig:
        key, mode = _split(part)
        path = values_path(key)
        signs = str(path.with_suffix(".signs.tsv")) if mode == "with" else ""
        return schedule(DecipherConfig(corpus=str(path), seed=seed, known_signs=signs, **changes), quick)

    def configs(seed: int, quick: bool) -> list[DecipherConfig]:
        return [config(seed, quick, part) for part in VALUES_PARTS]

    def run(seed: int, quick: bool, reporter: JobReporter, part: str) -> list[RowResult]:
        write_with_values(_split(part)[0])
        cfg = config(seed, quick, part)
        corpus = corpus_of(cfg)
        reporter.stage(f"training on {part} ({len(corpus.lost_words)} lost x {len(corpus.known_words)} known words)")
        return [row_from_run(part, run_decipherment(corpus, cfg, reporter))]

    def combine(rows: list[RowResult]) -> list[RowResult]:
        if sorted(r.key for r in rows) != sorted(VALUES_PARTS):
            return []
        return [_averaged(mode, [r for r in rows if _split(r.key)[1] == mode]) for mode in MODES]

    return Experiment(configs, run, None, VALUES_PARTS, combine)
