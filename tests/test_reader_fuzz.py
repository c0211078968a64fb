"""Every reader fuzzed: any bytes in an EDICTOR TSV, a CLDF forms table or metadata, a review
decisions TSV, a sign values file or a config TOML give a result or one error line naming the
file, never a traceback or a hang, and write nothing beside the file read. (The .cog and word list
readers: test_corpus_properties.py; checkpoints: test_state_data.py; keymap.toml and planted
pickles in every file: test_safe_files.py.)"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tui_decipher.engine.constraints.sign_values import read_sign_values
from tui_decipher.engine.corpora.corpus import Corpus, CorpusError, read_cog
from tui_decipher.engine.corpora.formats import read_corpus_file
from tui_decipher.engine.run.config import ConfigError, build_config
from tui_decipher.session.review_io import RunVocabulary, read_judgments

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])  # fmt: skip
CORPUS = Path(__file__).parent / "data" / "v1_run.cog"

# Pieces that reach into the parsers: their headers and separators, quotes, gaps, broken UTF-8.
_PIECES = [b"\t", b"\n", b",", b'"', b"#", b"-", b"_", b"\r\n", b"\x00", b"\xff\xfe", b"\xc3", b"=", b"[", b"]",
           b"ID\tDOCULECT\tCONCEPT\tIPA\tTOKENS\tCOGID\n", b"ID,Language_ID,Parameter_ID,Form,Segments\n",
           b"lost\tknown\tdecision\n", b"lost\tknown\n", b"accepted", b"rejected", b"unsure", b"open",
           b"\xce\xb1\xce\xbb\xce\xb9\xce\xb3", b"isan", b"a b c", b"1", b"999999999999", b"[run]\n", b"seed = ",
           b"method = 'auto'\n", b'"dc:conformsTo": "http://cldf.clld.org/v1.0/terms.rdf#Wordlist"',
           b"{", b"}"]  # fmt: skip
_bytes = st.lists(st.sampled_from(_PIECES) | st.binary(max_size=6), max_size=25).map(b"".join)
# Tables of plausible cells, column by column, so rows get past the headers into the words.
# (A bad cell now and then: an empty language or form, a cognate set that is no number.)
_ID, _LANG, _CONCEPT = ["1"], ["ves", "kal"] * 8 + [""], ["water", "fire", "stone"]
_FORM, _TOKENS, _COGID = (
    ["ab", "ba", "bab", "a"] * 4 + ["_"],
    ["a b", "b a", "b a b", "a"] * 4 + [""],
    ["1", "2", "3"] * 5 + ["x"],
)
_EDICTOR = [_ID, _LANG, _CONCEPT, _FORM, _TOKENS, _COGID]  # ID DOCULECT CONCEPT IPA TOKENS COGID
_CLDF = [_ID, _LANG, _CONCEPT, _FORM, _TOKENS]  # ID Language_ID Parameter_ID Form Segments
_REVIEW = [["αλιγ", "ολι", "ραγρο", "x", ""], ["isan", "kupa", "tispo", "y", ""], ["accepted", "rejected", "maybe"]]


def _table(sep: str, columns: list[list[str]], numbered: bool = True) -> st.SearchStrategy[bytes]:
    """Rows of the columns' plausible cells (numbered 1, 2, ... where the first column is an ID),
    now and then a row of any text."""
    plausible = st.tuples(*[st.sampled_from(c) for c in columns])
    odd = st.lists(st.text(max_size=3), max_size=len(columns) + 1).map(tuple)
    rows = st.lists(st.sampled_from([0] * 15 + [1]).flatmap(lambda k: odd if k else plausible), min_size=1, max_size=12)

    def joined(table: list[tuple[str, ...]]) -> bytes:
        lines = [sep.join((str(n), *row[1:]) if numbered and row else row) for n, row in enumerate(table, start=1)]
        return "\n".join(lines).encode("utf-8", "surrogatepass")

    return rows.map(joined)


def _corpus() -> Corpus:
    return read_cog(CORPUS)


def _read_in(name: str, data: bytes, read: Callable[[Path], object], errors: tuple[type[Exception], ...]) -> None:
    """`read` the bytes as file `name` in a folder of its own: a result, or one error line naming
    the file; and nothing else in the folder afterwards."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        try:
            read(path)
        except errors as exc:
            text = str(exc)
            assert "\n" not in text.strip() and str(path) in text, text
        assert sorted(p.name for p in Path(folder).iterdir()) == [name]


