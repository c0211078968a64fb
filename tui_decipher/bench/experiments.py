"""How a bench setting runs: the kinds of experiment the catalogue (`settings`) is made of.

An `Experiment` is the configs of a job, the run of one job, the edit-distance baseline and, for
work split into parts, the parts and how their rows combine. Its kinds: one corpus trained and
evaluated on (`one_corpus`), Ugaritic trained on the small file and read on both lists
(`ugaritic_transfer`), the six Romance pairs (`romance_pairs`), and the simulated reviewer
(`reviewer_refine`). Each takes config changes, so a variant of a setting is its experiment with
its changes. `--quick` shrinks every config the same way (`schedule`).
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .core import BaselineFn, CombineFn, ConfigsFn, JobReporter, RowResult, RunFn, peak_rss_mb
from .engine_api import (
    Corpus,
    CorpusError,
    DecipherConfig,
    DecipherResult,
    GeneratorSpec,
    RoundMetrics,
    edit_distance_assignment,
    entry_path,
    evaluate_on_corpus,
    load_corpus,
    load_registry,
    method_for,
    preset,
    run_decipherment,
    write_generated,
)

# --quick: a smoke check of every setting in minutes on 2 CPU cores, not a measurement of accuracy.
# The model is shrunk (d = 64 instead of 250) as well as the schedule: at d = 250 one M-step epoch
# on the 2182 noiseless Ugaritic words alone takes about 6 s on one core.
QUICK_CHANGES: dict[str, Any] = dict(rounds=2, epochs=20, first_epochs=0, restarts=1, embed_dim=64, hidden_dim=64)
QUICK_CHANNEL_STEPS = 10  # steps of any channel a run trains under --quick (`Method.quick_changes`)


@dataclass(frozen=True)
class Experiment:
    """How a setting runs: `configs(seed, quick)`, `run(seed, quick, reporter)` (with `part=` when
    it has parts), its `baseline(reporter)` (None: it has none of its own), and for work split
    into independent jobs, the `parts` and how their rows `combine`."""

    configs: ConfigsFn
    run: RunFn
    baseline: BaselineFn | None = None
    parts: tuple[str, ...] = ()
    combine: CombineFn | None = None


def schedule(cfg: DecipherConfig, quick: bool) -> DecipherConfig:
    """The config a bench job trains with: the preset's, or the reduced --quick one."""
    if not quick:
        return cfg
    changes = {**QUICK_CHANGES, "rounds": min(cfg.rounds, QUICK_CHANGES["rounds"])}
    return cfg.replace(**changes, **method_for(cfg.method).quick_changes(cfg, QUICK_CHANNEL_STEPS))


def _config(preset_name: str, seed: int, quick: bool, **changes: Any) -> DecipherConfig:
    return schedule(preset(preset_name).replace(seed=seed, **changes), quick)


def _load(cfg: DecipherConfig) -> Corpus:
    return load_corpus(cfg).corpus


def row_from_run(key: str, result: DecipherResult) -> RowResult:
    """A bench row from an engine run evaluated on its own corpus."""
    cfg = result.config
    return RowResult(
        key=key,
        accuracy=result.accuracy,
        accuracy_model=result.accuracy_model,
        n_evaluated=result.n_evaluated,
        seconds=result.seconds,
        phase_seconds=dict(result.phase_seconds),
        extra={
            "status": result.status,
            "rounds": len(result.rounds),
            "epochs": cfg.epochs,
            "restarts": cfg.restarts,
            "objective": result.objective,
            "per_round": [_round_record(m) for m in result.rounds],
            "config": cfg.to_dict(),
            "decisions": result.decisions,  # what auto decided ({} for the other methods)
            "proposal_scores": _scored(result),  # the user's metric: its proposals at its own D
        },
    )


def _scored(result: DecipherResult) -> dict[str, Any] | None:
    scored = result.proposal_scores()
    return scored.as_dict() if scored is not None else None


def _round_record(m: RoundMetrics) -> dict[str, Any]:
    keys = ("round", "demand", "cost_kind", "loss", "accuracy", "accuracy_model", "kept_previous")
    return {k: getattr(m, k) for k in keys}


def baseline_row(key: str, corpus: Corpus) -> RowResult:
    """The edit-distance baseline's row on one corpus."""
    b = edit_distance_assignment(corpus)
    phases = {"score": b.phase_seconds.get("distance", 0.0), "flow": b.phase_seconds.get("assign", 0.0)}
    return RowResult(
        key,
        b.accuracy,
        None,
        b.n_evaluated,
        b.seconds,
        phases,
        {"correct": b.correct, "n_known": len(corpus.known_words)},
    )


