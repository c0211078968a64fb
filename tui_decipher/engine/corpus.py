"""Corpus parsing: `.cog` cognate tables and plain word lists.

A `.cog` file is UTF-8, tab-separated; its first line names one language per column; each further
line is one cognate set whose cells hold words separated by `|`, with `_` for "no word". A
language's vocabulary is the set of distinct words in its column. Words are tuples of grapheme
clusters (a base character and its combining marks, NFC), so IPA "ẽ" is one symbol, not two.

Gold pairs (words on the same line) are kept in `Corpus.gold` for evaluation only.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

Word = tuple[str, ...]

# Past this a line is surely not a cognate set (binary data, a minified file...).
MAX_LINE_CHARS = 10_000
MAX_WORD_SYMBOLS = 64


class CorpusError(ValueError):
    """A problem with an input file, reported as one line: `path:line: problem`."""

    def __init__(self, path: str | Path, line: int | None, problem: str) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")


def graphemes(text: str) -> Word:
    """Split a word into grapheme clusters: each base character with its combining marks (NFC)."""
    symbols: list[str] = []
    for ch in unicodedata.normalize("NFC", text):
        if symbols and unicodedata.combining(ch):
            symbols[-1] += ch
        else:
            symbols.append(ch)
    return tuple(symbols)


def word_text(word: Word) -> str:
    """The printable form of a word."""
    return "".join(word)


@dataclass(frozen=True)
class Corpus:
    """Two vocabularies (lost and known) and, when the source has one, the gold cognate pairing.

    `gold[i]` is the set of known-word indices that are cognates of lost word `i`; it is empty
    for lost words without a cognate and for word-list corpora. Evaluation is its only use.
    """

    name: str
    lost_code: str
    known_code: str
    lost_words: tuple[Word, ...]
    known_words: tuple[Word, ...]
    gold: Mapping[int, frozenset[int]] = field(default_factory=dict)
    source: str = ""

    @property
    def has_gold(self) -> bool:
        return any(self.gold.values())

    @property
    def n_gold_lost(self) -> int:
        """Number of lost words that have at least one gold cognate (the evaluated words)."""
        return sum(1 for v in self.gold.values() if v)

    def lost_symbols(self) -> set[str]:
        return {s for w in self.lost_words for s in w}

    def known_symbols(self) -> set[str]:
        return {s for w in self.known_words for s in w}

    def stats(self) -> dict[str, int]:
        """Sizes a user wants to see before a run."""
        return {
            "lost_words": len(self.lost_words),
            "known_words": len(self.known_words),
            "lost_symbols": len(self.lost_symbols()),
            "known_symbols": len(self.known_symbols()),
            "gold_lost_words": self.n_gold_lost,
        }


def _read_lines(path: Path) -> list[str]:
    """Read a UTF-8 text file as lines, turning every I/O or encoding problem into a CorpusError."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CorpusError(path, None, "file not found") from None
    except IsADirectoryError:
        raise CorpusError(path, None, "is a directory, not a corpus file") from None
    except PermissionError:
        raise CorpusError(path, None, "permission denied") from None
    except OSError as exc:
        raise CorpusError(path, None, f"cannot read file ({exc.strerror or exc})") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise CorpusError(path, 1, "UTF-16 text (byte-order mark): save the file as UTF-8")
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise CorpusError(path, line, "binary data (NUL byte): not a text corpus file")
    raw_lines = data.split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()
    lines: list[str] = []
    for n, raw in enumerate(raw_lines, start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            where = f"byte 0x{raw[exc.start]:02x} at column {exc.start + 1}"
            raise CorpusError(path, n, f"not valid UTF-8 ({where}); save the file as UTF-8") from None
        text = text.rstrip("\r")
        if len(text) > MAX_LINE_CHARS:
            raise CorpusError(path, n, f"line too long ({len(text)} characters, at most {MAX_LINE_CHARS})")
        lines.append(text)
    return lines


def _parse_word(path: Path, line: int, token: str) -> Word:
    if token != token.strip() or any(ch.isspace() for ch in token):
        raise CorpusError(path, line, f"word {token!r} contains whitespace")
    if not token:
        raise CorpusError(path, line, "empty word (use '_' for a missing word)")
    bad = [ch for ch in token if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn")]
    if bad:
        raise CorpusError(path, line, f"word {token!r} contains control character U+{ord(bad[0]):04X}")
    word = graphemes(token)
    if len(word) > MAX_WORD_SYMBOLS:
        raise CorpusError(path, line, f"word of {len(word)} symbols is too long (at most {MAX_WORD_SYMBOLS})")
    return word


def _parse_cell(path: Path, line: int, cell: str) -> list[Word]:
    if cell == "_":
        return []
    if cell == "":
        raise CorpusError(path, line, "empty cell (use '_' for a missing word)")
    return [_parse_word(path, line, tok) for tok in cell.split("|")]


@dataclass(frozen=True)
class CogTable:
    """A parsed `.cog` file: language codes and, per line, each column's words."""

    path: Path
    codes: tuple[str, ...]
    rows: tuple[tuple[tuple[Word, ...], ...], ...]  # rows[r][col] = words
    line_numbers: tuple[int, ...]

    def column(self, selector: str | int | None, default: int, role: str) -> int:
        """Resolve a column chosen by language code or 0-based index."""
        if selector is None or selector == "":
            if default >= len(self.codes):
                raise CorpusError(self.path, 1, f"has {len(self.codes)} column(s); need at least 2")
            return default
        if isinstance(selector, int) or (isinstance(selector, str) and selector.isascii() and selector.isdigit()):
            idx = int(selector)
            if not 0 <= idx < len(self.codes):
                raise CorpusError(
                    self.path, 1, f"{role} column {idx} does not exist (columns 0-{len(self.codes) - 1})"
                )
            return idx
        if selector not in self.codes:
            raise CorpusError(
                self.path, 1, f"{role} language {selector!r} not in header (have: {', '.join(self.codes)})"
            )
        return self.codes.index(selector)


def _word_like_code(code: str) -> str:
    """Why a header cell looks like a cell of words rather than a language code ("" if it does not).

    Conservative: only marks that never appear in a code (`_` alone, `|`, combining marks), so a
    file that starts straight with its data is caught when its first row has any of them.
    """
    if code == "_":
        return "is the missing-word mark"
    if "|" in code:
        return "holds '|'-separated words"
    if any(unicodedata.combining(ch) for ch in unicodedata.normalize("NFC", code)):
        return "has combining marks"  # after NFC: "español" has none, IPA "ɐ̃" keeps its tilde
    return ""


def read_cog_table(path: str | Path) -> CogTable:
    """Parse a `.cog` file, checking its header and every row; errors name the file and line."""
    path = Path(path)
    lines = _read_lines(path)
    if not lines or not lines[0].strip():
        raise CorpusError(path, 1, "empty file: expected a header of language codes")
    codes = tuple(c.strip() for c in lines[0].split("\t"))
    if len(codes) < 2:
        raise CorpusError(path, 1, "header must name at least 2 languages separated by tabs")
    for code in codes:
        looks_like_data = _word_like_code(code)
        if looks_like_data:
            problem = f"does not look like a header of language codes ({code!r} {looks_like_data})"
            raise CorpusError(path, 1, f"{problem}; the first line must name the languages, separated by tabs")
        if not code or any(ch.isspace() or unicodedata.category(ch).startswith("C") for ch in code):
            raise CorpusError(path, 1, f"bad language code {code!r} in header")
    dupes = sorted({c for c in codes if codes.count(c) > 1})
    if dupes:
        raise CorpusError(path, 1, f"duplicate language code {dupes[0]!r} in header")
    rows = []
    numbers = []
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != len(codes):
            raise CorpusError(path, n, f"has {len(cells)} column(s), header has {len(codes)}")
        rows.append(tuple(tuple(_parse_cell(path, n, cell)) for cell in cells))
        numbers.append(n)
    if not rows:
        raise CorpusError(path, 1, "header only: the file has no cognate lines")
    return CogTable(path=path, codes=codes, rows=tuple(rows), line_numbers=tuple(numbers))


def _vocabulary(words: Sequence[Word]) -> tuple[tuple[Word, ...], dict[Word, int]]:
    index: dict[Word, int] = {}
    for w in words:
        index.setdefault(w, len(index))
    return tuple(index), index


def _check_usable(path: Path, code: str, vocab: tuple[Word, ...], line: int | None = None) -> None:
    """Refuse an unusable vocabulary; `line` is where the language is named (a `.cog` header)."""
    if not vocab:
        raise CorpusError(path, line, f"language {code!r} has no words")
    symbols = {s for w in vocab for s in w}
    if len(symbols) < 2:
        problem = f"language {code!r} uses only {len(symbols)} symbol(s); need at least 2"
        raise CorpusError(path, line, problem)


def read_cog(
    path: str | Path,
    lost: str | int | None = None,
    known: str | int | None = None,
    name: str | None = None,
) -> Corpus:
    """Read a `.cog` file as a lost/known corpus; `lost`/`known` pick columns by code or index
    (default: the first two columns)."""
    table = read_cog_table(path)
    li = table.column(lost, 0, "lost")
    ki = table.column(known, 1 if li != 1 else 0, "known")
    if li == ki:
        raise CorpusError(table.path, 1, f"lost and known are the same column ({table.codes[li]!r})")
    lost_vocab, lost_index = _vocabulary([w for row in table.rows for w in row[li]])
    known_vocab, known_index = _vocabulary([w for row in table.rows for w in row[ki]])
    _check_usable(table.path, table.codes[li], lost_vocab, line=1)
    _check_usable(table.path, table.codes[ki], known_vocab, line=1)
    gold: dict[int, set[int]] = {i: set() for i in range(len(lost_vocab))}
    for row in table.rows:
        for lw in row[li]:
            for kw in row[ki]:
                gold[lost_index[lw]].add(known_index[kw])
    return Corpus(
        name=name or table.path.stem,
        lost_code=table.codes[li],
        known_code=table.codes[ki],
        lost_words=lost_vocab,
        known_words=known_vocab,
        gold={i: frozenset(v) for i, v in gold.items()},
        source=str(table.path),
    )


def read_word_list(path: str | Path) -> tuple[Word, ...]:
    """One word per line (blank lines skipped); duplicates are kept once."""
    path = Path(path)
    words = []
    for n, line in enumerate(_read_lines(path), start=1):
        token = line.strip()
        if token:
            words.append(_parse_word(path, n, token))
    vocab, _ = _vocabulary(words)
    if not vocab:
        raise CorpusError(path, None, "empty word list")
    return vocab


def read_word_lists(
    lost_path: str | Path,
    known_path: str | Path,
    lost_code: str = "lost",
    known_code: str = "known",
    name: str | None = None,
) -> Corpus:
    """The real decipherment case: two unpaired word lists and no gold."""
    lost_path, known_path = Path(lost_path), Path(known_path)
    lost_vocab = read_word_list(lost_path)
    known_vocab = read_word_list(known_path)
    _check_usable(lost_path, lost_code, lost_vocab)
    _check_usable(known_path, known_code, known_vocab)
    return Corpus(
        name=name or f"{lost_path.stem}-{known_path.stem}",
        lost_code=lost_code,
        known_code=known_code,
        lost_words=lost_vocab,
        known_words=known_vocab,
        gold={},
        source=f"{lost_path} + {known_path}",
    )


def restrict_to_paired(corpus: Corpus) -> Corpus:
    """Keep only lost words with a gold cognate and the known words paired with them.

    This is the paper's "noiseless" Ugaritic setting (lines that have both words); it uses the
    gold pairing to choose the vocabularies, as the published protocol does, not to train.
    """
    keep_lost = [i for i in range(len(corpus.lost_words)) if corpus.gold.get(i)]
    keep_known = sorted({j for i in keep_lost for j in corpus.gold[i]})
    known_map = {j: n for n, j in enumerate(keep_known)}
    return Corpus(
        name=corpus.name,
        lost_code=corpus.lost_code,
        known_code=corpus.known_code,
        lost_words=tuple(corpus.lost_words[i] for i in keep_lost),
        known_words=tuple(corpus.known_words[j] for j in keep_known),
        gold={n: frozenset(known_map[j] for j in corpus.gold[i]) for n, i in enumerate(keep_lost)},
        source=corpus.source,
    )
