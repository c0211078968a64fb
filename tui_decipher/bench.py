"""`decipher bench`: the paper's experiments, run here and set beside the paper's figures.

A *setting* (e.g. `ugaritic`) names one experiment: a function that trains with a preset and
returns one `RowResult` per figure it produces (`ugaritic` gives two: evaluated on the small
subset it trained on, and on the full list). Settings live in the `SETTINGS` registry; a new one
(say a reviewer simulation) is a `BenchSetting` with its own `run` callable, added with
`register`. A module named in $DECIPHER_BENCH_PLUGINS (comma-separated) is imported first, so it
can register settings that job processes see as well.

Every (setting, seed) is a *job*, run in a fresh Python process (`python -m tui_decipher.bench
job ...`), so its peak resident memory (`ru_maxrss`) is its own. A setting made of independent
*parts* (`romance`: six language pairs) runs one job per (seed, part) instead, and its `combine`
derives the rows that need every part (the Romance average) when the report is summarised. The
edit-distance baseline is a job too, once per setting (it has no seed). Jobs run one at a time, or
`parallel` at once (`decipher bench --jobs N`). Results are aggregated over seeds (mean and sample
standard deviation) into a Markdown table and a JSON file, both rewritten after every job.

This module imports the engine only, never Textual; the engine never imports it.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import functools
import hashlib
import importlib
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .engine.baseline import edit_distance_assignment
from .engine.config import DecipherConfig, preset
from .engine.corpus import Corpus, CorpusError
from .engine.events import ChannelStep, EpochEnd, RoundEnd, RunStarted
from .engine.methods import DecipherResult, RoundMetrics, run_decipherment
from .engine.registry import entry_path, load_corpus, load_registry
from .results import data_dir, write_atomic

BASE_SEED = DecipherConfig().seed  # seed k of a bench is BASE_SEED + k - 1 (seed 1 = `decipher run`)
PLUGINS_ENV = "DECIPHER_BENCH_PLUGINS"
DECIPHER, BASELINE = "decipher", "baseline"
BASELINE_METHOD = "baseline: edit distance + Hungarian"
PHASES = ("train", "score", "eed", "flow", "eval")

# --quick: a smoke check of every setting in minutes on 2 CPU cores, not a measurement of accuracy.
# The model is shrunk (d = 64 instead of 250) as well as the schedule: at d = 250 one M-step epoch
# on the 2182 noiseless Ugaritic words alone takes about 6 s on one core.
QUICK_CHANGES: dict[str, Any] = dict(rounds=2, epochs=20, first_epochs=0, restarts=1, embed_dim=64, hidden_dim=64)
QUICK_CHANNEL_STEPS = 10  # channel steps under --quick (where init_flow or method is "channel")


class BenchError(ValueError):
    """Bad bench options (an unknown setting name, a bad count); the message is one line."""


# --- settings ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RowSpec:
    """One figure a setting reports: its key, what it is evaluated on, and the reference figures
    (percent): the paper's, and the issue's measurement of the edit-distance baseline."""

    key: str
    label: str
    paper: float | None = None
    baseline_reference: float | None = None


@dataclass
class RowResult:
    """One figure of one job. Accuracies are fractions in [0, 1]."""

    key: str
    accuracy: float | None  # flow (the paper's figure); the model argmax when the flow is ablated
    accuracy_model: float | None = None  # model argmax
    n_evaluated: int = 0
    seconds: float = 0.0  # the work of this row alone (its training, or its evaluation)
    phase_seconds: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


class JobReporter:
    """What a setting's `run` gets to report progress: call it with engine events (it is an
    EventCallback) and `stage(text)` to say what it does now. Epoch events are thinned."""

    def __init__(self, emit: Callable[[dict[str, Any]], None] = lambda _msg: None, every: float = 0.25) -> None:
        self.emit, self.every, self._last = emit, every, 0.0

    def __call__(self, event: object) -> None:
        if isinstance(event, RunStarted):
            self.emit(
                {
                    "type": "start",
                    "corpus": event.corpus,
                    "lost": event.lost_code,
                    "known": event.known_code,
                    "rounds": event.rounds,
                    "epochs": event.epochs,
                    "first_epochs": event.epochs_of_round(1),
                    "restarts": event.restarts,
                }
            )
        elif isinstance(event, ChannelStep):
            now = time.monotonic()
            if now - self._last >= self.every or event.step in (1, event.steps):
                self._last = now
                self.stage(f"restart {event.restart + 1}: character channel step {event.step}/{event.steps}")
        elif isinstance(event, EpochEnd):
            now = time.monotonic()
            if now - self._last >= self.every or event.epoch == event.epochs:
                self._last = now
                self.emit(
                    {
                        "type": "epoch",
                        "restart": event.restart,
                        "round": event.round,
                        "epoch": event.epoch,
                        "epochs": event.epochs,
                    }
                )
        elif isinstance(event, RoundEnd):
            self.emit(
                {
                    "type": "round",
                    "restart": event.restart,
                    "round": event.round,
                    "rounds": event.rounds,
                    "accuracy": event.accuracy,
                    "accuracy_model": event.accuracy_model,
                }
            )

    def stage(self, text: str) -> None:
        self.emit({"type": "stage", "text": text})


# run(seed, quick, reporter) -> rows; baseline(reporter) -> rows (no seed: it is deterministic);
# configs(seed, quick) -> the configs a job trains with, in order (for the report and for tests).
# A setting with `parts` is run one part per job: run(seed, quick, reporter, part=name).
RunFn = Callable[..., list[RowResult]]
CombineFn = Callable[[list[RowResult]], list[RowResult]]
BaselineFn = Callable[[JobReporter], list[RowResult]]
ConfigsFn = Callable[[int, bool], list[DecipherConfig]]


@dataclass(frozen=True)
class BenchSetting:
    name: str
    description: str
    rows: tuple[RowSpec, ...]
    run: RunFn
    corpora: tuple[str, ...] = ()  # registry names it needs; a missing one skips the setting
    baseline: BaselineFn | None = None
    baseline_of: str | None = None  # share another setting's baseline job (same corpora)
    group: str = "main"  # "main" | "ablation": one Markdown table per group
    note: str = ""
    configs: ConfigsFn | None = None
    # Independent pieces of one seed's work, each its own job (so they can run side by side and a
    # failed one loses only itself); `combine` gets the ok rows of all of a seed's parts, in part
    # order, and returns the rows derived from them (none unless every part is there).
    parts: tuple[str, ...] = ()
    combine: CombineFn | None = None
    # An exploratory row (a change that did not pay, or a costly variant): run by `--all` or
    # `--only`, left out of the default bench so that its three seeds fit in a working day or two.
    extra: bool = False

    @property
    def baseline_key(self) -> str | None:
        """The name of the baseline job this setting's baseline rows come from."""
        if self.baseline_of:
            return self.baseline_of
        return self.name if self.baseline is not None else None


SETTINGS: dict[str, BenchSetting] = {}


def register(setting: BenchSetting) -> BenchSetting:
    """Add (or replace) a setting in the registry; returns it."""
    SETTINGS[setting.name] = setting
    return setting


def schedule(cfg: DecipherConfig, quick: bool) -> DecipherConfig:
    """The config a bench job trains with: the preset's, or the reduced --quick one."""
    if not quick:
        return cfg
    changes = {**QUICK_CHANGES, "rounds": min(cfg.rounds, QUICK_CHANGES["rounds"])}
    if cfg.init_flow == "channel" or cfg.method == "channel":
        changes["channel_steps"] = min(cfg.channel_steps, QUICK_CHANNEL_STEPS)
    return cfg.replace(**changes)


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
        },
    )


def _round_record(m: RoundMetrics) -> dict[str, Any]:
    keys = ("round", "demand", "cost_kind", "loss", "accuracy", "accuracy_model", "kept_previous")
    return {k: getattr(m, k) for k in keys}