def train_and_transfer(cfg: DecipherConfig, eval_name: str, reporter: JobReporter) -> list[RowResult]:
    """Train on cfg's corpus, evaluate there ("small") and on registry corpus `eval_name` ("full"),
    with what the run's method kept (`result.fitted`)."""
    train = _load(cfg)
    reporter.stage(f"training on {train.name}")
    result = run_decipherment(train, cfg, reporter)
    if result.fitted is None:
        raise RuntimeError("the run finished no round")
    rows = [row_from_run("small", result)]
    reporter.stage(f"evaluating on {eval_name}")
    rss_before = peak_rss_mb()
    load_started = time.perf_counter()
    full = _load(cfg.replace(corpus=eval_name))
    load_seconds = time.perf_counter() - load_started
    ev = evaluate_on_corpus(result, train, full, cfg)
    rows.append(
        RowResult(
            key="full",
            accuracy=ev.accuracy,
            accuracy_model=ev.accuracy_model,
            n_evaluated=ev.n_evaluated,
            seconds=ev.seconds,
            phase_seconds=ev.phase_seconds,
            extra={
                "n_known": ev.n_known,
                "cost_kind": ev.cost_kind,
                "load_seconds": load_seconds,
                "peak_rss_mb_before_eval": rss_before,
                "peak_rss_mb_after_eval": peak_rss_mb(),
                "unseen_lost_symbols": ev.unseen_lost_symbols,
                "unseen_known_symbols": ev.unseen_known_symbols,
            },
        )
    )
    return rows


# --- the kinds of experiment ------------------------------------------------------------------


def one_corpus(key: str, preset_name: str, **changes: Any) -> Experiment:
    """Train and evaluate on one corpus, the preset's (with `changes`); its row is keyed by `key`."""

    def configs(seed: int, quick: bool) -> list[DecipherConfig]:
        return [_config(preset_name, seed, quick, **changes)]

    def run(seed: int, quick: bool, reporter: JobReporter) -> list[RowResult]:
        (cfg,) = configs(seed, quick)
        corpus = _load(cfg)
        reporter.stage(f"training on {corpus.name}")
        return [row_from_run(key, run_decipherment(corpus, cfg, reporter))]

    def baseline(reporter: JobReporter) -> list[RowResult]:
        return [baseline_row(key, _load(preset(preset_name)))]

    return Experiment(configs, run, baseline)


def ugaritic_transfer(**changes: Any) -> Experiment:
    """Train on ugaritic-small with the paper's preset (and `changes`), test there ("small") and on the
    full list ("full")."""

    def configs(seed: int, quick: bool) -> list[DecipherConfig]:
        return [_config("paper-ugaritic", seed, quick, **changes)]

    def run(seed: int, quick: bool, reporter: JobReporter) -> list[RowResult]:
        return train_and_transfer(configs(seed, quick)[0], "ugaritic-full", reporter)

    return Experiment(configs, run, _ugaritic_baseline)


def _ugaritic_baseline(reporter: JobReporter) -> list[RowResult]:
    rows = []
    for key, name in (("small", "ugaritic-small"), ("full", "ugaritic-full")):
        reporter.stage(f"baseline on {name}")
        rows.append(baseline_row(key, _load(preset("paper-ugaritic").replace(corpus=name))))
    return rows


ROMANCE_PAIRS = (("es", "it"), ("it", "es"), ("es", "pt"), ("pt", "es"), ("it", "pt"), ("pt", "it"))


def pair_key(lost: str, known: str) -> str:
    return f"{lost}-{known}"


ROMANCE_PARTS = tuple(pair_key(lost, known) for lost, known in ROMANCE_PAIRS)


def average_row(rows: list[RowResult]) -> RowResult:
    """The mean of some rows' accuracies (the paper's Romance average); times are summed."""

    def mean(values: list[float | None]) -> float | None:
        return None if any(v is None for v in values) else sum(values) / len(values)  # type: ignore[arg-type]

    phases: dict[str, float] = {}
    for r in rows:
        for k, v in r.phase_seconds.items():
            phases[k] = phases.get(k, 0.0) + v
    return RowResult(
        "average",
        mean([r.accuracy for r in rows]),
        mean([r.accuracy_model for r in rows]),
        sum(r.n_evaluated for r in rows),
        sum(r.seconds for r in rows),
        phases,
        {"of": [r.key for r in rows]},
    )


def romance_pairs(**changes: Any) -> Experiment:
    """The six Romance pairs, each with the paper's romance preset (and `changes`); a job trains one pair
    (its part, e.g. "es-it"), and the average row needs all six of a seed."""

    def configs(seed: int, quick: bool) -> list[DecipherConfig]:
        pairs = ROMANCE_PAIRS
        return [_config("paper-romance", seed, quick, lost=lost, known=known, **changes) for lost, known in pairs]

    def run(seed: int, quick: bool, reporter: JobReporter, part: str) -> list[RowResult]:
        (cfg,) = (c for c in configs(seed, quick) if pair_key(c.lost, c.known) == part)
        reporter.stage(f"training {cfg.lost} -> {cfg.known}")
        return [row_from_run(part, run_decipherment(_load(cfg), cfg, reporter))]

    return Experiment(configs, run, _romance_baseline, ROMANCE_PARTS, _romance_average)


