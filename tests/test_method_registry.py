"""Methods own what is theirs (engine/methods/): what a front end, the config, the registry or the
bench asks of a method is asked of the method, never decided by its name outside engine/methods/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tui_decipher.bench.experiments import QUICK_CHANNEL_STEPS, schedule
from tui_decipher.engine.methods import METHODS, method_for
from tui_decipher.engine.run.config import ConfigError, DecipherConfig

PACKAGE = Path(__file__).resolve().parents[1] / "tui_decipher"
_NAMES = "|".join(METHODS)
# A comparison of something named *method* with a method's name, either way round, or a membership test.
_BRANCH = re.compile(
    rf"method[^\n=!]{{0,30}}?(==|!=)\s*[\"']({_NAMES})[\"']"
    rf"|[\"']({_NAMES})[\"']\s*(==|!=)\s*\S*method"
    rf"|(?<!for )method\w*[\"')\]]*\s+(not\s+)?in\s*[(\[{{][^)\]}}]*[\"']({_NAMES})[\"']"
)


def _branches(text: str) -> list[str]:
    return [m.group(0) for m in _BRANCH.finditer(text)]


def test_the_branch_finder_finds_each_form_of_a_branch_on_a_method_name() -> None:
    # The check below must be able to fail: each form a branch on a method's name takes is found.
    for line in ('if cfg.method == "auto":', "if run.config.get('method', 'neural') != 'neural':",
                 'if "channel" == cfg.method:', 'if method in ("auto", "channel"):'):  # fmt: skip
        assert _branches(line), line
    for line in ('if cfg.init_flow == "channel":', 'method_for(cfg.method).keeps_rounds', 'kind == "edit"',
                 'for method in ("auto", "edit")'):  # fmt: skip
        assert not _branches(line), line


def test_no_module_outside_the_methods_branches_on_a_method_name() -> None:
    outside = [p for p in PACKAGE.rglob("*.py") if (PACKAGE / "engine" / "methods") not in p.parents]
    assert len(outside) > 50
    found = {str(p.relative_to(PACKAGE)): hits for p in outside if (hits := _branches(p.read_text("utf-8")))}
    assert found == {}


def test_a_config_names_a_registered_method_and_each_method_checks_its_own_settings() -> None:
    for name in METHODS:  # every registry name is a valid `method`, with the defaults
        DecipherConfig(method=name).validate()
    with pytest.raises(ConfigError, match=r"method = 'nope' is not one of auto, neural, channel"):
        DecipherConfig(method="nope").validate()
    # The neural EM takes known sign values only through a channel's first flow; the others take them.
    with pytest.raises(ConfigError, match="known_signs constrain a character channel"):
        DecipherConfig(method="neural", known_signs="signs.tsv").validate()
    for name in ("auto", "channel"):
        DecipherConfig(method=name, known_signs="signs.tsv").validate()


def test_each_method_says_how_it_runs_for_the_front_ends_and_the_bench() -> None:
    assert {name: (m.keeps_rounds, m.decides_demand) for name, m in METHODS.items()} == {
        "auto": (False, True), "neural": (True, False), "channel": (False, False),
    }  # fmt: skip
    assert all(m.summary and m.name == name for name, m in METHODS.items())
    # --quick cuts any channel a run trains: auto's steps, the channel's, the neural EM's first flow's.
    quick = {name: schedule(DecipherConfig(method=name, channel_steps=300), quick=True) for name in METHODS}
    assert quick["auto"].auto_steps == QUICK_CHANNEL_STEPS and quick["auto"].channel_steps == 300
    assert quick["channel"].channel_steps == QUICK_CHANNEL_STEPS
    assert quick["neural"].channel_steps == 300
    seeded = schedule(DecipherConfig(method="neural", init_flow="channel", channel_steps=300), quick=True)
    assert seeded.channel_steps == QUICK_CHANNEL_STEPS and method_for("neural").keeps_rounds
