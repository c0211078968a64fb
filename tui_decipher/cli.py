"""The `decipher` command: a Typer app whose subcommands drive the engine headless.

`decipher run` shows Rich progress and writes a run folder; `decipher corpus ...` inspects
corpora; `decipher presets` shows the settings. This module never imports Textual.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from . import __version__
from .engine.checkpoint import CHECKPOINT_NAME, CheckpointError, checkpoint_config, load_checkpoint
from .engine.config import PRESETS, ConfigError, ConfigSources, DecipherConfig, build_config
from .engine.corpus import CorpusError, read_cog_table, word_text
from .engine.em import DecipherResult, run_decipherment
from .engine.events import EpochEnd, RestartEnd, RoundEnd, RunStarted
from .engine.registry import entry_path, load_corpus, load_registry
from .results import data_dir, new_run_dir, write_run_files
from .store import RunRecorder, Store, StoreError, default_path

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
    Console(stderr=True, highlight=False, soft_wrap=True).print(f"[bold red]error:[/] {message}", markup=True)
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
            total = event.rounds * event.restarts
            self.rounds_task = self.progress.add_task("EM rounds", total=total, info="")
            self.epochs_task = self.progress.add_task("M-step", total=event.epochs, info="")
        elif isinstance(event, EpochEnd):
            self.progress.update(
                self.epochs_task,
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
                f"{event.seconds:.1f}s",
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
    table.add_row("rounds x epochs", f"{len(result.rounds)} x {result.config.epochs}")
    if result.accuracy is not None:
        table.add_row("accuracy (flow)", f"{_percent(result.accuracy)} of {result.n_evaluated} lost words")
        table.add_row("accuracy (model argmax)", _percent(result.accuracy_model))
    table.add_row("proposals", str(len(result.proposals)))
    table.add_row("seconds", f"{result.seconds:.1f}")
    table.add_row("run id", f"{run_id} (review it in `decipher-tui`)")
    table.add_row("output", str(out))
    return table


def _find_resumable(run: str, db_path: Path) -> tuple[int | None, Path, dict[str, Any]]:
    """A stored run id or a run folder -> (its run id if stored, its folder, its checkpoint)."""
    run_id: int | None = None
    if run.isdigit():
        with Store(db_path) as store:
            row = store.run(int(run))
        if row is None or not row.run_dir:
            raise StoreError(f"{db_path}: no run #{run} with a run folder")
        run_id, folder = row.id, Path(row.run_dir)
    else:
        folder = Path(run).expanduser()
        with Store(db_path) as store:
            matches = [r.id for r in store.runs() if r.run_dir and Path(r.run_dir) == folder.resolve()]
        run_id = matches[0] if matches else None
    return run_id, folder, load_checkpoint(folder)


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
    checkpoint: dict[str, Any] | None = None
    run_id: int | None = None
    try:
        if resume is not None:
            given = [name for name, v in (("--corpus", corpus), ("--preset", preset), ("--config", config),
                     ("--set", set_), ("--seed", seed), ("--rounds", rounds), ("--epochs", epochs)) if v]  # fmt: skip
            if given:
                raise ConfigError(f"--resume takes its settings from the checkpoint; drop {', '.join(given)}")
            run_id, out_dir, checkpoint = _find_resumable(resume, db_path)
            cfg = checkpoint_config(checkpoint)
            sources = ConfigSources(preset=None, overrides={"resume": str(out_dir)})
        else:
            overrides: dict[str, Any] = _parse_sets(set_ or [])
            flags = {
                "corpus": corpus, "lost": lost, "known": known, "seed": seed, "rounds": rounds,
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
        loaded = load_corpus(cfg)
    except (ConfigError, CorpusError, CheckpointError, StoreError) as exc:
        raise _fail(str(exc)) from None
    for warning in loaded.warnings:
        console.print(f"[yellow]warning:[/] {warning}")
    if checkpoint is None:
        out_dir = out or new_run_dir(loaded.corpus.name, sources.preset, root)
    try:
        with Store(db_path) as store:
            if run_id is None:
                run_id = store.create_run(
                    loaded.corpus, loaded.path, sources.preset, cfg.to_dict(), cfg.rounds, str(out_dir.resolve())
                )
            else:
                store.mark_running(run_id)
    except StoreError as exc:
        raise _fail(str(exc)) from None
    if checkpoint is not None:
        console.print(
            f"resuming run #{run_id} from restart {checkpoint['restart'] + 1} round {checkpoint['round']} "
            f"({out_dir / CHECKPOINT_NAME})"
        )
    reporter = _RichReporter(console, quiet)
    cancel = threading.Event()
    box: dict[str, Any] = {}

    def work() -> None:
        # The recorder opens its own database connection in this thread and commits each round.
        recorder = RunRecorder(db_path, run_id, forward=reporter)
        try:
            result = run_decipherment(
                loaded.corpus, cfg, recorder, cancel, checkpoint=out_dir / CHECKPOINT_NAME, resume=checkpoint
            )
            recorder.finish(result, loaded.corpus)
            box["result"] = result
        except BaseException as exc:  # reported on the main thread
            box["error"] = exc
            recorder.fail(f"{type(exc).__name__}: {exc}")
        finally:
            recorder.close()
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
    write_run_files(out_dir, result, loaded.corpus, sources, loaded.path)
    stdout = Console(highlight=False)
    stdout.print(_summary_table(result, loaded.corpus.name, sources.preset, out_dir, run_id))
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
tui_app_cli.command(
    help="Interactive decipherment: configure runs, watch EM learn, review cognate pairs by keyboard."
)(tui)


def main() -> None:
    """Console-script entry point of `decipher`."""
    app()


def tui_main() -> None:
    """Console-script entry point of `decipher-tui`."""
    tui_app_cli()


if __name__ == "__main__":
    sys.exit(main())
