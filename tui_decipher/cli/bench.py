"""`decipher bench`: runs the bench package (imported here only, when the command runs) with progress.

The command's function is long only because Typer declares each option in its signature."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperCommand, TyperOption

from ..engine.run.events import (
    steps_before_round,
)
from ..session.results import data_dir
from ..session.run_views import percent
from .app import DATA_DIR_HELP, EXIT_CANCELLED, fail, progress_bars

if TYPE_CHECKING:  # the bench is imported by `decipher bench` alone, when it runs
    from ..bench.jobs import JobResult, JobSpec
    from ..bench.report import BenchReport


def _bench_job_line(spec: JobSpec, result: JobResult) -> str:
    """One line per finished bench job: its figures, time and peak memory."""
    if result.status != "ok":
        return f"[yellow]{result.status}[/] {escape(spec.label)}: {escape(result.message)}"
    figures = ", ".join(f"{r.key} {percent(r.accuracy)}" for r in result.rows)
    rss = "" if result.peak_rss_mb is None else f", peak {result.peak_rss_mb:.0f} MB"
    return f"[green]done[/] {escape(spec.label)}: {escape(figures)} ({result.seconds:.0f} s{rss})"


def _bench_tables(report: BenchReport) -> list[Table]:
    """The accuracy table (a section per group) and the cost table, as Rich tables."""
    from ..bench.core import DECIPHER
    from ..bench.report import PHASES, accuracy_cells, cost_cells, summarize

    # Narrower than the Markdown: "setting: row" in one column, the method in one word.
    summary = summarize(report)
    accuracy = Table(title="decipher bench: accuracy (%) beside the paper", title_justify="left")
    cost = Table(title="cost per row (mean over seeds; seconds, peak RSS in MB)", title_justify="left")
    # The user's metric (F1 at the run's own D, D over the gold count) where any row has it.
    scored = any(row.f1.mean is not None for row in summary)
    acc_header = ["setting: row", "method", "paper/ref", "ours", "argmax", *(("F1", "D/gold") if scored else ()),
                  "n", "seeds"]  # fmt: skip
    cost_header = ["setting: row", "method", "wall", *PHASES, "RSS"]
    for table, header in ((accuracy, acc_header), (cost, cost_header)):
        for n, name in enumerate(header):
            table.add_column(name, justify="right" if n >= 2 else "left", overflow="fold")
    group = None
    for row in summary:
        if group is not None and row.group != group:
            accuracy.add_section()
            cost.add_section()
        group = row.group
        name = row.setting if row.key == row.setting else f"{row.setting}: {row.key}"
        method = "decipher" if row.method == DECIPHER else "baseline"
        cells = accuracy_cells(row)  # ..., argmax (5), F1, P / R, D / gold, ECE (6-9), n, seeds
        shown = [*cells[3:6], *((cells[6], cells[8]) if scored else ()), *cells[10:]]
        accuracy.add_row(*(escape(c) for c in [name, method, *shown]))
        cost.add_row(*(escape(c) for c in [name, method, *cost_cells(row)[3:]]))
    return [accuracy, cost]


# Seconds between plain lines of the running jobs when stderr is not a terminal (a bench in the
# background writes to a log, where bars never draw).
BENCH_LOG_EVERY = 60.0


class _BenchProgress:
    """`decipher bench`'s progress on stderr: a bar of the jobs, and one bar per running job with
    its own schedule shape (jobs may run side by side). Its methods are `run_bench`'s callbacks.
    Off a terminal the bars do not draw: each job's start and stages are a line, and every
    BENCH_LOG_EVERY seconds a line per running job says where it is."""

    def __init__(self, console: Console, n_jobs: int) -> None:
        self.progress = progress_bars(console, remaining=False)
        self.jobs_task = self.progress.add_task("jobs", total=n_jobs, info="")
        self.bars: dict[JobSpec, tuple[Any, dict[str, int]]] = {}
        self.log_lines = not console.is_terminal
        self.last_line = time.monotonic()

    def _log(self, text: str) -> None:
        if self.log_lines:
            self.progress.console.print(text, highlight=False)

    def _log_running(self) -> None:
        """A line per running job, at most once per BENCH_LOG_EVERY seconds (off a terminal only)."""
        now = time.monotonic()
        if not self.log_lines or now - self.last_line < BENCH_LOG_EVERY:
            return
        self.last_line = now
        tasks = {t.id: t for t in self.progress.tasks}
        for task_id, _shape in list(self.bars.values()):
            t = tasks.get(task_id)
            if t is not None:
                done = f"{t.completed:.0f}/{t.total:.0f}" if t.total else f"{t.completed:.0f}"
                self._log(f"  {t.description}: {done} {t.fields.get('info', '')}, {t.elapsed or 0:.0f}s")

    def on_job_start(self, spec: JobSpec, n: int, total: int) -> None:
        task = self.progress.add_task(escape(spec.label), total=1, info="starting")
        self.bars[spec] = (task, {"rounds": 1, "epochs": 1, "first": 1})
        self._log(f"started {escape(spec.label)} (job {n} of {total})")

    def on_message(self, spec: JobSpec, msg: dict[str, Any]) -> None:
        progress = self.progress
        job_task, shape = self.bars[spec]
        kind = msg.get("type")
        if kind == "start":
            epochs = max(1, int(msg["epochs"]))
            shape.update(rounds=max(1, int(msg["rounds"])), epochs=epochs, first=int(msg.get("first_epochs", epochs)))
            total = steps_before_round(shape["first"], epochs, shape["rounds"] + 1) * max(1, int(msg["restarts"]))
            progress.update(job_task, total=total, completed=0, info=escape(f"{msg['lost']} -> {msg['known']}"))
        elif kind == "epoch":
            per_restart = steps_before_round(shape["first"], shape["epochs"], shape["rounds"] + 1)
            before = steps_before_round(shape["first"], shape["epochs"], msg["round"])
            done = msg["restart"] * per_restart + before + msg["epoch"]
            progress.update(job_task, completed=done, info=f"round {msg['round']}/{shape['rounds']}")
        elif kind == "round":
            progress.update(job_task, info=f"round {msg['round']}/{msg['rounds']} acc {percent(msg['accuracy'])}")
        elif kind == "channel":  # a channel's steps: the bar, and the log's periodic line, not a line each
            progress.update(
                job_task, total=max(1, int(msg["steps"])), completed=int(msg["step"]),
                info=escape(f"channel step {msg['step']}/{msg['steps']}, {msg['objective']} loss {msg['loss']:.3f}"),
            )  # fmt: skip
        elif kind == "stage":
            progress.update(job_task, info=escape(str(msg["text"])))
            self._log(f"  {escape(spec.label)}: {escape(str(msg['text']))}")
        self._log_running()

    def on_job_end(self, spec: JobSpec, result: JobResult) -> None:
        self.progress.advance(self.jobs_task)
        self.progress.remove_task(self.bars.pop(spec)[0])
        self.progress.console.print(_bench_job_line(spec, result))

    def on_report_set_aside(self, path: Path, dropped: list[JobResult]) -> None:
        from ..bench.jobs import JobSpec

        if dropped:
            names = ", ".join(JobSpec(j.setting, j.kind, j.seed, j.part).label for j in dropped[:4])
            more = f" and {len(dropped) - 4} more" if len(dropped) > 4 else ""
            why = (f"{len(dropped)} finished job(s) of the report already here will not be kept (engine code, "
                   f"configs, settings or seeds changed, or not resumed): {escape(names)}{more}")  # fmt: skip
        else:
            why = "the folder already held a bench report"
        self.progress.console.print(f"bench: {why}; it is kept as {escape(str(path))}")

    def on_job_reused(self, spec: JobSpec, result: JobResult) -> None:
        self.progress.advance(self.jobs_task)
        self.progress.console.print(
            _bench_job_line(spec, result) + f" [dim](kept from {escape(str(result.reused_from))})[/]"
        )


_ONLY_HELP = "Run only this setting (repeatable)."


class BenchCommand(TyperCommand):
    """`decipher bench`, whose --only help names the settings: read from the bench's catalogue when
    the help is shown, so that no other `decipher` command imports the bench."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from ..bench.settings import default_settings, extra_settings, load_plugins

        load_plugins()
        for param in self.params:
            if param.name == "only" and isinstance(param, TyperOption):
                param.help = (
                    f"{_ONLY_HELP} Default set: {', '.join(default_settings())}. "
                    f"Extra (with --all or --only): {', '.join(extra_settings())}."
                )
        super().format_help(ctx, formatter)


