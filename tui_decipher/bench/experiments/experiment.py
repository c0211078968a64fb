"""What every kind of experiment shares: the `Experiment` itself, the `--quick` schedule, the
config a job trains with, and the rows made of a run, of the edit-distance baseline and of an
average."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core import BaselineFn, CombineFn, ConfigsFn, RowResult, RunFn
from ..engine_api import (
    Corpus,
    DecipherConfig,
    DecipherResult,
    RoundMetrics,
    edit_distance_assignment,
    edit_distance_proposals,
    load_corpus,
    method_for,
    preset,
)
from ..reviewer_simulation import boundary_figures, mean_boundary

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


def preset_config(preset_name: str, seed: int, quick: bool, **changes: Any) -> DecipherConfig:
    """The preset with `seed` and `changes`, on the bench's schedule (`schedule`)."""
    return schedule(preset(preset_name).replace(seed=seed, **changes), quick)


def corpus_of(cfg: DecipherConfig) -> Corpus:
    """The corpus `cfg` names."""
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
            "boundary": boundary_figures(result),  # the same after a boundary review answered from gold
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
    own = edit_distance_proposals(corpus)  # its proposals at its own D, beside a run's
    extra: dict[str, Any] = {"correct": b.correct, "n_known": len(corpus.known_words)}
    if own is not None:
        extra["proposal_scores"] = own.as_dict()
    return RowResult(key, b.accuracy, None, b.n_evaluated, b.seconds, phases, extra)


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
        {"of": [r.key for r in rows],
         **({"boundary": b} if (b := mean_boundary([r.extra.get("boundary") for r in rows])) else {})},
    )  # fmt: skip
