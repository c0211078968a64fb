"""EDICTOR / LingPy wordlist: one row per word of each cognate set, written by lingpy.

Columns: ID, DOCULECT (the language code), CONCEPT (the word's concept in the source, else its
cognate's, else its known cognate's form), FORM, TOKENS, COGID (one per cognate set), ALIGNMENT
(exports/alignment.py), and beside them SCORE (the method's confidence in the pair), STATUS (the
review decision) and ALIGNMENT_SOURCE (model, key, sca, msa or none). EDICTOR opens it as it
is, so the review goes on there; `lingpy.Wordlist` and `lingpy.Alignments(ref="cogid")` read it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..engine.corpora.formats.lingpy_import import lingpy
from .base import ReviewedRun, pairs_summary, text_format
from .cognate_sets import cognate_sets, sources_summary

COLUMNS = ["doculect", "concept", "form", "tokens", "cogid", "alignment", "score", "status", "alignment_source"]


def export_edictor(reviewed: ReviewedRun, include_all: bool = False) -> tuple[str, str]:
    """The wordlist as text, and a one-line summary of what it holds."""
    run = reviewed.run
    sets = cognate_sets(reviewed, include_all)
    table: dict[int, list] = {0: COLUMNS}
    for cset in sets:
        for member, aligned in zip(cset.members, cset.alignment, strict=True):
            code = run.lost_code if member.lost else run.known_code
            table[len(table)] = [
                code, cset.concept(member), member.text, member.tokens, cset.id, aligned,
                f"{cset.score(member):.6f}", cset.status, cset.source,
            ]  # fmt: skip
    if len(table) == 1:  # lingpy needs a row; an export of nothing is its header alone
        return "ID\t" + "\t".join(c.upper() for c in COLUMNS) + "\n", "0 pairs"
    wordlist = lingpy().Wordlist(table)
    with tempfile.TemporaryDirectory() as tmp:  # lingpy writes files only: FILENAME.tsv
        base = Path(tmp) / "export"
        wordlist.output("tsv", filename=str(base), ignore="all", prettify=False)
        text = base.with_suffix(".tsv").read_text(encoding="utf-8")
    rows = reviewed.chosen(include_all)
    return text, f"{pairs_summary(rows, include_all)} in {len(sets)} cognate set(s); {sources_summary(sets)}"


FORMAT = text_format(
    "edictor", ".tsv", "an EDICTOR/LingPy wordlist: a COGID per cognate set, TOKENS and ALIGNMENT", export_edictor
)