def learning_curve_lines(report: BenchReport) -> list[str]:
    """One Markdown table line per decipher job row that recorded its rounds: how the flow and
    the model's accuracy moved round by round (where a run stalled or peaked early shows here)."""

    def series(rounds: list[dict[str, Any]], key: str) -> str:
        return " > ".join("-" if r.get(key) is None else f"{100 * r[key]:.1f}" for r in rounds)

    rows = []
    for job in report.jobs:
        if job.kind != DECIPHER or job.status != "ok":
            continue
        for row in job.rows:
            rounds = row.extra.get("per_round") or []
            if not rounds:
                continue
            costs = "/".join(dict.fromkeys(r["cost_kind"] for r in rounds))
            kept = ", ".join(str(r["round"]) for r in rounds if r.get("kept_previous")) or "-"
            demands = " > ".join(str(r["demand"]) for r in rounds)
            rows.append([job.setting, str(job.seed), row.key, series(rounds, "accuracy"),
                         series(rounds, "accuracy_model"), demands, costs, kept])  # fmt: skip
    if not rows:
        return []
    header = ["setting", "seed", "row", "flow accuracy by round", "model argmax by round", "D by round",
              "flow cost", "rounds that kept the last model"]  # fmt: skip
    return ["## Learning curves (training corpus, % after each round)", "", *_md_table(header, rows), ""]


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KB


def train_and_transfer(cfg: DecipherConfig, eval_name: str, reporter: JobReporter) -> list[RowResult]:
    """Train on cfg's corpus, evaluate there ("small") and on registry corpus `eval_name` ("full"),
    with the run's model, or its character channel when `method = "channel"`."""
    from .engine.transfer import evaluate_on_corpus

    train = _load(cfg)
    reporter.stage(f"training on {train.name}")
    result = run_decipherment(train, cfg, reporter)
    if result.model is None and result.channel is None:
        raise RuntimeError("the run finished no round")
    rows = [row_from_run("small", result)]
    reporter.stage(f"evaluating on {eval_name}")
    rss_before = _peak_rss_mb()
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
                "peak_rss_mb_after_eval": _peak_rss_mb(),
                "unseen_lost_symbols": ev.unseen_lost_symbols,
                "unseen_known_symbols": ev.unseen_known_symbols,
            },
        )
    )
    return rows


def baseline_row(key: str, corpus: Corpus) -> RowResult:
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


def _single(preset_name: str, **changes: Any) -> tuple[RunFn, BaselineFn, ConfigsFn]:
    """run/baseline/configs of a setting that trains and evaluates on one corpus (its preset's,
    with `changes`)."""

    def configs(seed: int, quick: bool) -> list[DecipherConfig]:
        return [_config(preset_name, seed, quick, **changes)]

    def run(seed: int, quick: bool, reporter: JobReporter) -> list[RowResult]:
        (cfg,) = configs(seed, quick)
        corpus = _load(cfg)
        reporter.stage(f"training on {corpus.name}")
        return [row_from_run(preset_name, run_decipherment(corpus, cfg, reporter))]

    def baseline(reporter: JobReporter) -> list[RowResult]:
        return [baseline_row(preset_name, _load(preset(preset_name)))]

    return run, baseline, configs


# The paper's ablations on Ugaritic (noisy): each switches one part of the method off.
ABLATIONS: dict[str, dict[str, Any]] = {
    "ugaritic-no-monotonic": {"regularizer": "none"},
    "ugaritic-no-residual": {"residual": False},
    "ugaritic-no-flow": {"use_flow": False},
}

# The edit-distance start (beyond the paper) and the schedule it needs: D = N and expected edit
# distance from round 1 (the flow is already mostly right), 3 rounds of 150 steps.
EDIT_INIT: dict[str, Any] = {
    "init_flow": "edit-distance", "demand_step": 0, "warmup_rounds": 0, "rounds": 3, "first_epochs": 150,
}  # fmt: skip

# The channel start (beyond the paper): round 1 trains on the matching of a character channel
# trained on the lexicon objective (engine/channel.py), mostly right when the channel found the
# sign map, so D = N (the preset's fraction) and expected edit distance from round 1, the flow
# kept 3/4 (gamma = 0.25, as ugaritic), 3 rounds of 150 + 100 + 100 steps.
CHANNEL_INIT: dict[str, Any] = {
    "init_flow": "channel", "demand_step": 0, "warmup_rounds": 0, "rounds": 3, "first_epochs": 150,
    "flow_decay": 0.25,
}  # fmt: skip

# Variants measured once and kept measurable, but left out of the default bench (`--all` runs
# them): neural-EM changes that moved Ugaritic by less than a seed's spread or cost several runs,
# the neural EM started from a channel (the channel alone reads better), and the review simulation.
EXTRA_SETTINGS = frozenset({
    "ugaritic-eed-model-weights", "ugaritic-eed-30", "ugaritic-union-top-k", "ugaritic-top-10",
    "ugaritic-shared-symbols", "ugaritic-restarts-3", "ugaritic-lost-batch", "ugaritic-noiseless-edit-init",
    "linear-b-channel", "linear-b-names-channel", "romance-long-m-steps", "romance-own-top-5", "ugaritic-refine",
})  # fmt: skip

# Beyond the paper: each a ugaritic run with one change behind a config field (the paper's
# setting stays the preset), reported as its own row beside the preset's.
BEYOND: dict[str, tuple[dict[str, Any], str]] = {
    "ugaritic-eed-model-weights": (
        {"eed_sample_weights": "model"},
        "expected edit distance with samples weighted by the model, not the sharpened draw",
    ),
    "ugaritic-eed-30": ({"eed_samples": 30}, "expected edit distance from 30 samples instead of 10"),
    "ugaritic-union-top-k": (
        {"sparsify": "union-top-k"},
        "flow graph: every known word in anyone's top 5 (published code), not each word's own top 5",
    ),
    "ugaritic-top-10": ({"top_k": 10}, "flow graph: 10 candidates per lost word instead of 5"),
    "ugaritic-shared-symbols": (
        {"tie_shared_symbols": True},
        "symbols both transliterations share start with one embedding (a copy prior)",
    ),
    "ugaritic-restarts-3": ({"restarts": 3}, "3 random restarts, the best by training objective kept"),
    "ugaritic-lost-batch": (
        {"lost_batch": 184, "epochs": 600},
        "later M-steps on random batches of 184 lost words (a quarter), 600 steps each: the same"
        " compute as the preset's 150 full steps",
    ),
    "ugaritic-edit-init": (
        EDIT_INIT,
        "round 1 trains on the words' own edit-distance matching, not the uniform flow; D = N and"
        " expected edit distance from round 1; 3 rounds x 150 steps",
    ),
    "ugaritic-channel-only": (
        {"method": "channel"},
        "the character channel alone, trained on the small file's lexicon objective and read on both"
        " lists (no neural model, no EM rounds); model argmax = the channel's argmax",
    ),
    "ugaritic-channel-transport": (
        {"method": "channel", "channel_objective": "transport"},
        "the character channel alone, trained on a transport plan with the flow's D and C instead of"
        " the lexicon posterior, read on both lists",
    ),
}

