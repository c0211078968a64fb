"""The engine's imports form no cycle, lazy and type-only ones included, and no engine folder
imports one above it (issue "The house, third pass", item 1). The graph is read from the source by
AST: every `import` and `from ... import` anywhere in a module (inside functions and `if
TYPE_CHECKING:` blocks too), a name imported from a package counted as its module where it is one."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tui_decipher"
# The engine's folders, lowest first: each imports only those before it (and itself).
LAYERS = ("corpora", "flow", "neural", "constraints", "evaluation", "run", "channels", "methods")


def _modules(root: Path) -> dict[str, Path]:
    out = {}
    for path in root.rglob("*.py"):
        name = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each module of the package at `root` and the package's modules it imports."""
    modules = _modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    imported.add(full if full in modules else base)
        graph[name] = {m for m in imported if m in modules and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _engine(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    prefix = "tui_decipher.engine"
    return {m: {t for t in deps if t.startswith(prefix)} for m, deps in graph.items() if m.startswith(prefix)}


def test_the_checks_find_a_lazy_and_a_type_only_import_cycle(tmp_path) -> None:
    # The checks below must be able to fail: a cycle closed inside a function and one closed under
    # TYPE_CHECKING are both found.
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "a.py").write_text("from .b import f\n", encoding="utf-8")
    (pkg / "b.py").write_text("def f():\n    from .a import g\n", encoding="utf-8")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import d\n")
    (pkg / "d.py").write_text("from . import c\n", encoding="utf-8")
    (pkg / "e.py").write_text("from .a import f\n", encoding="utf-8")  # imports into a cycle: not in one
    assert cycles(import_graph(pkg)) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.d"]]


def test_the_engine_s_imports_form_no_cycle() -> None:
    assert cycles(_engine(import_graph(PACKAGE))) == []


def test_no_engine_folder_imports_one_above_it() -> None:
    graph = _engine(import_graph(PACKAGE))

    def layer(module: str) -> int | None:
        parts = module.split(".")
        return LAYERS.index(parts[2]) if len(parts) > 2 and parts[2] in LAYERS else None

    folders = {p.name for p in (PACKAGE / "engine").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(LAYERS), "a new engine folder needs its place in LAYERS"
    upward = sorted(
        f"{m} -> {t}"
        for m, deps in graph.items()
        for t in deps
        if (a := layer(m)) is not None and (b := layer(t)) is not None and b > a
    )
    assert upward == []


# What the front ends may take from the engine directly: its public types and constants (events,
# settings and presets, the errors, a word's text, a reading's alignment, a run's result). Anything
# that does engine work (loading corpora, the methods, devices, generators) they reach through session/.
PUBLIC = {
    "tui_decipher.engine.run.events", "tui_decipher.engine.run.config", "tui_decipher.engine.run.presets",
    "tui_decipher.engine.run.method_summaries", "tui_decipher.engine.run.checkpoint",
    "tui_decipher.engine.constraints.judgments", "tui_decipher.engine.corpora.corpus",
    "tui_decipher.engine.channels.alignment", "tui_decipher.engine.methods.base",
}  # fmt: skip


def test_the_front_ends_reach_the_engine_through_session_but_for_its_public_types() -> None:
    graph = import_graph(PACKAGE)
    assert set(graph) >= PUBLIC  # each public module exists: a rename is not a silent pass
    fronts = [m for m in graph if m.startswith(("tui_decipher.tui", "tui_decipher.cli"))]
    reached = sorted(
        f"{m} -> {t}" for m in fronts for t in graph[m] if t.startswith("tui_decipher.engine") and t not in PUBLIC
    )
    assert reached == []
