"""docs/settings.md: every settings field in one table, made from the settings record itself
(session/settings_table.py), and kept equal to what the code says."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from tui_decipher.engine.run import config as config_module
from tui_decipher.engine.run.config import DecipherConfig
from tui_decipher.session import settings_table as table_module
from tui_decipher.session.settings_table import field_comments, settings_table

DOC = Path(__file__).resolve().parents[1] / "docs" / "settings.md"


def test_docs_settings_is_the_table_the_code_makes() -> None:
    assert DOC.read_text(encoding="utf-8") == settings_table(), (
        "docs/settings.md is out of date: python -m tui_decipher.session.settings_table > docs/settings.md"
    )


def test_every_field_has_one_row_with_its_default_range_and_comment() -> None:
    text = settings_table()
    for f in fields(DecipherConfig):
        assert text.count(f"| `{f.name}` |") == 1, f.name
    assert '| `corpus` | str | `"demo"` |' in text and "| `residual` | bool | `true` |" in text
    assert "| `lr` | float | `0.005` | 1e-07..1 |" in text
    assert "`alphabetic` \\| `syllabic` \\| `none`" in text  # a Literal's choices
    comments = field_comments()
    assert comments["norm_ratio"] == "r in g = min(r * |c| / |h|, 1)"  # the comment after the field
    assert comments["keep_better_model"].startswith("Keep the last round's model")  # the lines above it
    assert "---" not in comments["n_universal"]  # a section rule is not a field's comment
    assert all(comments[f.name] for f in fields(DecipherConfig)), "a field without a word of what it does"


def test_a_field_in_no_section_is_refused_not_left_out(monkeypatch) -> None:
    monkeypatch.setattr(table_module, "SECTION_OF", {k: v for k, v in config_module.SECTION_OF.items() if k != "lr"})
    with pytest.raises(ValueError, match="fields in no section: lr"):
        settings_table()