# Beyond the paper on the other shared-alphabet corpora: (preset, its changes, what). The row is
# keyed by the preset, beside the preset's own baseline.
BEYOND_OTHER: dict[str, tuple[str, dict[str, Any], str]] = {
    "ugaritic-noiseless-edit-init": (
        "ugaritic-noiseless",
        EDIT_INIT,
        "ugaritic-noiseless started from the words' own edit-distance matching; D = N and expected"
        " edit distance from round 1; 3 rounds x 150 steps",
    ),
    "linear-b-channel": (
        "linear-b",
        CHANNEL_INIT,
        "linear-b started from a character channel's matching (no shared symbol, no gold); D = N,"
        " expected edit distance from round 1, gamma = 0.25; 3 rounds",
    ),
    "linear-b-names-channel": (
        "linear-b-names",
        CHANNEL_INIT,
        "linear-b-names started from a character channel's matching; D = N / 2 from round 1,"
        " expected edit distance from round 1, gamma = 0.25; 3 rounds",
    ),
    # The character channel alone (method = "channel"): no neural model, no EM rounds; the
    # evaluation flow of its costs, and its argmax as the model accuracy.
    "linear-b-channel-only": (
        "linear-b",
        {"method": "channel"},
        "linear-b deciphered by the character channel alone (no neural model, no EM rounds): the"
        " evaluation flow of its costs; model argmax = the channel's argmax",
    ),
    "linear-b-names-channel-only": (
        "linear-b-names",
        {"method": "channel"},
        "linear-b-names deciphered by the character channel alone; model argmax = the channel's argmax",
    ),
    # The channel trained on transport-plan weights (channel_objective = "transport"): on the
    # names the lexicon objective stalls; the plan's capacity keeps easy names from explaining
    # everything. It learns slower than the lexicon channel on linear-b, so 1500 steps.
    "linear-b-names-channel-transport": (
        "linear-b-names",
        {"method": "channel", "channel_objective": "transport", "channel_steps": 1500},
        "linear-b-names deciphered by the character channel alone, trained on a transport plan with"
        " the flow's D and C instead of the lexicon posterior (1500 steps)",
    ),
    "ugaritic-noiseless-channel-only": (
        "ugaritic-noiseless",
        {"method": "channel"},
        "ugaritic-noiseless deciphered by the character channel alone; model argmax = the channel's argmax",
    ),
    "ugaritic-noiseless-channel-transport": (
        "ugaritic-noiseless",
        {"method": "channel", "channel_objective": "transport"},
        "ugaritic-noiseless deciphered by the character channel alone, trained on a transport plan"
        " with the flow's D and C (no known word explains more than C = 3 lost words)",
    ),
    # Romance's fourth 150-step round gained 0.0 on average (its later M-steps are underfitted):
    # the same budget as 3 rounds of 300 steps after round 1's 250 (850 steps against 700).
    "romance-long-m-steps": (
        "romance",
        {"rounds": 3, "epochs": 300},
        "romance with 3 rounds whose later M-steps train 300 steps, not 4 rounds of 150",
    ),
    # Two Latin alphabets: the edit channel (letter by letter, insertions, a copy prior) on a
    # transport plan (D = N, C = 1), no neural model.
    "romance-edit-channel": (
        "romance",
        {"method": "channel", "channel_kind": "edit", "channel_objective": "transport"},
        "romance deciphered by the edit channel alone (each letter written as one symbol or dropped,"
        " symbols inserted, a copy prior for shared letters), trained on a transport plan; 300 steps",
    ),
}

# The same on other presets, switching a part of their setting back (shown with the ablations).
ABLATIONS_OTHER: dict[str, tuple[str, dict[str, Any], str]] = {
    "romance-own-top-5": (
        "romance",
        {"sparsify": "top-k"},
        "romance with the paper's text's flow graph: each lost word's own top 5, not the published"
        " code's union of everyone's top 5 (the preset)",
    ),
}


def _ugaritic(**changes: Any) -> tuple[RunFn, ConfigsFn]:
    """Train on ugaritic-small with the preset (and `changes`), test there and on the full list."""

    def configs(seed: int, quick: bool) -> list[DecipherConfig]:
        return [_config("ugaritic", seed, quick, **changes)]

    def run(seed: int, quick: bool, reporter: JobReporter) -> list[RowResult]:
        return train_and_transfer(configs(seed, quick)[0], "ugaritic-full", reporter)

    return run, configs


def _ugaritic_baseline(reporter: JobReporter) -> list[RowResult]:
    rows = []
    for key, name in (("small", "ugaritic-small"), ("full", "ugaritic-full")):
        reporter.stage(f"baseline on {name}")
        rows.append(baseline_row(key, _load(preset("ugaritic").replace(corpus=name))))
    return rows


ROMANCE_PAIRS = (("es", "it"), ("it", "es"), ("es", "pt"), ("pt", "es"), ("it", "pt"), ("pt", "it"))
_ROMANCE_PAPER = {"es-it": (92.3, 81.4), "es-pt": (95.0, 86.8), "it-pt": (87.3, 58.5)}


def _pair_key(lost: str, known: str) -> str:
    return f"{lost}-{known}"


def _paper_pair(lost: str, known: str) -> tuple[float, float]:
    return _ROMANCE_PAPER.get(_pair_key(lost, known)) or _ROMANCE_PAPER[_pair_key(known, lost)]


def _average_row(rows: list[RowResult]) -> RowResult:
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


ROMANCE_PARTS = tuple(_pair_key(lost, known) for lost, known in ROMANCE_PAIRS)


def _romance(**changes: Any) -> tuple[RunFn, ConfigsFn]:
    """run/configs of the six Romance pairs, each with the romance preset (and `changes`); a job
    trains one pair (its part, e.g. "es-it")."""

    def configs(seed: int, quick: bool) -> list[DecipherConfig]:
        return [_config("romance", seed, quick, lost=lost, known=known, **changes) for lost, known in ROMANCE_PAIRS]

    def run(seed: int, quick: bool, reporter: JobReporter, part: str) -> list[RowResult]:
        (cfg,) = (c for c in configs(seed, quick) if _pair_key(c.lost, c.known) == part)
        reporter.stage(f"training {cfg.lost} -> {cfg.known}")
        return [row_from_run(part, run_decipherment(_load(cfg), cfg, reporter))]

    return run, configs


def _romance_average(rows: list[RowResult]) -> list[RowResult]:
    """The average row, once all six pairs of a seed are there."""
    return [_average_row(rows)] if [r.key for r in rows] == list(ROMANCE_PARTS) else []


def _romance_baseline(reporter: JobReporter) -> list[RowResult]:
    rows = []
    for lost, known in ROMANCE_PAIRS:
        rows.append(baseline_row(_pair_key(lost, known), _load(preset("romance").replace(lost=lost, known=known))))
    return [*rows, _average_row(rows)]


REFINE_ITERATIONS = 3  # review-then-refine cycles of the simulated reviewer
REFINE_JUDGMENTS = 20  # per cycle: accept this many correct proposals and reject this many wrong ones


def _refine_configs(seed: int, quick: bool) -> list[DecipherConfig]:
    return [_config("ugaritic", seed, quick)]


def _ugaritic_refine(seed: int, quick: bool, reporter: JobReporter) -> list[RowResult]:
    """Train on ugaritic-small, then 3 times: a simulated reviewer judges 20 + 20 proposals and
    the run is refined for one round. Figures are on the words the reviewer never judged."""
    from .reviewer_simulation import run_refine_benchmark

    cfg = _refine_configs(seed, quick)[0]
    corpus = _load(cfg)
    reporter.stage(f"training on {corpus.name}, then {REFINE_ITERATIONS} review + refine cycles")
    bench = run_refine_benchmark(
        corpus, cfg, REFINE_ITERATIONS, 1, REFINE_JUDGMENTS, REFINE_JUDGMENTS, on_event=reporter, log=reporter.stage
    )
    extra = {"accepted": bench.n_accepted, "rejected": bench.n_rejected, "iterations": bench.iterations,
             "accuracy_all_unrefined": bench.accuracy_unrefined_all,
             "accuracy_all_refined": bench.accuracy_refined_all, "config": cfg.to_dict()}  # fmt: skip
    rows = [
        RowResult("unrefined", bench.accuracy_unrefined, None, bench.n_unjudged, extra=extra),
        RowResult("refined", bench.accuracy_refined, None, bench.n_unjudged, bench.seconds, bench.phase_seconds, extra),
    ]
    if bench.accuracy_control is not None:
        rows.append(RowResult("control", bench.accuracy_control, None, bench.n_unjudged, extra=extra))
    return rows


