"""CLDF Wordlists (Lexibank's format), read with pycldf.

A dataset is named by its metadata JSON, by its folder (the metadata inside it, or inside its
`cldf/` folder as in a Lexibank repository), or by a metadata-free `forms.csv`. pycldf reads the
metadata and resolves the CLDF properties to the dataset's own column names; csvw (under pycldf)
parses and type-checks every cell, so its errors name the file and row. This module only picks
the two languages and turns their forms into a `Corpus`:

- languages: `--lost` / `--known` name a LanguageTable ID, a Glottocode, or a 0-based index in
  the LanguageTable's order (default: its first two); without a LanguageTable, the languages of
  the FormTable in the order they first appear;
- symbols: a form's Segments when it has them (so "kʷ" is one symbol; a "+" morpheme boundary is
  left out), else its Form split into grapheme clusters as a `.cog` word is;
- gold (for evaluation only): two forms are cognates when the CognateTable puts them in one
  cognate set; without a CognateTable, when they share a concept and a value of a `Cognacy`
  column (Lexibank's per-concept cognate classes; comma-separated values are several classes).
"""

from __future__ import annotations

import csv
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..corpus import Corpus, CorpusError, Language, Word, check_symbols, check_usable, choose_language, parse_word
from .base import CorpusFormat, gold_from_sets, segments, word_index

NAME = "CLDF Wordlist"
TERM = "http://cldf.clld.org/v1.0/terms.rdf#"
# csvw reports a bad cell as "path:line:column Column: problem".
_CSVW_ERROR = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+) (?P<problem>.*)$")


def sniff(path: Path) -> bool:
    """A folder, a metadata JSON, or a metadata-free CSV data file is taken for CLDF."""
    return path.is_dir() or path.suffix.lower() in (".json", ".csv")


def _metadata_file(folder: Path) -> Path | None:
    """The one CLDF metadata file in `folder` or `folder/cldf`; None when there is none."""
    from pycldf.terms import sniff as is_cldf_metadata

    for where in (folder, folder / "cldf"):
        found = sorted(p for p in where.glob("*.json") if is_cldf_metadata(p)) if where.is_dir() else []
        if len(found) > 1:
            names = ", ".join(p.name for p in found)
            raise CorpusError(where, None, f"holds {len(found)} CLDF datasets ({names}): name one metadata file")
        if found:
            return found[0]
    return None


def open_dataset(path: Path) -> Any:
    """The pycldf Dataset that `path` names, every problem a one-line CorpusError."""
    from pycldf import Dataset

    if not path.exists():
        raise CorpusError(path, None, "file not found")
    try:
        if path.is_dir():
            metadata = _metadata_file(path)
            if metadata is not None:
                return Dataset.from_metadata(metadata)
            if (path / "forms.csv").is_file():
                return Dataset.from_data(path / "forms.csv")
            problem = "is a directory without CLDF metadata (*-metadata.json) in it or in its cldf/"
            raise CorpusError(path, None, problem)
        if path.suffix.lower() == ".csv":
            return Dataset.from_data(path)
        return Dataset.from_metadata(path)
    except CorpusError:
        raise
    except csv.Error as exc:  # an unclosed quote: the csv module's own error, no ValueError
        raise CorpusError(path, None, f"not valid CSV ({_one_line(exc)})") from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:  # bad JSON, bad metadata, no module
        raise CorpusError(path, None, f"not a CLDF dataset pycldf can read ({_one_line(exc)})") from None
    except OSError as exc:
        raise CorpusError(path, None, f"cannot read ({exc.strerror or exc})") from None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _column(ds: Any, table: str, term: str) -> str | None:
    """The dataset's own name of the column with CLDF property `term` in `table` (None if absent)."""
    column = ds.get((table, TERM + term))
    return column.name if column is not None else None


def _rows(ds: Any, table: str) -> Iterator[tuple[Path, int, dict[str, Any]]]:
    """(file, line, row) of every row of a table, parsed and checked by csvw; a bad cell or a missing
    file is a CorpusError naming the file and line."""
    t = ds[table]
    path = Path(str(t.url.resolve(ds.directory)))
    with warnings.catch_warnings():  # csvw warns, then raises: the error alone is reported
        warnings.simplefilter("ignore")
        try:
            for fname, line, row in t.iterdicts(with_metadata=True):
                yield Path(str(fname)), line, row
        except FileNotFoundError:
            raise CorpusError(path, None, f"file not found (the metadata lists it as the {table})") from None
        except UnicodeDecodeError:
            raise CorpusError(path, None, "not valid UTF-8; save the file as UTF-8") from None
        except csv.Error as exc:
            raise CorpusError(path, None, f"not valid CSV ({_one_line(exc)})") from None
        except ValueError as exc:
            m = _CSVW_ERROR.match(_one_line(exc))
            if m:
                raise CorpusError(m["file"], int(m["line"]), m["problem"]) from None
            raise CorpusError(path, None, _one_line(exc)) from None


