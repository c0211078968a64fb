"""`decipher run`: one run headless, with Rich progress, through the run session (run_session.py).

The command's function is long only because Typer declares each option in its signature; its
body is a few calls to the helpers below it."""

from __future__ import annotations

import errno
import json
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..engine.constraints.judgments import REFINE_ROUNDS
from ..engine.run.config import PRESETS, ConfigError, build_config
from ..engine.run.method_summaries import SUMMARIES
from ..session.results import data_dir
from ..session.run_views import method_line, peak_line, percent, refinement_line, time_profile
from ..store import StoreError, default_path
from .app import DATA_DIR_HELP, EXIT_CANCELLED, fail, parse_sets
from .reporter import RichReporter

if TYPE_CHECKING:  # annotations only: `decipher --help` never imports the engine's methods (and torch)
    from ..engine.methods.base import DecipherResult
    from ..session.run_session import RunSession


def _threads(result: DecipherResult) -> str:
    """ ", N CPU thread(s)" for a CPU run (a seed repeats exactly only at the same count)."""
    if result.device != "cpu" or not result.threads:
        return ""
    return f", {result.threads} thread{'s' if result.threads > 1 else ''}"


def _summary_table(result: DecipherResult, corpus_name: str, preset: str | None, out: Path, run_id: int) -> Table:
    table = Table(title="Decipherment run", show_header=False, title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value")
    table.add_row("corpus", f"{corpus_name} ({result.lost_code} -> {result.known_code})")
    table.add_row("preset", preset or "(none)")
    table.add_row("status", result.status)
    table.add_row("seed / device", f"{result.config.seed} / {result.device}" + _threads(result))
    table.add_row("method", method_line(result.config.to_dict(), result.decisions))
    refinement = refinement_line(result.decisions)
    if refinement:
        table.add_row("refinement", refinement)
    if result.rounds:
        table.add_row("rounds completed", str(len(result.rounds)))
    scored = result.proposal_scores()
    if scored is not None:
        table.add_row("proposals vs gold", scored.line())
    if result.accuracy is not None:
        table.add_row("accuracy (paper's protocol)", f"{percent(result.accuracy)} of the {result.n_evaluated} lost "
                      f"words with a gold cognate, D = {result.n_evaluated}; model argmax "
                      f"{percent(result.accuracy_model)}")  # fmt: skip
    beyond = f" (and {len(result.beyond)} more past D that the evidence allows: beyond_d.tsv)" if result.beyond else ""
    table.add_row("proposals", f"{len(result.proposals)}{beyond}")
    table.add_row("seconds", f"{result.seconds:.1f}")
    table.add_row("run id", f"{run_id} (review it in `decipher-tui`)")
    table.add_row("output", str(out))
    return table


def run(
    corpus: Annotated[
        str | None,
        typer.Option(
            "--corpus",
            "-c",
            help="Registry name (see `decipher corpus list`), or the path of a .cog file, a CLDF Wordlist "
            "(its metadata JSON or dataset folder) or an EDICTOR/LingPy wordlist TSV.",
        ),
    ] = None,
    preset: Annotated[
        str | None, typer.Option("--preset", "-p", help=f"Settings preset: {', '.join(PRESETS)}.")
    ] = None,
    lost: Annotated[
        str | None,
        typer.Option(
            help="Lost language: a .cog column code, CLDF Language ID or Glottocode, EDICTOR DOCULECT, "
            "or 0-based index."
        ),
    ] = None,
    known: Annotated[str | None, typer.Option(help="Known language, named as --lost is.")] = None,
    lost_words: Annotated[
        Path | None, typer.Option(help="Plain word list (one per line) of the lost language; no gold.")
    ] = None,
    known_words: Annotated[Path | None, typer.Option(help="Plain word list of the known language.")] = None,
    known_pairs: Annotated[
        Path | None,
        typer.Option(
            help="Judgments known before the run (a lost<TAB>known<TAB>decision TSV, as `decipher review export` "
            "writes): accepted pairs are fixed from the start, rejected ones excluded; they become its decisions.",
        ),
    ] = None,
    known_signs: Annotated[
        Path | None,
        typer.Option(
            help="Known sign values (a lost<TAB>known TSV: a lost symbol and the one or two known letters it "
            "writes, e.g. from a bilingual): the character channel reads each such symbol as its values first, "
            "from the run's start (methods auto and channel; the neural EM with init_flow=channel). With --refine "
            "RUN: pinned on that finished run (kept with it) and held by the refinement.",
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Random seed (runs are reproducible on CPU).")] = None,
    method: Annotated[
        str | None,
        typer.Option(
            help="; ".join(f"{name}: {summary}" for name, summary in SUMMARIES.items()) + ".",
        ),
    ] = None,
    rounds: Annotated[int | None, typer.Option(help="EM rounds T.")] = None,
    epochs: Annotated[int | None, typer.Option(help="Optimiser steps per M-step.")] = None,
    restarts: Annotated[int | None, typer.Option(help="Random restarts, best kept by objective.")] = None,
    device: Annotated[str | None, typer.Option(help="auto, cpu or cuda.")] = None,
    threads: Annotated[
        int | None,
        typer.Option(
            help="torch CPU threads (0: torch's own, every core). Use 1 when other work shares the CPU: "
            "oversubscribed threads slow torch down many times. A seed repeats exactly at the same count.",
        ),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="TOML file of config fields (may name a `preset`).")
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="Any config field, as FIELD=VALUE (repeatable); see `decipher presets`."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Output folder (default: a new run folder in the data dir); with --refine, the folder of the new "
            "run the refinement branches into.",
        ),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print only the summary: no progress bars, no log lines.")
    ] = False,
    json_: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print the run's summary (summary.json, with its run id) as JSON on stdout and nothing else: "
            "for scripts. No progress bars or log lines, as with --quiet; warnings and errors go to stderr.",
        ),
    ] = False,
    profile: Annotated[
        bool,
        typer.Option(
            "--profile",
            help="After the run, print where its time went, by phase (summary.json's "
            "phase_seconds): the syllable search, training, scoring, flows, ...; and the phase in which "
            "the process's memory peaked (peak_memory).",
        ),
    ] = False,
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
            help="Continue a stored run of any method (its id or run folder) under its review decisions: accepted "
            "pairs are fixed in training and in every flow, rejected ones removed, unsure ones ignored (no decisions: "
            "it simply trains on). The new proposals replace the run's, decisions are kept; with --out, they go to a "
            "new run in that folder (a branch) and the run is left as it was.",
        ),
    ] = None,
    refine_rounds: Annotated[
        int,
        typer.Option(
            "--refine-rounds",
            min=1,
            max=1000,
            help="What a --refine adds: EM rounds of a neural run, or rounds of 50 channel steps (channel, auto).",
        ),
    ] = REFINE_ROUNDS,
    data: Annotated[
        Path | None,
        typer.Option("--data-dir", help=DATA_DIR_HELP, show_default=False),
    ] = None,
    debug: Annotated[
        bool,
        typer.Option(
            "--debug",
            help="On an unexpected error, print its traceback here too (it is always in the run folder's run.log).",
        ),
    ] = False,
) -> None:
    """Run decipherment headless, with progress, and write summary.json, proposals.tsv, char_map.tsv.

    With no options it runs the built-in demo corpus.
    """
    from ..engine.run.checkpoint import CheckpointError  # the engine (and torch) once a run is asked for

    if json_ and profile:
        raise fail("--json and --profile cannot be combined: the JSON holds phase_seconds and peak_memory")
    console = Console(stderr=True, highlight=False)
    root = data_dir(data)
    db_path = default_path(root)
    flags = {
        "corpus": corpus, "lost": lost, "known": known, "seed": seed, "method": method, "rounds": rounds,
        "epochs": epochs, "restarts": restarts, "device": device, "threads": threads,
        "lost_words": str(lost_words) if lost_words else None,
        "known_words": str(known_words) if known_words else None,
        "known_pairs": str(known_pairs) if known_pairs else None,
        "known_signs": str(known_signs) if known_signs else None,
    }  # fmt: skip
    try:
        if resume is not None or refine is not None:
            given = {"--corpus": corpus, "--preset": preset, "--config": config, "--set": set_, "--seed": seed,
                     "--method": method, "--rounds": rounds, "--epochs": epochs,
                     "--known-pairs (judgments of a run: `decipher review import`)": known_pairs}  # fmt: skip
            if resume is not None:
                given["--known-signs (they pin a finished run's signs: --refine RUN --known-signs FILE)"] = known_signs
            session = _continued_session(db_path, resume, refine, refine_rounds, given, out, known_signs)
        else:
            session = _new_session(db_path, root, preset, config, set_ or [], flags, out)
    except (ValueError, CheckpointError, StoreError) as exc:  # ConfigError, CorpusError: ValueErrors
        raise fail(str(exc)) from None
    for warning in session.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}")
    try:
        run_id = session.open()
    except StoreError as exc:
        raise fail(str(exc)) from None
    start_line = session.start_line()
    if start_line and not json_:
        console.print(start_line)
    result = _execute(session, console, quiet or json_, debug)
    if json_:
        _print_json(session, run_id)
    else:
        _print_result(result, session, run_id)
    if profile:
        _print_profile(result)
    if result.status == "cancelled":
        if session.review is not None:  # a refinement: the run it continued stays finished (RunSession.execute)
            console.print(f"refinement cancelled: run #{run_id} keeps the rounds it completed and stays finished")
        raise typer.Exit(EXIT_CANCELLED)


