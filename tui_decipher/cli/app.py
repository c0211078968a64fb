"""The `decipher` Typer app, its command groups and what every command shares (errors, exits)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from .. import __version__
from ..engine.run.config import ConfigError

app = typer.Typer(
    help="Decipher a lost language by finding its cognates in a known related language "
    "(neural decipherment via minimum-cost flow, Luo, Cao & Barzilay 2019).",
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode="rich",
)

EXIT_BAD_INPUT = 2
EXIT_CANCELLED = 130
DATA_DIR_HELP = "Data folder holding the run database (default: $DECIPHER_DATA_DIR or the user data dir)."


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


def fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print a one-line error to stderr and return the Exit to raise."""
    # Escaped: a path or a word like "a[/b]" in the message is text, not Rich markup.
    Console(stderr=True, highlight=False, soft_wrap=True).print(f"[bold red]error:[/] {escape(message)}", markup=True)
    return typer.Exit(code)


def parse_sets(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise ConfigError(f"--set {item!r}: expected FIELD=VALUE")
        key, value = item.split("=", 1)
        out[key.strip().replace("-", "_")] = value
    return out


class TimeLeftColumn(TimeRemainingColumn):
    """Rich's time left, read as at most ("<=") for a task whose steps are a budget the run may stop
    short of (its `at_most` field: auto's, `RunStarted.steps_at_most`), until the task is done."""

    def render(self, task: Task) -> Text:
        left = super().render(task)
        budget = task.fields.get("at_most") and task.time_remaining is not None and not task.finished
        return Text("<=") + left if budget else left


def progress_bars(console: Console, remaining: bool = True, quiet: bool = False) -> Progress:
    """The commands' Rich progress: description, bar, n/total, an `info` field, elapsed time and
    (with `remaining`) the time left."""
    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[info]}"), TimeElapsedColumn()]  # fmt: skip
    if remaining:
        columns.append(TimeLeftColumn())
    return Progress(*columns, console=console, transient=False, disable=quiet)