def _builtin_settings() -> list[BenchSetting]:
    uga_rows = (
        RowSpec("small", "ugaritic-small (221 evaluated x 4103)", None, 78.7),
        RowSpec("full", "ugaritic-full (2182 evaluated x 39451)", 65.9, 62.7),
    )
    out = []
    run, base, configs = _single("ugaritic-noiseless")
    out.append(
        BenchSetting(
            "ugaritic-noiseless",
            "Ugaritic/Hebrew, only lines with both words",
            (RowSpec("ugaritic-noiseless", "ugaritic-noiseless (2182 x 2767)", 93.5, 83.7),),
            run,
            ("ugaritic-noiseless",),
            base,
            note="paper: Matcher (Berg-Kirkpatrick & Klein 2011) 90.4",
            configs=configs,
        )
    )
    run, configs = _ugaritic()
    out.append(
        BenchSetting(
            "ugaritic",
            "trained on ugaritic-small (noisy), tested on it and on the full list",
            uga_rows,
            run,
            ("ugaritic-small", "ugaritic-full"),
            _ugaritic_baseline,
            note="paper: Bayesian model (Snyder et al. 2010) 60.4 on the full list",
            configs=configs,
        )
    )
    for name, paper, ref, what in (
        ("linear-b", 84.7, 0.0, "Linear B / Greek"),
        ("linear-b-names", 67.3, 1.3, "Linear B / Greek proper names (about half unpaired)"),
    ):
        run, base, configs = _single(name)
        rows = (RowSpec(name, name, paper, ref),)
        out.append(BenchSetting(name, what, rows, run, (name,), base, configs=configs))
    romance_rows = (
        *(RowSpec(_pair_key(a, b), f"romance {a} -> {b}", *_paper_pair(a, b)) for a, b in ROMANCE_PAIRS),
        RowSpec("average", "romance, average of the 6 pairs", 91.6, 75.6),
    )
    run, configs = _romance()
    out.append(
        BenchSetting(
            "romance",
            "Spanish / Italian / Portuguese IPA, all six ordered pairs",
            romance_rows,
            run,
            ("romance",),
            _romance_baseline,
            note="paper: one figure per language pair (both directions); Matcher 90.1 on average",
            configs=configs,
            parts=ROMANCE_PARTS,
            combine=_romance_average,
        )
    )
    for name, paper, what in (
        ("ugaritic-no-monotonic", 0.0, "ugaritic without the monotonic regularizer"),
        ("ugaritic-no-residual", 0.0, "ugaritic without the residual connection"),
        ("ugaritic-no-flow", 8.6, "ugaritic without the flow (model argmax only)"),
    ):
        changes = ABLATIONS[name]
        rows = (RowSpec("small", uga_rows[0].label), RowSpec("full", uga_rows[1].label, paper))
        run, configs = _ugaritic(**changes)
        out.append(
            BenchSetting(
                name,
                what,
                rows,
                run,
                ("ugaritic-small", "ugaritic-full"),
                baseline_of="ugaritic",
                group="ablation",
                note=f"config changes: {changes}",
                configs=configs,
            )
        )
    for name, (changes, what) in BEYOND.items():
        rows = (RowSpec("small", uga_rows[0].label), RowSpec("full", uga_rows[1].label))
        run, configs = _ugaritic(**changes)
        out.append(
            BenchSetting(
                name, what, rows, run, ("ugaritic-small", "ugaritic-full"), baseline_of="ugaritic",
                group="beyond", note=f"config changes: {changes}", configs=configs,
            )
        )  # fmt: skip
    other = [(name, spec, "beyond") for name, spec in BEYOND_OTHER.items()]
    other += [(name, spec, "ablation") for name, spec in ABLATIONS_OTHER.items()]
    for name, (preset_name, changes, what), group in other:
        (main,) = (r for r in out if r.name == preset_name)
        if preset_name == "romance":
            run, configs = _romance(**changes)
        else:
            run, _, configs = _single(preset_name, **changes)
        out.append(
            BenchSetting(
                name, what, main.rows, run, main.corpora, baseline_of=preset_name, group=group,
                note=f"config changes: {changes}", configs=configs, parts=main.parts, combine=main.combine,
            )
        )  # fmt: skip
    out.append(
        BenchSetting(
            "ugaritic-refine",
            "ugaritic with a simulated reviewer (gold plays the epigrapher, in this benchmark only)",
            (
                RowSpec("unrefined", "ugaritic-small, words never judged: the run before review"),
                RowSpec("refined", f"same words after {REFINE_ITERATIONS} cycles of review + 1-round refine"),
                RowSpec("control", f"same words after {REFINE_ITERATIONS} more rounds without decisions"),
            ),
            _ugaritic_refine,
            ("ugaritic-small",),
            group="refine",
            note=f"each cycle accepts the {REFINE_JUDGMENTS} most confident correct proposals and rejects the "
            f"{REFINE_JUDGMENTS} most confident wrong ones not yet judged; accuracy over evaluated lost words "
            "the reviewer never judged",
            configs=_refine_configs,
        )
    )
    return [dataclasses.replace(s, extra=s.name in EXTRA_SETTINGS) for s in out]


for _setting in _builtin_settings():
    register(_setting)


def load_plugins() -> None:
    """Import the modules named in $DECIPHER_BENCH_PLUGINS (they call `register`)."""
    for name in filter(None, (n.strip() for n in os.environ.get(PLUGINS_ENV, "").split(","))):
        importlib.import_module(name)


def default_settings(include_extra: bool = False) -> list[str]:
    """What `decipher bench` runs without --only: every setting but the extra ones (all with
    `include_extra`), in registry order."""
    return [name for name, setting in SETTINGS.items() if include_extra or not setting.extra]


def validate_names(names: Sequence[str] | None, include_extra: bool = False) -> list[str]:
    """The settings to run, in registry order: `names`, or the default set when there are none
    (see `default_settings`); an unknown name raises BenchError (one line)."""
    if not names:
        return default_settings(include_extra)
    unknown = [n for n in names if n not in SETTINGS]
    if unknown:
        raise BenchError(f"unknown bench setting {unknown[0]!r} (have: {', '.join(SETTINGS)})")
    wanted = set(names)
    return [n for n in SETTINGS if n in wanted]


def seeds_for(n: int) -> list[int]:
    if n < 1:
        raise BenchError(f"--seeds {n}: need at least 1")
    return [BASE_SEED + k for k in range(n)]


def missing_corpora(setting: BenchSetting) -> list[str]:
    """The registry corpora a setting needs that cannot be found here."""
    registry = load_registry()
    return [name for name in setting.corpora if name not in registry or entry_path(registry[name]) is None]


# --- jobs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JobSpec:
    setting: str
    kind: str  # DECIPHER | BASELINE
    seed: int | None = None  # None for baselines
    part: str | None = None  # one of the setting's parts, for a setting that has them

    @property
    def label(self) -> str:
        part = "" if self.part is None else f" {self.part}"
        return f"{self.setting}{part} {self.kind}" + ("" if self.seed is None else f" seed {self.seed}")

    @property
    def slug(self) -> str:
        part = "" if self.part is None else f"-{self.part}"
        return f"{self.setting}{part}-{self.kind}" + ("" if self.seed is None else f"-{self.seed}")


@dataclass
class JobResult:
    setting: str
    kind: str
    seed: int | None
    status: str  # "ok" | "failed" | "skipped" | "cancelled"
    rows: list[RowResult] = field(default_factory=list)
    seconds: float = 0.0  # the job's own work (inside its process)
    process_seconds: float | None = None  # the whole process: interpreter and imports too
    peak_rss_mb: float | None = None  # ru_maxrss of the job's own process; None when not isolated
    threads: int | None = None  # torch intra-op threads the job ran with
    quick: bool = False
    message: str = ""
    part: str | None = None
    # What the job ran (see `job_fingerprint`); a resumed bench reuses an ok job only when it matches.
    fingerprint: str = ""
    reused_from: str | None = None  # started_at of the earlier bench run this result was kept from
    engine: str = ""  # `engine_digest()` of the code the job ran
    commit: str = ""  # `code_commit()` of the bench that ran it ("" outside a git checkout)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JobResult:
        data = dict(data)
        data["rows"] = [RowResult(**r) for r in data.get("rows", [])]
        return cls(**data)


def plan_jobs(names: Sequence[str], seeds: Sequence[int]) -> list[JobSpec]:
    """The baselines first (once per baseline key; seconds each), then seed by seed every setting
    (split into its parts): a bench stopped part-way, or resumed over several days, has a complete
    table of its first seeds rather than every seed of its first settings."""
    jobs: list[JobSpec] = []
    for name in names:
        key = SETTINGS[name].baseline_key
        if key in SETTINGS and SETTINGS[key].baseline is not None and JobSpec(key, BASELINE) not in jobs:
            jobs.append(JobSpec(key, BASELINE))
    for seed in seeds:
        for name in names:
            jobs += [JobSpec(name, DECIPHER, seed, part) for part in SETTINGS[name].parts or (None,)]
    return jobs


@functools.cache
def engine_digest() -> str:
    """A digest of the engine's code (tui_decipher/engine/**/*.py, see `source_digest`), part of
    every job's fingerprint: a resumed bench runs a job again when the engine changed since it
    ran, and keeps it across changes to the front ends, comments and docstrings."""
    engine = Path(__file__).parent / "engine"
    return source_digest(sorted(engine.rglob("*.py")), root=engine)


