"""`decipher corpus list|show|make-demo`: the registry and the corpora."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ..engine.config import ConfigError, DecipherConfig
from ..engine.corpus import CorpusError, read_cog_table, word_text
from ..engine.registry import entry_path, load_corpus, load_registry
from .app import fail

corpus_app = typer.Typer(help="List, inspect and generate corpora.", no_args_is_help=True)


@corpus_app.command("list")
def corpus_list() -> None:
    """The registry of known corpora and whether each is available here."""
    table = Table(title="Corpora (use the name with --corpus)", title_justify="left")
    for col in ("name", "languages", "preset", "here"):
        table.add_column(col, no_wrap=col != "languages")
    for entry in load_registry().values():
        path = entry_path(entry)
        table.add_row(entry.name, entry.languages, entry.preset, "[green]yes[/]" if path else "[red]missing[/]")
    Console().print(table)


@corpus_app.command("show")
def corpus_show(
    corpus: Annotated[str, typer.Argument(help="Registry name or path to a .cog file.")],
    lost: Annotated[str | None, typer.Option(help="Lost language code or index.")] = None,
    known: Annotated[str | None, typer.Option(help="Known language code or index.")] = None,
    lines: Annotated[int, typer.Option(help="How many lines to preview.")] = 5,
) -> None:
    """Vocabulary sizes, symbol inventories and a few lines of a corpus."""
    try:
        cfg = DecipherConfig(corpus=corpus, lost=lost or "", known=known or "")
        loaded = load_corpus(cfg)
        table_file = read_cog_table(loaded.path) if loaded.path.endswith(".cog") else None
    except (ConfigError, CorpusError) as exc:
        raise fail(str(exc)) from None
    c = loaded.corpus
    console = Console(highlight=False)
    console.print(f"[bold]{c.name}[/]  {loaded.path}")
    for key, value in c.stats().items():
        console.print(f"  {key.replace('_', ' ')}: {value}")
    console.print(f"  lost symbols ({c.lost_code}): {' '.join(sorted(c.lost_symbols()))}")
    console.print(f"  known symbols ({c.known_code}): {' '.join(sorted(c.known_symbols()))}")
    if table_file is not None:
        console.print(f"  columns: {', '.join(table_file.codes)}")
        for row in table_file.rows[:lines]:
            console.print("    " + "\t".join("|".join(word_text(w) for w in cell) or "_" for cell in row))


@corpus_app.command("make-demo")
def corpus_make_demo(
    path: Annotated[Path, typer.Argument(help="Where to write the .cog file.")] = Path("corpora/demo.cog"),
    seed: Annotated[int, typer.Option(help="Generator seed.")] = 7,
) -> None:
    """(Re)generate the synthetic demo corpus (Old Veshic / Kalenic)."""
    from ..engine.demo_corpus import DemoSpec, write_demo_corpus

    write_demo_corpus(path, DemoSpec(seed=seed))
    typer.echo(f"wrote {path}")