def _languages(ds: Any, forms: list[tuple[Path, int, dict[str, Any]]], lang_col: str) -> list[Language]:
    if "LanguageTable" in ds:
        id_col = _column(ds, "LanguageTable", "id") or "ID"
        name_col = _column(ds, "LanguageTable", "name")
        glotto_col = _column(ds, "LanguageTable", "glottocode")
        return [
            Language(str(row[id_col]), str(row.get(name_col) or "") if name_col else "",
                     str(row.get(glotto_col) or "") if glotto_col else "")
            for _, _, row in _rows(ds, "LanguageTable")
        ]  # fmt: skip
    seen = dict.fromkeys(str(row[lang_col]) for _, _, row in forms)
    return [Language(code) for code in seen]


def _concepts(ds: Any) -> dict[str, str]:
    """Parameter ID -> its name (the ID itself when the dataset has no ParameterTable or no name)."""
    if "ParameterTable" not in ds:
        return {}
    id_col = _column(ds, "ParameterTable", "id") or "ID"
    name_col = _column(ds, "ParameterTable", "name")
    return {
        str(row[id_col]): str((row.get(name_col) if name_col else None) or row[id_col])
        for _, _, row in _rows(ds, "ParameterTable")
    }


def _wordlist(path: Path) -> Any:
    """The CLDF dataset at `path` (`open_dataset`), refused unless it is a wordlist (a FormTable)."""
    ds = open_dataset(path)
    try:
        module = ds.module
    except (KeyError, ValueError, TypeError):  # metadata without dc:conformsTo (a bare JSON value)
        raise CorpusError(path, None, "not a CLDF dataset: its metadata names no CLDF module (dc:conformsTo)") from None
    if "FormTable" not in ds:
        raise CorpusError(path, None, f"a CLDF {module} dataset without a FormTable: not a wordlist")
    return ds


def read_cldf(
    path: str | Path, lost: str | int | None = None, known: str | int | None = None, name: str | None = None
) -> Corpus:
    """Read a CLDF Wordlist as a lost/known corpus (see the module's docstring)."""
    path = Path(path).expanduser()
    ds = _wordlist(path)
    form_id, lang_col, form_col, seg_col, concept_col = _form_columns(ds, path)
    forms = list(_rows(ds, "FormTable"))
    languages = _languages(ds, forms, lang_col)
    codes = [lang.id for lang in languages]
    where = "its LanguageTable" if "LanguageTable" in ds else "its FormTable"
    li, ki = _chosen_languages(ds, path, languages, lost, known, where)
    concepts = _concepts(ds)
    words: dict[str, tuple[str, Word]] = {}  # form ID -> (language, word), for the two languages
    glosses: dict[tuple[str, Word], list[str]] = {}
    cognacy = next((c.name for c in ds["FormTable"].tableSchema.columns if c.name.lower() == "cognacy"), None)
    sets: dict[str, list[str]] = {}  # cognate set -> its form IDs
    known_codes = set(codes)
    segmented = False
    for fname, line, row in forms:
        code = str(row[lang_col])
        if code not in known_codes:
            raise CorpusError(fname, line, f"language {code!r} is not in {where}")
        if code not in (codes[li], codes[ki]):
            continue
        word, from_segments = _form_word(fname, line, row, seg_col, form_col)
        segmented = segmented or from_segments
        fid = str(row[form_id])
        words[fid] = (code, word)
        concept = str(row.get(concept_col) or "") if concept_col else ""
        if concept:
            names = glosses.setdefault((code, word), [])
            if concepts.get(concept, concept) not in names:
                names.append(concepts.get(concept, concept))
        if cognacy and row.get(cognacy) and "CognateTable" not in ds:
            for value in str(row[cognacy]).split(","):
                if value.strip():
                    sets.setdefault(f"{concept}\t{value.strip()}", []).append(fid)
    if "CognateTable" in ds:
        _add_cognate_table(ds, path, {str(row[form_id]) for _, _, row in forms}, words, sets)
    lost_code, known_code = codes[li], codes[ki]
    lost_words = word_index(w for c, w in words.values() if c == lost_code)
    known_words = word_index(w for c, w in words.values() if c == known_code)
    check_usable(path, lost_code, tuple(lost_words))
    check_usable(path, known_code, tuple(known_words))
    gold = gold_from_sets(sets.values(), words, lost_code, lost_words, known_words)
    return Corpus(
        name=name or _dataset_name(ds, path),
        lost_code=lost_code,
        known_code=known_code,
        lost_words=tuple(lost_words),
        known_words=tuple(known_words),
        gold=gold,
        source=str(path),
        format=NAME,
        languages=tuple(languages),
        segmented=segmented,
        lost_glosses=tuple(" / ".join(glosses.get((lost_code, w), [])) for w in lost_words),
        known_glosses=tuple(" / ".join(glosses.get((known_code, w), [])) for w in known_words),
    )


