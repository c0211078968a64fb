"""`decipher tui` and `decipher-tui`: open the Textual app (Textual is imported only when it opens)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..store import StoreError
from .app import DATA_DIR_HELP, fail


def _open_tui(data: Path | None, corpus: str | None) -> None:
    # Textual is imported here only, so `decipher run` and the engine never load it.
    from ..tui.app import DecipherApp

    try:
        tui_app = DecipherApp(data, corpus)
    except StoreError as exc:
        raise fail(str(exc)) from None
    tui_app.run()


def tui(
    data: Annotated[Path | None, typer.Option("--data-dir", help=DATA_DIR_HELP, show_default=False)] = None,
    corpus: Annotated[
        str | None, typer.Option("--corpus", "-c", help="Open the new-run form on this corpus (name or path).")
    ] = None,
) -> None:
    """Open the interactive app (same as `decipher-tui`): start runs, watch them, review cognates."""
    _open_tui(data, corpus)


tui_app_cli = typer.Typer(add_completion=False, rich_markup_mode="rich")
tui_app_cli.command(help="Interactive decipherment: configure runs, watch EM learn, review cognate pairs by keyboard.")(
    tui
)
