"""The `decipher` command: a Typer app whose subcommands drive the engine headless.

`decipher run` shows Rich progress and writes a run folder; `decipher corpus ...` inspects
corpora; `decipher presets` shows the settings. This module never imports Textual.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from typer.core import TyperCommand

from . import __version__
from .engine.checkpoint import CheckpointError
from .engine.config import PRESETS, ConfigError, DecipherConfig, build_config
from .engine.corpus import CorpusError, read_cog_table, word_text
from .engine.events import (
    KEPT_PREVIOUS_NOTE,
    ChannelStep,
    EpochEnd,
    RestartEnd,
    RoundEnd,
    RunStarted,
    steps_before_round,
)
from .engine.methods import DecipherResult, describe_run
from .engine.registry import entry_path, load_corpus, load_registry
from .engine.review import REFINE_ROUNDS
from .results import data_dir
from .session import RunSession
from .store import StoreError, default_path

if TYPE_CHECKING:  # the bench is imported by `decipher bench` alone, when it runs
    from .bench.jobs import JobResult, JobSpec
    from .bench.report import BenchReport

app = typer.Typer(
    help="Decipher a lost language by finding its cognates in a known related language "
    "(neural decipherment via minimum-cost flow, Luo, Cao & Barzilay 2019).",
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode="rich",
)
corpus_app = typer.Typer(help="List, inspect and generate corpora.", no_args_is_help=True)
app.add_typer(corpus_app, name="corpus")

EXIT_BAD_INPUT = 2
EXIT_CANCELLED = 130
_DATA_DIR_HELP = "Data folder holding the run database (default: $DECIPHER_DATA_DIR or the user data dir)."


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tui-decipher {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Neural decipherment of lost languages, headless. `decipher run` with no options runs the demo."""


