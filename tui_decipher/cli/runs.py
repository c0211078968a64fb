"""`decipher runs list|show|delete`: the run store, headless (the TUI's Runs screen, as Rich tables)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..session.run_views import RUN_COLUMNS, run_cells, run_fields
from ..store import RUNNING, StoreError
from .app import fail
from .run_store import DataDir, RunArg, open_store

runs_app = typer.Typer(help="List, show and delete the runs in the run store.", no_args_is_help=True)


@runs_app.command("list")
def runs_list(data: DataDir = None) -> None:
    """Every run in the store, newest first, as the Runs screen lists them."""
    with open_store(data) as store:
        runs = store.runs()
        table = Table(title=f"Runs in {escape(str(store.path))}", title_justify="left")
        for label, _ in RUN_COLUMNS:
            table.add_column(label, justify="right" if label in ("#", "accuracy", "time") else "left")
        for run in runs:
            table.add_row(*(escape(c) for c in run_cells(run)))
    console = Console(highlight=False)
    console.print(table)
    if not runs:
        console.print("No runs yet: `decipher run` starts one.")


@runs_app.command("show")
def runs_show(run: RunArg, data: DataDir = None) -> None:
    """A run's detail: corpus, languages, method, status, accuracy, review counts, pinned signs, folder."""
    try:
        with open_store(data) as store:
            row = store.find_run(run)
            counts, judged = store.review_counts(row.id), len(store.judgments(row.id))
            pins, beyond = store.pins(row.id), store.beyond_counts(row.id)
    except StoreError as exc:
        raise fail(str(exc)) from None
    table = Table(title=f"Run #{row.id}", show_header=False, title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    for name, value in run_fields(row, counts, judged, pins, beyond):
        table.add_row(name, escape(value))
    Console(highlight=False).print(table)


@runs_app.command("delete")
def runs_delete(
    run: RunArg,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    data: DataDir = None,
) -> None:
    """Delete a run from the store, with its proposals and review decisions (its run folder is kept)."""
    try:
        with open_store(data) as store:
            row = store.find_run(run)
            if row.status == RUNNING:
                raise fail(f"run #{row.id} is still running (pid {row.pid}): cancel it first")
            question = f"Delete run #{row.id} ({row.corpus}) with its proposals and review decisions?"
            if not yes and not typer.confirm(question, default=False):
                typer.echo("kept")
                raise typer.Exit(1)
            store.delete_run(row.id)
    except StoreError as exc:
        raise fail(str(exc)) from None
    folder = f"; its folder {row.run_dir} is kept" if row.run_dir else ""
    typer.echo(f"deleted run #{row.id} and its decisions{folder}")
