"""Which probe candidate auto keeps, and the phrase that says why (probe.py's `run_probes`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from ...channels.protocol import Channel
from .demand import DemandEstimate
from .pinned_folds import Fold
from .schedule import Probe, Schedule


class _Held(Protocol):
    """What the choice reads of a candidate's estimate (probe.py's `_Estimate`, which builds on this module)."""

    @property
    def held(self) -> DemandEstimate: ...


E = TypeVar("E", bound=_Held)


def _probe_why(
    schedule: Schedule, tried: list[_Tried[Any]], kept: int, single: bool = False,
    starts_of: list[list[dict[str, Any]]] | None = None,
) -> str:  # fmt: skip
    """Which probe was kept and why, in a phrase; empty where the schedule has one candidate and
    no start was chosen. `single`: whether the first probe was tried from a map only one syllable
    search start found; `starts_of`: each tried probe's search starts."""
    pins = any(t.pinned for t in tried)
    if len(schedule.probes) == 1 and len(tried) == 1:
        return ""

    def started(t: _Tried[Any]) -> str:
        if single:
            return " from the map one start found" if t.from_single else " from a random start"
        if pins:
            return " pinned to the syllable map" if t.pinned else " free to leave the syllable map"
        return ""

    chosen = tried[kept]
    probe, estimate = chosen.probe, chosen.estimate
    if len(tried) == 1:
        return (f"probe: {probe.objective} objective (up to {100 * estimate.held.share_upper():.0f}% of lost "
                f"words have a cognate, as it assumes)")  # fmt: skip
    others = ", ".join(
        f"the {t.probe.objective} probe{started(t)}'s {100 * t.estimate.held.wins / t.estimate.held.n_lost:.0f}%"
        for k, t in enumerate(tried) if k != kept
    )  # fmt: skip
    searched = ""
    if probe.search is not None:
        n = len(starts_of[kept]) if starts_of is not None else probe.search.starts
        where = f"from {n} starts" if n > 1 else "from the syllable search's map (one start)"
        searched = f", its map searched {where} on its training words"
    folds = ""
    compared = [t for t in tried if t.fold_wins]
    if len(compared) == 2:
        won, lost = sorted(compared, key=lambda t: t.ruled_out)
        splits = 1 + len(won.fold_wins)
        folds = (f"; over {splits} splits of the lost words the probe{started(won)}'s held-out words beat decoys "
                 f"{won.all_wins:g} times against {lost.all_wins:g}")  # fmt: skip
    return (f"probe: {probe.objective} objective{started(chosen)}{searched} (its held-out words beat decoys "
            f"{100 * estimate.held.wins / estimate.held.n_lost:.0f}% against {others}{folds})")  # fmt: skip


@dataclass(frozen=True)
class _Tried(Generic[E]):
    """A probe candidate as trained: its estimate and channel, and where it started: from the map
    only one syllable search start found (`from_single`), pinned to the syllable map (`pinned`). A pinned
    and a free candidate are also trained on more splits (pinned_folds.py, `folds`: their wins
    there are `fold_wins`), and whether the other won over every split (`ruled_out`: never kept)."""

    probe: Probe
    estimate: E
    channel: Channel
    from_single: bool = False
    pinned: bool = False
    folds: tuple[Fold, ...] = ()
    ruled_out: bool = False

    @property
    def fold_wins(self) -> tuple[float, ...]:
        """Its held-out wins on each other split."""
        return tuple(f.wins for f in self.folds)

    @property
    def all_wins(self) -> float:
        """Its held-out wins over every split it was compared on."""
        return self.estimate.held.wins + sum(self.fold_wins)
