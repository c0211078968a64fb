"""The bench's settings catalogue and registry.

A *setting* names one experiment and the figures it reports beside the paper's. The catalogue is
data, one entry a setting, a module per family, in the order of the report's tables:

- `paper`: the paper's settings (`PAPER`), each with its experiment (`EXPERIMENTS`), rows (the
  paper's figure and the edit-distance baseline's reference), corpora and note;
- `variants`: one of those settings with a few config fields changed (`VARIANTS`: the paper's
  ablations, and the variants beyond the paper), run beside that setting's baseline; `extra=True`
  keeps an exploratory one out of the default bench;
- `generated`: auto on the corpora the bench writes (`GENERATED_SETTINGS`);
- `dev`: auto on the real development pairs, as they are and enciphered (`DEV`);
- `refine`: the simulated reviewer and the simulated scholar's known readings, per dataset and
  method (`REFINE`);
- `values`: auto given a scholar's sign values on generated syllabaries, against none (`VALUES`);
- bench/user_path.py: `decipher run` as a user runs it (`USER_SETTINGS`).

A new bench setting is one entry in its family's module; a new family is a module here and one
line in `CATALOGUE`. Plugins (modules named in $DECIPHER_BENCH_PLUGINS) add theirs with
`register`; `load_plugins` imports them.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence

from ..core import BenchError, BenchSetting
from ..user_path import USER_SETTINGS
from .dev import DEV
from .generated import GENERATED_SETTINGS
from .paper import PAPER
from .refine import REFINE
from .values import VALUES
from .variants import CHANNEL_INIT, VARIANTS, variant_setting

__all__ = [
    "CATALOGUE",
    "CHANNEL_INIT",
    "PAPER",
    "PLUGINS_ENV",
    "SETTINGS",
    "VARIANTS",
    "default_settings",
    "extra_settings",
    "load_plugins",
    "register",
    "validate_names",
]

PLUGINS_ENV = "DECIPHER_BENCH_PLUGINS"

# Every family's settings, in the order of the report's tables (and of `decipher bench --help`).
CATALOGUE: tuple[BenchSetting, ...] = (
    *PAPER,
    *map(variant_setting, VARIANTS),
    *GENERATED_SETTINGS,
    *DEV,
    *REFINE,
    *VALUES,
    *USER_SETTINGS,
)

SETTINGS: dict[str, BenchSetting] = {}


def register(setting: BenchSetting) -> BenchSetting:
    """Add (or replace) a setting in the registry; returns it."""
    SETTINGS[setting.name] = setting
    return setting


for _setting in CATALOGUE:
    register(_setting)


def load_plugins() -> None:
    """Import the modules named in $DECIPHER_BENCH_PLUGINS (they call `register`); a module already
    imported is not run again."""
    for name in filter(None, (n.strip() for n in os.environ.get(PLUGINS_ENV, "").split(","))):
        importlib.import_module(name)


def default_settings(include_extra: bool = False) -> list[str]:
    """What `decipher bench` runs without --only: every setting but the extra ones (all with
    `include_extra`), in registry order."""
    return [name for name, setting in SETTINGS.items() if include_extra or not setting.extra]


def extra_settings() -> list[str]:
    """The exploratory settings, run by `--all` or by name, in registry order."""
    return [name for name, setting in SETTINGS.items() if setting.extra]


def validate_names(names: Sequence[str] | None, include_extra: bool = False) -> list[str]:
    """The settings to run, in registry order: `names`, or the default set when there are none
    (see `default_settings`); an unknown name raises BenchError (one line)."""
    if not names:
        return default_settings(include_extra)
    unknown = [n for n in names if n not in SETTINGS]
    if unknown:
        raise BenchError(f"unknown bench setting {unknown[0]!r} (have: {', '.join(SETTINGS)})")
    wanted = set(names)
    return [n for n in SETTINGS if n in wanted]