def _form_columns(ds: Any, path: Path) -> tuple[str, str, str | None, str | None, str | None]:
    """The FormTable's ID, Language_ID, Form, Segments and Parameter_ID columns (by their CLDF
    properties); a FormTable without a language or without both Form and Segments is an error."""
    form_id = _column(ds, "FormTable", "id") or "ID"
    lang_col = _column(ds, "FormTable", "languageReference")
    form_col = _column(ds, "FormTable", "form")
    seg_col = _column(ds, "FormTable", "segments")
    if lang_col is None or (form_col is None and seg_col is None):
        raise CorpusError(path, None, "its FormTable has no Language_ID, or neither Form nor Segments")
    return form_id, lang_col, form_col, seg_col, _column(ds, "FormTable", "parameterReference")


def _chosen_languages(
    ds: Any, path: Path, languages: list[Language], lost: str | int | None, known: str | int | None, where: str
) -> tuple[int, int]:
    """The indices of the lost and the known language among `languages` (by ID or Glottocode;
    unnamed: the first two), never the same one."""
    codes = [lang.id for lang in languages]
    glottocodes = {lang.glottocode: lang.id for lang in languages if lang.glottocode}
    table_file = Path(str(ds["LanguageTable"].url.resolve(ds.directory))) if "LanguageTable" in ds else path
    li = choose_language(table_file, codes, lost, 0, "lost", where=where, aliases=glottocodes)
    ki = choose_language(table_file, codes, known, 1 if li != 1 else 0, "known", where=where, aliases=glottocodes)
    if li == ki:
        raise CorpusError(table_file, None, f"lost and known are the same language ({codes[li]!r})")
    return li, ki


def _form_word(
    fname: Any, line: int, row: dict[str, Any], seg_col: str | None, form_col: str | None
) -> tuple[Word, bool]:
    """A FormTable row's word, from its Segments where it has them (then True) or its Form."""
    symbols = segments(row.get(seg_col) or []) if seg_col else []
    text = str(row.get(form_col) or "") if form_col else ""
    if symbols:
        return check_symbols(fname, line, symbols, text or " ".join(symbols)), True
    if text:
        return parse_word(fname, line, text), False
    raise CorpusError(fname, line, "form has neither Form nor Segments")


def _add_cognate_table(
    ds: Any, path: Path, all_forms: set[str], words: dict[str, tuple[str, Word]], sets: dict[str, list[str]]
) -> None:
    """Add the CognateTable's sets (cognate set -> its form IDs) of the forms in `words` to `sets`;
    a row naming a form the FormTable lacks is an error."""
    ref = _column(ds, "CognateTable", "formReference")
    cset = _column(ds, "CognateTable", "cognatesetReference")
    if ref is None or cset is None:
        raise CorpusError(path, None, "its CognateTable has no Form_ID or no Cognateset_ID column")
    for fname, line, row in _rows(ds, "CognateTable"):
        fid = str(row[ref])
        if fid not in all_forms:
            raise CorpusError(fname, line, f"form {fid!r} is not in the FormTable")
        if fid in words and row.get(cset):
            sets.setdefault(str(row[cset]), []).append(fid)


def _dataset_name(ds: Any, path: Path) -> str:
    """The dataset's dc:identifier or the folder's name (a Lexibank repository's, past its cldf/)."""
    ident = ds.properties.get("rdf:ID") or ""
    if ident:
        return str(ident)
    folder = path if path.is_dir() else path.parent
    return folder.parent.name if folder.name == "cldf" else folder.name


FORMAT = CorpusFormat(NAME, sniff, read_cldf)