def _fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print a one-line error to stderr and return the Exit to raise."""
    # Escaped: a path or a word like "a[/b]" in the message is text, not Rich markup.
    Console(stderr=True, highlight=False, soft_wrap=True).print(f"[bold red]error:[/] {escape(message)}", markup=True)
    return typer.Exit(code)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _parse_sets(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise ConfigError(f"--set {item!r}: expected FIELD=VALUE")
        key, value = item.split("=", 1)
        out[key.strip().replace("-", "_")] = value
    return out


class _RichReporter:
    """Renders engine events as two progress bars and a line per EM round."""

    def __init__(self, console: Console, quiet: bool) -> None:
        self.console = console
        self.quiet = quiet
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[info]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=False,
            disable=quiet,
        )
        self.rounds_task: Any = None
        self.epochs_task: Any = None

    def __call__(self, event: object) -> None:
        if isinstance(event, RunStarted):
            s = event.stats
            self.console.print(
                f"[bold]{event.corpus}[/]: {s['lost_words']} lost ({event.lost_code}) x "
                f"{s['known_words']} known ({event.known_code}) words, {s['lost_symbols']}/"
                f"{s['known_symbols']} symbols; N = {event.n_cognates} cognates sought; device {event.device}"
            )
            if event.rounds == 0:  # no EM rounds: the channel's steps are the whole run
                self.epochs_task = self.progress.add_task("channel", total=None, info="")
                return
            total = event.rounds * event.restarts
            self.rounds_task = self.progress.add_task("EM rounds", total=total, info="")
            self.epochs_task = self.progress.add_task("M-step", total=event.epochs_of_round(1), info="")
        elif isinstance(event, ChannelStep):
            self.progress.update(
                self.epochs_task, description="channel", total=event.steps, completed=event.step,
                info=f"{event.objective} loss {event.loss:.3f}",
            )
            if event.step == event.steps:
                use = "the decipherment" if self.rounds_task is None else "round 1's flow"
                if self.rounds_task is not None:
                    self.progress.reset(self.epochs_task, description="M-step", info="")
                self.progress.console.print(
                    f"restart {event.restart + 1} channel: {event.steps} steps, "
                    f"{event.objective} loss {event.loss:.3f}, {event.seconds:.1f}s ({use})",
                    highlight=False,
                )
        elif isinstance(event, EpochEnd):
            self.progress.update(
                self.epochs_task,
                total=event.epochs,
                completed=event.epoch,
                info=f"loss {event.loss:.3f} (nll {event.nll:.3f}, reg {event.reg:.3f})",
            )
        elif isinstance(event, RoundEnd):
            self.progress.advance(self.rounds_task)
            self.progress.update(self.rounds_task, info=f"acc {_percent(event.accuracy)}")
            self.progress.reset(self.epochs_task, info="")
            self.progress.console.print(
                f"restart {event.restart + 1} round {event.round}/{event.rounds}  D={event.demand}  "
                f"cost={event.cost_kind}  loss {event.loss:.3f}  flow {event.flow} (cost {event.flow_cost:.1f})  "
                f"accuracy {_percent(event.accuracy)}  model {_percent(event.accuracy_model)}  "
                f"{event.seconds:.1f}s" + (f"  ({KEPT_PREVIOUS_NOTE})" if event.kept_previous else ""),
                highlight=False,
            )
        elif isinstance(event, RestartEnd):
            self.progress.console.print(
                f"restart {event.restart + 1} done: objective {event.objective:.4f}, "
                f"accuracy {_percent(event.accuracy)}",
                highlight=False,
            )


def _summary_table(result: DecipherResult, corpus_name: str, preset: str | None, out: Path, run_id: int) -> Table:
    table = Table(title="Decipherment run", show_header=False, title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value")
    table.add_row("corpus", f"{corpus_name} ({result.lost_code} -> {result.known_code})")
    table.add_row("preset", preset or "(none)")
    table.add_row("status", result.status)
    table.add_row("seed / device", f"{result.config.seed} / {result.device}")
    table.add_row("method", describe_run(result.config.to_dict()))
    if result.rounds:
        table.add_row("rounds completed", str(len(result.rounds)))
    if result.accuracy is not None:
        table.add_row("accuracy (flow)", f"{_percent(result.accuracy)} of {result.n_evaluated} lost words")
        table.add_row("accuracy (model argmax)", _percent(result.accuracy_model))
    table.add_row("proposals", str(len(result.proposals)))
    table.add_row("seconds", f"{result.seconds:.1f}")
    table.add_row("run id", f"{run_id} (review it in `decipher-tui`)")
    table.add_row("output", str(out))
    return table


@app.command()
def run(
    corpus: Annotated[
        str | None,
        typer.Option("--corpus", "-c", help="Registry name (see `decipher corpus list`) or path to a .cog file."),
    ] = None,
    preset: Annotated[
        str | None, typer.Option("--preset", "-p", help=f"Settings preset: {', '.join(PRESETS)}.")
    ] = None,
    lost: Annotated[str | None, typer.Option(help="Lost language: column code or 0-based index.")] = None,
    known: Annotated[str | None, typer.Option(help="Known language: column code or 0-based index.")] = None,
    lost_words: Annotated[
        Path | None, typer.Option(help="Plain word list (one per line) of the lost language; no gold.")
    ] = None,
    known_words: Annotated[Path | None, typer.Option(help="Plain word list of the known language.")] = None,
    seed: Annotated[int | None, typer.Option(help="Random seed (runs are reproducible on CPU).")] = None,
    method: Annotated[
        str | None,
        typer.Option(
            help="neural (the paper's EM) or channel (the character channel alone: no neural model, "
            "minutes; best on Linear B, Ugaritic and, with --set channel_kind=edit, Romance).",
        ),
    ] = None,
    rounds: Annotated[int | None, typer.Option(help="EM rounds T.")] = None,
    epochs: Annotated[int | None, typer.Option(help="Optimiser steps per M-step.")] = None,
    restarts: Annotated[int | None, typer.Option(help="Random restarts, best kept by objective.")] = None,
    device: Annotated[str | None, typer.Option(help="auto, cpu or cuda.")] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="TOML file of config fields (may name a `preset`).")
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="Any config field, as FIELD=VALUE (repeatable); see `decipher presets`."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Output folder (default: a new run folder in the data dir).")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume",
            help="Continue a stopped run (its id in the store, or its run folder) from its last complete "
            "round; settings come from its checkpoint.",
        ),
    ] = None,
    refine: Annotated[
        str | None,
        typer.Option(
            "--refine",
            help="Continue a stored run (its id) under its review decisions: accepted pairs are fixed in "
            "every flow, rejected ones removed; the new proposals replace the run's, decisions are kept.",
        ),
    ] = None,
    refine_rounds: Annotated[
        int, typer.Option("--refine-rounds", min=1, max=1000, help="EM rounds a --refine adds.")
    ] = REFINE_ROUNDS,
    data: Annotated[
        Path | None,
        typer.Option("--data-dir", help=_DATA_DIR_HELP, show_default=False),
    ] = None,
) -> None:
    """Run decipherment headless, with progress, and write summary.json, proposals.tsv, char_map.tsv.

    With no options it runs the built-in demo corpus.
    """
    console = Console(stderr=True, highlight=False)
    root = data_dir(data)
    db_path = default_path(root)
    try:
        if resume is not None and refine is not None:
            raise ConfigError("--resume and --refine cannot be combined: resume a stopped run first")
        continued = resume if resume is not None else refine
        if continued is not None:
            flag = "--resume" if resume is not None else "--refine"
            given = [name for name, v in (("--corpus", corpus), ("--preset", preset), ("--config", config),
                     ("--set", set_), ("--seed", seed), ("--method", method), ("--rounds", rounds),
                     ("--epochs", epochs)) if v]  # fmt: skip
            if given:
                raise ConfigError(f"{flag} takes its settings from the checkpoint; drop {', '.join(given)}")
            if resume is not None:
                session = RunSession.resume(db_path, resume)
            else:
                session = RunSession.refine(db_path, refine, refine_rounds)
        else:
            overrides: dict[str, Any] = _parse_sets(set_ or [])
            flags = {
                "corpus": corpus, "lost": lost, "known": known, "seed": seed, "method": method, "rounds": rounds,
                "epochs": epochs, "restarts": restarts, "device": device,
                "lost_words": str(lost_words) if lost_words else None,
                "known_words": str(known_words) if known_words else None,
            }  # fmt: skip
            overrides.update({k: v for k, v in flags.items() if v is not None})
            if preset is None and config is None:
                registry = load_registry()
                name = corpus or "demo"
                preset = registry[name].preset if name in registry else None
                if preset is None and not (lost_words or known_words) and corpus is None:
                    preset = "demo"
            cfg, sources = build_config(preset, config, overrides)
            session = RunSession.new(db_path, root, cfg, sources, out)
    except (ValueError, CheckpointError, StoreError) as exc:  # ConfigError, CorpusError: ValueErrors
        raise _fail(str(exc)) from None
    for warning in session.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}")
    try:
        run_id = session.open()
    except StoreError as exc:
        raise _fail(str(exc)) from None
    if session.start_line():
        console.print(session.start_line())
    reporter = _RichReporter(console, quiet)
    cancel = threading.Event()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["result"] = session.execute(reporter, cancel)
        except BaseException as exc:  # reported on the main thread; the session marked the run failed
            box["error"] = exc
        finally:
            done.set()

    # Wait on an Event, not Thread.join: a KeyboardInterrupt inside join() can leave the thread
    # looking finished while it still runs (CPython 3.11), and the run's result would be lost.
    done = threading.Event()
    worker = threading.Thread(target=work, name="decipher-engine", daemon=True)
    with reporter.progress:
        worker.start()
        while not done.is_set():
            try:
                done.wait(0.2)
            except KeyboardInterrupt:
                if not cancel.is_set():
                    cancel.set()  # the engine stops within one epoch and keeps completed rounds
                    console.print("[yellow]cancelling: finishing the current epoch...[/]")
    if "error" in box:
        exc = box["error"]
        if isinstance(exc, FloatingPointError):
            raise _fail(f"training diverged: {exc}", 1)
        raise exc
    result: DecipherResult = box["result"]
    loaded = session.loaded
    stdout = Console(highlight=False)
    stdout.print(_summary_table(result, loaded.corpus.name, session.sources.preset, session.out_dir, run_id))
    if result.proposals:
        top = Table(title="Top proposals", title_justify="left")
        for col in ("lost", "known", "score") + (("gold",) if loaded.corpus.has_gold else ()):
            top.add_column(col)
        for p in result.proposals[:10]:
            row = [word_text(loaded.corpus.lost_words[p.lost]), word_text(loaded.corpus.known_words[p.known])]
            row.append(f"{p.score:.3f}")
            if loaded.corpus.has_gold:
                row.append("yes" if p.gold else "no")
            top.add_row(*row)
        stdout.print(top)
    if result.status == "cancelled":
        raise typer.Exit(EXIT_CANCELLED)


def _bench_job_line(spec: JobSpec, result: JobResult) -> str:
    """One line per finished bench job: its figures, time and peak memory."""
    if result.status != "ok":
        return f"[yellow]{result.status}[/] {escape(spec.label)}: {escape(result.message)}"
    figures = ", ".join(f"{r.key} {_percent(r.accuracy)}" for r in result.rows)
    rss = "" if result.peak_rss_mb is None else f", peak {result.peak_rss_mb:.0f} MB"
    return f"[green]done[/] {escape(spec.label)}: {escape(figures)} ({result.seconds:.0f} s{rss})"


def _bench_tables(report: BenchReport) -> list[Table]:
    """The accuracy table (a section per group) and the cost table, as Rich tables."""
    from .bench.core import DECIPHER
    from .bench.report import PHASES, accuracy_cells, cost_cells, summarize

    # Narrower than the Markdown: "setting: row" in one column, the method in one word.
    summary = summarize(report)
    accuracy = Table(title="decipher bench: accuracy (%) beside the paper", title_justify="left")
    cost = Table(title="cost per row (mean over seeds; seconds, peak RSS in MB)", title_justify="left")
    acc_header = ["setting: row", "method", "paper/ref", "ours", "argmax", "n", "seeds"]
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
        accuracy.add_row(*(escape(c) for c in [name, method, *accuracy_cells(row)[3:]]))
        cost.add_row(*(escape(c) for c in [name, method, *cost_cells(row)[3:]]))
    return [accuracy, cost]


class _BenchProgress:
    """`decipher bench`'s progress on stderr: a bar of the jobs, and one bar per running job with
    its own schedule shape (jobs may run side by side). Its methods are `run_bench`'s callbacks."""

    def __init__(self, console: Console, n_jobs: int) -> None:
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[info]}"),
            TimeElapsedColumn(),
            console=console,
        )
        self.jobs_task = self.progress.add_task("jobs", total=n_jobs, info="")
        self.bars: dict[JobSpec, tuple[Any, dict[str, int]]] = {}

    def on_job_start(self, spec: JobSpec, n: int, total: int) -> None:
        task = self.progress.add_task(escape(spec.label), total=1, info="starting")
        self.bars[spec] = (task, {"rounds": 1, "epochs": 1, "first": 1})

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
            progress.update(job_task, info=f"round {msg['round']}/{msg['rounds']} acc {_percent(msg['accuracy'])}")
        elif kind == "stage":
            progress.update(job_task, info=escape(str(msg["text"])))

    def on_job_end(self, spec: JobSpec, result: JobResult) -> None:
        self.progress.advance(self.jobs_task)
        self.progress.remove_task(self.bars.pop(spec)[0])
        self.progress.console.print(_bench_job_line(spec, result))

    def on_job_reused(self, spec: JobSpec, result: JobResult) -> None:
        self.progress.advance(self.jobs_task)
        self.progress.console.print(
            _bench_job_line(spec, result) + f" [dim](kept from {escape(str(result.reused_from))})[/]"
        )


