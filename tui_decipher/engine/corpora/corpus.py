"""Corpus parsing: `.cog` cognate tables and plain word lists, and what every corpus reader shares.

The field's formats (CLDF Wordlists, EDICTOR/LingPy wordlists) have their own readers in
`engine/corpora/formats/`, which build the same `Corpus`.

A `.cog` file is UTF-8, tab-separated; its first line names one language per column; each further
line is one cognate set whose cells hold words separated by `|`, with `_` for "no word". A
language's vocabulary is the set of distinct words in its column. Words are tuples of grapheme
clusters (a base character and its combining marks, NFC), so IPA "ẽ" is one symbol, not two.

Gold pairs (words on the same line) are kept in `Corpus.gold` for evaluation only.
"""

from __future__ import annotations

import dataclasses
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


# The header of a sign values file (`--known-signs`, engine/constraints/sign_values.py), which the
# generators and `corpus encipher` also write as a corpus's key.
SIGN_VALUES_HEADER = ("lost", "known")


def word_text(word: Word) -> str:
    """The printable form of a word."""
    return "".join(word)


def word_tokens(word: Word) -> str:
    """A word as LingPy's TOKENS and CLDF's Segments write it: its symbols separated by spaces."""
    return " ".join(word)


@dataclass(frozen=True)
class Language:
    """A language of a corpus: its code (a `.cog` column, a CLDF Language ID, a DOCULECT) and,
    when the source names them, its name and Glottocode."""

    id: str
    name: str = ""
    glottocode: str = ""

    def label(self) -> str:
        """`id (name, glottocode)`, leaving out what the source did not give."""
        extra = ", ".join(x for x in (self.name if self.name != self.id else "", self.glottocode) if x)
        return f"{self.id} ({extra})" if extra else self.id


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
    # What the source says beside the words (none of it reaches a method):
    format: str = "cog"  # the reader that read it: "cog", "word lists", "CLDF Wordlist", "EDICTOR wordlist"
    languages: tuple[Language, ...] = ()  # every language of the source, in its order
    segmented: bool = False  # the symbols came from Segments / TOKENS (a symbol may be several characters)
    lost_glosses: tuple[str, ...] = ()  # per lost word: its concept(s) in the source ("" or () when none)
    known_glosses: tuple[str, ...] = ()

    @property
    def has_gold(self) -> bool:
        return any(self.gold.values())

    @property
    def n_gold_lost(self) -> int:
        """Number of lost words that have at least one gold cognate (the evaluated words)."""
        return sum(1 for v in self.gold.values() if v)

    def spell(self, word: Word) -> str:
        """A word for display: its symbols run together, or space-separated when the source
        segmented them (so the multi-character segment "kʷ" is seen as one symbol)."""
        return word_tokens(word) if self.segmented else word_text(word)

    def language(self, code: str) -> Language:
        """The source's record of a language code (a bare `Language(code)` when it has none)."""
        return next((lang for lang in self.languages if lang.id == code), Language(code))

    def lost_gloss(self, i: int) -> str:
        return self.lost_glosses[i] if i < len(self.lost_glosses) else ""

    def known_gloss(self, j: int) -> str:
        return self.known_glosses[j] if j < len(self.known_glosses) else ""

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


def preview_lines(corpus: Corpus, lines: int = 4) -> list[str]:
    """A few lines of a corpus for a preview: gold pairs (`lost ~ known | known`, with the concept
    when the source has one), or the first lost words when it has no gold."""
    if not corpus.has_gold:
        return ["  ".join(corpus.spell(w) for w in corpus.lost_words[:lines])]
    out = []
    for i, known in [(i, js) for i, js in sorted(corpus.gold.items()) if js][:lines]:
        knowns = " | ".join(corpus.spell(corpus.known_words[j]) for j in sorted(known))
        gloss = corpus.lost_gloss(i)
        out.append(f"{corpus.spell(corpus.lost_words[i])}  ~  {knowns}" + (f"   '{gloss}'" if gloss else ""))
    return out


def read_lines(path: Path) -> list[str]:
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