@SETTINGS
@given(_bytes | _table("\t", _EDICTOR) | _table("\t", _EDICTOR))
def test_any_edictor_tsv_is_a_corpus_or_one_line(data: bytes) -> None:
    _read_in("words.tsv", b"ID\tDOCULECT\tCONCEPT\tIPA\tTOKENS\tCOGID\n" + data, read_corpus_file, (CorpusError,))


@SETTINGS
@given(_bytes | _table(",", _CLDF) | _table(",", _CLDF))
@example(b'1,1,1,"')  # an unclosed quote: the csv module's error, which is no ValueError
def test_any_cldf_forms_table_is_a_corpus_or_one_line(data: bytes) -> None:
    _read_in("forms.csv", b"ID,Language_ID,Parameter_ID,Form,Segments\n" + data, read_corpus_file, (CorpusError,))


@SETTINGS
@given(_bytes)
@example(b'""')  # JSON, but no metadata: no dc:conformsTo
def test_any_cldf_metadata_is_a_corpus_or_one_line(data: bytes) -> None:
    _read_in("Wordlist-metadata.json", data, read_corpus_file, (CorpusError,))


@pytest.fixture(scope="module")
def vocabulary() -> RunVocabulary:
    return RunVocabulary.of(_corpus())


@SETTINGS
@given(data=_bytes | _table("\t", _REVIEW, numbered=False))
def test_any_review_tsv_is_decisions_or_one_line(vocabulary, data: bytes) -> None:
    _read_in("review.tsv", b"lost\tknown\tdecision\n" + data, lambda p: read_judgments(p, vocabulary),
             (CorpusError, ValueError))  # fmt: skip


@SETTINGS
@given(_bytes)
def test_any_sign_values_file_is_values_or_one_line(data: bytes) -> None:
    corpus = _corpus()
    _read_in("signs.tsv", b"lost\tknown\n" + data, lambda p: read_sign_values(p, corpus), (CorpusError, ValueError))


@SETTINGS
@given(_bytes)
def test_any_config_toml_is_settings_or_one_line(data: bytes) -> None:
    _read_in("run.toml", data, lambda p: build_config(toml_path=p), (ConfigError,))


@SETTINGS
@given(_bytes | st.sampled_from([b"[keymap]\n", b'[keymap]\n"review.accept" = "y"\n', b"keymap = 3\n",
                                 b'[keymap]\n"a" = 1\n', b"[keymap.x]\ny = 'z'\n"]))  # fmt: skip
def test_any_keymap_is_bindings_or_one_line(data: bytes) -> None:
    from tui_decipher.tui.keymap import read_keymap

    def read(path: Path) -> None:
        keymap = read_keymap(path)
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in keymap.items())

    _read_in("keymap.toml", data, read, (ValueError,))


_RUN_FILES = ["checkpoint.pt", "summary.json", "proposals.tsv", "char_map.tsv", "run.log"]


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])  # fmt: skip
@given(files=st.dictionaries(st.sampled_from(_RUN_FILES), _bytes, min_size=1), refine=st.booleans())
def test_any_run_folder_is_refused_in_one_line_and_changes_nothing(tmp_path_factory, files, refine) -> None:
    """A folder someone sent, of any files under a run's names, resumed or refined into a branch:
    one line naming what is wrong, exit 2, the data folder as it was, no branch made."""
    from typer.testing import CliRunner

    from tui_decipher.cli import app

    root = tmp_path_factory.mktemp("sent")
    folder, data, branch = root / "run", root / "data", root / "branch"
    folder.mkdir()
    for name, content in files.items():
        (folder / name).write_bytes(content)
    args = ["run", "--refine", str(folder), "--out", str(branch)] if refine else ["run", "--resume", str(folder)]
    result = CliRunner().invoke(app, [*args, "--data-dir", str(data)])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in result.output, result.output
    assert sorted(p.name for p in folder.iterdir()) == sorted(files)
    assert not branch.exists() and not any(p.is_file() and "sqlite" not in p.name for p in data.rglob("*"))