def source_digest(paths: Iterable[Path], root: Path | None = None) -> str:
    """A digest of Python files as Python parses them: comments, docstrings and layout left out.
    Each file is named by its path under `root` (by its name without one)."""
    digest = hashlib.sha256()
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if (
                isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                node.body = body[1:] or [ast.Pass()]
        name = path.relative_to(root).as_posix() if root is not None else path.name
        digest.update(name.encode() + b"\0" + ast.dump(tree).encode() + b"\0")
    return digest.hexdigest()[:12]


@functools.cache
def code_commit() -> str:
    """The git commit of the checkout the package runs from, "+changes" when its tui_decipher/ has
    uncommitted edits; "" when it is not a git checkout (an installed wheel)."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10
        )
        if head.returncode != 0:
            return ""
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--", "tui_decipher"],
            capture_output=True, text=True, timeout=10,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return ""
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def job_fingerprint(spec: JobSpec, quick: bool) -> str:
    """A digest of what a job runs: its setting, seed, part, schedule, the engine's code
    (`engine_digest`) and, for a training job, the full configs the setting builds for that seed.
    A resumed bench reuses a finished job only when this is unchanged, so a result is never carried
    over to a preset, schedule or engine it did not run."""
    setting = SETTINGS.get(spec.setting)
    configs: Any = None
    if setting is not None and spec.kind == DECIPHER and setting.configs is not None:
        try:
            built = setting.configs(spec.seed if spec.seed is not None else BASE_SEED, quick)
            configs = [c.to_dict() for c in built]
        except Exception as exc:  # a broken plugin: its jobs never match, so they run again
            configs = f"error: {type(exc).__name__}: {exc}"
    what = {
        "setting": spec.setting, "kind": spec.kind, "seed": spec.seed, "part": spec.part, "quick": quick,
        "description": setting.description if setting is not None else None, "configs": configs,
        "engine": engine_digest(),
    }  # fmt: skip
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()[:16]


def load_earlier_jobs(out_dir: Path) -> tuple[list[JobResult], str]:
    """The jobs of the bench report in `out_dir` and when that run started (BenchError, one line,
    when there is none or it cannot be read)."""
    path = out_dir / "bench.json"
    if not path.is_file():
        raise BenchError(f"--resume: {path}: no bench report to resume")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        jobs = [JobResult.from_dict(j) for j in data["jobs"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BenchError(f"--resume: {path}: not a readable bench report ({type(exc).__name__}: {exc})") from None
    return jobs, str(data.get("started_at") or "an earlier run")


def reusable_jobs(
    specs: Sequence[JobSpec], quick: bool, earlier: Sequence[JobResult], started_at: str
) -> dict[int, JobResult]:
    """Planned job number -> an earlier ok result of the same job with an unchanged fingerprint
    (which covers `quick`)."""
    by_key = {(j.setting, j.kind, j.seed, j.part): j for j in earlier if j.status == "ok" and j.fingerprint}
    kept: dict[int, JobResult] = {}
    for n, spec in enumerate(specs, start=1):
        old = by_key.get((spec.setting, spec.kind, spec.seed, spec.part))
        if old is not None and old.fingerprint == job_fingerprint(spec, quick):
            kept[n] = dataclasses.replace(old, reused_from=old.reused_from or started_at)
    return kept


def skipped_job(spec: JobSpec, quick: bool) -> JobResult | None:
    """A 'skipped' result when the setting's corpora are missing here, else None."""
    missing = missing_corpora(SETTINGS[spec.setting])
    if not missing:
        return None
    return JobResult(
        spec.setting, spec.kind, spec.seed, "skipped", quick=quick, message=f"corpus {', '.join(missing)} not found",
        part=spec.part,
    )  # fmt: skip


def run_job(spec: JobSpec, quick: bool, reporter: JobReporter | None = None) -> JobResult:
    """Run one job in this process; failures become a 'failed' result, not an exception."""
    import torch

    reporter = reporter or JobReporter()
    setting = SETTINGS[spec.setting]
    started = time.perf_counter()
    result = JobResult(
        spec.setting, spec.kind, spec.seed, "ok", threads=torch.get_num_threads(), quick=quick, part=spec.part
    )
    try:
        seed = spec.seed if spec.seed is not None else BASE_SEED
        if spec.kind == BASELINE:
            if setting.baseline is None:
                raise ValueError(f"setting {spec.setting!r} has no baseline")
            result.rows = setting.baseline(reporter)
        elif spec.part is not None:
            if spec.part not in setting.parts:
                raise ValueError(f"setting {spec.setting!r} has no part {spec.part!r}")
            result.rows = setting.run(seed, quick, reporter, part=spec.part)
        else:
            result.rows = setting.run(seed, quick, reporter)
    except CorpusError as exc:  # a corpus file missing or unreadable here
        result.status, result.message = "skipped", str(exc)
    except Exception as exc:  # a failed job is reported in the table; the bench goes on
        traceback.print_exc()
        result.status, result.message = "failed", f"{type(exc).__name__}: {exc}"
    result.seconds = time.perf_counter() - started
    return result


def child_main(argv: Sequence[str] | None = None) -> int:
    """Entry point of a job process: run one job, write its JobResult as JSON, print progress
    as JSON lines on stdout. Peak RSS is this process's own."""
    parser = argparse.ArgumentParser(prog="python -m tui_decipher.bench")
    sub = parser.add_subparsers(dest="command", required=True)
    job = sub.add_parser("job", help="run one bench job (used by `decipher bench`)")
    job.add_argument("--setting", required=True)
    job.add_argument("--kind", choices=(DECIPHER, BASELINE), default=DECIPHER)
    job.add_argument("--seed", type=int)
    job.add_argument("--part")
    job.add_argument("--quick", action="store_true")
    job.add_argument("--threads", type=int)
    job.add_argument("--result", required=True, type=Path)
    args = parser.parse_args(argv)
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    load_plugins()
    if args.setting not in SETTINGS:
        print(f"unknown bench setting {args.setting!r}", file=sys.stderr)
        return 2

    def emit(msg: dict[str, Any]) -> None:
        print(json.dumps(msg), flush=True)

    result = run_job(JobSpec(args.setting, args.kind, args.seed, args.part), args.quick, JobReporter(emit))
    result.peak_rss_mb = _peak_rss_mb()
    write_atomic(args.result, json.dumps(result.to_dict(), indent=2) + "\n")
    return 0


def run_job_subprocess(
    spec: JobSpec,
    quick: bool,
    result_path: Path,
    log_path: Path,
    threads: int | None = None,
    on_message: Callable[[dict[str, Any]], None] = lambda _msg: None,
    on_start: Callable[[subprocess.Popen], None] = lambda _proc: None,
) -> JobResult:
    """Run one job in a fresh Python process; its stderr goes to `log_path`."""
    cmd = [
        sys.executable,
        "-m",
        "tui_decipher.bench",
        "job",
        "--setting",
        spec.setting,
        "--kind",
        spec.kind,
        "--result",
        str(result_path),
    ]
    if spec.seed is not None:
        cmd += ["--seed", str(spec.seed)]
    if spec.part is not None:
        cmd += ["--part", spec.part]
    if quick:
        cmd.append("--quick")
    if threads:
        cmd += ["--threads", str(threads)]
    result_path.unlink(missing_ok=True)
    started = time.perf_counter()
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True, bufsize=1)
        on_start(proc)
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(msg, dict):
                on_message(msg)
        rc = proc.wait()
    if rc == 0 and result_path.is_file():
        result = JobResult.from_dict(json.loads(result_path.read_text(encoding="utf-8")))
        result.process_seconds = time.perf_counter() - started
        return result
    tail = [ln for ln in log_path.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
    why = f"killed by signal {-rc}" if rc < 0 else f"exit status {rc}"
    message = f"job process failed ({why})" + (f": {tail[-1]}" if tail else "")
    return JobResult(
        spec.setting,
        spec.kind,
        spec.seed,
        "failed",
        seconds=time.perf_counter() - started,
        quick=quick,
        message=message,
        part=spec.part,
    )


# --- the report ---------------------------------------------------------------------------------


@dataclass
class BenchReport:
    command: str
    settings: list[str]
    seeds: list[int]
    quick: bool
    threads: int | None
    machine: dict[str, Any]
    jobs: list[JobResult] = field(default_factory=list)
    started_at: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    finished_at: str | None = None
    wall_seconds: float = 0.0
    status: str = "running"  # "running" | "finished" | "cancelled"


def machine_info(threads: int | None = None) -> dict[str, Any]:
    import torch

    from .engine.device import select_device

    return {
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "device": str(select_device("auto")),
        "threads_requested": threads,
        "torch_threads_default": torch.get_num_threads(),
    }


@dataclass
class Stat:
    """Mean and sample standard deviation over seeds (std None with a single value)."""

    mean: float | None
    std: float | None
    n: int
    values: list[float]

    @classmethod
    def of(cls, values: Iterable[float | None]) -> Stat:
        vals = [float(v) for v in values if v is not None and not math.isnan(v)]
        if not vals:
            return cls(None, None, 0, [])
        return cls(statistics.fmean(vals), statistics.stdev(vals) if len(vals) > 1 else None, len(vals), vals)


@dataclass
class SummaryRow:
    """One line of the tables: a setting's figure (method decipher) or its baseline."""

    group: str
    setting: str
    key: str
    label: str
    method: str  # DECIPHER | BASELINE
    reference: float | None  # percent: the paper's figure, or the baseline measurement
    status: str  # "ok" | "skipped" | "failed" | "pending" | "cancelled"
    message: str
    accuracy: Stat
    accuracy_model: Stat
    n_evaluated: int | None
    seconds: Stat
    phase_seconds: dict[str, float]  # mean over seeds
    peak_rss_mb: float | None  # max over the jobs' processes
    seeds: list[int]
    extra: dict[str, Any] = field(default_factory=dict)


def _jobs_status(jobs: list[JobResult]) -> tuple[str, str]:
    if not jobs:
        return "pending", ""
    for status in ("failed", "skipped", "cancelled"):
        bad = [j for j in jobs if j.status == status]
        if bad and len(bad) == len(jobs):
            return status, bad[0].message
    failed = [j for j in jobs if j.status != "ok"]
    if failed:
        return "ok", f"{len(failed)} of {len(jobs)} jobs {failed[0].status}: {failed[0].message}"
    return "ok", ""


def _summarize_rows(
    setting: BenchSetting,
    spec: RowSpec,
    method: str,
    jobs: list[JobResult],
    reference: float | None,
    setting_name: str,
    derived: Sequence[JobResult] = (),
) -> SummaryRow:
    """A row's figures from the jobs that hold it; `derived` jobs (from `_combined_jobs`) add rows
    but do not count as jobs run."""
    status, message = _jobs_status(jobs)
    jobs = [*jobs, *derived]
    rows = [(j, r) for j in jobs if j.status == "ok" for r in j.rows if r.key == spec.key]
    phases = sorted({k for _, r in rows for k in r.phase_seconds})
    rss = [j.peak_rss_mb for j, _ in rows if j.peak_rss_mb is not None]
    extra: dict[str, Any] = {}
    if rows and "peak_rss_mb_after_eval" in rows[0][1].extra:
        extra["eval_peak_rss_mb"] = max(r.extra["peak_rss_mb_after_eval"] for _, r in rows)
    if status == "ok" and not rows:
        status, message = "failed", message or f"no row {spec.key!r} in the job results"
    return SummaryRow(
        group=setting.group,
        setting=setting_name,
        key=spec.key,
        label=spec.label,
        method=method,
        reference=reference,
        status=status,
        message=message,
        accuracy=Stat.of(r.accuracy for _, r in rows),
        accuracy_model=Stat.of(r.accuracy_model for _, r in rows),
        n_evaluated=rows[0][1].n_evaluated if rows else None,
        seconds=Stat.of(r.seconds for _, r in rows),
        phase_seconds={k: statistics.fmean(r.phase_seconds.get(k, 0.0) for _, r in rows) for k in phases},
        peak_rss_mb=max(rss) if rss else None,
        seeds=[j.seed for j, _ in rows if j.seed is not None],
        extra=extra,
    )


def _combined_jobs(setting: BenchSetting, jobs: list[JobResult]) -> list[JobResult]:
    """Per seed, a job holding the rows `setting.combine` derives from its parts' rows (e.g. the
    Romance average); its time is the parts' total and its peak memory their largest."""
    if setting.combine is None:
        return []
    out = []
    for seed in dict.fromkeys(j.seed for j in jobs):
        parts = {j.part: j for j in jobs if j.seed == seed and j.status == "ok"}
        done = [parts[p] for p in setting.parts if p in parts]
        rows = setting.combine([r for j in done for r in j.rows])
        if rows:
            rss = [j.peak_rss_mb for j in done if j.peak_rss_mb is not None]
            out.append(
                JobResult(
                    setting.name, DECIPHER, seed, "ok", rows, seconds=sum(j.seconds for j in done),
                    peak_rss_mb=max(rss) if rss else None,
                )
            )  # fmt: skip
    return out


def summarize(report: BenchReport) -> list[SummaryRow]:
    """The table rows: per setting its figures; a baseline's rows follow the last setting of a
    group that uses them (so the ablations share one baseline block)."""
    out: list[SummaryRow] = []
    settings = [SETTINGS[n] for n in report.settings if n in SETTINGS]
    last_user = {(s.group, s.baseline_key): s.name for s in settings}
    for setting in settings:
        name = setting.name
        jobs = [j for j in report.jobs if j.setting == name and j.kind == DECIPHER]
        complete = len(jobs) >= len(report.seeds) * len(setting.parts or (None,))
        derived = _combined_jobs(setting, jobs)
        for spec in setting.rows:
            if spec.key in setting.parts:  # a part's row (keyed by the part): its own jobs say how it went
                own = [j for j in jobs if j.part == spec.key]
                out.append(_summarize_rows(setting, spec, DECIPHER, own, spec.paper, name))
                continue
            row = _summarize_rows(setting, spec, DECIPHER, jobs, spec.paper, name, derived)
            if not complete and row.status == "failed" and not row.seeds:
                row.status, row.message = "pending", ""  # a derived row waiting for parts still to run
            out.append(row)
        key = setting.baseline_key
        if key is None or last_user[(setting.group, key)] != name or key not in SETTINGS:
            continue
        base_jobs = [j for j in report.jobs if j.setting == key and j.kind == BASELINE]
        for spec in SETTINGS[key].rows:
            out.append(_summarize_rows(setting, spec, BASELINE, base_jobs, spec.baseline_reference, key))
    return out


def percent(stat: Stat, digits: int = 1) -> str:
    if stat.mean is None:
        return "-"
    text = f"{100 * stat.mean:.{digits}f}"
    return text if stat.std is None else f"{text} ± {100 * stat.std:.{digits}f}"


def _num(value: float | None, fmt: str = "{:.1f}") -> str:
    return "-" if value is None else fmt.format(value)


def accuracy_cells(row: SummaryRow) -> list[str]:
    """setting, evaluated on, method, reference, ours, model argmax, n, seeds."""
    method = "decipher" if row.method == DECIPHER else BASELINE_METHOD
    ours = percent(row.accuracy) if row.status == "ok" else f"{row.status}: {row.message}".rstrip(": ")
    if row.status == "ok" and row.message:
        ours += f" ({row.message})"
    seeds = str(len(row.seeds)) if row.method == DECIPHER else "-"
    return [
        row.setting,
        row.label,
        method,
        _num(row.reference),
        ours,
        percent(row.accuracy_model) if row.method == DECIPHER else "-",
        _num(row.n_evaluated, "{}"),
        seeds,
    ]


def cost_cells(row: SummaryRow) -> list[str]:
    """setting, evaluated on, method, wall s, train/score/eed/flow/eval s, peak RSS MB."""
    method = "decipher" if row.method == DECIPHER else "baseline"
    if row.status != "ok":
        return [row.setting, row.label, method, "-", *["-"] * len(PHASES), "-"]
    phases = [_num(row.phase_seconds.get(p)) for p in PHASES]
    return [row.setting, row.label, method, _num(row.seconds.mean), *phases, _num(row.peak_rss_mb, "{:.0f}")]


ACCURACY_HEADER = ["setting", "evaluated on", "method", "paper / ref.", "ours (flow)", "model argmax", "n", "seeds"]
COST_HEADER = ["setting", "evaluated on", "method", "wall s", *(f"{p} s" for p in PHASES), "peak RSS MB"]
GROUP_TITLES = {
    "main": "Accuracy (%)",
    "ablation": "Ablations: a preset with one part of its setting switched off, accuracy (%)",
    "beyond": "Beyond the paper: a preset with one config change each, accuracy (%)",
    "refine": "Reviewer-guided refinement on ugaritic (simulated reviewer), accuracy (%) on unjudged words",
}


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    def esc(cell: str) -> str:
        return cell.replace("|", "\\|")

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return lines


def schedule_text(report: BenchReport) -> str:
    if report.quick:
        changes = ", ".join(f"{k}={v}" for k, v in QUICK_CHANGES.items())
        return f"quick: 1 seed, every preset reduced to {changes} (rounds at most 2); a smoke check only"
    return f"full: the presets' schedules, {len(report.seeds)} seed(s) ({', '.join(map(str, report.seeds))})"


def _resumed_lines(report: BenchReport) -> list[str]:
    kept = [j for j in report.jobs if j.reused_from]
    if not kept:
        return []
    runs = ", ".join(sorted({str(j.reused_from) for j in kept}))
    return [
        f"- resumed: {len(kept)} of {len(report.jobs)} jobs kept from the earlier run(s) in this folder "
        f"(started {runs}), unchanged configs and engine; their times and memory are from those runs"
    ]


def _code_line(report: BenchReport) -> str:
    """Which code the jobs ran: the engine digest and the commits, with how many jobs each."""
    ran = [j for j in report.jobs if j.status in ("ok", "failed")]
    commits = Counter(j.commit or "unknown" for j in ran)
    engines = sorted({j.engine for j in ran if j.engine})
    by_commit = ", ".join(f"{c} ({n} jobs)" for c, n in commits.items()) if ran else "no job yet"
    return f"- code: engine {', '.join(engines) or engine_digest()}; commits {by_commit}"


def job_objective(job: JobResult) -> float | None:
    """The training objective a job's run ended with: the kept restart's flow-weighted NLL, or the
    channel's loss (`DecipherResult.objective`); None when no row recorded a finite one."""
    for row in job.rows:
        value = row.extra.get("objective")
        if isinstance(value, (int, float)) and math.isfinite(value):
            return float(value)
    return None


@dataclass
class RestartChoice:
    """One row's figure had its seeds been the restarts of one run: `restarts = N` keeps the
    restart with the lowest training objective, so no gold enters the choice."""

    setting: str
    key: str
    label: str
    reference: float | None
    accuracy: dict[int, float]  # seed -> accuracy (fraction)
    objective: dict[int, float]  # seed -> training objective of the job the row came from
    chosen_seed: int | None  # None for a derived row (the Romance average): each part chose its own
    chosen: float  # accuracy of the choice (fraction)


def restart_choices(report: BenchReport) -> list[RestartChoice]:
    """Per figure of the main and beyond-the-paper settings run with two or more seeds: the seed a
    restart ensemble would keep (lowest training objective), its accuracy, and every seed's. A
    setting with parts (Romance) chooses per part; its derived rows (the average) combine the
    parts' choices. The objective is compared only between seeds of the same figure."""
    out: list[RestartChoice] = []
    for name in report.settings:
        setting = SETTINGS.get(name)
        if setting is None or setting.group not in ("main", "beyond"):
            continue
        # a seed that recorded no objective could not be one of the ensemble's restarts
        objective = {
            (j.seed, j.part): value
            for j in report.jobs
            if j.setting == name and j.kind == DECIPHER and j.status == "ok" and j.seed is not None
            and (value := job_objective(j)) is not None
        }  # fmt: skip
        jobs = [j for j in report.jobs if j.setting == name and (j.seed, j.part) in objective and j.status == "ok"]
        chosen_rows: list[RowResult] = []
        for part in setting.parts or (None,):
            own = {j.seed: j for j in jobs if j.part == part}
            if len(own) < 2:  # one seed is no choice
                continue
            best = min(own, key=lambda seed: (objective[seed, part], seed))
            for spec in setting.rows:
                if part is not None and spec.key != part:
                    continue
                rows = {
                    seed: r for seed, j in own.items() for r in j.rows if r.key == spec.key and r.accuracy is not None
                }
                if best not in rows:
                    continue
                chosen_rows.append(rows[best])
                out.append(
                    RestartChoice(
                        name, spec.key, spec.label, spec.paper,
                        {seed: r.accuracy for seed, r in sorted(rows.items())},  # type: ignore[misc]
                        {seed: objective[seed, part] for seed in rows},
                        best, rows[best].accuracy,  # type: ignore[arg-type]
                    )
                )  # fmt: skip
        if setting.parts and setting.combine is not None and len(chosen_rows) == len(setting.parts):
            specs = {spec.key: spec for spec in setting.rows}
            for row in setting.combine(chosen_rows):
                spec = specs.get(row.key)
                if spec is None or row.accuracy is None:
                    continue
                per_seed = {
                    j.seed: r.accuracy
                    for j in _combined_jobs(setting, jobs)
                    for r in j.rows
                    if r.key == row.key and r.accuracy is not None
                }
                out.append(RestartChoice(name, spec.key, spec.label, spec.paper, per_seed, {}, None, row.accuracy))  # type: ignore[arg-type]
    return out


RESTART_HEADER = [
    "setting", "evaluated on", "paper / ref.", "mean over seeds", "chosen by objective", "seed chosen",
    "worst / best seed", "objective by seed",
]  # fmt: skip


def restart_choice_lines(report: BenchReport) -> list[str]:
    """The Markdown section of `restart_choices` (nothing when no figure has two seeds)."""
    choices = restart_choices(report)
    if not choices:
        return []
    rows = []
    for c in choices:
        values = list(c.accuracy.values())
        objectives = ", ".join(f"{s}: {o:.3f}" for s, o in sorted(c.objective.items())) or "per part"
        rows.append([
            c.setting, c.label, _num(c.reference), percent(Stat.of(values)), f"{100 * c.chosen:.1f}",
            str(c.chosen_seed) if c.chosen_seed is not None else "per part",
            f"{100 * min(values):.1f} / {100 * max(values):.1f}" if values else "-", objectives,
        ])  # fmt: skip
    return [
        "## Restarts chosen by training objective (no gold)",
        "",
        "Each seed is a full run; a run with `restarts = N` (`channel_restarts` for the channel) keeps the "
        "restart whose training objective (the final flow's weighted NLL, or the channel's loss) is lowest. "
        "Read the seeds as N such restarts: \"chosen by objective\" is what that ensemble would report, at "
        "N times one seed's cost.",
        "",
        *_md_table(RESTART_HEADER, rows),
        "",
    ]


def build_markdown(report: BenchReport) -> str:
    """The Markdown report: header (command, machine, schedule), accuracy tables, cost table."""
    m = report.machine
    threads = m.get("threads_requested") or f"torch default ({m.get('torch_threads_default')})"
    lines = [
        "# decipher bench",
        "",
        f"- command: `{report.command}`",
        f"- status: {report.status}; started {report.started_at}"
        + (f", finished {report.finished_at}" if report.finished_at else "")
        + f"; wall {report.wall_seconds:.0f} s",
        f"- machine: {m.get('platform')}, {m.get('cpu_count')} CPUs, Python {m.get('python')}, "
        f"torch {m.get('torch')}, device {m.get('device')}, torch threads {threads}",
        f"- schedule: {schedule_text(report)}",
        _code_line(report),
        *_resumed_lines(report),
        "- accuracy: % of the evaluated lost words (those with a gold cognate) whose predicted known word "
        "is a gold cognate; mean ± sample standard deviation over seeds",
        "",
    ]
    summary = summarize(report)
    groups = ["main", "ablation", *sorted({r.group for r in summary} - {"main", "ablation"})]
    for group in groups:
        rows = [r for r in summary if r.group == group]
        if not rows:
            continue
        lines += [f"## {GROUP_TITLES.get(group, group)}", ""]
        lines += _md_table(ACCURACY_HEADER, [accuracy_cells(r) for r in rows])
        lines.append("")
    lines += restart_choice_lines(report)
    lines += learning_curve_lines(report)
    lines += ["## Cost per row (mean over seeds)", ""]
    lines += _md_table(COST_HEADER, [cost_cells(r) for r in summary])
    lines += [
        "",
        "Notes:",
        "- paper / ref.: for decipher rows the paper's figure (Luo, Cao & Barzilay 2019); for baseline rows "
        "the figure the issue measured with the same protocol.",
        "- baseline: Levenshtein distance / length of the longer word, one-to-one assignment (Hungarian) of "
        "the evaluated lost words to all known words; vocabularies ordered by their words, not file order, "
        "so ties cannot favour gold pairs. Its phases: score = distances, flow = assignment.",
        "- wall s: the row's own work (its training, or its evaluation for a transfer row); peak RSS: the "
        "largest ru_maxrss of the job processes that produced the row (training included).",
        "- eed = expected edit distance; the flow phase includes the evaluation flows.",
    ]
    for name in report.settings:
        setting = SETTINGS.get(name)
        if setting is not None and setting.note:
            lines.append(f"- {name}: {setting.description}; {setting.note}")
    for row in summary:
        if "eval_peak_rss_mb" in row.extra and row.method == DECIPHER:
            lines.append(
                f"- {row.setting} / {row.key}: evaluation {_num(row.seconds.mean)} s, peak RSS after "
                f"it {row.extra['eval_peak_rss_mb']:.0f} MB"
            )
    return "\n".join(lines) + "\n"


def _setting_configs(setting: BenchSetting, report: BenchReport) -> list[dict[str, Any]] | None:
    """The configs of the setting's first seed (the others differ only in `seed`)."""
    if setting.configs is None or not report.seeds:
        return None
    try:
        return [c.to_dict() for c in setting.configs(report.seeds[0], report.quick)]
    except Exception as exc:  # a plugin's configs must not break the report
        return [{"error": f"{type(exc).__name__}: {exc}"}]


def report_dict(report: BenchReport) -> dict[str, Any]:
    """Everything in the report as JSON-ready values."""
    return {
        "version": 1,
        "command": report.command,
        "status": report.status,
        "started_at": report.started_at,
        "finished_at": report.finished_at,
        "wall_seconds": round(report.wall_seconds, 3),
        "machine": report.machine,
        "options": {
            "settings": report.settings,
            "seeds": report.seeds,
            "quick": report.quick,
            "threads": report.threads,
        },
        "schedule": schedule_text(report),
        "quick_changes": QUICK_CHANGES if report.quick else None,
        "settings": {
            name: {
                "description": s.description,
                "group": s.group,
                "note": s.note,
                "rows": [dataclasses.asdict(r) for r in s.rows],
                "configs": _setting_configs(s, report),
            }
            for name in report.settings
            if (s := SETTINGS.get(name)) is not None
        },
        "summary": [dataclasses.asdict(r) for r in summarize(report)],
        "jobs": [j.to_dict() for j in report.jobs],
    }


def write_report(report: BenchReport, out_dir: Path) -> dict[str, Path]:
    """bench.md and bench.json in out_dir, each written atomically."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"markdown": out_dir / "bench.md", "json": out_dir / "bench.json"}
    write_atomic(paths["markdown"], build_markdown(report))
    write_atomic(paths["json"], json.dumps(report_dict(report), indent=2, ensure_ascii=False) + "\n")
    return paths


def default_out_dir(root: Path | None = None, quick: bool = False) -> Path:
    base = (root or data_dir()) / "bench" / (time.strftime("%Y%m%d-%H%M%S") + ("-quick" if quick else ""))
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    return path


def check_parallel(parallel: int) -> None:
    """BenchError (one line) unless at least one job may run at a time."""
    if parallel < 1:
        raise BenchError(f"--jobs {parallel}: need at least 1")


def run_bench(
    report: BenchReport,
    out_dir: Path,
    isolate: bool = True,
    on_job_start: Callable[[JobSpec, int, int], None] = lambda _spec, _i, _n: None,
    on_message: Callable[[JobSpec, dict[str, Any]], None] = lambda _spec, _msg: None,
    on_job_end: Callable[[JobSpec, JobResult], None] = lambda _spec, _res: None,
    parallel: int = 1,
    earlier: tuple[Sequence[JobResult], str] | None = None,
    on_job_reused: Callable[[JobSpec, JobResult], None] = lambda _spec, _res: None,
) -> BenchReport:
    """Run the report's jobs, `parallel` of them at once (1: one after another), rewriting the
    report files after each; `report.jobs` keeps the planned order whatever order they end in.
    `isolate=False` runs jobs in this process (tests; no per-job peak memory). The callbacks may
    come from worker threads when `parallel` > 1. A KeyboardInterrupt stops the running jobs'
    processes, marks the report cancelled and re-raises. `earlier` (jobs and start time of an
    earlier report, `load_earlier_jobs`) resumes it: its ok jobs whose fingerprint is unchanged are
    kept, not run again."""
    check_parallel(parallel)
    started = time.perf_counter()
    jobs_dir = out_dir / "jobs"
    jobs_dir.mkdir(parents=True, exist_ok=True)
    specs = plan_jobs(report.settings, report.seeds)
    finished: dict[int, JobResult] = {}
    processes: list[subprocess.Popen] = []  # every job process started; poll() says which still run
    lock = threading.Lock()

    def execute(n: int, spec: JobSpec) -> JobResult:
        on_job_start(spec, n, len(specs))
        result = skipped_job(spec, report.quick)
        if result is None and isolate:

            def started_process(proc: subprocess.Popen) -> None:
                with lock:
                    processes.append(proc)

            result = run_job_subprocess(
                spec, report.quick, jobs_dir / f"{spec.slug}.json", jobs_dir / f"{spec.slug}.log", report.threads,
                lambda msg: on_message(spec, msg), started_process,
            )  # fmt: skip
        elif result is None:
            result = run_job(spec, report.quick, JobReporter(lambda msg: on_message(spec, msg)))
        return result

    def record(n: int, spec: JobSpec, result: JobResult) -> None:
        result.fingerprint = job_fingerprint(spec, report.quick)
        result.engine, result.commit = engine_digest(), code_commit()
        finished[n] = result
        report.jobs = [finished[k] for k in sorted(finished)]
        report.wall_seconds = time.perf_counter() - started
        write_report(report, out_dir)
        on_job_end(spec, result)

    kept = reusable_jobs(specs, report.quick, *earlier) if earlier is not None else {}
    finished.update(kept)
    report.jobs = [finished[k] for k in sorted(finished)]
    write_report(report, out_dir)
    for n in sorted(kept):
        on_job_reused(specs[n - 1], kept[n])
    to_run = [(n, spec) for n, spec in enumerate(specs, start=1) if n not in kept]
    pool = ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="bench-job") if parallel > 1 else None
    try:
        if pool is None:
            for n, spec in to_run:
                record(n, spec, execute(n, spec))
        else:
            pending: dict[Future, tuple[int, JobSpec]] = {
                pool.submit(execute, n, spec): (n, spec) for n, spec in to_run
            }
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: pending[f][0]):
                    n, spec = pending.pop(future)
                    record(n, spec, future.result())
        report.status = "finished"
    except KeyboardInterrupt:
        report.status = "cancelled"
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        with lock:
            running = [p for p in processes if p.poll() is None]
        for proc in running:  # the job processes this bench started
            proc.terminate()
        for proc in running:
            proc.wait()
        if pool is not None:
            pool.shutdown(wait=True)
        report.finished_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        report.wall_seconds = time.perf_counter() - started
        write_report(report, out_dir)
    return report


def new_report(
    names: Sequence[str] | None, n_seeds: int | None, quick: bool, threads: int | None, command: str,
    include_extra: bool = False,
) -> BenchReport:
    """Validate the options and make an empty report (BenchError on bad ones).
    `n_seeds` None: 3, or 1 with `quick`; no `names`: the default settings (every one with
    `include_extra`)."""
    if threads is not None and threads < 1:
        raise BenchError(f"--threads {threads}: need at least 1")
    if names and include_extra:
        raise BenchError("--all runs every setting: leave out --only, or drop --all")
    settings = validate_names(names, include_extra)
    seeds = seeds_for(n_seeds if n_seeds is not None else (1 if quick else 3))
    return BenchReport(command, settings, seeds, quick, threads, machine_info(threads))


load_plugins()

if __name__ == "__main__":
    # Run through the package module (not this __main__ copy), so the registry is the one plugins fill.
    from tui_decipher.bench import child_main as _child_main

    sys.exit(_child_main())


__all__ = [
    "SETTINGS",
    "BenchError",
    "BenchReport",
    "BenchSetting",
    "JobReporter",
    "JobResult",
    "JobSpec",
    "RowResult",
    "RowSpec",
    "Stat",
    "SummaryRow",
    "build_markdown",
    "new_report",
    "register",
    "report_dict",
    "run_bench",
    "run_job",
    "summarize",
    "validate_names",
    "write_report",
]
