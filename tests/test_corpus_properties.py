"""Property tests of the corpus parser: any bytes give a Corpus or one CorpusError, and
well-formed files round-trip (vocabularies in first-appearance order, gold = same-line pairs)."""

from __future__ import annotations

import tempfile
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui_decipher.engine.corpora.corpus import CorpusError, read_cog, read_cog_table
from tui_decipher.engine.corpora.formats.word_lists import read_word_list

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def corpus_file(data: bytes, name: str = "c.cog") -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        yield path


def _assert_one_line_error(err: CorpusError, path: Path) -> None:
    text = str(err)
    assert text.startswith(f"{path}:"), text
    assert err.path == str(path)
    assert err.line is None or err.line >= 1
    assert "\n" not in text and "\r" not in text
    assert err.problem.strip()


# ------------------------------------------------------------------------------- random bytes

# Fragments that reach deep into the parser: separators, gaps, BOMs, marks, broken UTF-8, NULs.
FRAGMENTS = [
    b"\t", b"\n", b"\r\n", b"|", b"_", b" ", b"ab", b"cd", b"x", b"y", b"\xef\xbb\xbf", b"\xff\xfe",
    b"\xff", b"\xc3", b"\x00", b"e\xcc\x83", "ʃ".encode(), "𐀀".encode(), "\u200b".encode(), b"0", b"1",
    b"[/b]", b"\x1b[31m",
]  # fmt: skip
fragments = st.lists(st.sampled_from(FRAGMENTS), max_size=60).map(b"".join)
messy_bytes = st.one_of(
    st.binary(max_size=400),
    fragments,
    # A good header first, so the rows and the column choice are reached more often.
    st.tuples(st.sampled_from([b"x\ty\n", b"x\ty\tab\n", b"0\t1\n"]), fragments).map(b"".join),
    # Nearly well-formed: a header and rows of 2 or 3 cells of words, gaps and odd bytes.
    st.tuples(
        st.sampled_from([b"x\ty\n", b"0\t1\n"]),
        st.lists(
            st.lists(
                st.lists(st.sampled_from([b"ab", b"c", b"_", b"|", b"e\xcc\x83", b" ", b"\xff"]), max_size=4),
                min_size=2,
                max_size=3,
            ).map(lambda cells: b"\t".join(map(b"".join, cells))),
            max_size=5,
        ).map(b"\n".join),
    ).map(b"".join),
)
column = st.one_of(st.none(), st.integers(-1, 4), st.sampled_from(["x", "y", "ab", "0", "1", "²", "_", ""]))


@SETTINGS
@given(data=messy_bytes, lost=column, known=column)
def test_any_bytes_give_a_corpus_or_a_corpus_error(data: bytes, lost, known) -> None:
    with corpus_file(data) as path:
        try:
            corpus = read_cog(path, lost, known)
        except CorpusError as err:
            _assert_one_line_error(err, path)
        else:
            assert corpus.lost_words and corpus.known_words
            assert len(corpus.lost_symbols()) >= 2 and len(corpus.known_symbols()) >= 2
            assert set(corpus.gold) == set(range(len(corpus.lost_words)))
            assert all(j < len(corpus.known_words) for js in corpus.gold.values() for j in js)


# "²" and "①" are str.isdigit() but not int(): they once escaped as a bare ValueError.
any_selector = st.one_of(
    st.none(), st.integers(-3, 5), st.text(max_size=3), st.sampled_from(["x", "y", "z", "1", "²", "①", "٣"])
)


@SETTINGS
@given(lost=any_selector, known=any_selector)
def test_any_column_choice_gives_a_corpus_or_a_corpus_error(lost, known) -> None:
    with corpus_file(b"x\ty\tz\nab\tcd\tef\nba\tdc\tfe\n") as path:
        try:
            corpus = read_cog(path, lost, known)
        except CorpusError as err:
            _assert_one_line_error(err, path)
            assert err.line == 1
        else:
            assert corpus.lost_code != corpus.known_code
            assert {corpus.lost_code, corpus.known_code} <= {"x", "y", "z"}


@SETTINGS
@given(data=messy_bytes)
def test_any_bytes_give_a_word_list_or_a_corpus_error(data: bytes) -> None:
    with corpus_file(data, "words.txt") as path:
        try:
            words = read_word_list(path)
        except CorpusError as err:
            _assert_one_line_error(err, path)
        else:
            assert words and len(set(words)) == len(words)
            assert all(w and not any(s.isspace() for s in w) for w in words)


# ------------------------------------------------------------------------------- well-formed files

