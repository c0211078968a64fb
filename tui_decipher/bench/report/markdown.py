"""bench.md: the header (command, machine, schedule, code), an accuracy table per group, the
restarts a seed ensemble would keep, the learning curves, the cost table and the notes."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..core import DECIPHER
from ..jobs import engine_digest
from ..settings import SETTINGS
from .bench_report import BenchReport, schedule_text
from .cells import ACCURACY_HEADER, COST_HEADER, accuracy_cells, cost_cells, num, percent
from .restarts import restart_choices
from .summary import Stat, SummaryRow, summarize

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


RESTART_HEADER = [
    "setting", "evaluated on", "paper / ref.", "mean over seeds", "chosen by objective", "seed chosen",
    "worst / best seed", "objective by seed",
]  # fmt: skip


def boundary_lines(summary: list[SummaryRow]) -> list[str]:
    """The boundary review's table: per auto row, F1 at its own D, after 10 and 20 boundary
    judgments answered from gold (the proposals recut where they settle D), and at the gold count."""
    rows = [r for r in summary if r.boundary and r.status == "ok"]
    if not rows:
        return []

    def cell(row: SummaryRow, key: str, ratio: bool = False) -> str:
        stat = row.boundary.get(key)
        if stat is None or stat.mean is None:
            return "-"
        return f"{stat.mean:.2f}" if ratio else percent(stat)

    header = ["setting", "evaluated on", "F1 at own D", "10 judged", "20 judged", "F1 at the gold count",
              "D / gold", "D / gold, 20 judged"]  # fmt: skip
    figures = ("f1", "f1_judged_10", "f1_judged_20", "f1_at_gold")
    table = [[r.setting, r.label, *(cell(r, k) for k in figures), cell(r, "ratio", True),
              cell(r, "ratio_judged_20", True)] for r in rows]  # fmt: skip
    return [
        "## D the decipherer settles: a boundary review answered from gold, F1 (%)", "",
        "The pairs `decipher review boundary` asks for (drawn across the ranks the evidence allows D to be), "
        "judged from gold, settle D (session/settled_demand.py) and the proposals are recut there, no training. "
        "F1 at the gold count: the first G pairs of the run's ranking (its proposals, then its pairs past D), "
        "where it is that long.", "",
        *_md_table(header, table), "",
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
            c.setting, c.label, num(c.reference), percent(Stat.of(values)), f"{100 * c.chosen:.1f}",
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
    summary = summarize(report)
    lines = _header_lines(report)
    groups = ["main", "ablation", *sorted({r.group for r in summary} - {"main", "ablation"})]
    for group in groups:
        rows = [r for r in summary if r.group == group]
        if not rows:
            continue
        lines += [f"## {GROUP_TITLES.get(group, group)}", ""]
        lines += _md_table(ACCURACY_HEADER, [accuracy_cells(r) for r in rows])
        lines.append("")
    lines += boundary_lines(summary)
    lines += restart_choice_lines(report)
    lines += learning_curve_lines(report)
    lines += ["## Cost per row (mean over seeds)", ""]
    lines += _md_table(COST_HEADER, [cost_cells(r) for r in summary])
    lines += _notes_lines(report, summary)
    return "\n".join(lines) + "\n"


def _header_lines(report: BenchReport) -> list[str]:
    """The report's title, what ran where (command, status, machine, schedule, code), and what its
    figures mean."""
    m = report.machine
    threads = m.get("threads_requested") or f"torch default ({m.get('torch_threads_default')})"
    return [
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


def _notes_lines(report: BenchReport, summary: list[SummaryRow]) -> list[str]:
    """The notes under the tables: what the columns mean, each setting's note, each transfer row's
    evaluation cost."""
    lines = [
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
                f"- {row.setting} / {row.key}: evaluation {num(row.seconds.mean)} s, peak RSS after "
                f"it {row.extra['eval_peak_rss_mb']:.0f} MB"
            )
    return lines
