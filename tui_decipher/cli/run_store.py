"""The run store's CLI arguments (RUN, --data-dir) and its opener, shared by `runs`, `review` and `export`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..session.results import data_dir
from ..store import Store, StoreError, default_path
from .app import DATA_DIR_HELP, fail

RUN_HELP = "A run: its id in the run store (`decipher runs list`) or its run folder."

DataDir = Annotated[Path | None, typer.Option("--data-dir", help=DATA_DIR_HELP, show_default=False)]
RunArg = Annotated[str, typer.Argument(metavar="RUN", help=RUN_HELP, show_default=False)]


def open_store(data: Path | None) -> Store:
    """The run store of the data folder `data` (default: $DECIPHER_DATA_DIR or the user data dir);
    a store that cannot be opened is a one-line error."""
    try:
        return Store(default_path(data_dir(data)))
    except StoreError as exc:
        raise fail(str(exc)) from None
