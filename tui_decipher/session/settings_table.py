"""Every settings field as one Markdown table (docs/settings.md), made from the settings record
itself: each field's section, type or choices, default, allowed range and the comment written
beside it in engine/run/config.py. `python -m tui_decipher.session.settings_table` prints it; a
test keeps docs/settings.md equal to what it prints."""

from __future__ import annotations

import ast
import inspect
from typing import Any, get_args, get_origin, get_type_hints

from ..engine.run.config import SECTION_OF, SECTIONS, DecipherConfig, field_range, to_toml

HEADER = """# Settings

Every field of a run's settings, as `decipher run --set FIELD=VALUE`, a TOML file
(`decipher run --config FILE`: each field in its `[section]`, the method's at the top) and the New
run form take it. A preset (`decipher presets`) sets
some of them; what a run used is in its summary.json's `config`. An unknown name is answered with
the closest one. Made from engine/run/config.py by `python -m tui_decipher.session.settings_table`
(a test keeps this page equal to its output).
"""


def field_comments() -> dict[str, str]:
    """Each field's comment in the settings record's source: the comment lines just above it and
    the one after it on its line, joined (section rules left out)."""
    source = inspect.getsource(DecipherConfig)
    lines = source.splitlines()
    tree = ast.parse(source)
    cls = tree.body[0]
    assert isinstance(cls, ast.ClassDef)
    comments: dict[str, str] = {}
    for node in cls.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        above: list[str] = []
        k = node.lineno - 2  # the line above, 0-based
        while k >= 0 and lines[k].strip().startswith("#") and not lines[k].strip().startswith("# ---"):
            above.insert(0, lines[k].strip()[1:].strip())
            k -= 1
        line = lines[node.lineno - 1]
        after = line.split("  # ", 1)[1].strip() if "  # " in line else ""
        comments[node.target.id] = " ".join(part for part in (" ".join(above), after) if part)
    return comments


def _kind(hint: Any) -> str:
    choices = get_args(hint) if get_origin(hint) is not None else ()
    if choices and all(isinstance(c, str) for c in choices):  # a Literal
        return " \\| ".join(f"`{c}`" for c in choices)
    return getattr(hint, "__name__", str(hint))


def _bound(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def settings_table() -> str:
    """docs/settings.md: a table per section, a row per field."""
    hints = get_type_hints(DecipherConfig)
    comments = field_comments()
    # Each default as a TOML file writes it: the default settings' own `to_toml` lines.
    defaults = dict(line.split(" = ", 1) for line in to_toml(DecipherConfig()).splitlines() if " = " in line)
    parts = [HEADER]
    for section, names in SECTIONS.items():
        parts.append(f"\n## [{section}]\n\n| field | type | default | allowed | what it does |\n|---|---|---|---|---|")
        for name in names:
            allowed = field_range(name)
            span = f"{_bound(allowed[0])}..{_bound(allowed[1])}" if allowed else ""
            row = (f"`{name}`", _kind(hints[name]), f"`{defaults[name]}`", span, _cell(comments.get(name, "")))
            parts.append("| " + " | ".join(row) + " |")
    unlisted = sorted(set(hints) - set(SECTION_OF))
    if unlisted:  # a field no section names would be missing from the table: say so loudly
        raise ValueError(f"fields in no section: {', '.join(unlisted)}")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    print(settings_table(), end="")