def bench(
    only: Annotated[list[str] | None, typer.Option("--only", help=_ONLY_HELP, show_default=False)] = None,
    all_settings: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Run every setting, the extra (exploratory) ones too: about twice the default set's time.",
        ),
    ] = False,
    seeds: Annotated[
        int | None,
        typer.Option(
            "--seeds",
            help="Seeds per setting; mean and std are over them. Default 3 (1 with --quick).",
            show_default=False,
        ),
    ] = None,
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help="Smoke check in minutes: one seed of a reduced schedule of each setting "
            "(2 rounds x 20 epochs, d = 64); its accuracies mean little.",
        ),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Folder for bench.md and bench.json (default: bench/TIME in the data dir).",
            show_default=False,
        ),
    ] = None,
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads",
            help="torch threads in each job (default: torch's own choice). Use 1 when other work shares "
            "the CPU: oversubscribed threads slow torch down many times.",
            show_default=False,
        ),
    ] = None,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            "-j",
            help="Jobs run at once, each in its own process. With 2 cores, `--jobs 2 --threads 1` runs two "
            "settings, seeds or Romance pairs side by side.",
        ),
    ] = 1,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Continue the bench in --out: keep its finished jobs whose configs are unchanged, run the rest "
            "(a cancelled or failed bench, or more settings and seeds added later). A job runs again when the "
            "engine's code changed since it ran; the report holding its earlier result is then kept as "
            "bench.replaced-TIME.json, as is a report a bench without --resume would replace. A folder with no "
            "bench report yet starts a new bench, so a long bench can be started with --resume from its first run.",
        ),
    ] = False,
    report_copy: Annotated[
        Path | None,
        typer.Option(
            "--report",
            help="When the bench finishes (not when cancelled), also write its bench.md into this file, e.g. "
            "docs/benchmarks.md, atomically: between the file's two `decipher bench report` marker lines, keeping "
            "the text around them. A new file gets the markers and the report; an existing one without the "
            "markers is refused before the bench starts.",
            show_default=False,
        ),
    ] = None,
    data: Annotated[Path | None, typer.Option("--data-dir", help=DATA_DIR_HELP, show_default=False)] = None,
) -> None:
    """Run the paper's experiments here and print them beside its figures, with an edit-distance baseline.

    Each setting runs once per seed, each job in its own process (so its peak memory is its own);
    romance runs one job per language pair.

    Columns: accuracy (mean ± std over seeds), wall seconds, seconds per phase, peak RSS.

    bench.md and bench.json are rewritten after every job; settings whose corpora are missing are skipped.

    The full schedule takes hours on a 2-core CPU: try --quick first.
    """
    from ..bench.jobs import plan_jobs
    from ..bench.report import schedule_text
    from ..bench.runner import default_out_dir

    console = Console(stderr=True, highlight=False)
    report, earlier = _checked_bench(only, all_settings, seeds, quick, threads, jobs, resume, out, report_copy)
    out_dir = out or default_out_dir(data_dir(data), quick)
    n_jobs = len(plan_jobs(report.settings, report.seeds))
    if resume and earlier is None:
        console.print(f"bench: --resume: no bench report in {out_dir} yet, so this bench starts there")
    console.print(
        f"bench: {len(report.settings)} setting(s), {len(report.seeds)} seed(s), {n_jobs} job(s), {jobs} at once; "
        f"{schedule_text(report)}; writing to {out_dir}"
    )
    _run_with_progress(console, report, out_dir, n_jobs, jobs, earlier, report_copy)
    _print_results(report, out_dir, report_copy)


