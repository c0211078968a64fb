"""D settled by the decipherer's judgments (issue "D the decipherer settles", its second part).

A run ranks its pairs: its D proposals, then the pairs past D up to the most the evidence allows
(`demand_high`). What the run cannot tell by itself is where down that ranking the correct pairs
end; the decipherer's judgments can. The model: the pair at rank r is correct with probability

    p(r) = h * sigmoid((c - r) / w)

c the rank where the correct pairs end (precision there half its top), w how gradually the ranking
declines there, h its precision at the top. The run's own evidence is the prior on c: its D as
the median, with the range it allows read as two standard deviations either side (the range is
D's z = 2 interval, engine/methods/auto/demand.py's `share_range`); w and h are uniform over a grid. Each
judged pair of the ranking (accepted: correct, rejected: not; unsure and open pairs say nothing)
multiplies in its Bernoulli likelihood, and the settled D is the posterior median of c. With no
judgment it is the run's own D, so a run nobody judged keeps its proposals.

Pure arithmetic on the stored ranking (no training, no costs read again): it runs in milliseconds on
the full Ugaritic list, each time a judgment arrives.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.evaluation.metrics import proposal_scores
from ..store import ACCEPTED, FINISHED, REJECTED, RankedPair, RunRow, Store, StoreError
from .boundary import demand_range
from .results import calibration_rows, write_atomic

# How gradually the ranking's precision falls, as a share of D: from nearly a step (3% of D) to a
# decline spread over about the whole ranking (30% of D, four widths from top to bottom).
WIDTHS = (0.03, 0.1, 0.3)
# The ranking's precision at the top: from a poor ranking's to a sure one's. Below a coin's too: on a
# small real list the top pairs can be mostly wrong, and a grid that stops at 0.5 can explain that
# only by a boundary near the top (docs/settled-demand.md, "A poor ranking's top").
TOPS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)
MAX_BOUNDARIES = 2000  # the ranks c is evaluated at, at most (evenly spread on a long ranking)
Z = 2.0  # the run's range is D's z = 2 interval (demand.py's `share_range`)


@dataclass(frozen=True)
class SettledDemand:
    """D before and after the judgments, the range the posterior allows, and how many pairs it read."""

    before: int  # the run's own D
    demand: int  # the settled D: the posterior median of c
    low: int  # the posterior's 5% and 95% quantiles of c
    high: int
    judged: int  # judged pairs of the ranking (accepted or rejected)
    accepted: int

    @property
    def changed(self) -> bool:
        return self.demand != self.before

    def line(self) -> str:
        """'D 505 -> 462 (20 judged; 440-480 likely)', the footer's and the CLI's words."""
        if not self.judged:
            return f"D {self.before} (no pair of the ranking judged yet)"
        move = f"D {self.before} -> {self.demand}" if self.changed else f"D {self.demand} kept"
        return f"{move} ({self.judged} judged, {self.accepted} accepted; {self.low}-{self.high} likely)"

    def as_dict(self) -> dict[str, int]:
        return {"before": self.before, "demand": self.demand, "low": self.low, "high": self.high,
                "judged": self.judged, "accepted": self.accepted}  # fmt: skip


def settle_demand(
    statuses: Sequence[str], demand: int, low: int | None = None, high: int | None = None
) -> SettledDemand:
    """The settled D (the module's docstring) from the review statuses of the ranking, best first
    (the proposals, then the pairs past D), the run's D and the range its evidence allows (`low`,
    `high`; none: the whole ranking)."""
    n = len(statuses)
    demand = max(1, min(demand, max(n, 1)))
    low = max(1, min(low if low is not None else 1, demand))
    high = max(demand, high if high is not None else n)
    ranks = np.arange(1, n + 1, dtype=np.float64)
    judged = np.array([s in (ACCEPTED, REJECTED) for s in statuses], dtype=bool)
    right = np.array([s == ACCEPTED for s in statuses], dtype=bool)
    if not judged.any() or n == 0:
        return SettledDemand(demand, demand, low, high, 0, 0)
    # The boundaries c: every rank of the ranking (and none: c = 0), at most MAX_BOUNDARIES of them.
    c = np.unique(np.round(np.linspace(0, n, min(n + 1, MAX_BOUNDARIES))))  # (n_c,)
    # The prior from the run's evidence: half a normal either side of D, its sd half the range on that
    # side, each half of mass 1/2 (so that D is the prior's median: judgments that say nothing of
    # where the correct pairs end leave D where it was).
    below, above = max(1.0, (demand - low) / Z), max(1.0, (high - demand) / Z)
    sd = np.where(c < demand, below, above)
    log_prior = -0.5 * ((c - demand) / sd) ** 2 - np.log(sd)  # (n_c,)
    r, y = ranks[judged], right[judged]  # (n_judged,)
    log_post = []  # (n_w * n_h, n_c)
    for width in WIDTHS:
        w = max(1.0, width * demand)
        shape = 1.0 / (1.0 + np.exp(-(c[:, None] - r[None, :]) / w))  # (n_c, n_judged)
        for top in TOPS:
            p = np.clip(top * shape, 1e-9, 1 - 1e-9)
            log_post.append(log_prior + np.where(y, np.log(p), np.log1p(-p)).sum(1))
    grid = np.array(log_post)
    weight = np.exp(grid - grid.max()).sum(0)  # (n_c,): w and h summed out
    cdf = np.cumsum(weight) / weight.sum()

    def quantile(q: float) -> int:
        return int(c[min(len(c) - 1, int(np.searchsorted(cdf, q)))])

    settled = max(1, quantile(0.5))
    return SettledDemand(demand, settled, max(1, quantile(0.05)), max(1, quantile(0.95)), int(judged.sum()),
                         int(right.sum()))  # fmt: skip


def settles(run: RunRow) -> bool:
    """Whether judgments settle a run's D: where it is auto's reading of the evidence, with the range
    that allows. A D the run was given (a channel or neural run's cognate fraction, auto's
    `auto_demand`) is the decipherer's own, and stays."""
    demand = run.decisions.get("demand") or {}
    ranged = demand.get("demand_low") is not None and demand.get("demand_high") is not None
    return ranged and not run.config.get("auto_demand")


