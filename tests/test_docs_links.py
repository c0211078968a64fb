"""Every relative link in the project's Markdown (README, ARCHITECTURE, CHANGELOG, docs/, corpora/,
assets/) names a file or folder that exists, and every #anchor a heading of the file it points
into (issue "A linguist's tool", item 5: a docs link checker in CI)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")  # [text](target)


def _markdown() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "CHANGELOG.md"]
    return [f for f in files if f.exists()] + sorted(
        p for folder in ("docs", "corpora", "assets") for p in (ROOT / folder).rglob("*.md")
    )


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces as -."""
    heads = re.findall(r"^#+\s+(.*)$", path.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return {re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", h.strip().lower())) for h in heads}


def broken_links(path: Path) -> list[str]:
    """The relative links of `path` that lead nowhere, as 'file: target'."""
    out = []
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not checked here
            continue
        name, _, anchor = target.partition("#")
        dest = (path.parent / name) if name else path
        if not dest.exists() or (anchor and dest.suffix == ".md" and anchor not in _anchors(dest)):
            out.append(f"{path.relative_to(ROOT)}: {target}")
    return out


def test_every_relative_link_in_the_docs_leads_somewhere() -> None:
    files = _markdown()
    assert len(files) > 10  # README, ARCHITECTURE, CHANGELOG and docs/
    broken = [b for f in files for b in broken_links(f)]
    assert not broken, broken


def test_the_checker_sees_a_missing_file_and_a_missing_heading(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    (tmp_path / "other.md").write_text("# A heading, here\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[ok](other.md) [ok](other.md#a-heading-here) [gone](missing.md) [no](other.md#nowhere) "
                    "[web](https://example.org/x)\n", encoding="utf-8")  # fmt: skip
    assert broken_links(page) == ["page.md: missing.md", "page.md: other.md#nowhere"]
