"""Exports of a reviewed run, one module per format: the project's own `tsv` and `cog`, the
field's `edictor` (a LingPy wordlist, written by lingpy) and `cldf` (a CLDF Wordlist, written and
validated by pycldf), the character `key`, and the pinned sign values (`signs`, a `--known-signs`
file). A new format is one module with a `FORMAT` and one line in `EXPORTS`. Shared by `decipher
export` and the TUI's export dialog; no UI library here.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..store import RunRow
from . import cldf, cog, edictor, key, signs, tsv
from .base import ExportError, ExportFormat, ReviewedRun, Written

# In the order the CLI's help and the TUI's dialog list them.
EXPORTS: dict[str, ExportFormat] = {
    f.name: f for f in (tsv.FORMAT, cog.FORMAT, edictor.FORMAT, cldf.FORMAT, key.FORMAT, signs.FORMAT)
}

# Exports of a run's key or its pinned values: no pairs, so no decisions to choose among.
WITHOUT_PAIRS = ("key", "signs")

__all__ = ["EXPORTS", "ExportError", "ExportFormat", "ReviewedRun", "Written", "default_export_path", "holds_no_pair",
           "render_export", "write_export"]  # fmt: skip


def default_export_path(run: RunRow, fmt: ExportFormat, include_all: bool, folder: Path = Path(".")) -> Path:
    """run-ID-CORPUS-accepted.tsv, -all.tsv (every proposal), -accepted-edictor.tsv, -accepted-cldf (a
    folder), -key.tsv, -signs.tsv and so on, in `folder`."""
    if fmt.name in WITHOUT_PAIRS:
        what = fmt.name
    else:
        what = "all" if include_all and fmt.takes_all else "accepted"
        what += f"-{fmt.name}" if fmt.name in ("edictor", "cldf") else ""
    corpus = re.sub(r"[^\w.-]+", "-", run.corpus).strip("-")  # a file name, whatever the corpus is called
    return folder / f"run-{run.id}-{corpus}-{what}{fmt.suffix}"


def _format(fmt: str, include_all: bool) -> ExportFormat:
    """The format named `fmt`, refused (ExportError) when unknown or when it cannot hold include_all."""
    if fmt not in EXPORTS:
        raise ExportError(f"unknown export format {fmt!r} (have: {', '.join(EXPORTS)})")
    if include_all and not EXPORTS[fmt].takes_all:
        raise ExportError(f"--all: the {fmt} format has no place for a decision; use tsv, edictor or cldf")
    return EXPORTS[fmt]


def write_export(reviewed: ReviewedRun, fmt: str, include_all: bool, path: Path) -> Written:
    """Write a reviewed run in format `fmt` to `path`. ExportError (a ValueError) on a bad request,
    OSError when the path cannot be written."""
    return _format(fmt, include_all).write(reviewed, include_all, path)


def render_export(reviewed: ReviewedRun, fmt: str, include_all: bool) -> tuple[str, str]:
    """A reviewed run in a text format `fmt`, as (text, summary), to print rather than write."""
    chosen = _format(fmt, include_all)
    if chosen.render is None:
        raise ExportError(f"the {fmt} export is a folder: give its path")
    return chosen.render(reviewed, include_all)


def holds_no_pair(reviewed: ReviewedRun, fmt: str, include_all: bool) -> bool:
    """Whether an export of the accepted pairs holds none (nothing accepted yet), where every
    proposal (`--all`) would have been the export the user wanted."""
    return not include_all and fmt not in WITHOUT_PAIRS and not reviewed.chosen(False)