BASES = ["a", "b", "t", "k", "\u0283", "\u025b", "\u03b1", "\U00010000", "\U00010001"]  # ʃ ɛ α, Linear B
MARKS = ["", "", "", "\u0303", "\u0301", "\u0303\u0301"]
symbol = st.tuples(st.sampled_from(BASES), st.sampled_from(MARKS)).map("".join)
word = st.lists(symbol, min_size=1, max_size=6).map(tuple)  # as written (marks may be decomposed)
cell = st.one_of(st.just(()), st.lists(word, min_size=1, max_size=3).map(tuple))  # () is written `_`
code = st.text("abcdefghijklmnopqrstuvwxyz-_0123456789", min_size=1, max_size=8).filter(
    lambda c: c != "_" and not c.isdigit()
)


def nfc_word(written: tuple[str, ...]) -> tuple[str, ...]:
    """What the parser should make of a written word: one NFC symbol per base + marks."""
    return tuple(unicodedata.normalize("NFC", s) for s in written)


@st.composite
def cog_tables(draw):
    codes = draw(st.lists(code, min_size=2, max_size=4, unique=True))
    rows = draw(st.lists(st.tuples(*[cell] * len(codes)), min_size=1, max_size=12))
    blanks = draw(st.lists(st.booleans(), min_size=len(rows), max_size=len(rows)))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    lines = ["\t".join(codes)]
    numbers = []
    for row, blank in zip(rows, blanks, strict=True):
        if blank:
            lines.append(draw(st.sampled_from(["", "  ", "\t"])))
        lines.append("\t".join("|".join("".join(w) for w in c) if c else "_" for c in row))
        numbers.append(len(lines))
    text = newline.join(lines) + draw(st.sampled_from(["", newline]))
    bom = draw(st.booleans())
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    li, ki = draw(st.permutations(range(len(codes))))[:2]
    by_code = draw(st.booleans())
    return data, codes, rows, numbers, (codes[li], codes[ki]) if by_code else (li, ki), (li, ki)


def first_appearance(words) -> list:
    out: list = []
    for w in words:
        if w not in out:
            out.append(w)
    return out


@SETTINGS
@given(table=cog_tables())
def test_well_formed_cog_round_trips(table) -> None:
    data, codes, rows, numbers, selectors, (li, ki) = table
    with corpus_file(data) as path:
        parsed = read_cog_table(path)
        assert parsed.codes == tuple(codes)
        assert parsed.line_numbers == tuple(numbers)
        assert parsed.rows == tuple(tuple(tuple(nfc_word(w) for w in c) for c in row) for row in rows)

        lost_vocab = first_appearance(nfc_word(w) for row in rows for w in row[li])
        known_vocab = first_appearance(nfc_word(w) for row in rows for w in row[ki])
        problems = [
            (codes[i], vocab)
            for i, vocab in ((li, lost_vocab), (ki, known_vocab))
            if len({s for w in vocab for s in w}) < 2
        ]
        try:
            corpus = read_cog(path, *selectors)
        except CorpusError as err:
            assert problems, str(err)
            bad_code, vocab = problems[0]
            assert err.line == 1 and f"language {bad_code!r}" in err.problem
            assert ("no words" if not vocab else "symbol") in err.problem
            return
        assert not problems
        assert (corpus.lost_code, corpus.known_code) == (codes[li], codes[ki])
        assert list(corpus.lost_words) == lost_vocab
        assert list(corpus.known_words) == known_vocab
        gold: dict[int, set[int]] = {i: set() for i in range(len(lost_vocab))}
        for row in rows:
            for lw in row[li]:
                for kw in row[ki]:
                    gold[lost_vocab.index(nfc_word(lw))].add(known_vocab.index(nfc_word(kw)))
        assert {i: set(js) for i, js in corpus.gold.items()} == gold


# ------------------------------------------------------------------------------- word lists


@SETTINGS
@given(
    entries=st.lists(st.one_of(word.map("".join), st.sampled_from(["", "  "])), max_size=30),
    pad=st.sampled_from(["", " ", "\t"]),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_word_list_round_trips(entries: list[str], pad: str, newline: str) -> None:
    data = newline.join(pad + e + pad for e in entries).encode("utf-8")
    expected = first_appearance(nfc_word(tuple(_clusters(e))) for e in entries if e.strip())
    with corpus_file(data, "words.txt") as path:
        try:
            words = read_word_list(path)
        except CorpusError as err:
            assert not expected and "empty word list" in str(err)
            return
        assert list(words) == expected


def _clusters(text: str) -> list[str]:
    """Split a generated word back into its written symbols (a base and the marks after it)."""
    out: list[str] = []
    for ch in text:
        if out and unicodedata.combining(ch):
            out[-1] += ch
        else:
            out.append(ch)
    return out
