"""What a restart ensemble would keep: per figure run with two or more seeds, the seed with the
lowest training objective (no gold enters the choice), `restart_choices`."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core import DECIPHER, RowResult
from ..jobs import JobResult
from ..settings import SETTINGS
from .bench_report import BenchReport
from .summary import combined_jobs


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
            own = {j.seed: j for j in jobs if j.part == part and j.seed is not None}
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
                # every row here has an accuracy (`rows` holds no other)
                accuracy = {seed: r.accuracy for seed, r in sorted(rows.items()) if r.accuracy is not None}
                out.append(
                    RestartChoice(
                        name, spec.key, spec.label, spec.paper, accuracy,
                        {seed: objective[seed, part] for seed in rows}, best, accuracy[best],
                    )
                )  # fmt: skip
        if setting.parts and setting.combine is not None and len(chosen_rows) == len(setting.parts):
            specs = {spec.key: spec for spec in setting.rows}
            for row in setting.combine(chosen_rows):
                row_spec = specs.get(row.key)
                if row_spec is None or row.accuracy is None:
                    continue
                per_seed = {
                    j.seed: r.accuracy
                    for j in combined_jobs(setting, jobs)
                    for r in j.rows
                    if r.key == row.key and r.accuracy is not None and j.seed is not None
                }
                out.append(
                    RestartChoice(name, row_spec.key, row_spec.label, row_spec.paper, per_seed, {}, None, row.accuracy)
                )
    return out
