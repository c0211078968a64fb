"""A stored run as the front ends list and describe it: the Runs screen's table row and a run's
detail, shared by the TUI's Runs screen and `decipher runs list|show`. Plain text; no UI library."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

from ..store import DECIDED, OPEN, RUNNING, RunRow

# The Runs table's columns: (label, key).
RUN_COLUMNS: tuple[tuple[str, str], ...] = (
    ("#", "id"), ("started", "date"), ("corpus", "corpus"), ("preset", "preset"),
    ("status", "status"), ("F1", "f1"), ("accuracy", "accuracy"), ("time", "seconds"),
)  # fmt: skip


def method_line(config: dict[str, Any], decisions: dict[str, Any] | None) -> str:
    """How a run of `config` deciphered, in one line: what auto decided, or its method's line."""
    from ..engine.methods import describe_run  # the methods import torch: only where shown

    return describe_run(config, decisions)


def refinement_line(decisions: dict[str, Any] | None) -> str | None:
    """What a run's last refinement weighed and why, in one line; None where none made it."""
    from ..engine.methods import describe_refinement

    return describe_refinement(decisions)


def keeps_rounds(run: RunRow) -> bool:
    """Whether the run's method trains in EM rounds (a run stored before `method` existed was neural)."""
    from ..engine.methods import method_for

    return method_for(run.config.get("method", "neural")).keeps_rounds


def checkpoint_dir(run: RunRow) -> str | None:
    """The run's folder where it holds a checkpoint to resume or refine from; None where it does not."""
    from ..engine.run.checkpoint import CHECKPOINT_NAME  # its module imports torch: only where asked

    return run.run_dir if run.run_dir and (Path(run.run_dir) / CHECKPOINT_NAME).exists() else None


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def run_cells(run: RunRow) -> tuple[str, ...]:
    """The run's row of the Runs table, one cell per RUN_COLUMNS entry."""
    seconds = "-" if run.seconds is None else f"{run.seconds:.0f}s"
    accuracy = percent(run.accuracy) if run.has_gold else "no gold"
    scored = run.proposal_scores()
    f1 = "-" if scored is None or scored.f1 is None else f"{100 * scored.f1:.1f}"
    date = time.strftime("%Y-%m-%d %H:%M", time.localtime(run.created_at))
    return (str(run.id), date, run.corpus, run.preset or "-", run.status, f1, accuracy, seconds)


def unproposed_note(counts: dict[str, int], judged: int) -> str:
    """` (+N judged, not proposed now)`: of a run's `judged` decisions, those on pairs it no longer
    proposes (a refinement removed a rejected pair); "" when there are none."""
    hidden = judged - sum(counts.get(status, 0) for status in DECIDED)
    return f" (+{hidden} judged, not proposed now)" if hidden > 0 else ""


def review_summary(counts: dict[str, int], judged: int = 0, beyond: tuple[int, int] = (0, 0)) -> str:
    """A run's review counts (Store.review_counts) as one line: `2 accepted, 1 rejected, 0 unsure, 5 open`,
    then the decisions on pairs no longer proposed, of its `judged` ones (`unproposed_note`), and
    its pairs past D with how many are judged (Store.beyond_counts: `; +168 past D (3 judged)`)."""
    line = ", ".join(f"{counts.get(status, 0)} {status}" for status in (*DECIDED, OPEN))
    past, past_judged = beyond
    line += unproposed_note(counts, judged - past_judged)
    return line + (f"; +{past} past D ({past_judged} judged)" if past else "")