_ONLY_HELP = "Run only this setting (repeatable)."


class _BenchCommand(TyperCommand):
    """`decipher bench`, whose --only help names the settings: read from the bench's catalogue when
    the help is shown, so that no other `decipher` command imports the bench."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from .bench.settings import default_settings, extra_settings, load_plugins

        load_plugins()
        for param in self.params:
            if param.name == "only":
                param.help = (
                    f"{_ONLY_HELP} Default set: {', '.join(default_settings())}. "
                    f"Extra (with --all or --only): {', '.join(extra_settings())}."
                )
        super().format_help(ctx, formatter)


@app.command(cls=_BenchCommand)
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
            "engine's code changed since it ran.",
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
    data: Annotated[Path | None, typer.Option("--data-dir", help=_DATA_DIR_HELP, show_default=False)] = None,
) -> None:
    """Run the paper's experiments here and print them beside its figures, with an edit-distance baseline.

    Each setting runs once per seed, each job in its own process (so its peak memory is its own);
    romance runs one job per language pair.

    Columns: accuracy (mean ± std over seeds), wall seconds, seconds per phase, peak RSS.

    bench.md and bench.json are rewritten after every job; settings whose corpora are missing are skipped.

    The full schedule takes hours on a 2-core CPU: try --quick first.
    """
    import shlex

    from .bench.core import BenchError
    from .bench.jobs import load_earlier_jobs, plan_jobs
    from .bench.report import check_report_copy, schedule_text
    from .bench.runner import check_parallel, default_out_dir, new_report, run_bench

    console = Console(stderr=True, highlight=False)
    try:
        report = new_report(
            only, seeds, quick, threads, shlex.join(["decipher", *sys.argv[1:]]), include_extra=all_settings
        )
        check_parallel(jobs)
        if resume and out is None:
            raise BenchError("--resume needs --out: the folder of the bench to continue")
        earlier = load_earlier_jobs(out) if resume and out is not None else None
        if report_copy is not None:
            check_report_copy(report_copy)
    except BenchError as exc:
        raise _fail(str(exc)) from None
    out_dir = out or default_out_dir(data_dir(data), quick)
    n_jobs = len(plan_jobs(report.settings, report.seeds))
    console.print(
        f"bench: {len(report.settings)} setting(s), {len(report.seeds)} seed(s), {n_jobs} job(s), {jobs} at once; "
        f"{schedule_text(report)}; writing to {out_dir}"
    )
    shown = _BenchProgress(console, n_jobs)
    try:
        with shown.progress:
            run_bench(report, out_dir, on_job_start=shown.on_job_start, on_message=shown.on_message,
                      on_job_end=shown.on_job_end, parallel=jobs, earlier=earlier,
                      on_job_reused=shown.on_job_reused, report_copy=report_copy)  # fmt: skip
    except KeyboardInterrupt:  # run_bench has stopped the job processes it started
        console.print(f"[yellow]cancelled[/]: the finished jobs are in {out_dir / 'bench.md'}")
        raise typer.Exit(EXIT_CANCELLED) from None
    stdout = Console(highlight=False)
    for table in _bench_tables(report):
        stdout.print(table)
    stdout.print(f"wrote {out_dir / 'bench.md'} and {out_dir / 'bench.json'} ({report.wall_seconds:.0f} s)")
    if report_copy is not None:
        stdout.print(f"wrote the report into {report_copy}")
    if any(j.status == "failed" for j in report.jobs):
        raise typer.Exit(1)


@app.command()
def presets(
    name: Annotated[str | None, typer.Argument(help="Show one preset in full.")] = None,
) -> None:
    """List the presets, or show every config field of one (as TOML you can edit and pass to --config)."""
    console = Console(highlight=False)
    if name is None:
        table = Table(title="Presets (fields that differ from the defaults)", title_justify="left")
        table.add_column("preset", style="bold")
        table.add_column("settings")
        for key, values in PRESETS.items():
            table.add_row(key, ", ".join(f"{k}={v}" for k, v in values.items()))
        console.print(table)
        return
    if name not in PRESETS:
        raise _fail(f"unknown preset {name!r} (have: {', '.join(PRESETS)})")
    cfg = DecipherConfig(**PRESETS[name])
    console.print(f'preset = "{name}"', markup=False)
    for key, value in cfg.to_dict().items():
        text = f'"{value}"' if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else value
        console.print(f"{key} = {text}", markup=False)


@corpus_app.command("list")
def corpus_list() -> None:
    """The registry of known corpora and whether each is available here."""
    table = Table(title="Corpora (use the name with --corpus)", title_justify="left")
    for col in ("name", "languages", "preset", "here"):
        table.add_column(col, no_wrap=col != "languages")
    for entry in load_registry().values():
        path = entry_path(entry)
        table.add_row(entry.name, entry.languages, entry.preset, "[green]yes[/]" if path else "[red]missing[/]")
    Console().print(table)


@corpus_app.command("show")
def corpus_show(
    corpus: Annotated[str, typer.Argument(help="Registry name or path to a .cog file.")],
    lost: Annotated[str | None, typer.Option(help="Lost language code or index.")] = None,
    known: Annotated[str | None, typer.Option(help="Known language code or index.")] = None,
    lines: Annotated[int, typer.Option(help="How many lines to preview.")] = 5,
) -> None:
    """Vocabulary sizes, symbol inventories and a few lines of a corpus."""
    try:
        cfg = DecipherConfig(corpus=corpus, lost=lost or "", known=known or "")
        loaded = load_corpus(cfg)
        table_file = read_cog_table(loaded.path) if loaded.path.endswith(".cog") else None
    except (ConfigError, CorpusError) as exc:
        raise _fail(str(exc)) from None
    c = loaded.corpus
    console = Console(highlight=False)
    console.print(f"[bold]{c.name}[/]  {loaded.path}")
    for key, value in c.stats().items():
        console.print(f"  {key.replace('_', ' ')}: {value}")
    console.print(f"  lost symbols ({c.lost_code}): {' '.join(sorted(c.lost_symbols()))}")
    console.print(f"  known symbols ({c.known_code}): {' '.join(sorted(c.known_symbols()))}")
    if table_file is not None:
        console.print(f"  columns: {', '.join(table_file.codes)}")
        for row in table_file.rows[:lines]:
            console.print("    " + "\t".join("|".join(word_text(w) for w in cell) or "_" for cell in row))


@corpus_app.command("make-demo")
def corpus_make_demo(
    path: Annotated[Path, typer.Argument(help="Where to write the .cog file.")] = Path("corpora/demo.cog"),
    seed: Annotated[int, typer.Option(help="Generator seed.")] = 7,
) -> None:
    """(Re)generate the synthetic demo corpus (Old Veshic / Kalenic)."""
    from .engine.demo_corpus import DemoSpec, write_demo_corpus

    write_demo_corpus(path, DemoSpec(seed=seed))
    typer.echo(f"wrote {path}")


def _open_tui(data: Path | None, corpus: str | None) -> None:
    # Textual is imported here only, so `decipher run` and the engine never load it.
    from .tui.app import DecipherApp

    try:
        tui_app = DecipherApp(data, corpus)
    except StoreError as exc:
        raise _fail(str(exc)) from None
    tui_app.run()


@app.command()
def tui(
    data: Annotated[Path | None, typer.Option("--data-dir", help=_DATA_DIR_HELP, show_default=False)] = None,
    corpus: Annotated[
        str | None, typer.Option("--corpus", "-c", help="Open the new-run form on this corpus (name or .cog path).")
    ] = None,
) -> None:
    """Open the interactive app (same as `decipher-tui`): start runs, watch them, review cognates."""
    _open_tui(data, corpus)


tui_app_cli = typer.Typer(add_completion=False, rich_markup_mode="rich")
tui_app_cli.command(help="Interactive decipherment: configure runs, watch EM learn, review cognate pairs by keyboard.")(
    tui
)


def main() -> None:
    """Console-script entry point of `decipher`."""
    app()


def tui_main() -> None:
    """Console-script entry point of `decipher-tui`."""
    tui_app_cli()


if __name__ == "__main__":
    sys.exit(main())
