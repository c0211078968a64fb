"""The bench's report: its figures summarised over seeds, and the files that show them.

`summarize` gives one `SummaryRow` per figure (mean and sample standard deviation over seeds,
beside the paper's figure and the baseline's), `restart_choices` what a restart ensemble would
keep (the seed with the lowest training objective), and `build_markdown` / `report_dict` the
bench.md and bench.json that `write_report` rewrites after every job. `write_report_copy` also
writes bench.md into a document of its own (`decipher bench --report`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import platform
import statistics
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..app.results import write_atomic
from .core import BASELINE, DECIPHER, BenchError, BenchSetting, RowResult, RowSpec
from .engine_api import select_device
from .experiments import QUICK_CHANGES
from .jobs import JobResult, engine_digest
from .settings import SETTINGS

BASELINE_METHOD = "baseline: edit distance + Hungarian"
PHASES = ("train", "score", "eed", "flow", "eval")


@dataclass
class BenchReport:
    """One bench run: its options, machine, the jobs finished so far (in planned order), status."""

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
    # The user's metric (engine/evaluation.py: ProposalScores), where the rows carry it: the
    # proposals at the run's own D against gold, and D over the lost words with a gold cognate.
    f1: Stat = field(default_factory=lambda: Stat(None, None, 0, []))
    precision: Stat = field(default_factory=lambda: Stat(None, None, 0, []))
    recall: Stat = field(default_factory=lambda: Stat(None, None, 0, []))
    demand_ratio: Stat = field(default_factory=lambda: Stat(None, None, 0, []))
    calibration_error: Stat = field(default_factory=lambda: Stat(None, None, 0, []))


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
    )  # fmt: skip


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
        *user_metric_cells(row),
        _num(row.n_evaluated, "{}"),
        seeds,
    ]


def user_metric_cells(row: SummaryRow) -> list[str]:
    """F1, precision / recall at the run's own D, D / gold, calibration error: "-" where the rows
    carry no proposals judged that way (a baseline, or results from before they were recorded)."""
    if row.f1.mean is None:
        return ["-", "-", "-", "-"]
    ratio = "-" if row.demand_ratio.mean is None else f"{row.demand_ratio.mean:.2f}"
    pr = f"{100 * row.precision.mean:.1f} / {100 * row.recall.mean:.1f}" if row.precision.mean is not None else "-"
    return [percent(row.f1), pr, ratio, percent(row.calibration_error)]


def cost_cells(row: SummaryRow) -> list[str]:
    """setting, evaluated on, method, wall s, train/score/eed/flow/eval s, peak RSS MB."""
    method = "decipher" if row.method == DECIPHER else "baseline"
    if row.status != "ok":
        return [row.setting, row.label, method, "-", *["-"] * len(PHASES), "-"]
    phases = [_num(row.phase_seconds.get(p)) for p in PHASES]
    return [row.setting, row.label, method, _num(row.seconds.mean), *phases, _num(row.peak_rss_mb, "{:.0f}")]


ACCURACY_HEADER = [
    "setting",
    "evaluated on",
    "method",
    "paper / ref.",
    "ours (paper's protocol)",
    "model argmax",
    "F1 at own D",
    "P / R",
    "D / gold",
    "calibration error",
    "n",
    "seeds",
]
COST_HEADER = ["setting", "evaluated on", "method", "wall s", *(f"{p} s" for p in PHASES), "peak RSS MB"]
GROUP_TITLES = {
    "main": "Accuracy (%)",
    "ablation": "Ablations: a preset with one part of its setting switched off, accuracy (%)",
    "beyond": "Beyond the paper: a preset with one config change each, accuracy (%)",
    "auto": "auto: one configuration for every dataset, decided from the word lists, accuracy (%)",
    "generated": "auto on generated corpora it was never tuned on, accuracy (%)",
    "small": "auto on small lexica (40-250 lost words, a user's real pair), accuracy (%)",
    "refine": "The expert in the loop (simulated reviewer, known readings), accuracy (%) on words not judged or given",
    "user": "The user's path: `decipher run` as the README shows it (default threads), accuracy (%), F1 at own D",
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
        'Read the seeds as N such restarts: "chosen by objective" is what that ensemble would report, at '
        "N times one seed's cost.",
        "",
        *_md_table(RESTART_HEADER, rows),
        "",
    ]


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
        "- paper's protocol: the evaluation flow over the lost words with a gold cognate only, D = their number",
        "- F1 at own D, P / R: the run's proposals as a user gets them (its own D, every lost word): precision = "
        "correct / proposals, recall = correct / lost words with a gold cognate; D / gold = proposals / those "
        "words; calibration error: how far the share of correct proposals is from their scores, bin by bin",
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


# `decipher bench --report PATH`: bench.md also written into a document, between these markers.
REPORT_BEGIN = "<!-- decipher bench report: begin (rewritten by `decipher bench --report`; edit around it) -->"
REPORT_END = "<!-- decipher bench report: end -->"


def _split_at_markers(text: str) -> tuple[str, str] | None:
    """The text before the begin marker (included) and from the end marker on; None without both."""
    begin, end = text.find(REPORT_BEGIN), text.find(REPORT_END)
    if begin < 0 or end < begin:
        return None
    return text[: begin + len(REPORT_BEGIN)], text[end:]


def check_report_copy(path: Path) -> None:
    """BenchError (one line) unless `write_report_copy` may write `path`: it does not exist yet, or
    it holds the report markers (begin, then end), so the text around them can be kept."""
    if not path.exists():
        return
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchError(f"--report {path}: cannot read it ({type(exc).__name__}: {exc})") from None
    if _split_at_markers(text) is None:
        raise BenchError(
            f"--report {path}: the file exists without the lines {REPORT_BEGIN!r} and {REPORT_END!r}; "
            "add them where the report goes, or name a new file"
        )


def write_report_copy(report: BenchReport, path: Path) -> None:
    """bench.md written into `path`, atomically: between its report markers, the text around them
    kept; a new file holds the markers and the report alone (see `check_report_copy`)."""
    check_report_copy(path)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    before, after = _split_at_markers(old) or (REPORT_BEGIN, REPORT_END + "\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, f"{before}\n\n{build_markdown(report)}\n{after}")