def run_fields(
    run: RunRow, counts: dict[str, int] | None, judged: int = 0, pins: list[tuple[str, str]] | None = None,
    beyond: tuple[int, int] = (0, 0),
) -> list[tuple[str, str]]:  # fmt: skip
    """The run's detail as (field, value) rows: what the Runs screen shows under its table, and more.
    `pins`: the sign values pinned on it (store.pins), listed where there are any; `beyond`: its
    pairs past D and how many are judged (store.beyond_counts)."""
    s, cfg = run.stats, run.config
    languages = []
    for code in (run.lost_code, run.known_code):
        info = run.languages.get(code, {})
        extra = ", ".join(x for x in (info.get("name", ""), info.get("glottocode", "")) if x)
        languages.append(f"{code} ({extra})" if extra else code)
    rows = [
        ("run", f"#{run.id}"),
        ("corpus", f"{run.corpus} ({languages[0]} -> {languages[1]})"),
        ("corpus path", run.corpus_path),
        ("preset", run.preset or "-"),
        ("status", run.status + (f": {run.error}" if run.error else "")),
        ("words", f"{s.get('lost_words', '?')} lost x {s.get('known_words', '?')} known"),
        ("method", method_line(cfg, run.decisions)),
        *((("refinement", line),) if (line := refinement_line(run.decisions)) else ()),
        *((("D judged", settled["line"]),) if (settled := run.decisions.get("settled")) else ()),
        ("seed / device", f"{cfg.get('seed')} / {run.device or '-'}"),
    ]
    scored = run.proposal_scores()
    if scored is not None:
        rows.append(("proposals vs gold", scored.line()))
    if run.has_gold and run.accuracy is not None:
        rows.append(("paper's protocol", f"{percent(run.accuracy)} (flow), {percent(run.accuracy_model)} (model) "
                                         f"on the {run.n_evaluated} words with a gold cognate"))  # fmt: skip
    elif not run.has_gold:
        rows.append(("accuracy", "no gold"))
    if counts is not None and run.status != RUNNING:
        rows.append(("review", review_summary(counts, judged, beyond)))
    if pins:
        rows.append(("pinned signs", ", ".join(f"{symbol}={value}" for symbol, value in pins)))
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(run.created_at))
    rows.append(("started", started + ("" if run.seconds is None else f", ran {run.seconds:.0f}s")))
    rows.append(("run folder", run.run_dir or "-"))
    return rows


def loss_curve(epoch_losses: list[float], channel_losses: list[tuple[str, float]]) -> tuple[str, list[float]]:
    """(its label, the points) of a run's loss plot: the M-step's epochs where the run has any;
    otherwise the channel's steps of the latest objective it trained (auto's syllable search,
    probe, fit and reverse channel are on different scales, so only the current one is drawn;
    each step's label is `ChannelStep.label`). A NaN or infinite loss is no point: it is left out."""
    if epoch_losses or not channel_losses:
        return "loss", [x for x in epoch_losses if math.isfinite(x)]
    objective = channel_losses[-1][0]
    start = len(channel_losses)
    while start > 0 and channel_losses[start - 1][0] == objective:
        start -= 1
    return f"{objective} loss", [loss for _, loss in channel_losses[start:] if math.isfinite(loss)]


# What each timed phase of a run is (engine `Problem.timer` names), for `decipher run --profile`.
PHASES = {
    "syllables": "auto's syllable search (simulated annealing)",
    "train": "training: channel steps, or the neural M-steps",
    "score": "scoring every (lost, known) pair",
    "eed": "expected edit distances (neural EM's samples)",
    "flow": "min-cost flows",
    "capacity": "auto's capacity C from the readings",
    "eval": "the paper's protocol on gold (evaluation only)",
    "align": "each proposal's reading (its best path)",
}


def peak_line(peak_bytes: int, phase: str | None) -> str:
    """The process's peak memory and where it was reached, for `decipher run --profile`."""
    if phase is None:
        where = "before the run's first phase (loading, imports)"
    else:
        where = f"during {phase!r}" + (f" ({PHASES[phase]})" if phase in PHASES else "")
    return f"Peak memory {peak_bytes / 2**30:.2f} GB, reached {where}"


def time_profile(phase_seconds: dict[str, float], seconds: float) -> list[tuple[str, float, float, str]]:
    """Where a run's `seconds` went: (phase, seconds, share of the run, what it is), the longest
    first, then the rest of the run ("other": loading, events, checkpoints, files) where it is any."""
    rows = [(name, t, t / seconds if seconds > 0 else 0.0, PHASES.get(name, "")) for name, t in phase_seconds.items()]
    rows.sort(key=lambda row: -row[1])
    rest = seconds - sum(phase_seconds.values())
    if rest > 0:
        rows.append(("other", rest, rest / seconds, "loading the corpus, events, checkpoints, writing files"))
    return rows
