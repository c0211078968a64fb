"""The report's figures: per setting and row, a `SummaryRow` summarised over seeds (mean and sample
standard deviation, `Stat`) beside the paper's figure and the baseline's, in the order of the
tables (`summarize`)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core import BASELINE, DECIPHER, BenchSetting, RowSpec
from ..jobs import JobResult
from ..settings import SETTINGS
from .bench_report import BenchReport


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
    # The user's metric (engine/evaluation/metrics.py: ProposalScores), where the rows carry it: the
    # proposals at the run's own D against gold, and D over the lost words with a gold cognate.
    f1: Stat = field(default_factory=lambda: Stat(None, None, 0, []))
    precision: Stat = field(default_factory=lambda: Stat(None, None, 0, []))
    recall: Stat = field(default_factory=lambda: Stat(None, None, 0, []))
    demand_ratio: Stat = field(default_factory=lambda: Stat(None, None, 0, []))
    calibration_error: Stat = field(default_factory=lambda: Stat(None, None, 0, []))
    # The boundary review answered from gold (bench/reviewer_simulation.py's `boundary_figures`), per
    # figure (F1 before, after 10 and 20 judgments, at the gold count; each D): {} where no row has it.
    boundary: dict[str, Stat] = field(default_factory=dict)


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
    """A row's figures from the jobs that hold it; `derived` jobs (from `combined_jobs`) add rows
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
    scored = [r.extra["proposal_scores"] for _, r in rows if r.extra.get("proposal_scores")]
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
        f1=Stat.of(d["f1"] for d in scored), precision=Stat.of(d["precision"] for d in scored),
        recall=Stat.of(d["recall"] for d in scored),
        demand_ratio=Stat.of(d["n_proposals"] / d["n_gold"] for d in scored if d["n_gold"]),
        calibration_error=Stat.of(d["calibration_error"] for d in scored),
        boundary=_boundary_stats([r.extra["boundary"] for _, r in rows if r.extra.get("boundary")]),
    )  # fmt: skip


def _boundary_stats(figures: list[dict[str, Any]]) -> dict[str, Stat]:
    """Each boundary figure over seeds; a figure some seed lacks (F1 at the gold count on a ranking
    shorter than it) over the seeds that have it."""
    keys = dict.fromkeys(k for f in figures for k in f)
    return {k: Stat.of(f[k] for f in figures if f.get(k) is not None) for k in keys}


def combined_jobs(setting: BenchSetting, jobs: list[JobResult]) -> list[JobResult]:
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
        derived = combined_jobs(setting, jobs)
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
