"""The `decipher` command: a Typer app whose subcommands drive the engine headless.

One module per command: `run` (a run with Rich progress, through run_session.py), `export` (a run's
review in the export formats), `runs` (the run store), `review` (a run's decisions as TSV files),
`bench`, `presets`, `corpus`, `tui` (opens the Textual app); `app` holds the Typer app and what
they share.
`decipher run` never imports Textual or the bench.
"""

from __future__ import annotations

from . import bench, corpus, export, presets, review, run, runs, tui
from .app import app
from .tui import tui_app_cli

# The commands, in the order `decipher --help` lists them; `corpus`, `runs` and `review` are groups.
app.command()(run.run)
app.command()(export.export)
app.add_typer(runs.runs_app, name="runs")
app.add_typer(review.review_app, name="review")
app.command(cls=bench.BenchCommand)(bench.bench)
app.command()(presets.presets)
app.command()(tui.tui)
app.add_typer(corpus.corpus_app, name="corpus")


def main() -> None:
    """Console-script entry point of `decipher`."""
    app()


def tui_main() -> None:
    """Console-script entry point of `decipher-tui`."""
    tui_app_cli()
