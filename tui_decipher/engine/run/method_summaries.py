"""Each method's name, what it is in a few words and the settings it cannot run with, in
engine/methods' `METHODS` order: what `decipher run --help` says of them and what
`DecipherConfig.validate` refuses, read without importing the methods (and torch) that the methods
package imports, and without this package's settings importing the methods above it. Each method
class takes its `summary` from here; its settings rule lives here alone (`SETTINGS_RULES`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

SUMMARIES: dict[str, str] = {
    "auto": "the channel, D and C chosen from the word lists (the default)",
    "neural": "the paper's neural EM, as its presets run it",
    "channel": "a character channel alone, no neural model",
}


class Settings(Protocol):
    """The fields of a run's settings (`DecipherConfig`) a method's rule reads."""

    @property
    def method(self) -> str: ...

    @property
    def known_signs(self) -> str: ...

    @property
    def init_flow(self) -> str: ...


def _neural_settings(cfg: Settings) -> str | None:
    # Known sign values hold a character channel: the neural EM trains one only for its first flow.
    if cfg.known_signs and cfg.init_flow != "channel":
        return "known_signs constrain a character channel: use method auto or channel, or the neural EM with init_flow = channel"  # noqa: E501
    return None


# Per method, where its settings cannot run, why in one line (None: they can); a method missing runs any.
SETTINGS_RULES: dict[str, Callable[[Settings], str | None]] = {"neural": _neural_settings}


def settings_error(cfg: Settings) -> str | None:
    """Why `cfg` cannot run, in one line: an unknown method, or its method's rule (`SETTINGS_RULES`)."""
    if cfg.method not in SUMMARIES:
        return f"method = {cfg.method!r} is not one of {', '.join(SUMMARIES)}"
    rule = SETTINGS_RULES.get(cfg.method)
    return rule(cfg) if rule is not None else None