def _continued_session(
    db_path: Path,
    resume: str | None,
    refine: str | None,
    refine_rounds: int,
    given: dict[str, Any],
    out: Path | None = None,
    known_signs: Path | None = None,
) -> RunSession:
    """The session of `--resume RUN` or `--refine RUN [--out DIR] [--known-signs FILE]`, whose settings
    come from the checkpoint."""
    from ..session.run_session import RunSession

    if resume is not None and refine is not None:
        raise ConfigError("--resume and --refine cannot be combined: resume a stopped run first")
    flag = "--resume" if resume is not None else "--refine"
    clashing = [name for name, value in given.items() if value]
    if clashing:
        raise ConfigError(f"{flag} takes its settings from the checkpoint; drop {', '.join(clashing)}")
    if resume is not None:
        if out is not None:
            raise ConfigError("--resume continues a run in its own folder; drop --out")
        return RunSession.resume(db_path, resume)
    assert refine is not None  # the caller passes --resume or --refine
    return RunSession.refine(db_path, refine, refine_rounds, out, known_signs)


def _new_session(
    db_path: Path,
    root: Path,
    preset: str | None,
    config: Path | None,
    sets: list[str],
    flags: dict[str, Any],
    out: Path | None,
) -> RunSession:
    """The session of a new run: the preset if one is named (none: `method = "auto"` decides from
    the word lists), then the TOML file, then --set and the flags. A registry corpus gives its files
    and language codes only, never settings."""
    from ..session.run_session import RunSession

    overrides = parse_sets(sets)
    overrides.update({k: v for k, v in flags.items() if v is not None})
    cfg, sources = build_config(preset, config, overrides)
    return RunSession.new(db_path, root, cfg, sources, out)