def _checked_bench(
    only: list[str] | None,
    all_settings: bool,
    seeds: int | None,
    quick: bool,
    threads: int | None,
    jobs: int,
    resume: bool,
    out: Path | None,
    report_copy: Path | None,
) -> tuple[BenchReport, tuple[list[JobResult], str] | None]:
    """`decipher bench`'s options checked before anything runs: the new (empty) report, and with
    --resume the jobs of the report already in --out (None when there is none yet). A bad option
    fails in one line."""
    import shlex

    from ..bench.core import BenchError
    from ..bench.jobs import has_bench_report, load_earlier_jobs
    from ..bench.report import check_report_copy
    from ..bench.runner import check_parallel, new_report

    try:
        report = new_report(
            only, seeds, quick, threads, shlex.join(["decipher", *sys.argv[1:]]), include_extra=all_settings
        )
        check_parallel(jobs)
        if resume and out is None:
            raise BenchError("--resume needs --out: the folder of the bench to continue")
        # Nothing to resume yet is a first run, not an error; an unreadable report is refused.
        resuming = resume and out is not None and has_bench_report(out)
        earlier = load_earlier_jobs(out) if resuming and out is not None else None
        if report_copy is not None:
            check_report_copy(report_copy)
    except BenchError as exc:
        raise fail(str(exc)) from None
    return report, earlier


def _run_with_progress(
    console: Console,
    report: BenchReport,
    out_dir: Path,
    n_jobs: int,
    parallel: int,
    earlier: tuple[list[JobResult], str] | None,
    report_copy: Path | None,
) -> None:
    """Run the bench with its progress on stderr (`_BenchProgress`); Ctrl-C exits EXIT_CANCELLED."""
    from ..bench.runner import run_bench

    shown = _BenchProgress(console, n_jobs)
    try:
        with shown.progress:
            run_bench(report, out_dir, on_job_start=shown.on_job_start, on_message=shown.on_message,
                      on_job_end=shown.on_job_end, parallel=parallel, earlier=earlier,
                      on_job_reused=shown.on_job_reused, report_copy=report_copy,
                      on_report_set_aside=shown.on_report_set_aside)  # fmt: skip
    except KeyboardInterrupt:  # run_bench has stopped the job processes it started
        console.print(f"[yellow]cancelled[/]: the finished jobs are in {out_dir / 'bench.md'}")
        raise typer.Exit(EXIT_CANCELLED) from None


def _print_results(report: BenchReport, out_dir: Path, report_copy: Path | None) -> None:
    """The finished bench's tables and files on stdout; exit status 1 when a job failed."""
    stdout = Console(highlight=False)
    for table in _bench_tables(report):
        stdout.print(table)
    stdout.print(f"wrote {out_dir / 'bench.md'} and {out_dir / 'bench.json'} ({report.wall_seconds:.0f} s)")
    if report_copy is not None:
        stdout.print(f"wrote the report into {report_copy}")
    if any(j.status == "failed" for j in report.jobs):
        raise typer.Exit(1)
