"""`decipher review import|export|boundary`: a run's review decisions as a TSV file, without the TUI.

The file (tui_decipher/review_io.py) is `lost<TAB>known<TAB>decision`, one judged pair a line.
An import is checked whole, then stored in one transaction, exactly as the Review screen's keys
store decisions; a file with any bad line stores nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from ..engine.corpora.corpus import CorpusError
from ..session.boundary import BOUNDARY_PAIRS, boundary_pairs, demand_range
from ..session.results import write_atomic
from ..session.review_io import (
    is_sign_values_file,
    judgments_summary,
    read_judgments,
    read_pins,
    review_text,
    run_vocabulary,
    write_judgments,
)
from ..session.settled_demand import settle_run
from ..store import FINISHED, StoreError
from .app import fail
from .run_store import DataDir, RunArg, open_store

FORMAT_HELP = (
    "A tab-separated file with the header [bold]lost<TAB>known<TAB>decision[/], then one pair a line: a word of "
    "the run's lost vocabulary, a word of its known vocabulary, and [bold]accepted[/], [bold]rejected[/] or "
    "[bold]unsure[/]."
)

review_app = typer.Typer(
    help="Import and export a run's review decisions as TSV: judge pairs in a spreadsheet or a script, "
    "then refine the run with `decipher run --refine RUN`. " + FORMAT_HELP,
    no_args_is_help=True,
    rich_markup_mode="rich",
)


@review_app.command("import")
def review_import(
    run: RunArg,
    file: Annotated[
        Path,
        typer.Argument(metavar="FILE", help="The TSV file of decisions to read.", show_default=False),
    ],
    keep_d: Annotated[
        bool,
        typer.Option(
            "--keep-d",
            help="Leave D and the proposals where the run cut them (by default the judgments "
            "settle D and the proposals are recut there, as on the Review screen).",
        ),
    ] = False,
    data: DataDir = None,
) -> None:
    """Record the decisions of FILE in a run, as if their keys were pressed on the Review screen.

    The judgments then settle D (unless --keep-d): where the run's correct pairs end is estimated from the judged
    pairs of its ranking and the run's own evidence, and the proposals are recut there, without training.

    Any pair of the run's words can be judged, proposed or not; pairs the file does not name keep theirs.

    [bold]open[/] clears a pair's decision. [bold]unsure[/] is kept and exported, never a constraint.

    Every line is checked first, and a file with a bad line stores nothing: the line is reported as FILE:LINE.

    Bad lines: an unknown word or decision, a bad header, a wrong number of columns, a pair twice with two decisions.

    A file of sign values instead (the --known-signs format: the header [bold]lost<TAB>known[/], a lost symbol and
    the known letters it writes a line) pins them on the run, as [bold]p[/] on the Key screen does.
    """
    with open_store(data) as store:
        try:
            row = store.find_run(run)
            vocab = run_vocabulary(row, store.proposals(row.id))
            if is_sign_values_file(file):  # pins, as the Key screen's p makes them
                signs = read_pins(file, vocab)
                for symbol, values in signs.by_symbol().items():
                    store.set_pins(row.id, symbol, values)
                Console(highlight=False, soft_wrap=True).print(
                    f"pinned {len(signs)} sign value(s) on run #{row.id}: {signs.describe()}; "
                    f"`decipher run --refine {row.id}` refines it holding them"
                )
                return
            items = read_judgments(file, vocab)
            store.set_judgments(row.id, items)  # one transaction: all of the file, or nothing
            settled = settle_run(store, store.find_run(row.id)) if not keep_d and row.status == FINISHED else None
        except (StoreError, CorpusError) as exc:
            raise fail(str(exc)) from None
    noun = "decision" if len(items) == 1 else "decisions"
    console = Console(highlight=False, soft_wrap=True)
    console.print(f"imported {len(items)} {noun}: {judgments_summary(items)} into run #{row.id}")
    if settled is not None:  # None: the run was given its D, which judgments do not move
        console.print(settled.line())


@review_app.command("export")
def review_export(
    run: RunArg,
    file: Annotated[
        str,
        typer.Argument(metavar="FILE", help="The TSV file to write, or - for stdout.", show_default=False),
    ],
    data: DataDir = None,
) -> None:
    """Write every decision of a run (accepted, rejected and unsure) to FILE, sorted by lost word.

    The file is what `decipher review import` reads back.

    (`decipher export` writes the run's proposals, each with its decision, in the field's formats.)
    """
    with open_store(data) as store:
        try:
            row = store.find_run(run)
            decisions = store.judgments(row.id)
            vocab = run_vocabulary(row, store.proposals(row.id))
            text = write_judgments(decisions, vocab)
        except StoreError as exc:
            raise fail(str(exc)) from None
    items = [(i, j, status) for (i, j), status in decisions.items()]
    line = f"run #{row.id}: {len(items)} decision(s): {judgments_summary(items)}"
    _write_review_file(file, text, line)


@review_app.command("boundary")
def review_boundary(
    run: RunArg,
    n: Annotated[int, typer.Option("-n", help="How many pairs to ask for.", min=1)] = BOUNDARY_PAIRS,
    out: Annotated[
        str, typer.Option("--out", "-o", help="The review file to write, or - for stdout.", show_default=False)
    ] = "-",
    data: DataDir = None,
) -> None:
    """Write the pairs whose judgments say most about where the run's correct proposals end: N
    unjudged pairs drawn evenly across the ranks the evidence allows D to be (above and below the
    run's D, and past it), as a review file with the decision left empty.

    Fill in accepted, rejected or unsure, then read it back with `decipher review import RUN FILE`
    (a line left empty stays unjudged).
    """
    with open_store(data) as store:
        try:
            row = store.find_run(run)
            proposals = store.proposals(row.id)
            ranked = [*proposals, *store.beyond_pairs(row.id)]
            vocab = run_vocabulary(row, proposals)
        except StoreError as exc:
            raise fail(str(exc)) from None
    if not ranked:
        raise fail(f"run #{row.id} has no proposals to ask about")
    low, high = demand_range(row.decisions, len(ranked))
    asked = boundary_pairs(ranked, low, high, n)
    text = review_text((vocab.lost[p.lost_index], vocab.known[p.known_index], "") for p in asked)
    position = {id(p): k for k, p in enumerate(ranked, start=1)}  # proposals, then the pairs past D
    ranks = f"ranks {position[id(asked[0])]}-{position[id(asked[-1])]}" if asked else "no unjudged pair"
    line = (f"run #{row.id}: {len(asked)} pair(s) to judge, {ranks} of {len(ranked)} (D = {len(proposals)}, "
            f"the evidence allows {low}-{high}); fill in the decisions, then decipher review import {row.id} "
            "FILE")  # fmt: skip
    _write_review_file(out, text, line)


def _write_review_file(file: str, text: str, line: str) -> None:
    """A review file to `file` (atomically), or to stdout for `-` with `line` on stderr; `line` says
    what was written."""
    if file == "-":
        sys.stdout.write(text)
        Console(stderr=True, highlight=False, soft_wrap=True).print(escape(line))
        return
    path = Path(file)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
    except OSError as exc:
        raise fail(f"{exc.filename or path}: cannot write ({exc.strerror or exc})") from None
    Console(highlight=False, soft_wrap=True).print(f"wrote {escape(str(path))}: {escape(line)}")