def _execute(session: RunSession, console: Console, quiet: bool, debug: bool = False) -> DecipherResult:
    """Run the session in a worker thread with Rich progress; Ctrl-C cancels it (completed rounds
    are kept). An error ends the command with one line naming the run and its log (the traceback
    is in the run folder's run.log; with `debug` it is raised here, on the main thread)."""
    reporter = RichReporter(console, quiet)
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
            raise fail(f"training diverged: {exc}", 1)
        if debug or not isinstance(exc, Exception):
            raise exc
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            raise fail(
                f"run #{session.run_id} stopped: {session.out_dir}: {exc.strerror or exc} (the last checkpoint is "
                f"kept; make room, then decipher run --resume {session.run_id})",
                1,
            )
        raise fail(
            f"run #{session.run_id} failed: {type(exc).__name__}: {exc} (traceback in {session.log_path}; "
            "--debug prints it)",
            1,
        )
    return box["result"]


def _print_profile(result: DecipherResult) -> None:
    """Where the run's time went, by phase (`run_views.time_profile`), on stdout."""
    table = Table(title=f"Where the time went ({result.seconds:.1f} s, {result.threads} thread(s), {result.device})",
                  title_justify="left")  # fmt: skip
    for col, justify in (("phase", "left"), ("seconds", "right"), ("share", "right"), ("what", "left")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for name, seconds, share, what in time_profile(result.phase_seconds, result.seconds):
        table.add_row(name, f"{seconds:.1f}", percent(share), what)
    console = Console(highlight=False)
    console.print(table)
    if result.peak_bytes is not None:
        console.print(peak_line(result.peak_bytes, result.peak_phase))


def _print_json(session: RunSession, run_id: int) -> None:
    """The run's summary.json, with its run id and folder, as one JSON document on stdout."""
    summary = json.loads((session.out_dir / "summary.json").read_text(encoding="utf-8"))
    sys.stdout.write(json.dumps({"run_id": run_id, "run_dir": str(session.out_dir), **summary}, ensure_ascii=False))
    sys.stdout.write("\n")


def _print_result(result: DecipherResult, session: RunSession, run_id: int) -> None:
    """The summary table and the top proposals, on stdout."""
    corpus = session.loaded.corpus
    stdout = Console(highlight=False)
    stdout.print(_summary_table(result, corpus.name, session.sources.preset, session.out_dir, run_id))
    if not result.proposals:
        return
    top = Table(title="Top proposals", title_justify="left")
    for col in ("lost", "known", "score") + (("gold",) if corpus.has_gold else ()):
        top.add_column(col)
    for p in result.proposals[:10]:
        row = [corpus.spell(corpus.lost_words[p.lost]), corpus.spell(corpus.known_words[p.known]), f"{p.score:.3f}"]
        if corpus.has_gold:
            row.append("yes" if p.gold else "no")
        top.add_row(*row)
    stdout.print(top)
