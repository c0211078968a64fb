"""The field's corpus formats (engine/corpora/formats/): CLDF Wordlists and EDICTOR/LingPy wordlists read back to
the same vocabularies and gold as the data written, and every bad file as one line naming file and row."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from formats_support import expected, write_cldf, write_edictor
from typer.testing import CliRunner

from tui_decipher.cli import app
from tui_decipher.engine.corpora.corpus import Corpus, CorpusError
from tui_decipher.engine.corpora.formats import format_of, read_corpus_file

runner = CliRunner()


def pairs(corpus: Corpus) -> set[tuple[tuple, tuple]]:
    return {(corpus.lost_words[i], corpus.known_words[j]) for i, js in corpus.gold.items() for j in js}


def check_same_as_written(corpus: Corpus) -> None:
    lost, known, gold = expected()
    assert list(corpus.lost_words) == lost and list(corpus.known_words) == known
    assert pairs(corpus) == gold and len(gold) == 28
    assert (corpus.lost_code, corpus.known_code) == ("ves", "kal") and corpus.segmented
    assert {s for w in corpus.known_words for s in w if len(s) > 1} == {"ⁿd"}  # one symbol of two characters


@pytest.fixture
def cldf(tmp_path: Path) -> Path:
    return write_cldf(tmp_path / "dataset")


# ------------------------------------------------------------------------------------ CLDF


def test_cldf_reads_back_the_written_vocabularies_and_gold(cldf: Path) -> None:
    corpus = read_corpus_file(cldf, "ves", "kal")
    check_same_as_written(corpus)
    assert corpus.format == "CLDF Wordlist" and corpus.name == "dataset"
    assert [lang.label() for lang in corpus.languages] == [
        "ves (Old Veshic, vesh1234)", "kal (Kalenic, kale1234)", "oth (Othic, othi1234)",
    ]  # fmt: skip
    assert corpus.known_glosses[0] == "meaning 1"  # the ParameterTable's name of the form's concept


@pytest.mark.parametrize(
    ("where", "lost", "known"),
    [("metadata", "vesh1234", "kale1234"), ("folder", None, None), ("folder", "0", "1"), ("lexibank", "ves", "kal")],
)
def test_cldf_languages_by_id_glottocode_or_index_from_the_metadata_or_a_folder(
    cldf: Path, tmp_path: Path, where: str, lost: str | None, known: str | None
) -> None:
    path = {"metadata": cldf, "folder": cldf.parent}.get(where)
    if where == "lexibank":  # a Lexibank repository: the dataset lies in its cldf/ folder
        shutil.copytree(cldf.parent, tmp_path / "lexibank-demo" / "cldf")
        path = tmp_path / "lexibank-demo"
    corpus = read_corpus_file(path, lost, known)
    check_same_as_written(corpus)
    assert corpus.name == ("lexibank-demo" if where == "lexibank" else "dataset")


def test_cldf_cognacy_column_gives_gold_within_a_concept(tmp_path: Path) -> None:
    corpus = read_corpus_file(write_cldf(tmp_path / "d", cognates="cognacy"), "ves", "kal")
    check_same_as_written(corpus)


def test_cldf_without_cognates_has_no_gold_and_other_pairs_can_be_read(tmp_path: Path) -> None:
    path = write_cldf(tmp_path / "d", cognates="none")
    assert not read_corpus_file(path).has_gold
    other = read_corpus_file(path, "oth", "kal")
    assert other.lost_code == "oth" and len(other.lost_words) == 5


def _rewrite(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(
    ("damage", "where", "line", "fragments"),
    [
        (lambda d: _rewrite(d / "forms.csv", "ves-3,", "ves 3,"), "forms.csv", 4, ("ID", "invalid")),
        (
            lambda d: _rewrite(d / "forms.csv", "kal-4,kal,", "kal-4,xyz,"),
            "forms.csv",
            5,
            ("'xyz'", "not in its LanguageTable"),
        ),
        (
            lambda d: _rewrite(d / "cognates.csv", ",ves-3,", ",ves-999,"),
            "cognates.csv",
            2,
            ("'ves-999'", "not in the FormTable"),
        ),
        (lambda d: _rewrite(d / "forms.csv", ",vesh,", ",,"), None, None, ()),  # harmless: no such text
        (lambda d: (d / "forms.csv").unlink(), "forms.csv", None, ("file not found",)),
        (
            lambda d: (d / "Wordlist-metadata.json").write_text("{not json", encoding="utf-8"),
            "Wordlist-metadata.json",
            None,
            ("not a CLDF dataset",),
        ),
        (lambda d: (d / "forms.csv").write_bytes(b"ID,Language_ID\n\xff\xfe,x\n"), "forms.csv", None, ("UTF-8",)),
    ],
    ids=["bad-id", "unknown-language", "unknown-form", "untouched", "missing-forms", "bad-json", "bad-encoding"],
)
def test_bad_cldf_files_are_one_line_naming_file_and_row(cldf, damage, where, line, fragments) -> None:
    damage(cldf.parent)
    if where is None:
        read_corpus_file(cldf, "ves", "kal")
        return
    with pytest.raises(CorpusError) as info:
        read_corpus_file(cldf, "ves", "kal")
    err = info.value
    assert Path(err.path).name == where and err.line == line, str(err)
    assert all(f in err.problem for f in fragments), str(err)
    assert "\n" not in str(err)


def test_cldf_language_not_found_lists_the_languages(cldf: Path) -> None:
    with pytest.raises(CorpusError) as info:
        read_corpus_file(cldf, "zzz", "kal")
    assert "lost language 'zzz' not in its LanguageTable (have: ves, kal, oth)" in str(info.value)
    assert info.value.path.endswith("languages.csv")
    with pytest.raises(CorpusError, match="same language"):
        read_corpus_file(cldf, "kal", "kale1234")


def test_a_folder_without_cldf_metadata_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(CorpusError, match="directory without CLDF metadata"):
        read_corpus_file(tmp_path / "empty")


def test_a_cldf_dataset_of_another_module_is_not_a_wordlist(tmp_path: Path) -> None:
    from pycldf import StructureDataset

    ds = StructureDataset.in_dir(tmp_path / "sd")
    ds.write(ValueTable=[dict(ID="1", Language_ID="ves", Parameter_ID="p", Value="x")])
    with pytest.raises(CorpusError, match="without a FormTable"):
        read_corpus_file(tmp_path / "sd" / "StructureDataset-metadata.json")


# ------------------------------------------------------------------------------------ EDICTOR


def test_edictor_reads_back_the_written_vocabularies_and_gold(tmp_path: Path) -> None:
    path = write_edictor(tmp_path / "words.tsv")
    assert format_of(path).name == "EDICTOR wordlist"
    corpus = read_corpus_file(path, "ves", "0")  # by DOCULECT or index
    check_same_as_written(corpus)
    assert corpus.known_glosses[0] == "meaning 1"
    # Languages in the order their DOCULECT first appears: the demo's first row has no Veshic word.
    assert [lang.id for lang in corpus.languages] == ["kal", "oth", "ves"]
    assert read_corpus_file(path, "1", "kal").lost_code == "oth"


def test_edictor_without_tokens_reads_the_form_as_graphemes(tmp_path: Path) -> None:
    corpus = read_corpus_file(write_edictor(tmp_path / "words.tsv", tokens=False), "ves", "kal")
    assert not corpus.segmented and ("n", "d") in {w[i : i + 2] for w in corpus.known_words for i in range(len(w))}


def test_edictor_tokens_drop_morpheme_boundaries_and_other_headers_are_lingpy_aliases(tmp_path: Path) -> None:
    path = tmp_path / "w.tsv"
    path.write_text(
        "ID\tLANGUAGE\tGLOSS\tIPA\tTOKENS\tCOGID\n1\tA\tfire\tignis\ti g n + i s\t1\n2\tB\tfire\tfwɔko\tf w ɔ k o\t1\n"
        "3\tA\twater\takʷa\ta kʷ a\t0\n4\tB\twater\takːwa\t\t0\n",
        encoding="utf-8",
    )
    corpus = read_corpus_file(path)
    assert corpus.lost_words == (("i", "g", "n", "i", "s"), ("a", "kʷ", "a"))
    assert corpus.known_words == (("f", "w", "ɔ", "k", "o"), ("a", "k", "ː", "w", "a"))  # no TOKENS: its IPA
    assert dict(corpus.gold) == {0: frozenset({0}), 1: frozenset()}  # COGID 0 is no set


EDICTOR_HEADER = "ID\tDOCULECT\tCONCEPT\tFORM\tTOKENS\tCOGID\n"


@pytest.mark.parametrize(
    ("text", "line", "fragments"),
    [
        (EDICTOR_HEADER + "1\tves\tc\tab\ta b\t1\n2\tkal\tc\tcd\n", 3, ("4 cell(s)", "header has 6")),
        (EDICTOR_HEADER + "1\tves\tc\tab\ta b\t1\n1\tkal\tc\tcd\tc d\t1\n", 3, ("ID 1 repeats", "line 2")),
        (EDICTOR_HEADER + "x\tves\tc\tab\ta b\t1\n", 2, ("ID 'x'",)),
        (EDICTOR_HEADER + "1\tves\tc\tab\ta b\tone\n", 2, ("COGID 'one'",)),
        (EDICTOR_HEADER + "1\t\tc\tab\ta b\t1\n", 2, ("empty DOCULECT",)),
        (EDICTOR_HEADER + "1\tves\tc\t\t\t1\n", 2, ("FORM/TOKENS", "no word")),
        ("# comment\nID\tDOCULECT\tCONCEPT\tCOGID\n1\tves\tc\t1\n", 2, ("DOCULECT, CONCEPT and one of TOKENS",)),
        (EDICTOR_HEADER, 1, ("header only",)),
        (EDICTOR_HEADER + "1\tves\tc\tab\ta b\t1\n2\tkal\tc\tcd\tc \x07\t1\n", 3, ("control character",)),
    ],
    ids=[
        "short-row",
        "repeated-id",
        "bad-id",
        "bad-cogid",
        "no-doculect",
        "no-word",
        "no-form-column",
        "header-only",
        "control-character",
    ],
)
def test_bad_edictor_files_are_one_line_naming_file_and_row(tmp_path, text, line, fragments) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CorpusError) as info:
        read_corpus_file(path)
    err = info.value
    assert err.path == str(path) and err.line == line, str(err)
    assert all(f in err.problem for f in fragments), str(err)


def test_edictor_unknown_doculect_and_bad_encoding(tmp_path: Path) -> None:
    path = write_edictor(tmp_path / "w.tsv")
    with pytest.raises(CorpusError, match=r"known language 'Greek' not in its DOCULECT column \(have: kal, oth, ves\)"):
        read_corpus_file(path, "ves", "Greek")
    path.write_bytes(EDICTOR_HEADER.encode() + "1\tves\tc\tcafé\tc a f é\t1\n".encode("latin-1"))
    with pytest.raises(CorpusError, match=r"w.tsv:2: not valid UTF-8"):
        read_corpus_file(path)


# ------------------------------------------------------------------------------------ dispatch and CLI


def test_formats_are_chosen_by_path_and_content(tmp_path: Path, cldf: Path) -> None:
    cog = tmp_path / "c.tsv"
    cog.write_text("ves\tkal\nab\tcd\nba\tdc\n", encoding="utf-8")  # a .cog table, whatever its suffix
    paths = (cldf, cldf.parent, cldf.parent / "forms.csv", write_edictor(tmp_path / "w.txt"), cog)
    names = [format_of(p).name for p in paths]
    assert names == ["CLDF Wordlist", "CLDF Wordlist", "CLDF Wordlist", "EDICTOR wordlist", "cog"]
    assert read_corpus_file(cldf.parent / "forms.csv", "ves", "kal").has_gold is False  # metadata-free: no cognates


def test_corpus_show_previews_cldf_and_edictor(cldf: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["corpus", "show", str(cldf), "--lost", "vesh1234", "--known", "kal"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "(CLDF Wordlist)" in out and "lost words: 34" in out and "gold lost words: 28" in out
    assert "languages: ves (Old Veshic, vesh1234), kal (Kalenic, kale1234), oth (Othic, othi1234)" in out
    assert "ρ α γ ρ ο  ~  t i ⁿd t o" not in out and "ραγρο" not in out  # segments are shown space-separated
    assert "ρ α γ ρ ο  ~  t i n t o   'meaning 2'" in out
    result = runner.invoke(app, ["corpus", "show", str(write_edictor(tmp_path / "w.tsv"))])
    assert result.exit_code == 0 and "(EDICTOR wordlist)" in result.output
    bad = runner.invoke(app, ["corpus", "show", str(cldf), "--lost", "nope"])
    assert bad.exit_code == 2 and "lost language 'nope'" in bad.output and len(bad.output.strip().splitlines()) == 1


def test_the_new_run_form_preview_shows_a_cldf_dataset(cldf: Path) -> None:
    from tui_decipher.tui.widgets.corpus_preview import summarize_corpus

    summary = summarize_corpus(str(cldf), "ves", "kal")
    assert summary.ok and "(CLDF Wordlist, segmented)" in summary.text and "ρ α γ ρ ο  ~  t i n t o" in summary.text
    bad = summarize_corpus(str(cldf), "nope", "")
    assert not bad.ok and "not in its LanguageTable" in bad.text


def test_importing_the_cli_loads_neither_pycldf_nor_lingpy() -> None:
    import subprocess
    import sys

    code = "import sys, tui_decipher.cli; print(sorted(m for m in ('pycldf', 'lingpy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_lingpy_is_imported_without_touching_the_root_logger() -> None:
    import subprocess
    import sys

    code = (
        "import logging\nfrom tui_decipher.engine.corpora.formats.lingpy_import import lingpy\nlingpy()\n"
        "print(len(logging.getLogger().handlers), logging.getLogger('lingpy').getEffectiveLevel())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0 30" and "INFO" not in out.stderr


def test_registry_corpora_still_read_as_cog(tmp_path: Path) -> None:
    result = runner.invoke(app, ["corpus", "show", "demo"])
    assert result.exit_code == 0 and "columns: ves, kal" in result.output


def test_decipher_run_on_a_bad_file_of_each_format_is_one_line_and_exit_2(cldf: Path, tmp_path: Path, data_dir) -> None:
    bad_tsv = tmp_path / "bad.tsv"
    bad_tsv.write_text(EDICTOR_HEADER + "1\tves\tc\tab\ta b\t1\n1\tkal\tc\tcd\tc d\t1\n", encoding="utf-8")
    _rewrite(cldf.parent / "forms.csv", "kal-4,kal,", "kal-4,xyz,")
    for path, where in ((bad_tsv, f"{bad_tsv}:3: ID 1 repeats"), (cldf, "forms.csv:5: language 'xyz'")):
        result = runner.invoke(app, ["run", "--corpus", str(path), "--quiet", "--out", str(tmp_path / "out")])
        assert result.exit_code == 2, result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and where in lines[0] and "Traceback" not in result.output
    assert not (tmp_path / "out").exists() and not (data_dir / "decipher.sqlite3").exists()
