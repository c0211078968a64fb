"""One summary row as table cells, shared by bench.md and the terminal's tables: the accuracy
table's (with the user's metric) and the cost table's, and their Markdown headers."""

from __future__ import annotations

from ..core import DECIPHER
from .summary import Stat, SummaryRow

BASELINE_METHOD = "baseline: edit distance + Hungarian"
PHASES = ("train", "score", "eed", "flow", "eval")


def percent(stat: Stat, digits: int = 1) -> str:
    """A figure over seeds in percent, "mean ± std" (the mean alone for one seed; "-" for none)."""
    if stat.mean is None:
        return "-"
    text = f"{100 * stat.mean:.{digits}f}"
    return text if stat.std is None else f"{text} ± {100 * stat.std:.{digits}f}"


def num(value: float | None, fmt: str = "{:.1f}") -> str:
    """`value` formatted by `fmt`, or "-" when there is none."""
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
        num(row.reference),
        ours,
        percent(row.accuracy_model) if row.method == DECIPHER else "-",
        *user_metric_cells(row),
        num(row.n_evaluated, "{}"),
        seeds,
    ]


def user_metric_cells(row: SummaryRow) -> list[str]:
    """F1, precision / recall at the run's own D, D / gold, calibration error: "-" where the rows
    carry no proposals judged that way (a baseline, or results from before they were recorded)."""
    if row.f1.mean is None:
        return ["-", "-", "-", "-"]
    ratio = "-" if row.demand_ratio.mean is None else f"{row.demand_ratio.mean:.2f}"
    p, r = row.precision.mean, row.recall.mean
    pr = f"{100 * p:.1f} / {100 * r:.1f}" if p is not None and r is not None else "-"
    return [percent(row.f1), pr, ratio, percent(row.calibration_error)]


def cost_cells(row: SummaryRow) -> list[str]:
    """setting, evaluated on, method, wall s, train/score/eed/flow/eval s, peak RSS MB."""
    method = "decipher" if row.method == DECIPHER else "baseline"
    if row.status != "ok":
        return [row.setting, row.label, method, "-", *["-"] * len(PHASES), "-"]
    phases = [num(row.phase_seconds.get(p)) for p in PHASES]
    return [row.setting, row.label, method, num(row.seconds.mean), *phases, num(row.peak_rss_mb, "{:.0f}")]


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
