"""Small CLDF and EDICTOR datasets, written by the tests themselves (pycldf / plain TSV).

Both hold the first rows of the demo corpus (Old Veshic `ves` and Kalenic `kal`, one concept a row)
and a third language (`oth`), so a reader has to pick two. Kalenic's "nd" is one segment, "ⁿd"
(a prenasalised stop), so a word's symbols are its segments, not its letters.
"""

from __future__ import annotations

from pathlib import Path

from tui_decipher.engine.corpora.corpus import graphemes

DEMO = Path(__file__).resolve().parents[1] / "corpora" / "demo.cog"
LANGUAGES = [("ves", "Old Veshic", "vesh1234"), ("kal", "Kalenic", "kale1234"), ("oth", "Othic", "othi1234")]


def demo_rows(n: int = 60) -> list[tuple[str | None, str | None]]:
    """The demo corpus's first n rows as (Veshic word or None, Kalenic word or None)."""
    lines = DEMO.read_text(encoding="utf-8").splitlines()[1 : n + 1]
    return [tuple(None if cell == "_" else cell for cell in line.split("\t")) for line in lines]  # type: ignore[misc]


def kal_segments(word: str) -> list[str]:
    """Kalenic segments: letters, with "nd" as the one segment "ⁿd"."""
    out: list[str] = []
    for ch in word:
        if ch == "d" and out and out[-1] == "n":
            out[-1] = "ⁿd"
        else:
            out.append(ch)
    return out


def segments(code: str, word: str) -> list[str]:
    return kal_segments(word) if code == "kal" else list(graphemes(word))


def forms(n: int = 60) -> list[dict]:
    """One dict per form: id, language, concept, form, segments, cogid (0: none)."""
    out = []
    for row, (ves, kal) in enumerate(demo_rows(n), start=1):
        cogid = row if ves and kal else 0
        for code, word in (("ves", ves), ("kal", kal)):
            if word:
                out.append(dict(language=code, concept=f"concept{row}", form=word, segments=segments(code, word),
                                cogid=cogid))  # fmt: skip
        if row <= 5 and kal:  # Othic: a few words, in no cognate set with the others
            out.append(dict(language="oth", concept=f"concept{row}", form=kal[::-1], segments=list(kal[::-1]), cogid=0))
    for n_form, form in enumerate(out, start=1):
        form["id"] = n_form
    return out


def expected(n: int = 60) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]], set[tuple[tuple, tuple]]]:
    """The Veshic and Kalenic vocabularies (as segments) and the gold pairs the readers should give."""
    rows = demo_rows(n)
    lost = [tuple(segments("ves", v)) for v, _ in rows if v]
    known = [tuple(segments("kal", k)) for _, k in rows if k]
    gold = {(tuple(segments("ves", v)), tuple(segments("kal", k))) for v, k in rows if v and k}
    return lost, known, gold


def write_cldf(folder: Path, n: int = 60, cognates: str = "table") -> Path:
    """A CLDF Wordlist (LanguageTable with Glottocodes, ParameterTable, FormTable with Segments and,
    with cognates="table", a CognateTable; "cognacy": a Lexibank-style Cognacy column instead; "none");
    returns its metadata file."""
    from pycldf import Wordlist

    ds = Wordlist.in_dir(folder)
    ds.add_component("LanguageTable")
    ds.add_component("ParameterTable")
    if cognates == "table":
        ds.add_component("CognateTable")
    if cognates == "cognacy":
        ds.add_columns("FormTable", "Cognacy")
    rows = forms(n)
    form_rows = []
    for f in rows:
        row = dict(ID=f"{f['language']}-{f['id']}", Language_ID=f["language"], Parameter_ID=f["concept"],
                   Form=f["form"], Segments=f["segments"])  # fmt: skip
        if cognates == "cognacy":
            row["Cognacy"] = str(f["cogid"]) if f["cogid"] else None
        form_rows.append(row)
    concepts = dict.fromkeys(f["concept"] for f in rows)
    tables = dict(
        LanguageTable=[dict(ID=code, Name=name, Glottocode=glotto) for code, name, glotto in LANGUAGES],
        ParameterTable=[dict(ID=c, Name=c.replace("concept", "meaning ")) for c in concepts],
        FormTable=form_rows,
    )  # fmt: skip
    if cognates == "table":
        tables["CognateTable"] = [
            dict(ID=f"cog-{f['id']}", Form_ID=f"{f['language']}-{f['id']}", Cognateset_ID=f"set{f['cogid']}")
            for f in rows if f["cogid"]
        ]  # fmt: skip
    ds.write(**tables)
    return folder / "Wordlist-metadata.json"


def edictor_text(n: int = 60, tokens: bool = True) -> str:
    """An EDICTOR wordlist: a comment, a metadata line, then ID, DOCULECT, CONCEPT, FORM, TOKENS, COGID."""
    header = ["ID", "DOCULECT", "CONCEPT", "FORM"] + (["TOKENS"] if tokens else []) + ["COGID"]
    lines = ["# written by the tests", "@author: tests", "\t".join(header)]
    for f in forms(n):
        cells = [str(f["id"]), f["language"], f"meaning {f['concept'][7:]}", f["form"]]
        cells += [" ".join(f["segments"])] if tokens else []
        lines.append("\t".join([*cells, str(f["cogid"])]))
    return "\n".join(lines) + "\n"


def write_edictor(path: Path, n: int = 60, tokens: bool = True) -> Path:
    path.write_text(edictor_text(n, tokens), encoding="utf-8")
    return path
