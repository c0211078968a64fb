"""`decipher corpus list|show|make-demo|generate|encipher`: the registry and the corpora."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..engine.corpora.corpus import CorpusError, preview_lines, word_text
from ..engine.run.config import ConfigError
from ..session.corpus_tools import (
    BASE_KINDS,
    DEFAULT_SCRIPT,
    KIND_HELP,
    KINDS,
    SCRIPTS,
    SYLLABARY_KINDS,
    SYLLABIC,
    SYLLABIC_SCRIPT,
    CorpusSpec,
    DemoSpec,
    GeneratorSpec,
    encipher,
    entry_path,
    load_corpus,
    load_registry,
    read_cog_table,
    syllabary_key_text,
    write_demo_corpus,
    write_generated,
)
from .app import fail

corpus_app = typer.Typer(help="List, inspect and generate corpora.", no_args_is_help=True)


@corpus_app.command("list")
def corpus_list() -> None:
    """The registry of known corpora and whether each is available here."""
    table = Table(title="Corpora (use the name with --corpus)", title_justify="left")
    for col in ("name", "languages", "paper's preset", "here"):
        table.add_column(col, no_wrap=col != "languages")
    for entry in load_registry().values():
        path = entry_path(entry)
        table.add_row(entry.name, entry.languages, entry.preset, "[green]yes[/]" if path else "[red]missing[/]")
    Console().print(table)


@corpus_app.command("show")
def corpus_show(
    corpus: Annotated[
        str,
        typer.Argument(help="Registry name, or a .cog file, CLDF Wordlist (metadata JSON or folder) or EDICTOR TSV."),
    ],
    lost: Annotated[str | None, typer.Option(help="Lost language: code, ID, Glottocode (CLDF) or index.")] = None,
    known: Annotated[str | None, typer.Option(help="Known language: code, ID, Glottocode (CLDF) or index.")] = None,
    lines: Annotated[int, typer.Option(help="How many lines to preview.")] = 5,
) -> None:
    """Vocabulary sizes, symbol inventories and a few lines of a corpus."""
    try:
        loaded = load_corpus(CorpusSpec(corpus, lost or "", known or ""))
        table_file = read_cog_table(loaded.path) if loaded.corpus.format == "cog" else None
    except (ConfigError, CorpusError) as exc:
        raise fail(str(exc)) from None
    c = loaded.corpus
    console = Console(highlight=False)
    console.print(f"[bold]{escape(c.name)}[/]  {escape(loaded.path)}  ({c.format})", soft_wrap=True)
    for key, value in c.stats().items():
        console.print(f"  {key.replace('_', ' ')}: {value}")
    for role, code, symbols in (("lost", c.lost_code, c.lost_symbols()), ("known", c.known_code, c.known_symbols())):
        console.print(f"  {role} symbols ({escape(code)}): {escape(' '.join(sorted(symbols)))}", soft_wrap=True)
    if table_file is not None:
        console.print(f"  columns: {', '.join(table_file.codes)}")
        for row in table_file.rows[:lines]:
            console.print("    " + "\t".join("|".join(word_text(w) for w in cell) or "_" for cell in row))
        return
    shown = ", ".join(lang.label() for lang in c.languages[:20])
    more = f", ... ({len(c.languages)} in all)" if len(c.languages) > 20 else ""
    console.print(f"  languages: {escape(shown + more)}", soft_wrap=True)
    if c.segmented:
        console.print("  words: their segments, one symbol each (shown space-separated)")
    for line in preview_lines(c, lines):
        console.print(f"    {escape(line)}", soft_wrap=True)


@corpus_app.command("make-demo")
def corpus_make_demo(
    path: Annotated[Path, typer.Argument(help="Where to write the .cog file.")] = Path("corpora/demo.cog"),
    seed: Annotated[int, typer.Option(help="Generator seed.")] = 7,
) -> None:
    """(Re)generate the synthetic demo corpus (Old Veshic / Kalenic)."""
    write_demo_corpus(path, DemoSpec(seed=seed))
    typer.echo(f"wrote {path}")


_GENERATE_HELP = "\n\n".join([
    "Write a synthetic .cog corpus of one KIND, with its gold cognates, and print the laws it used. "
    "The same kind, seed and sizes always give the same file. Kinds:",
    *(f"[bold]{kind}[/]: {text}." for kind, text in KIND_HELP.items()),
])  # fmt: skip


@corpus_app.command("generate", help=_GENERATE_HELP)
def corpus_generate(
    kind: Annotated[str, typer.Argument(metavar="KIND", help=f"One of: {', '.join(KINDS)}.", show_default=False)],
    seed: Annotated[int, typer.Option(help="Generator seed.")] = 0,
    lost_words: Annotated[int, typer.Option("--lost-words", help="Lost words (with and without a cognate).")] = 200,
    out: Annotated[Path | None, typer.Option(help="Where to write the .cog file (default: ./KIND-seedN.cog).")] = None,
    cognate_share: Annotated[
        float | None, typer.Option(help="Share of lost words with a cognate (default: the kind's).")
    ] = None,
    known_ratio: Annotated[
        float | None, typer.Option(help="Known words per lost word (default: the kind's; large-known 5).")
    ] = None,
    base: Annotated[str, typer.Option(help=f"large-known only: the kind it enlarges ({', '.join(BASE_KINDS)}).")] = (
        "substitution"
    ),
    variants: Annotated[
        float, typer.Option(help="Share of cognates that also get a second lost form (an ending added): C > 1 data.")
    ] = 0.0,
    false_friends: Annotated[
        float,
        typer.Option(
            help="shared-alphabet only: share of cognates whose lost form is also spelled as an unrelated known "
            "word (a false friend, added to the known words).",
        ),
    ] = 0.0,
    words: Annotated[
        Path | None,
        typer.Option(
            help="syllabary and dead-vowel only: a real word list (one word per line) as the known language, "
            "its words written in the syllabary by the list's own vowels (a Greek list gives a Cypriot-like "
            "corpus with dead-vowel), in place of drawn words.",
            show_default=False,
        ),
    ] = None,
    key: Annotated[
        Path | None,
        typer.Option(
            help="syllabary only: also write the script's key, each sign's syllable, as a --known-signs file "
            "(most frequent sign first: its header and first n lines are n values a scholar would know).",
        ),
    ] = None,
) -> None:
    """Write a synthetic corpus of one kind (see `decipher corpus generate --help`)."""
    spec = GeneratorSpec(
        kind=kind,
        seed=seed,
        lost_words=lost_words,
        cognate_share=cognate_share,
        known_ratio=known_ratio,
        base=base,
        variants=variants,
        false_friends=false_friends,
        words=words,
    )
    path = out if out is not None else Path(f"{kind}-seed{seed}.cog")
    try:
        spec.resolved()  # a bad kind or size is refused before any folder is made
        if key is not None and kind not in SYLLABARY_KINDS:
            raise ValueError(f"--key: a key is written for a syllabary only, not for {kind!r}")
        written = write_generated(path, spec)
        if key is not None:
            key.write_text(syllabary_key_text(written), encoding="utf-8")
    except ValueError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"{exc.filename or path}: cannot write ({exc.strerror or exc})") from None
    typer.echo(f"wrote {path}: {written.summary()}")
    if key is not None:
        typer.echo(f"wrote {key}: the script's key (sign values, most frequent sign first)")
    for law in written.laws:
        typer.echo(f"  {law}")


@corpus_app.command("encipher")
def corpus_encipher(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="A .cog corpus.", show_default=False)],
    seed: Annotated[int, typer.Option(help="The map's seed: the same seed, the same map.")] = 0,
    lost: Annotated[
        str | None, typer.Option(help="The column to rewrite: a language code or 0-based index (default: the first).")
    ] = None,
    script: Annotated[
        str | None,
        typer.Option(
            help=f"The script written: {', '.join(SCRIPTS)} (default: {DEFAULT_SCRIPT}; {SYLLABIC_SCRIPT} with --as)."
        ),
    ] = None,
    syllabic: Annotated[
        str | None,
        typer.Option(
            "--as",
            help=f"Write a sign a syllable, by the lost words' own vowels: {' or '.join(SYLLABIC)} (final "
            "consonants unwritten, as Linear B, or each with a sign, as Cypriot).",
        ),
    ] = None,
    merge: Annotated[
        int,
        typer.Option(help="How many of the least frequent lost symbols take the sign of another (a few-to-one map)."),
    ] = 0,
    out: Annotated[
        Path | None, typer.Option(help="Where to write the .cog file (default: ./STEM.SCRIPT-seedN.cog).")
    ] = None,
    key: Annotated[
        Path | None,
        typer.Option(help="Also write the map, each sign and the symbol it writes, as a --known-signs file."),
    ] = None,
) -> None:
    """Rewrite a corpus's lost side in an unrelated script, through a fixed random one-to-one map of
    its symbols (few-to-one with --merge; a sign a syllable with --as). The rows, the known side and
    the gold pairs stay as they are: any real pair becomes a decipherment test of an unknown script
    with its own gold."""
    name = syllabic or script or DEFAULT_SCRIPT
    path = out if out is not None else Path(f"{file.stem}.{name}-seed{seed}.cog")
    try:
        column = int(lost) if lost is not None and lost.isdigit() else lost
        enciphered = encipher(file, seed, column, script, merge, syllabic)
        path.write_text(enciphered.text, encoding="utf-8")
        if key is not None:
            key.write_text(enciphered.key_text(), encoding="utf-8")
    except ValueError as exc:  # CorpusError too
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"{exc.filename or path}: cannot write ({exc.strerror or exc})") from None
    typer.echo(f"wrote {path}: {enciphered.summary()}")
    if key is not None:
        typer.echo(f"wrote {key}: the map (sign, symbol), most frequent sign first")