def settle_run(store: Store, run: RunRow) -> SettledDemand | None:
    """Settle a finished run's D from its judgments (`settle_demand`) and, where it moves, recut its
    proposals there: in the store (`Store.recut`) and in its folder (proposals.tsv, beyond_d.tsv,
    summary.json's D and proposal scores); summary.json's and the store's `decisions` gain
    `settled` (`SettledDemand.as_dict`). The run's own D is the one it proposed before any
    judgment (`settled.before` of an earlier settling). None where its D is not settled by
    judgments (`settles`); StoreError for a run not finished."""
    if run.status != FINISHED:
        raise StoreError(f"run #{run.id} is {run.status}: only a finished run's proposals are recut")
    if not settles(run):
        return None
    ranked = store.ranking(run.id)
    current = sum(not r.beyond for r in ranked)  # where the ranking is cut now
    before = (run.decisions.get("settled") or {}).get("before") or current
    low, high = demand_range(run.decisions, len(ranked))
    settled = settle_demand([r.status for r in ranked], int(before), low, high)
    if settled.demand == current and (run.decisions.get("settled") or {}) == _recorded(settled):
        return settled
    decisions = {**run.decisions, "settled": _recorded(settled)}
    store.recut(run.id, settled.demand, decisions)
    if run.run_dir:
        _recut_files(Path(run.run_dir), settled, decisions, ranked, run.n_evaluated, moved=settled.demand != current)
    return settled


def _recorded(settled: SettledDemand) -> dict[str, Any]:
    return {**settled.as_dict(), "line": settled.line()}


def _recut_files(folder: Path, settled: SettledDemand, decisions: dict[str, Any], ranked: list[RankedPair],
                 n_gold: int | None, moved: bool) -> None:  # fmt: skip
    """The run folder's files cut at the settled D: proposals.tsv's and beyond_d.tsv's lines are the
    stored ranking's, best first, split again where the cut `moved`; summary.json's D, counts,
    proposal scores and decisions follow. A folder whose files do not hold the stored ranking
    (written by another run) is left alone."""
    proposals, beyond, summary = folder / "proposals.tsv", folder / "beyond_d.tsv", folder / "summary.json"
    if not proposals.exists() or not summary.exists():
        return
    head, *lines = proposals.read_text(encoding="utf-8").splitlines()
    if beyond.exists():
        lines += beyond.read_text(encoding="utf-8").splitlines()[1:]
    if len(lines) != len(ranked):
        return
    cut = settled.demand
    if moved:
        write_atomic(proposals, "\n".join([head, *lines[:cut]]) + "\n")
        write_atomic(beyond, "\n".join([head, *lines[cut:]]) + "\n")
    data = json.loads(summary.read_text(encoding="utf-8"))
    shown = ranked[:cut]
    data.update(n_cognates=cut, n_proposals=cut, n_beyond=len(ranked) - cut, decisions=decisions)
    if data.get("proposal_scores") is not None and n_gold is not None:  # gold read only to score
        golds, scores = [bool(r.gold) for r in shown], [r.score for r in shown]
        data["proposal_scores"] = proposal_scores(golds, n_gold, scores, [r.lost_index for r in shown]).as_dict()
        data["calibration"] = calibration_rows(scores, golds)
    write_atomic(summary, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
