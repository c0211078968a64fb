"""The expert in the loop: the simulated reviewer (`reviewer_refine`), a simulated scholar's known
readings (`known_readings`) and an oracle reviewer's ceiling (`known_pairs_ceiling`). Gold plays
the reviewer and the scholar (bench/reviewer_simulation.py), in this benchmark only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import JobReporter, RowResult
from ..engine_api import Corpus, DecipherConfig
from .experiment import Experiment, corpus_of, preset_config

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
        return [preset_config(preset_name, seed, quick, corpus=corpus, **changes)]

    def run(seed: int, quick: bool, reporter: JobReporter) -> list[RowResult]:
        from ..reviewer_simulation import run_refine_benchmark

        cfg = configs(seed, quick)[0]
        train = corpus_of(cfg)
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
        return [preset_config(preset_name, seed, quick, corpus=corpus, **changes)]

    def run(seed: int, quick: bool, reporter: JobReporter) -> list[RowResult]:
        cfg = configs(seed, quick)[0]
        train = corpus_of(cfg)
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
        from ..reviewer_simulation import run_known_readings_benchmark

        bench = run_known_readings_benchmark(train, cfg, KNOWN_READINGS, seed, reporter, reporter.stage)
        return bench, {"given": bench.given}

    return _without_and_with(corpus, preset_name, changes, f"without, then with {KNOWN_READINGS} known pairs", measure)


CEILING_FOLDS = 2  # half of gold's pairs given, each half in turn


def known_pairs_ceiling(corpus: str, preset_name: str, **changes: Any) -> Experiment:
    """An oracle reviewer's ceiling: `corpus` run given half of gold's pairs from the start, each half
    in turn, scored on the other half against the run without them (`run_ceiling_benchmark`)."""

    def measure(train: Corpus, cfg: DecipherConfig, seed: int, reporter: JobReporter) -> tuple[Any, dict[str, Any]]:
        from ..reviewer_simulation import run_ceiling_benchmark

        bench = run_ceiling_benchmark(train, cfg, CEILING_FOLDS, seed, reporter, reporter.stage)
        return bench, {"folds": bench.folds, "changed": bench.changed}

    stage = f"without, then with half of gold's pairs known, {CEILING_FOLDS} folds"
    return _without_and_with(corpus, preset_name, changes, stage, measure)
