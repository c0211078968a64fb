"""D is decided in one place (issue "The house, third pass", item 2): `engine/run/demand.py`'s
`decide_demand` makes every `Demand`, each step says its source, and no other module builds one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tui_decipher.engine.run.demand import decide_demand, settings_demand

PACKAGE = Path(__file__).resolve().parents[1] / "tui_decipher"


def test_the_settings_d_is_the_fraction_kept_to_what_c_lets_the_known_list_take() -> None:
    assert settings_demand(0.5, 1, 120, 400).value == 60
    assert settings_demand(1.0, 1, 120, 50).value == 50  # C = 1: at most one pair a known word
    assert settings_demand(1.0, 2, 120, 50).value == 100
    assert settings_demand(0.001, 1, 120, 50).value == 1  # never none
    d = settings_demand(0.5, 1, 120, 400)
    assert (d.source, d.ranged, d.before, d.share) == ("settings", False, 0, 0.5)


def test_an_estimate_carries_its_range_and_each_step_says_what_it_replaced() -> None:
    estimate = decide_demand(200, 0.4, "estimate", low=0.3, high=0.6)
    assert (estimate.value, estimate.low, estimate.high, estimate.ranged) == (80, 60, 120, True)
    given = estimate.given(500, 200)  # more than every lost word: every lost word
    assert (given.value, given.source, given.before, given.low, given.high) == (200, "given", 80, 60, 120)
    kept = estimate.kept(0.25, 200, high=90)
    assert (kept.value, kept.source, kept.low, kept.high, kept.share) == (50, "kept", 50, 90, 0.25)
    assert estimate.kept(0.25, 200).high == 50  # no range kept: D itself is the most
    capped = estimate.kept_to(70, 200)
    assert (capped.value, capped.source, capped.before, capped.share) == (70, "known list", 80, 0.35)
    assert estimate.kept_to(80, 200) is estimate  # a D that fits stays as it was decided
    raised = capped.raised(60, 200)  # pairs accepted past D, the range's high end at least D
    assert (raised.value, raised.source, raised.before, raised.high) == (130, "judgments", 70, 130)
    assert capped.raised(0, 200) is capped
    assert estimate.raised(500, 200).value == 200


@pytest.mark.parametrize("share", [0.0, 1e-6, 0.5, 1.0, 3.0])
def test_decide_demand_keeps_d_between_one_and_every_lost_word(share: float) -> None:
    d = decide_demand(37, share, "estimate")
    assert 1 <= d.value <= 37 and d.share >= 0.001 and not d.ranged


def demand_builders(root: Path, home: Path) -> list[str]:
    """Every call of `Demand(...)` in the modules under `root` but `home`, as 'path:line'."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == home:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "Demand":
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_no_module_but_run_demand_builds_a_demand() -> None:
    assert not demand_builders(PACKAGE, PACKAGE / "engine" / "run" / "demand.py")


def test_the_check_sees_a_planted_builder(tmp_path) -> None:
    (tmp_path / "demand.py").write_text("class Demand: ...\nd = Demand()\n", encoding="utf-8")
    (tmp_path / "other.py").write_text("from . import demand\nd = demand.Demand(3, 0.1)\n", encoding="utf-8")
    assert demand_builders(tmp_path, tmp_path / "demand.py") == ["other.py:2"]
    assert demand_builders(tmp_path, tmp_path / "other.py") == ["demand.py:2"]