def _romance_average(rows: list[RowResult]) -> list[RowResult]:
    """The average row, once all six pairs of a seed are there."""
    return [average_row(rows)] if [r.key for r in rows] == list(ROMANCE_PARTS) else []


def _romance_baseline(reporter: JobReporter) -> list[RowResult]:
    rows = []
    for lost, known in ROMANCE_PAIRS:
        rows.append(baseline_row(pair_key(lost, known), _load(preset("paper-romance").replace(lost=lost, known=known))))
    return [*rows, average_row(rows)]


# --- generated corpora: the kinds of pair a user may bring, none of them tuned on ------------------

# One corpus of each kind `decipher corpus generate` makes (engine/generators.py), each a part (its
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
    return _corpus_set(_generator_writers(GENERATED), changes, generated_path)


def _generator_writers(specs: dict[str, dict[str, Any]]) -> dict[str, Callable[[Path], Any]]:
    """Per key, a writer of the generated corpus of its spec at GENERATED_SEED."""
    return {key: lambda path, spec=spec: write_generated(path, GeneratorSpec(seed=GENERATED_SEED, **spec))
            for key, spec in specs.items()}  # fmt: skip


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
    return _corpus_set(_generator_writers(GENERATED_SHARES), changes, shares_path)


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
SMALL_SYLLABARY: dict[str, dict[str, Any]] = {
    f"syllabary-{n}": {"kind": "syllabary", "lost_words": n} for n in (150, 200, 250)
}
SMALL_ROMANCE: dict[str, tuple[str, str, int]] = {
    f"{lost}-{known}-{n}": (lost, known, n)
    for lost, known in (("es", "it"), ("it", "pt"), ("pt", "es"))
    for n in (50, 150)
}


def small_generated(**changes: Any) -> Experiment:
    """auto on the SMALL_GENERATED corpora, a job each, with their average."""
    return _corpus_set(_generator_writers(SMALL_GENERATED), changes, small_path)


def small_syllabary(**changes: Any) -> Experiment:
    """auto on the SMALL_SYLLABARY corpora, a job each, with their average."""
    return _corpus_set(_generator_writers(SMALL_SYLLABARY), changes, small_path)


def small_romance(**changes: Any) -> Experiment:
    """auto on Romance pairs cut to SMALL_ROMANCE's sizes (`write_romance_cut`), a job each, with their average."""
    return _corpus_set(
        {key: lambda path, key=key: write_romance_cut(path, *SMALL_ROMANCE[key]) for key in SMALL_ROMANCE},
        changes, small_path,
    )  # fmt: skip


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
        raise CorpusError("romance: the corpus file is not here (see README, Corpora)")
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


