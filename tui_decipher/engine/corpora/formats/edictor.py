"""EDICTOR / LingPy wordlists (a TSV with ID, DOCULECT, CONCEPT, FORM or IPA, TOKENS, COGID), read
with lingpy.

`lingpy.Wordlist` parses the file: its column aliases (LANGUAGE for DOCULECT, GLOSS for
CONCEPT...), its `#` comments and `@` metadata lines, TOKENS into segments, COGID into integers.
It is lenient where a decipherment run must not be: a repeated ID silently replaces the earlier
row, a bad COGID is printed and kept as text, and its row numbers count data rows only. So each
row is checked here first (with the file's own line numbers), then lingpy reads the file.

- languages: `--lost` / `--known` name a DOCULECT or a 0-based index in the order the DOCULECTs
  first appear (default: the first two);
- symbols: a row's TOKENS when it has them (so "kʷ" is one symbol; a "+" morpheme boundary is
  left out), else its IPA, else its FORM, split into grapheme clusters as a `.cog` word is;
- gold (for evaluation only): rows with the same COGID (not 0, LingPy's "none") are cognates.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

from ..corpus import (
    Corpus,
    CorpusError,
    Language,
    Word,
    check_symbols,
    check_usable,
    choose_language,
    parse_word,
    read_lines,
)
from .base import CorpusFormat, gold_from_sets, segments, word_index
from .lingpy_import import quiet_lingpy

NAME = "EDICTOR wordlist"
# Header names lingpy reads as its doculect and concept columns (lingpy/data/conf/wordlist.rc).
DOCULECT = ("DOCULECT", "LANGUAGE", "TAXA", "TAXON")
CONCEPT = ("CONCEPT", "GLOSS", "CONCEPTS")
TOKENS = ("TOKENS", "TOKENIZED_COUNTERPART", "IPATOKENS")
TEXT = ("IPA", "FORM")  # a row without TOKENS is read from the first of these it has


def _data_lines(lines: list[str]) -> list[tuple[int, str]]:
    """(line number, text) of the header and rows: without blank, `#` comment and `@` metadata lines
    and `<tag> ... </tag>` blocks, as lingpy skips them."""
    out: list[tuple[int, str]] = []
    block = ""
    for n, line in enumerate(lines, start=1):
        if block:
            if line.startswith(f"</{block}"):
                block = ""
            continue
        if not line.strip() or line.startswith(("#", "@")):
            continue
        if line.startswith("<") and ">" in line:
            block = line[1 : line.index(">")].split(" ")[0]
            continue
        out.append((n, line))
    return out


def _header(path: Path) -> list[str] | None:
    """The upper-cased header cells of a text file, or None when it is not a readable text file."""
    try:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip() and not line.startswith(("#", "@")):
                    return [c.strip().upper() for c in line.rstrip("\r\n").split("\t")]
    except (OSError, UnicodeDecodeError):
        return None
    return None


def sniff(path: Path) -> bool:
    """A file whose header names a DOCULECT and a CONCEPT column is a LingPy wordlist."""
    if not path.is_file():
        return False
    header = _header(path)
    if not header:
        return False
    return any(c in header for c in DOCULECT) and any(c in header for c in CONCEPT)


def _check_rows(path: Path) -> tuple[dict[str, int], dict[int, int], list[str]]:
    """Check every row of the file; returns the columns (upper-cased name -> index), each lingpy
    entry's line (by ID, or by row order without an ID column), and the DOCULECTs in order."""
    rows = _data_lines(read_lines(path))
    if not rows:
        raise CorpusError(path, 1, "empty file: expected a header naming ID, DOCULECT, CONCEPT, FORM or TOKENS")
    header_line, header_text = rows[0]
    header = [c.strip().upper() for c in header_text.split("\t")]
    columns = {name: i for i, name in enumerate(header)}
    dupes = sorted({c for c in header if header.count(c) > 1})
    if dupes:
        raise CorpusError(path, header_line, f"column {dupes[0]} appears twice in the header")
    doculect = next((columns[c] for c in DOCULECT if c in columns), None)
    words = [columns[c] for c in (*TOKENS, *TEXT) if c in columns]
    if doculect is None or not any(c in columns for c in CONCEPT) or not words:
        raise CorpusError(path, header_line, "header needs DOCULECT, CONCEPT and one of TOKENS, IPA or FORM")
    if len(rows) == 1:
        raise CorpusError(path, header_line, "header only: the file has no rows")
    lines: dict[int, int] = {}
    doculects: dict[str, None] = {}
    for order, (n, text) in enumerate(rows[1:], start=1):
        cells = [c.strip() for c in text.split("\t")]
        if len(cells) != len(header):
            raise CorpusError(path, n, f"has {len(cells)} cell(s), the header has {len(header)}")
        if "ID" in columns:
            value = cells[columns["ID"]]
            if not value.isdigit() or int(value) == 0:
                raise CorpusError(path, n, f"ID {value!r} is not a positive integer")
            if int(value) in lines:
                raise CorpusError(path, n, f"ID {value} repeats the ID of line {lines[int(value)]}")
            lines[int(value)] = n
        else:
            lines[order] = n
        if "COGID" in columns and cells[columns["COGID"]] and not cells[columns["COGID"]].isdigit():
            raise CorpusError(path, n, f"COGID {cells[columns['COGID']]!r} is not an integer")
        if not cells[doculect]:
            raise CorpusError(path, n, "empty DOCULECT")
        if not any(cells[i] for i in words):
            names = "/".join(h for h in header if h in (*TOKENS, *TEXT))
            raise CorpusError(path, n, f"empty {names}: the row has no word")
        doculects.setdefault(unicodedata.normalize("NFC", cells[doculect]))  # as lingpy reads it
    return columns, lines, list(doculects)


