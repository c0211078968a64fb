"""The paper's kinds of experiment: one corpus trained and evaluated on (`one_corpus`), Ugaritic
trained on the small file and read on both lists (`ugaritic_transfer`), and the six Romance pairs
(`romance_pairs`). Each takes config changes, so a variant of a setting is its experiment with its
changes."""

from __future__ import annotations

import time
from typing import Any

from ..core import JobReporter, RowResult, peak_rss_mb
from ..engine_api import DecipherConfig, evaluate_on_corpus, preset, run_decipherment
from .experiment import Experiment, average_row, baseline_row, corpus_of, preset_config, row_from_run


def train_and_transfer(cfg: DecipherConfig, eval_name: str, reporter: JobReporter) -> list[RowResult]:
    """Train on cfg's corpus, evaluate there ("small") and on registry corpus `eval_name` ("full"),
    with what the run's method kept (`result.fitted`)."""
    train = corpus_of(cfg)
    reporter.stage(f"training on {train.name}")
    result = run_decipherment(train, cfg, reporter)
    if result.fitted is None:
        raise RuntimeError("the run finished no round")
    rows = [row_from_run("small", result)]
    reporter.stage(f"evaluating on {eval_name}")
    rss_before = peak_rss_mb()
    load_started = time.perf_counter()
    full = corpus_of(cfg.replace(corpus=eval_name))
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
        return [preset_config(preset_name, seed, quick, **changes)]

    def run(seed: int, quick: bool, reporter: JobReporter) -> list[RowResult]:
        (cfg,) = configs(seed, quick)
        corpus = corpus_of(cfg)
        reporter.stage(f"training on {corpus.name}")
        return [row_from_run(key, run_decipherment(corpus, cfg, reporter))]

    def baseline(reporter: JobReporter) -> list[RowResult]:
        return [baseline_row(key, corpus_of(preset(preset_name)))]

    return Experiment(configs, run, baseline)


def ugaritic_transfer(**changes: Any) -> Experiment:
    """Train on ugaritic-small with the paper's preset (and `changes`), test there ("small") and on the
    full list ("full")."""

    def configs(seed: int, quick: bool) -> list[DecipherConfig]:
        return [preset_config("paper-ugaritic", seed, quick, **changes)]

    def run(seed: int, quick: bool, reporter: JobReporter) -> list[RowResult]:
        return train_and_transfer(configs(seed, quick)[0], "ugaritic-full", reporter)

    return Experiment(configs, run, _ugaritic_baseline)


def _ugaritic_baseline(reporter: JobReporter) -> list[RowResult]:
    rows = []
    for key, name in (("small", "ugaritic-small"), ("full", "ugaritic-full")):
        reporter.stage(f"baseline on {name}")
        rows.append(baseline_row(key, corpus_of(preset("paper-ugaritic").replace(corpus=name))))
    return rows


ROMANCE_PAIRS = (("es", "it"), ("it", "es"), ("es", "pt"), ("pt", "es"), ("it", "pt"), ("pt", "it"))


def pair_key(lost: str, known: str) -> str:
    return f"{lost}-{known}"


ROMANCE_PARTS = tuple(pair_key(lost, known) for lost, known in ROMANCE_PAIRS)


def romance_pairs(**changes: Any) -> Experiment:
    """The six Romance pairs, each with the paper's romance preset (and `changes`); a job trains one pair
    (its part, e.g. "es-it"), and the average row needs all six of a seed."""

    def configs(seed: int, quick: bool) -> list[DecipherConfig]:
        pairs = ROMANCE_PAIRS
        return [preset_config("paper-romance", seed, quick, lost=lost, known=known, **changes) for lost, known in pairs]

    def run(seed: int, quick: bool, reporter: JobReporter, part: str) -> list[RowResult]:
        (cfg,) = (c for c in configs(seed, quick) if pair_key(c.lost, c.known) == part)
        reporter.stage(f"training {cfg.lost} -> {cfg.known}")
        return [row_from_run(part, run_decipherment(corpus_of(cfg), cfg, reporter))]

    return Experiment(configs, run, _romance_baseline, ROMANCE_PARTS, _romance_average)


def _romance_average(rows: list[RowResult]) -> list[RowResult]:
    """The average row, once all six pairs of a seed are there."""
    return [average_row(rows)] if [r.key for r in rows] == list(ROMANCE_PARTS) else []


def _romance_baseline(reporter: JobReporter) -> list[RowResult]:
    rows = []
    for lost, known in ROMANCE_PAIRS:
        rows.append(
            baseline_row(pair_key(lost, known), corpus_of(preset("paper-romance").replace(lost=lost, known=known)))
        )
    return [*rows, average_row(rows)]