def _corpus_set(
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
        corpus = _load(cfg)
        reporter.stage(f"training on {part} ({len(corpus.lost_words)} lost x {len(corpus.known_words)} known words)")
        return [row_from_run(part, run_decipherment(corpus, cfg, reporter))]

    def baseline(reporter: JobReporter) -> list[RowResult]:
        rows = []
        for key in parts:
            reporter.stage(f"baseline on {key}")
            rows.append(baseline_row(key, _load(DecipherConfig(corpus=str(written(key))))))
        return [*rows, average_row(rows)]

    def combine(rows: list[RowResult]) -> list[RowResult]:
        return [average_row(rows)] if [r.key for r in rows] == list(parts) else []

    return Experiment(configs, run, baseline, parts, combine)


REFINE_ITERATIONS = 3  # review-then-refine cycles of the simulated reviewer
REFINE_JUDGMENTS = 20  # per cycle: accept this many correct proposals and reject this many wrong ones
# The cycles are repeated over this many draws of the refinements' randomness, from the same trained
# run, and averaged: one draw moved the neural EM's refined figure by up to 11 points on the same
# words, more than the judgments' effect (docs/experiments.md).
REFINE_DRAWS = 2


def reviewer_refine(corpus: str = "ugaritic-small", preset_name: str = "paper-ugaritic", **changes: Any) -> Experiment:
    """Train on `corpus` (the preset with `changes`: the method, a Romance pair's languages), then
    3 times: a simulated reviewer judges 20 + 20 proposals and the run is refined for one round.
    Figures are on the words the reviewer never judged, means over REFINE_DRAWS draws of the
    refinements; the control makes the same refinements, call for call, with no decisions.
    Seconds: the run before review, then one refinement (the mean of the cycles)."""

    def configs(seed: int, quick: bool) -> list[DecipherConfig]:
        return [_config(preset_name, seed, quick, corpus=corpus, **changes)]

    def run(seed: int, quick: bool, reporter: JobReporter) -> list[RowResult]:
        from .reviewer_simulation import run_refine_benchmark

        cfg = configs(seed, quick)[0]
        train = _load(cfg)
        reporter.stage(f"training on {train.name}, then {REFINE_ITERATIONS} review + refine cycles, "
                       f"{REFINE_DRAWS} draws")  # fmt: skip
        bench = run_refine_benchmark(
            train, cfg, REFINE_ITERATIONS, 1, REFINE_JUDGMENTS, REFINE_JUDGMENTS, on_event=reporter,
            log=reporter.stage, draws=REFINE_DRAWS,
        )  # fmt: skip
        extra = {"accepted": bench.n_accepted, "rejected": bench.n_rejected, "iterations": bench.iterations,
                 "accuracy_all_unrefined": bench.accuracy_unrefined_all,
                 "accuracy_all_refined": bench.accuracy_refined_all, "draws": bench.draws,
                 "config": cfg.to_dict()}  # fmt: skip
        rows = [
            RowResult("unrefined", bench.accuracy_unrefined, None, bench.n_unjudged, bench.seconds_unrefined,
                      extra=extra),
            RowResult("refined", bench.accuracy_refined, None, bench.n_unjudged, bench.seconds_refine, extra=extra),
        ]  # fmt: skip
        if bench.accuracy_control is not None:
            rows.append(RowResult("control", bench.accuracy_control, None, bench.n_unjudged, extra=extra))
        return rows

    return Experiment(configs, run)


KNOWN_READINGS = 10  # correct pairs a simulated scholar knows before the run


def _without_and_with(
    corpus: str,
    preset_name: str,
    changes: dict[str, Any],
    stage: str,
    measure: Callable[[Corpus, DecipherConfig, int, JobReporter], tuple[Any, dict[str, Any]]],
) -> Experiment:
    """Rows "without" and "with" known pairs: `measure(corpus, cfg, seed, reporter)` runs both and
    returns its benchmark (accuracy_without/with, n_other, seconds_without/with) and extra fields."""

    def configs(seed: int, quick: bool) -> list[DecipherConfig]:
        return [_config(preset_name, seed, quick, corpus=corpus, **changes)]

    def run(seed: int, quick: bool, reporter: JobReporter) -> list[RowResult]:
        cfg = configs(seed, quick)[0]
        train = _load(cfg)
        reporter.stage(f"{train.name} {stage}")
        bench, extra = measure(train, cfg, seed, reporter)
        extra = {**extra, "config": cfg.to_dict()}
        return [
            RowResult("without", bench.accuracy_without, None, bench.n_other, bench.seconds_without, extra=extra),
            RowResult("with", bench.accuracy_with, None, bench.n_other, bench.seconds_with, extra=extra),
        ]

    return Experiment(configs, run)


def known_readings(corpus: str, preset_name: str, **changes: Any) -> Experiment:
    """Run `corpus` with and without 10 correct pairs given at the start (drawn from gold by the
    seed: the bench's stand-in for a bilingual), both scored on the words not given."""

    def measure(train: Corpus, cfg: DecipherConfig, seed: int, reporter: JobReporter) -> tuple[Any, dict[str, Any]]:
        from .reviewer_simulation import run_known_readings_benchmark

        bench = run_known_readings_benchmark(train, cfg, KNOWN_READINGS, seed, reporter, reporter.stage)
        return bench, {"given": bench.given}

    return _without_and_with(corpus, preset_name, changes, f"without, then with {KNOWN_READINGS} known pairs", measure)


CEILING_FOLDS = 2  # half of gold's pairs given, each half in turn


def known_pairs_ceiling(corpus: str, preset_name: str, **changes: Any) -> Experiment:
    """An oracle reviewer's ceiling: `corpus` run given half of gold's pairs from the start, each half
    in turn, scored on the other half against the run without them (`run_ceiling_benchmark`)."""

    def measure(train: Corpus, cfg: DecipherConfig, seed: int, reporter: JobReporter) -> tuple[Any, dict[str, Any]]:
        from .reviewer_simulation import run_ceiling_benchmark

        bench = run_ceiling_benchmark(train, cfg, CEILING_FOLDS, seed, reporter, reporter.stage)
        return bench, {"folds": bench.folds, "changed": bench.changed}

    stage = f"without, then with half of gold's pairs known, {CEILING_FOLDS} folds"
    return _without_and_with(corpus, preset_name, changes, stage, measure)
