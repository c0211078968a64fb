"""The house's size limits (issue "The house, third pass"): no module of tui_decipher/ over 400
lines, no function over 60. A CLI command's Typer signature (one annotated parameter per flag) is
not counted, only its body; numba kernels (compiled loops, and the functions that compile them)
are exempt: a kernel split in two is two compiled calls."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tui_decipher"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _is_kernel(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Decorated with numba's njit, or compiling a kernel inside (it imports or calls njit)."""
    return any("njit" in ast.unparse(d) for d in node.decorator_list) or any(
        isinstance(n, ast.Name | ast.alias) and "njit" in (n.id if isinstance(n, ast.Name) else n.name)
        for n in ast.walk(node)
    )


def function_lengths(path: Path) -> list[tuple[str, int]]:
    """(name, lines) of each function in a module, as the limit counts them."""
    command = PACKAGE / "cli" in path.parents  # Typer commands: the body alone
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not _is_kernel(node):
            first = node.body[0].lineno if command else node.lineno
            assert node.end_lineno is not None
            out.append((node.name, node.end_lineno - first + 1))
    return out


def test_no_module_is_over_400_lines() -> None:
    lines = {str(p.relative_to(PACKAGE)): len(p.read_text(encoding="utf-8").splitlines()) for p in _modules()}
    long = {name: n for name, n in lines.items() if n > MAX_MODULE_LINES}
    assert not long, long


def test_no_function_is_over_60_lines() -> None:
    long = [f"{p.relative_to(PACKAGE)}:{name} ({n})" for p in _modules() for name, n in function_lengths(p)
            if n > MAX_FUNCTION_LINES]  # fmt: skip
    assert not long, long


def test_the_count_sees_a_long_function_and_spares_a_kernel(tmp_path: Path) -> None:
    """The limit's own check: a 61-line function is counted as 61, a kernel is not counted."""
    body = "\n".join(f"    x{i} = {i}" for i in range(60))
    source = f"def long():\n{body}\n\n@njit(cache=True)\ndef kernel():\n{body}\n"
    path = tmp_path / "module.py"
    path.write_text(source, encoding="utf-8")
    assert function_lengths(path) == [("long", 61)]
