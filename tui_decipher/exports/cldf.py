"""CLDF Wordlist: the reviewed cognates as a dataset pycldf writes and validates.

LanguageTable (the two languages, with the name and Glottocode the source gave), ParameterTable
(the concepts, as EDICTOR's CONCEPT), FormTable (each word once, with its Segments) and
CognateTable (one judgment per word of each cognate set, with its Alignment, and the columns
Alignment_Source, Score and Review). The export is a folder; an earlier export there is replaced.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
from pathlib import Path

from .base import ExportError, ExportFormat, ReviewedRun, Written, pairs_summary
from .cognate_sets import cognate_sets, sources_summary

METADATA = "Wordlist-metadata.json"


def _slug(text: str) -> str:
    """A CLDF ID (letters, digits, _ and -) made of `text`."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_") or "x"


def _tables(reviewed: ReviewedRun, include_all: bool) -> tuple[dict[str, list[dict]], str]:
    run = reviewed.run
    sets = cognate_sets(reviewed, include_all)
    lang_ids = {run.lost_code: _slug(run.lost_code), run.known_code: _slug(run.known_code)}
    if lang_ids[run.lost_code] == lang_ids[run.known_code]:
        lang_ids[run.known_code] += "_known"
    languages = []
    for code in (run.lost_code, run.known_code):
        lang = reviewed.language(code)
        languages.append(dict(ID=lang_ids[code], Name=lang.name or code, Glottocode=lang.glottocode or None))
    concepts: dict[str, str] = {}  # concept -> its Parameter ID
    forms: dict[tuple[bool, int], dict] = {}
    cognates = []
    for cset in sets:
        for member, aligned in zip(cset.members, cset.alignment, strict=True):
            code = run.lost_code if member.lost else run.known_code
            concept = cset.concept(member)
            concepts.setdefault(concept, f"concept-{len(concepts) + 1}")
            form_id = f"{lang_ids[code]}-{member.index + 1}"
            forms.setdefault((member.lost, member.index), dict(
                ID=form_id, Language_ID=lang_ids[code], Parameter_ID=concepts[concept], Form=member.text,
                Segments=member.tokens,
            ))  # fmt: skip
            cognates.append(dict(
                ID=f"{cset.id}-{form_id}", Form_ID=form_id, Cognateset_ID=str(cset.id), Alignment=aligned,
                Alignment_Source=cset.source, Score=round(cset.score(member), 6), Review=cset.status,
            ))  # fmt: skip
    tables: dict[str, list[dict]] = {
        "LanguageTable": languages,
        "ParameterTable": [dict(ID=pid, Name=name) for name, pid in concepts.items()],
        "FormTable": list(forms.values()),
        "CognateTable": cognates,
    }
    rows = reviewed.chosen(include_all)
    summary = f"{pairs_summary(rows, include_all)} in {len(sets)} cognate set(s); {sources_summary(sets)}"
    return tables, summary


def _dataset(folder: Path, reviewed: ReviewedRun, include_all: bool):
    from pycldf import Wordlist

    run = reviewed.run
    ds = Wordlist.in_dir(folder)
    ds.add_component("LanguageTable")
    ds.add_component("ParameterTable")
    ds.add_component("CognateTable")
    ds.add_columns(
        "CognateTable",
        {
            "name": "Alignment_Source",
            "dc:description": "What aligned the set: model (the method's reading), key, sca, msa or none",
        },
        {"name": "Score", "datatype": "decimal", "dc:description": "The method's confidence in the pair (0-1)"},
        {"name": "Review", "dc:description": "The review decision: accepted, rejected, unsure or open"},
    )
    what = "every proposal, with its decision" if include_all else "the accepted cognate pairs"
    ds.properties["dc:title"] = f"tui-decipher run #{run.id}: {run.corpus} ({run.lost_code} -> {run.known_code})"
    ds.properties["dc:description"] = (
        f"{what.capitalize()} of decipherment run #{run.id}, exported by tui-decipher from its review."
    )
    return ds


def write_cldf(reviewed: ReviewedRun, include_all: bool, folder: Path) -> Written:
    """Write the dataset into `folder` (created; an earlier CLDF export there is replaced), then
    validate it with pycldf."""
    folder = folder.expanduser()
    if folder.exists() and not folder.is_dir():
        raise ExportError(f"{folder}: exists and is a file; a CLDF export is a folder")
    if folder.is_dir() and any(folder.iterdir()) and not (folder / METADATA).is_file():
        raise ExportError(f"{folder}: a folder that is not a CLDF export; choose a new or empty folder")
    tables, summary = _tables(reviewed, include_all)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        ds = _dataset(tmp, reviewed, include_all)
        ds.write(**tables)
        log = logging.getLogger("tui_decipher.exports.cldf")
        if not ds.validate(log=log):
            raise ExportError(f"{folder}: pycldf finds the export invalid (a bug: please report it)")
        if folder.exists():
            shutil.rmtree(folder)
        tmp.rename(folder)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return Written(sorted(folder.iterdir()), summary)


FORMAT = ExportFormat(
    "cldf", "", "a CLDF Wordlist folder: LanguageTable, FormTable, CognateTable with alignments", write_cldf
)
