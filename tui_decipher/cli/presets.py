"""`decipher presets`: list the presets, or print one as sectioned TOML."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ..engine.run.config import PRESET_DEFINITIONS, PRESETS, ConfigError, preset, to_toml
from ..engine.run.presets import canonical as canonical_preset
from .app import fail


def presets(
    name: Annotated[str | None, typer.Argument(help='Show one preset in full (none or "list": list them).')] = None,
) -> None:
    """List the presets, or show every config field of one as sectioned TOML you can edit and pass to --config."""
    console = Console(highlight=False)
    if name is None or name == "list":  # `list`, as `decipher runs list` and `decipher corpus list` read
        title = "Presets (fields that differ from the defaults; none needed: the default method, auto, decides)"
        table = Table(title=title, title_justify="left")
        table.add_column("preset", style="bold")
        table.add_column("why")
        table.add_column("settings")
        for key, values in PRESETS.items():
            table.add_row(key, PRESET_DEFINITIONS[key].why, ", ".join(f"{k}={v}" for k, v in values.items()))
        console.print(table)
        return
    try:
        cfg = preset(name)
    except ConfigError as exc:
        raise fail(str(exc)) from None
    typer.echo(to_toml(cfg, canonical_preset(name)), nl=False)  # plain: a wrapped line would break the TOML
