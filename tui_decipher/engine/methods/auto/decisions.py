"""What auto chose and why (`AutoDecisions`, summary.json's `decisions`), the channel for two
scripts, and the settings auto starts from."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ...constraints.sign_values import SignValues
from ...run.config import SECTIONS, ChannelKind, DecipherConfig
from .scripts import ScriptProfile


@dataclass
class AutoDecisions:
    """What `auto` chose and why; summary.json's `decisions`."""

    script: dict[str, Any]
    channel_kind: str
    channel_why: str
    demand: dict[str, Any]
    capacity: int
    capacity_why: str
    steps: int
    capacity_evidence: dict[str, Any] = dataclasses.field(default_factory=dict)
    probes: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # each candidate's evidence
    probe_why: str = ""  # which probe was kept and why, where there was a choice
    syllables: dict[str, Any] = dataclasses.field(default_factory=dict)  # the syllable search, where it ran
    fit_check: dict[str, Any] = dataclasses.field(default_factory=dict)  # the fit against its probe (FitCheck)
    probe_share: float = 0.0  # the kept probe's share of the final costs beside the fit (ChannelBlend)
    reverse_share: float = 0.0  # the reverse channel's share of them (ChannelBlend with reverse)
    reverse_why: str = ""  # why no reverse channel was trained, where the schedule has one

    def line(self) -> str:
        """The decisions in one line, for the CLI summary and the TUI's run detail."""
        syllables = f"; {self.syllables['why']}" if self.syllables else ""
        probe = f"; {self.probe_why}" if self.probe_why else ""
        drift = f"; {self.fit_check['why']}" if self.fit_check and not self.fit_check["kept_fit"] else ""
        blend = f"; the probe weighs {100 * self.probe_share:.0f}% of the final costs" if self.probe_share else ""
        if self.reverse_share:
            blend += f"; both directions: the reverse channel weighs {100 * self.reverse_share:.0f}% of the final costs"
        elif self.reverse_why:
            blend += f"; {self.reverse_why}"
        return (
            f"auto: {self.channel_kind} channel ({self.channel_why}){syllables}{probe}; "
            f"{_demand_phrase(self.demand)}{drift}{blend}; C = {self.capacity} ({self.capacity_why})"
        )

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "line": self.line()}


def choose_channel(profile: ScriptProfile, signs: SignValues | None = None) -> tuple[ChannelKind, str]:
    """The channel for two scripts (and the scholar's known sign values, if any), with why."""
    share = f"{100 * profile.shared_share:.0f}% of lost symbols are known symbols"
    if signs is not None and signs.longest > 1:  # only the pieces channel writes a symbol from a syllable
        return "pieces", f"known sign values read symbols as syllables; {share}"
    if profile.one_alphabet:
        return "edit", f"one alphabet: {share}"
    return "pieces", f"two scripts: {share}"


def own_settings(cfg: DecipherConfig) -> DecipherConfig:
    """The settings auto starts from: the user's corpus, method and run sections (which corpus,
    auto's step budget, seed, device), every other field at its default, so that no preset,
    registry entry or stray flag tunes auto per corpus; auto then sets the fields it decides."""
    kept = {name: getattr(cfg, name) for section in ("corpus", "method", "run") for name in SECTIONS[section]}
    return DecipherConfig(**kept)


def _demand_phrase(d: dict[str, Any]) -> str:
    """'D = 383 of 485, 350-410 (why)', from a demand estimate's dict (`_Estimate.as_dict`)."""
    low, high = d.get("demand_low"), d.get("demand_high")
    allowed = f", the evidence allows {low}-{high}" if low is not None and high is not None and low != high else ""
    return f"D = {d['demand']} of {d['n_lost_all']}{allowed} ({d['why']})"


def refit_under(decisions: dict[str, Any], run_signs: SignValues, pinned: SignValues | None) -> bool:
    """Whether a refinement fits an auto run again rather than training its channel on: it brings
    sign values the run did not have (`run_signs`: its own), and the run searched its signs as syllables (`decisions
    ["syllables"]`). The map is then searched again under the values and the probes trained from
    it: where the search had found no map, the values are what it lacked; where it had found one,
    its channel (free to leave the map, or pinned to it) trained without them, and training on from
    there read 400-word generated syllabaries 8-10 points below a run given the values from its
    start (docs/pinning.md). A run with no search (an alphabet) trains on."""
    if not pinned:
        return False
    new = {(v.lost, v.known) for v in pinned.values} - {(v.lost, v.known) for v in run_signs.values}
    return bool(new) and bool(decisions.get("syllables"))


@dataclass(frozen=True)
class KeptDemand:
    """A refit's D, kept from the run it fits again: its share of the lost words, and the most lost
    words its evidence allowed to have a cognate (0: none read)."""

    share: float
    high: int


def kept_demand(state: dict[str, Any]) -> KeptDemand | None:
    """The D a refit keeps from the run it fits again (`refit_under`; `state`: the run's checkpoint
    state): the run's where its syllable search had found a map, so that a channel which read the
    signs read D (the values do not change which words have a cognate, and D read again under them
    reads high: docs/demand.md); None where it found none (its D was read by a channel that read no
    sign)."""
    decisions = state.get("decisions", {})
    demand = decisions.get("demand") or {}
    if not (decisions.get("syllables") or {}).get("used") or not demand.get("n_lost_all"):
        return None
    # D of every lost word, as the run proposed
    return KeptDemand(demand["demand"] / demand["n_lost_all"], int(state.get("demand_high", 0)))
