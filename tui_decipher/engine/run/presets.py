"""Presets: each is a base plus the few settings that differ, with a one-line why.

A preset names config fields (engine/run/config.py) only; `config.preset(name)` builds and validates
it. No preset is needed: the default `method = "auto"` decides from the word lists. The paper's
settings are the presets named `paper-*` (the paper's neural EM, per corpus). The measurements
behind these choices are in docs/experiments.md, with the bench commands that reproduce them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Preset:
    why: str  # one line: what the preset is for
    changes: dict[str, Any] = field(default_factory=dict)  # fields that differ from its base
    base: str | None = None  # the preset it builds on (None: the config defaults)


# The paper's EM as run here: the schedule that fits 15 minutes on 2 CPU cores. Round 1 learns the
# character map from the uniform flow (the slow part), later rounds restart from scratch on a
# concentrated flow; a stalled fresh M-step keeps the last round's model.
_PAPER_EM = Preset(
    "the paper's neural EM on a 2-core schedule",
    dict(method="neural", first_epochs=250, epochs=150, lr=0.01, keep_better_model=True, warmup_rounds=1),
)

DEFINITIONS: dict[str, Preset] = {
    "paper-em": _PAPER_EM,
    "demo": Preset(
        "a small model and schedule: the synthetic demo corpus is easy and finishes in a minute",
        dict(corpus="demo", method="neural", embed_dim=64, hidden_dim=64, n_universal=30, rounds=3, epochs=250,
             flow_decay=0.5, demand_step=0, cognate_fraction=0.85, warmup_rounds=1),
    ),
    "paper-ugaritic": Preset(
        "the paper's Ugaritic: trained on the 10% file, C = 3, gamma = 0.25, D grown by 75 a round",
        dict(corpus="ugaritic-small", capacity=3, flow_decay=0.25, cognate_fraction=0.3, demand_step=75, rounds=5,
             warmup_rounds=4),
        base="paper-em",
    ),
    "paper-ugaritic-noiseless": Preset(
        "Ugaritic's settings on the noiseless list, where every lost word has a cognate: D = N at once",
        dict(corpus="ugaritic-noiseless", cognate_fraction=1.0, demand_step=0, rounds=4, warmup_rounds=1),
        base="paper-ugaritic",
    ),
    "paper-linear-b": Preset(
        "a syllabary against an alphabet: Omega_2, n_u = 100, the paper's gamma = 0.9, D grown by 100",
        dict(corpus="linear-b", n_universal=100, regularizer="syllabic", flow_decay=0.9, cognate_fraction=1.0,
             demand_step=100, rounds=5, first_epochs=300, epochs=100),
        base="paper-em",
    ),
    "paper-linear-b-names": Preset(
        "Linear B's settings where about half the lost words have no named Greek counterpart",
        dict(corpus="linear-b-names", cognate_fraction=0.5),
        base="paper-linear-b",
    ),
    "paper-romance": Preset(
        "two Latin alphabets, one-to-one (C = 1), the published code's union of everyone's top 5",
        dict(corpus="romance", lost="es", known="it", sparsify="union-top-k", flow_decay=0.9, cognate_fraction=1.0,
             demand_step=0, rounds=4),
        base="paper-em",
    ),
}  # fmt: skip


# The paper's presets were named after their corpora before `method = "auto"` became the default;
# TOML files and scripts that name them so still get them.
ALIASES: dict[str, str] = {
    name: f"paper-{name}" for name in ("ugaritic", "ugaritic-noiseless", "linear-b", "linear-b-names", "romance")
}


def canonical(name: str) -> str:
    """A preset's name, its old name (`ALIASES`) mapped to the current one."""
    return ALIASES.get(name, name)


def resolve(name: str) -> dict[str, Any]:
    """A preset's fields, its bases' first (KeyError for an unknown name)."""
    entry = DEFINITIONS[name]
    return {**(resolve(entry.base) if entry.base else {}), **entry.changes}
