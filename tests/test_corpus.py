"""Tests for `.cog` and word-list parsing (tui_decipher.engine.corpora.corpus)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from tui_decipher.engine.corpora.corpus import (
    Corpus,
    CorpusError,
    graphemes,
    read_cog,
    read_cog_table,
    restrict_to_paired,
)
from tui_decipher.engine.corpora.formats.word_lists import read_word_lists


def write(tmp_path: Path, text: str | bytes, name: str = "c.cog") -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    return path


def w(text: str) -> tuple[str, ...]:
    return graphemes(text)


def gold_words(corpus: Corpus) -> dict[str, set[str]]:
    """Gold pairs as text: lost word -> its known cognates."""
    return {
        "".join(corpus.lost_words[i]): {"".join(corpus.known_words[j]) for j in js} for i, js in corpus.gold.items()
    }


def expect_error(path: Path, line: int | None, *fragments: str, **kwargs) -> CorpusError:
    with pytest.raises(CorpusError) as info:
        read_cog(path, **kwargs)
    err = info.value
    prefix = f"{path}:{line}:" if line is not None else f"{path}:"
    assert str(err).startswith(prefix), str(err)
    assert err.line == line
    assert err.path == str(path)
    for fragment in fragments:
        assert re.search(fragment, str(err), re.IGNORECASE), (fragment, str(err))
    assert "\n" not in str(err)
    return err


# ------------------------------------------------------------------------------- graphemes


def test_graphemes_combine_marks_and_normalise_nfc() -> None:
    decomposed = "e\u0303"  # e + combining tilde
    assert graphemes(decomposed) == ("\u1ebd",)  # NFC: one precomposed code point
    assert graphemes("\u1ebd") == graphemes(decomposed)
    # No precomposed form: the base letter keeps its mark, still one symbol.
    assert graphemes("\u025b\u0303") == ("\u025b\u0303",)
    # Several marks stack on one base.
    assert graphemes("a\u0303\u0301b") == (unicodedata.normalize("NFC", "a\u0303\u0301"), "b")


def test_graphemes_keep_separate_letters_separate() -> None:
    assert graphemes("t\u0283") == ("t", "\u0283")  # IPA tʃ is two symbols
    assert graphemes("abc") == ("a", "b", "c")
    assert graphemes("\U00010000\U00010001") == ("\U00010000", "\U00010001")  # Linear B: astral
    assert graphemes("") == ()


# ------------------------------------------------------------------------------- parsing


def test_header_codes_and_rows(tmp_path: Path) -> None:
    path = write(tmp_path, "uga\theb\nab\tcd\n")
    table = read_cog_table(path)
    assert table.codes == ("uga", "heb")
    assert table.rows == (((w("ab"),), (w("cd"),)),)
    assert table.line_numbers == (2,)
    corpus = read_cog(path)
    assert (corpus.lost_code, corpus.known_code) == ("uga", "heb")
    assert corpus.name == "c"
    assert corpus.source == str(path)


def test_alternatives_gaps_and_gold(tmp_path: Path) -> None:
    path = write(tmp_path, "x\ty\nab|ac\tbd|be|bf\n_\tcc\nad\t_\nae\tbd\n")
    corpus = read_cog(path)
    assert corpus.lost_words == (w("ab"), w("ac"), w("ad"), w("ae"))
    assert corpus.known_words == (w("bd"), w("be"), w("bf"), w("cc"))
    assert gold_words(corpus) == {
        "ab": {"bd", "be", "bf"},
        "ac": {"bd", "be", "bf"},
        "ad": set(),  # `_` on the other side: in the vocabulary, no cognate
        "ae": {"bd"},
    }
    assert corpus.n_gold_lost == 3
    assert corpus.has_gold
    # `cc` is only on a line whose lost cell is `_`: a known word, nobody's cognate.
    assert all(3 not in js for js in corpus.gold.values())


def test_repeated_word_keeps_one_entry_and_all_cognates(tmp_path: Path) -> None:
    path = write(tmp_path, "x\ty\nab\tpq\nac\tpr\nab\tps\nab|ac\tpq\n")
    corpus = read_cog(path)
    assert corpus.lost_words == (w("ab"), w("ac"))
    assert corpus.known_words == (w("pq"), w("pr"), w("ps"))
    assert gold_words(corpus) == {"ab": {"pq", "ps"}, "ac": {"pr", "pq"}}
    assert corpus.stats() == {
        "lost_words": 2,
        "known_words": 3,
        "lost_symbols": 3,
        "known_symbols": 4,
        "gold_lost_words": 2,
    }


TOY = "es\tfr\ten\nes1\tfr1\ten1\nes2\tfr2|fr3\ten2\nes3\tfr3\ten3\nes4\t_\ten4\n_\tfr4\ten2\n"


def test_columns_by_code_and_by_index(tmp_path: Path) -> None:
    path = write(tmp_path, TOY)
    default = read_cog(path)
    assert (default.lost_code, default.known_code) == ("es", "fr")
    by_code = read_cog(path, lost="en", known="fr")
    by_index = read_cog(path, lost=2, known=1)
    by_digit_string = read_cog(path, lost="2", known="1")
    for c in (by_code, by_index, by_digit_string):
        assert (c.lost_code, c.known_code) == ("en", "fr")
        assert c.lost_words == (w("en1"), w("en2"), w("en3"), w("en4"))
        assert c.known_words == (w("fr1"), w("fr2"), w("fr3"), w("fr4"))
        assert gold_words(c) == {
            "en1": {"fr1"},
            "en2": {"fr2", "fr3", "fr4"},  # en2 is on two lines
            "en3": {"fr3"},
            "en4": set(),
        }
    # Only `lost` given as column 1: `known` defaults to column 0, not to 1 again.
    c = read_cog(path, lost="fr")
    assert (c.lost_code, c.known_code) == ("fr", "es")
    assert gold_words(c)["fr3"] == {"es2", "es3"}
    es_en = read_cog(path, lost="es", known="en")
    assert gold_words(es_en) == {"es1": {"en1"}, "es2": {"en2"}, "es3": {"en3"}, "es4": {"en4"}}


def test_grapheme_clusters_in_cells(tmp_path: Path) -> None:
    path = write(tmp_path, "es\tpt\nte\u0303\tt\u0283a\nab\tba\n")
    corpus = read_cog(path)
    assert corpus.lost_words[0] == ("t", "\u1ebd")
    assert corpus.known_words[0] == ("t", "\u0283", "a")
    assert "\u1ebd" in corpus.lost_symbols()
    assert "e" not in corpus.lost_symbols()
    assert "\u0303" not in corpus.lost_symbols()
    assert corpus.known_symbols() == {"t", "\u0283", "a", "b"}


def test_crlf_bom_and_blank_lines(tmp_path: Path) -> None:
    text = "\ufeffx\ty\r\nab\tcd\r\n\r\n   \r\nba\tdc\r\n\n"
    path = write(tmp_path, text)
    table = read_cog_table(path)
    assert table.codes == ("x", "y")  # no BOM glued to the first code, no \r on the last
    assert table.line_numbers == (2, 5)
    corpus = read_cog(path, lost="x", known="y")
    assert corpus.lost_words == (w("ab"), w("ba"))
    assert corpus.known_words == (w("cd"), w("dc"))  # no trailing \r in the last column
    assert gold_words(corpus) == {"ab": {"cd"}, "ba": {"dc"}}


def test_no_trailing_newline(tmp_path: Path) -> None:
    corpus = read_cog(write(tmp_path, "x\ty\nab\tcd\nba\tdc"))
    assert corpus.lost_words == (w("ab"), w("ba"))


def test_restrict_to_paired(tmp_path: Path) -> None:
    path = write(tmp_path, "x\ty\nab\t_\nac\tpq|pr\n_\tps\nad\tpr\nae\tpt\n")
    full = read_cog(path)
    assert len(full.lost_words) == 4 and len(full.known_words) == 4
    paired = restrict_to_paired(full)
    assert paired.lost_words == (w("ac"), w("ad"), w("ae"))
    assert paired.known_words == (w("pq"), w("pr"), w("pt"))  # `ps` (nobody's cognate) dropped
    assert gold_words(paired) == {k: v for k, v in gold_words(full).items() if v}
    assert gold_words(paired) == {"ac": {"pq", "pr"}, "ad": {"pr"}, "ae": {"pt"}}
    assert paired.n_gold_lost == 3
    assert (paired.lost_code, paired.known_code) == (full.lost_code, full.known_code)
    assert paired.source == full.source


def test_read_word_lists(tmp_path: Path) -> None:
    lost = write(tmp_path, "\ufeffab\r\n\r\nac\nab\n  ad  \n", name="lost.txt")
    known = write(tmp_path, "pq\npe\u0303\n", name="known.txt")
    corpus = read_word_lists(lost, known, lost_code="uga", known_code="heb")
    assert corpus.lost_words == (w("ab"), w("ac"), w("ad"))  # duplicate kept once, blanks skipped
    assert corpus.known_words == (w("pq"), ("p", "\u1ebd"))
    assert (corpus.lost_code, corpus.known_code) == ("uga", "heb")
    assert corpus.name == "lost-known"
    assert not corpus.has_gold and corpus.n_gold_lost == 0


def test_word_list_errors(tmp_path: Path) -> None:
    good = write(tmp_path, "ab\nba\n", name="good.txt")
    missing = tmp_path / "missing.txt"
    with pytest.raises(CorpusError) as info:
        read_word_lists(missing, good)
    assert str(info.value).startswith(f"{missing}:") and "not found" in str(info.value)
    spaced = write(tmp_path, "ab\nb a\n", name="spaced.txt")
    with pytest.raises(CorpusError) as info:
        read_word_lists(good, spaced)
    assert str(info.value).startswith(f"{spaced}:2:") and "whitespace" in str(info.value)
    mono = write(tmp_path, "a\naa\n", name="mono.txt")
    with pytest.raises(CorpusError) as info:
        read_word_lists(good, mono)
    assert str(info.value).startswith(f"{mono}:") and "1 symbol" in str(info.value)
    blank = write(tmp_path, "\n\n", name="blank.txt")
    with pytest.raises(CorpusError, match="empty word list"):
        read_word_lists(blank, good)


# ------------------------------------------------------------------------------- errors


def test_error_missing_file(tmp_path: Path) -> None:
    expect_error(tmp_path / "nope.cog", None, "not found")


def test_error_directory(tmp_path: Path) -> None:
    (tmp_path / "d.cog").mkdir()
    expect_error(tmp_path / "d.cog", None, "directory")


def test_error_empty_file(tmp_path: Path) -> None:
    expect_error(write(tmp_path, b""), 1, "empty file")
    expect_error(write(tmp_path, "\n\nab\tcd\n", name="blankhead.cog"), 1, "empty file")


def test_error_header_only(tmp_path: Path) -> None:
    expect_error(write(tmp_path, "x\ty\n"), 1, "header only")
    expect_error(write(tmp_path, "x\ty\n\n\n", name="h2.cog"), 1, "header only")


def test_error_header_problems(tmp_path: Path) -> None:
    expect_error(write(tmp_path, "x\nab\n"), 1, "at least 2 languages")
    expect_error(write(tmp_path, "x\t\tz\nab\tcd\tef\n", name="e.cog"), 1, "bad language code")


def test_error_wrong_number_of_columns(tmp_path: Path) -> None:
    path = write(tmp_path, "x\ty\nab\tcd\n\nba\tdc\tee\nbb\tcc\n")
    expect_error(path, 4, "3 column", "header has 2")
    path = write(tmp_path, "x\ty\tz\nab\tcd\tef\nab\tcd\n", name="short.cog")
    expect_error(path, 3, "2 column", "header has 3")


def test_error_duplicate_language_code(tmp_path: Path) -> None:
    expect_error(write(tmp_path, "x\ty\tx\nab\tcd\tef\n"), 1, "duplicate", "'x'")


def test_error_invalid_utf8(tmp_path: Path) -> None:
    path = write(tmp_path, b"x\ty\nab\tcd\nab\tc\xff\n")
    expect_error(path, 3, "UTF-8", "0xff")
    # A multi-byte sequence cut short on line 2.
    path = write(tmp_path, b"x\ty\na\xc3\tcd\nab\tcd\n", name="cut.cog")
    expect_error(path, 2, "UTF-8")


def test_error_nul_byte(tmp_path: Path) -> None:
    expect_error(write(tmp_path, b"x\ty\nab\tcd\nab\tc\x00d\n"), 3, "NUL")


def test_error_word_with_space(tmp_path: Path) -> None:
    path = write(tmp_path, "x\ty\nab\tcd\nab\tc d\n")
    expect_error(path, 3, "whitespace", "'c d'")
    path = write(tmp_path, "x\ty\nab|cd e\tcd\n", name="alt.cog")
    expect_error(path, 2, "whitespace")


def test_error_empty_cell_and_empty_alternative(tmp_path: Path) -> None:
    expect_error(write(tmp_path, "x\ty\nab\tcd\nab\t\n"), 3, "empty cell")
    expect_error(write(tmp_path, "x\ty\nab\tcd||ef\n", name="alt.cog"), 2, "empty word")


def test_error_control_character(tmp_path: Path) -> None:
    expect_error(write(tmp_path, "x\ty\nab\tc\u200bd\n"), 2, "control character", "U\\+200B")


def test_error_unknown_language_code(tmp_path: Path) -> None:
    path = write(tmp_path, TOY)
    expect_error(path, 1, "lost language 'de'", "es, fr, en", lost="de")
    expect_error(path, 1, "known language 'it'", known="it")
    expect_error(path, 1, "known column 3 does not exist", "0-2", known=3)


def test_error_same_column(tmp_path: Path) -> None:
    path = write(tmp_path, TOY)
    expect_error(path, 1, "same column", "'fr'", lost="fr", known="fr")
    expect_error(path, 1, "same column", lost="es", known=0)


def test_error_language_with_one_symbol(tmp_path: Path) -> None:
    path = write(tmp_path, "x\ty\naa\tcd\na\tdc\n")
    expect_error(path, 1, "'x'", "1 symbol")
    path = write(tmp_path, "x\ty\nab\tcc\nba\tc\n", name="known.cog")
    expect_error(path, 1, "'y'", "1 symbol")


def test_error_language_with_no_words(tmp_path: Path) -> None:
    expect_error(write(tmp_path, "x\ty\n_\tcd\n_\tdc\n"), 1, "'x'", "no words")


# ------------------------------------------------------------------------------- real corpora


def test_real_ugaritic_small(shared_corpora: Path) -> None:
    corpus = read_cog(shared_corpora / "uga-heb.small.no_spe.cog")
    stats = corpus.stats()
    assert (stats["lost_words"], stats["known_words"]) == (735, 4103)
    assert stats["gold_lost_words"] == 221
    assert (stats["lost_symbols"], stats["known_symbols"]) == (30, 23)
    paired = restrict_to_paired(corpus)
    assert len(paired.lost_words) == 221 and paired.n_gold_lost == 221


def test_real_linear_b(shared_corpora: Path) -> None:
    corpus = read_cog(shared_corpora / "linear_b-greek.cog")
    stats = corpus.stats()
    assert (stats["lost_words"], stats["known_words"]) == (919, 1418)
    assert stats["gold_lost_words"] == 919
    assert (stats["lost_symbols"], stats["known_symbols"]) == (70, 28)
    assert all(0x10000 <= ord(s) <= 0x100FF for s in corpus.lost_symbols())


def test_real_romance_es_it(shared_corpora: Path) -> None:
    corpus = read_cog(shared_corpora / "romance-es-it-pt.cog", lost="es", known="it")
    assert (corpus.lost_code, corpus.known_code) == ("es", "it")
    stats = corpus.stats()
    assert (stats["lost_symbols"], stats["known_symbols"]) == (25, 31)
    assert 583 <= stats["lost_words"] <= 584 and 583 <= stats["known_words"] <= 584
    # IPA marks never stand alone as symbols.
    for sym in corpus.lost_symbols() | corpus.known_symbols():
        assert not unicodedata.combining(sym[0]), sym
        assert unicodedata.normalize("NFC", sym) == sym
