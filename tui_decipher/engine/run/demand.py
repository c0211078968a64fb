"""D, the demand: how many lost words the flows pair with a known word. Decided here alone.

Every D a run trains or proposes at is a `Demand`, and `decide_demand` is its one writer. Where a
D comes from is its `source`:

- "settings": round(cognate_fraction x lost words), as many as C lets the known list take (the
  channel method and the neural EM; every run starts here);
- "estimate": auto's reading of the word lists (engine/methods/auto/demand.py), with the range the
  evidence allows;
- "given": the decipherer's count (`auto_demand`), the evidence's range kept beside it;
- "kept": a refinement or a refit keeps its run's (engine/methods/refinement.py; auto/decisions.py's
  `kept_demand`);
- "known list": one-to-one readings keep D to the known words (engine/methods/auto/capacity.py);
- "judgments": pairs the decipherer accepted past D raise it (a refinement's `judged_demand`).

The decipherer's boundary judgments settle D after a run from its stored ranking
(session/settled_demand.py), and say so in the run's decisions; a refinement of that run starts from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .config import MIN_COGNATE_FRACTION

DemandSource = Literal["settings", "estimate", "given", "kept", "known list", "judgments"]


@dataclass(frozen=True)
class Demand:
    """D and where it came from.

    `value`: D. `share`: D's share of the lost words, as the settings say it (cognate_fraction; an
    estimate's own share, unrounded). `low`, `high`: the range of D the evidence allows (0, 0: none
    read); the pairs past D up to `high` are read as pairs beyond D. `before`: D before the step
    that set this one (0: the first)."""

    value: int
    share: float
    source: DemandSource = "settings"
    low: int = 0
    high: int = 0
    before: int = 0

    @property
    def ranged(self) -> bool:
        return self.high > 0

    def given(self, count: int, n_lost: int) -> Demand:
        """The decipherer's count in place of this D (at most every lost word), its range kept."""
        value = min(count, n_lost)
        return decide_demand(n_lost, value / n_lost, "given", low=self.low, high=self.high, before=self)

    def kept(self, share: float, n_lost: int, high: int = 0) -> Demand:
        """A refit's D: `share` of the lost words, kept from the run it fits again, with the range's
        high end at least the run's (`high`)."""
        value = _count(share, n_lost)
        return decide_demand(n_lost, share, "kept", low=value, high=max(value, high), before=self)

    def kept_to(self, most: int, n_lost: int) -> Demand:
        """This D, at most `most` (the known list where each known word takes one); itself where it fits."""
        if self.value <= most:
            return self
        return decide_demand(n_lost, most / n_lost, "known list", low=self.low, high=self.high, before=self)

    def raised(self, added: int, n_lost: int) -> Demand:
        """This D plus `added` pairs accepted past it, at most every lost word; itself where none."""
        value = min(n_lost, self.value + added)
        if value == self.value:
            return self
        return decide_demand(n_lost, value / n_lost, "judgments", low=self.low, high=max(self.high, value), before=self)

    def as_dict(self) -> dict[str, int | float | str]:
        return {"value": self.value, "share": round(self.share, 4), "source": self.source, "low": self.low,
                "high": self.high, "before": self.before}  # fmt: skip


def _count(share: float, n_lost: int) -> int:
    return max(1, round(share * n_lost))


def decide_demand(
    n_lost: int, share: float, source: DemandSource = "settings", *, most: int | None = None,
    low: float | int | None = None, high: float | int | None = None, before: Demand | None = None,
) -> Demand:  # fmt: skip
    """D for `n_lost` lost words: round(`share` x n_lost), at least 1, at most `most` (default every
    lost word). `low`, `high`: the range the evidence allows, as shares of the lost words (floats)
    or as counts (ints); None or 0 where none was read. `before`: the D this one replaces."""
    value = max(1, min(most if most is not None else n_lost, n_lost, _count(share, n_lost)))

    def bound(end: float | int | None) -> int:
        if end is None or isinstance(end, int):
            return end or 0
        return _count(end, n_lost)

    share = max(MIN_COGNATE_FRACTION, share)
    return Demand(value, share, source, bound(low), bound(high), before.value if before else 0)


def settings_demand(fraction: float, capacity: int, n_lost: int, n_known: int) -> Demand:
    """The settings' D: `fraction` of the lost words, as many as `capacity` lets the known list take."""
    return decide_demand(n_lost, fraction, "settings", most=capacity * n_known)
