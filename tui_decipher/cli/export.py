"""`decipher export RUN`: a run's review in one of the export formats (tui_decipher/exports/)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from ..exports import EXPORTS, ExportError, ReviewedRun, default_export_path, holds_no_pair, render_export, write_export
from ..session.results import data_dir
from ..store import Store, StoreError, default_path
from .app import DATA_DIR_HELP, fail
from .run_store import RUN_HELP

_FORMATS_HELP = "; ".join(f"[bold]{f.name}[/]: {f.help}" for f in EXPORTS.values())


def export(
    run: Annotated[str, typer.Argument(metavar="RUN", help=RUN_HELP, show_default=False)],
    format_: Annotated[
        str, typer.Option("--format", "-f", help=f"One of: {', '.join(EXPORTS)}. {_FORMATS_HELP}.")
    ] = "tsv",
    all_: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Every proposal with its decision (accepted, rejected, unsure, open), not only the "
            "accepted pairs (tsv, edictor, cldf).",
        ),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="File to write (a folder for cldf); `-` writes a text format to stdout. "
            "Default: ./run-ID-CORPUS-accepted.tsv and the like.",
        ),
    ] = None,
    data: Annotated[Path | None, typer.Option("--data-dir", help=DATA_DIR_HELP, show_default=False)] = None,
) -> None:
    """Export a run's reviewed cognates (accepted pairs, or every proposal with --all), or its character key.

    [bold]edictor[/] opens in EDICTOR, its ALIGNMENTs made from the run's own attention or key.

    [bold]cldf[/] is a CLDF Wordlist, validated by pycldf as it is written.
    """
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    if format_ not in EXPORTS:
        raise fail(f"--format {format_!r}: expected one of {', '.join(EXPORTS)}")
    fmt = EXPORTS[format_]
    try:
        with Store(default_path(data_dir(data))) as store:
            row = store.find_run(run)
            reviewed = ReviewedRun.load(store, row)  # read once: the export and its warning share it
            empty = holds_no_pair(reviewed, format_, all_)
            if str(out) == "-":
                text, summary = render_export(reviewed, format_, all_)
                sys.stdout.write(text)
                console.print(f"run #{row.id}: {escape(summary)}")
                _warn_if_empty(console, row.id, empty)
                return
            path = out if out is not None else default_export_path(row, fmt, all_)
            written = write_export(reviewed, format_, all_, path)
    except (StoreError, ExportError) as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"{exc.filename or out}: cannot write ({exc.strerror or exc})") from None
    target = path if fmt.suffix == "" else written.paths[0]
    stdout = Console(highlight=False, soft_wrap=True)
    stdout.print(f"wrote {escape(str(target))}: run #{row.id}, {escape(written.summary)}")
    _warn_if_empty(console, row.id, empty)


def _warn_if_empty(console: Console, run_id: int, empty: bool) -> None:
    if empty:
        console.print(f"warning: run #{run_id} has no accepted pair yet, so the export holds none; --all exports "
                      "every proposal with its decision")  # fmt: skip