def check_symbols(path: str | Path, line: int | None, symbols: Sequence[str], shown: str) -> Word:
    """A word given as its symbols (Segments, TOKENS), checked as `.cog` words are: no empty or
    control-character symbol, at most MAX_WORD_SYMBOLS. `shown` is the word as the file has it."""
    if not symbols:
        raise CorpusError(path, line, f"word {shown!r} has no symbols")
    for symbol in symbols:
        if not symbol or any(ch.isspace() for ch in symbol):
            raise CorpusError(path, line, f"word {shown!r} has an empty or blank symbol")
        bad = [ch for ch in symbol if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn")]
        if bad:
            raise CorpusError(path, line, f"word {shown!r} contains control character U+{ord(bad[0]):04X}")
    if len(symbols) > MAX_WORD_SYMBOLS:
        raise CorpusError(path, line, f"word of {len(symbols)} symbols is too long (at most {MAX_WORD_SYMBOLS})")
    return tuple(unicodedata.normalize("NFC", s) for s in symbols)


def parse_word(path: str | Path, line: int | None, token: str) -> Word:
    """A word written as text (a `.cog` cell, a CLDF Form, an IPA cell) as grapheme clusters, checked."""
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
    return [parse_word(path, line, tok) for tok in cell.split("|")]


@dataclass(frozen=True)
class CogTable:
    """A parsed `.cog` file: language codes and, per line, each column's words."""

    path: Path
    codes: tuple[str, ...]
    rows: tuple[tuple[tuple[Word, ...], ...], ...]  # rows[r][col] = words
    line_numbers: tuple[int, ...]

    def column(self, selector: str | int | None, default: int, role: str) -> int:
        """Resolve a column chosen by language code or 0-based index."""
        return choose_language(self.path, self.codes, selector, default, role, line=1, where="header")


def choose_language(
    path: str | Path,
    codes: Sequence[str],
    selector: str | int | None,
    default: int,
    role: str,
    line: int | None = None,
    where: str = "the file",
    aliases: Mapping[str, str] | None = None,
) -> int:
    """The index in `codes` of the language `selector` names: a code, a 0-based index, or one of
    `aliases` (another name for a code, e.g. a Glottocode); `default` when none is given. Every
    reader picks `--lost` / `--known` through here, so they mean the same for every format."""
    what = "column" if where == "header" else "language"
    if selector is None or selector == "":
        if default >= len(codes):
            raise CorpusError(path, line, f"has {len(codes)} {what}(s); need at least 2")
        return default
    if isinstance(selector, int) or (isinstance(selector, str) and selector.isascii() and selector.isdigit()):
        idx = int(selector)
        if not 0 <= idx < len(codes):
            raise CorpusError(path, line, f"{role} {what} {idx} does not exist ({what}s 0-{len(codes) - 1})")
        return idx
    if selector in codes:
        return list(codes).index(selector)
    if aliases and selector in aliases and aliases[selector] in codes:
        return list(codes).index(aliases[selector])
    shown = ", ".join(codes[:20]) + (f", ... ({len(codes)} in all)" if len(codes) > 20 else "")
    raise CorpusError(path, line, f"{role} language {selector!r} not in {where} (have: {shown})")


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
    lines = read_lines(path)
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


def vocabulary(words: Sequence[Word]) -> tuple[tuple[Word, ...], dict[Word, int]]:
    """The distinct words in first-seen order, and each word's index."""
    index: dict[Word, int] = {}
    for w in words:
        index.setdefault(w, len(index))
    return tuple(index), index


def check_usable(path: str | Path, code: str, vocab: tuple[Word, ...], line: int | None = None) -> None:
    """Refuse a vocabulary no run can use (no words, fewer than 2 symbols); `line` is where the
    language is named (a `.cog` header)."""
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
    lost_vocab, lost_index = vocabulary([w for row in table.rows for w in row[li]])
    known_vocab, known_index = vocabulary([w for row in table.rows for w in row[ki]])
    check_usable(table.path, table.codes[li], lost_vocab, line=1)
    check_usable(table.path, table.codes[ki], known_vocab, line=1)
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
        languages=tuple(Language(code) for code in table.codes),
    )


def restrict_to_paired(corpus: Corpus) -> Corpus:
    """Keep only lost words with a gold cognate and the known words paired with them.

    This is the paper's "noiseless" Ugaritic setting (lines that have both words); it uses the
    gold pairing to choose the vocabularies, as the published protocol does, not to train.
    """
    keep_lost = [i for i in range(len(corpus.lost_words)) if corpus.gold.get(i)]
    keep_known = sorted({j for i in keep_lost for j in corpus.gold[i]})
    known_map = {j: n for n, j in enumerate(keep_known)}
    return dataclasses.replace(
        corpus,
        lost_words=tuple(corpus.lost_words[i] for i in keep_lost),
        known_words=tuple(corpus.known_words[j] for j in keep_known),
        gold={n: frozenset(known_map[j] for j in corpus.gold[i]) for n, i in enumerate(keep_lost)},
        lost_glosses=tuple(corpus.lost_gloss(i) for i in keep_lost) if corpus.lost_glosses else (),
        known_glosses=tuple(corpus.known_gloss(j) for j in keep_known) if corpus.known_glosses else (),
    )