def _word(path: Path, line: int, entry: dict[str, Any]) -> tuple[Word, bool]:
    """A row's word and whether it came from its TOKENS (`entry`: lingpy's cells, untyped)."""
    tokens = entry.get("tokens")
    if tokens:
        symbols = segments(tokens)  # lingpy's `lists` of segments
        return check_symbols(path, line, symbols, " ".join(symbols)), True
    for key in ("ipa", "form"):
        if entry.get(key):
            return parse_word(path, line, str(entry[key])), False
    raise CorpusError(path, line, "the row has no word")


def read_edictor(
    path: str | Path, lost: str | int | None = None, known: str | int | None = None, name: str | None = None
) -> Corpus:
    """Read an EDICTOR / LingPy wordlist TSV as a lost/known corpus (see the module's docstring)."""
    path = Path(path).expanduser()
    _, lines, doculects = _check_rows(path)
    li = choose_language(path, doculects, lost, 0, "lost", where="its DOCULECT column")
    ki = choose_language(path, doculects, known, 1 if li != 1 else 0, "known", where="its DOCULECT column")
    if li == ki:
        raise CorpusError(path, None, f"lost and known are the same DOCULECT ({doculects[li]!r})")
    lost_code, known_code = doculects[li], doculects[ki]
    try:
        with quiet_lingpy() as lp:  # its complaints are printed; the rows were checked above
            wordlist = lp.Wordlist(str(path))
    except Exception as exc:  # lingpy raises bare Exceptions; the rows were checked above
        raise CorpusError(path, None, f"lingpy cannot read it ({str(exc).strip().splitlines()[0]})") from None
    columns = wordlist.columns
    words: dict[str, tuple[str, Word]] = {}
    glosses: dict[tuple[str, Word], list[str]] = {}
    sets: dict[int, list[str]] = {}
    segmented = False
    for idx in wordlist:
        entry = dict(zip(columns, wordlist[idx], strict=True))
        code = str(entry["doculect"])
        if code not in (lost_code, known_code):
            continue
        line = lines.get(idx)
        word, from_tokens = _word(path, line or 0, entry)
        segmented |= from_tokens
        words[str(idx)] = (code, word)
        concept = str(entry.get("concept") or "")
        names = glosses.setdefault((code, word), [])
        if concept and concept not in names:
            names.append(concept)
        cogid = entry.get("cogid")
        if isinstance(cogid, int) and cogid:
            sets.setdefault(cogid, []).append(str(idx))
    lost_words = word_index(w for c, w in words.values() if c == lost_code)
    known_words = word_index(w for c, w in words.values() if c == known_code)
    check_usable(path, lost_code, tuple(lost_words))
    check_usable(path, known_code, tuple(known_words))
    return Corpus(
        name=name or path.stem,
        lost_code=lost_code,
        known_code=known_code,
        lost_words=tuple(lost_words),
        known_words=tuple(known_words),
        gold=gold_from_sets(sets.values(), words, lost_code, lost_words, known_words),
        source=str(path),
        format=NAME,
        languages=tuple(Language(code) for code in doculects),
        segmented=segmented,
        lost_glosses=tuple(" / ".join(glosses.get((lost_code, w), [])) for w in lost_words),
        known_glosses=tuple(" / ".join(glosses.get((known_code, w), [])) for w in known_words),
    )


FORMAT = CorpusFormat(NAME, sniff, read_edictor)
