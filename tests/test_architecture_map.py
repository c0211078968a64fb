"""ARCHITECTURE.md is the current map (issue "The house, third pass", item 6): every folder and
module its tree ("Where things live") names exists where the tree puts it, every module its
descriptions name exists, and every package of tui_decipher/ is in the tree."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DESCRIPTION_COLUMN = 20  # tree lines name a folder or module before it; wrapped descriptions start after it


def tree_lines(text: str) -> list[str]:
    """The lines of the map's tree: the code block after "## Where things live"."""
    section = text.split("## Where things live", 1)[1]
    return section.split("```", 2)[1].strip("\n").splitlines()


def tree_paths(lines: list[str]) -> tuple[set[Path], set[str]]:
    """(the paths the tree's entries name, by their indentation; every module name anywhere in it)."""
    paths: set[Path] = set()
    stack: list[tuple[int, Path]] = []
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        entry = line.strip().split("  ", 1)[0]
        if indent >= DESCRIPTION_COLUMN or not re.fullmatch(r"[\w.]+/|[\w.]+\.(py|tcss)(, [\w.]+\.(py|tcss))*", entry):
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else ROOT
        for name in entry.split(", "):
            path = parent / name.rstrip("/")
            paths.add(path)
            if name.endswith("/"):
                stack.append((indent, path))
    mentioned = set(re.findall(r"\b(\w+\.py)\b", "\n".join(lines)))
    return paths, mentioned


def test_the_map_s_checks_find_a_missing_module_and_an_unnamed_package() -> None:
    # The checks must be able to fail: a named module that does not exist is found, and a folder's
    # entries resolve under it by their indentation.
    paths, mentioned = tree_paths(["tui_decipher/", "  session/", "    nowhere.py        gone", "  store/"])
    planted = ROOT / "tui_decipher" / "session" / "nowhere.py"
    assert planted in paths and not planted.exists()
    assert ROOT / "tui_decipher" / "store" in paths and mentioned == {"nowhere.py"}


def test_every_folder_and_module_the_map_names_exists() -> None:
    paths, mentioned = tree_paths(tree_lines((ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")))
    assert sorted(str(p.relative_to(ROOT)) for p in paths if not p.exists()) == []
    modules = {p.name for p in (ROOT / "tui_decipher").rglob("*.py")} | {p.name for p in ROOT.glob("assets/*.py")}
    assert sorted(mentioned - modules) == []


def test_every_package_is_on_the_map() -> None:
    paths, _ = tree_paths(tree_lines((ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")))
    packages = {p.parent for p in (ROOT / "tui_decipher").rglob("__init__.py")}
    assert sorted(str(p.relative_to(ROOT)) for p in packages - paths) == []
