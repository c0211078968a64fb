"""Reviewer judgments as constraints on the flow: accepted pairs are forced, rejected pairs removed.

An expert's review of proposed cognate pairs steers the next EM rounds ("refinement"):
- an accepted pair (i, j) carries flow 1 in every later flow solve, counting toward the demand D
  and using up the capacities of its words, so they leave the pool for everyone else;
- a rejected pair is never offered to the solver (its cost becomes +inf);
- both enter the M-step the way the flow does: an accepted lost word trains on its accepted
  known words only, and a rejected pair gets no flow;
- an "unsure" pair (the reviewer's question mark) constrains nothing: it is kept and exported
  so the doubt is not lost, but the model stays free to propose or drop it.

Only the reviewer's judgments are read here; gold cognates never are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import torch

from ..flow import FlowEdges
from .judgments import ACCEPTED, REFINE_ROUNDS, REJECTED, UNSURE

__all__ = ["ACCEPTED", "REFINE_ROUNDS", "REJECTED", "UNSURE", "ReviewConstraints"]


@dataclass(frozen=True)
class ReviewConstraints:
    """Judged (lost index, known index) pairs of one corpus."""

    accepted: tuple[tuple[int, int], ...] = ()
    rejected: tuple[tuple[int, int], ...] = ()

    @classmethod
    def from_judgments(cls, judgments: Mapping[tuple[int, int], str]) -> ReviewConstraints:
        """From the store's {(lost, known): "accepted" | "rejected" | "unsure"} map; unsure pairs are
        left out on purpose: a doubt is not a judgment the flow or the M-step should obey."""
        accepted = tuple(sorted(k for k, v in judgments.items() if v == ACCEPTED))
        rejected = tuple(sorted(k for k, v in judgments.items() if v == REJECTED))
        return cls(accepted, rejected)

    def __len__(self) -> int:
        return len(self.accepted) + len(self.rejected)

    def check(self, n_lost: int, n_known: int) -> None:
        """Refuse pairs outside the corpus (judgments recorded on another corpus)."""
        for i, j in (*self.accepted, *self.rejected):
            if not (0 <= i < n_lost and 0 <= j < n_known):
                raise ValueError(
                    f"reviewed pair ({i}, {j}) is outside the corpus ({n_lost} lost x {n_known} known words)"
                )
        both = set(self.accepted) & set(self.rejected)
        if both:
            raise ValueError(f"pair {min(both)} is both accepted and rejected")

    def judged_lost(self) -> set[int]:
        """Lost words the reviewer has judged at least one pair of."""
        return {i for i, _ in (*self.accepted, *self.rejected)}

    def _rows(self, pairs: Iterable[tuple[int, int]], rows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """(row positions, known indices) of `pairs`, restricted to and renumbered by `rows` if given."""
        pairs = list(pairs)
        lost = np.array([i for i, _ in pairs], dtype=np.int64)
        known = np.array([j for _, j in pairs], dtype=np.int64)
        if rows is None:
            return lost, known
        # A lost word may stand in several rows (a training batch drawn with replacement).
        positions: dict[int, list[int]] = defaultdict(list)
        for n, r in enumerate(rows):
            positions[int(r)].append(n)
        out = [(n, j) for i, j in zip(lost.tolist(), known.tolist(), strict=True) for n in positions.get(i, ())]
        return np.array([n for n, _ in out], dtype=np.int64), np.array([j for _, j in out], dtype=np.int64)

    def mask_rejected(self, cost: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """A copy of `cost` (n_rows, n_known) with rejected pairs set to +inf (dropped from the graph)."""
        if not self.rejected:
            return cost
        lost, known = self._rows(self.rejected, rows)
        cost = cost.copy()
        cost[lost, known] = np.inf
        return cost

    def forced_edges(self, cost: np.ndarray, demand: int, capacity: int, rows: np.ndarray | None = None) -> FlowEdges:
        """Accepted pairs to commit in a flow solve, cheapest first, within the flow's limits.

        The flow matches each lost word once and each known word at most `capacity` times, and
        carries at most `demand` pairs; accepted pairs beyond those limits (a lost word accepted
        with two known words, say) still train the model through `apply_to_flow`, they are only
        left out of this solve.
        """
        lost, known = self._rows(self.accepted, rows)
        d = cost[lost, known].astype(np.float64) if lost.size else np.zeros(0)
        keep_lost: list[int] = []
        keep_known: list[int] = []
        keep_cost: list[float] = []
        lost_used: set[int] = set()
        known_used: dict[int, int] = {}
        for n in np.argsort(d, kind="stable"):
            i, j = int(lost[n]), int(known[n])
            if len(keep_lost) >= demand or i in lost_used or known_used.get(j, 0) >= capacity or not np.isfinite(d[n]):
                continue
            lost_used.add(i)
            known_used[j] = known_used.get(j, 0) + 1
            keep_lost.append(i)
            keep_known.append(j)
            keep_cost.append(float(d[n]))
        return FlowEdges(np.array(keep_lost, dtype=np.int64), np.array(keep_known, dtype=np.int64), np.array(keep_cost))

    def mask_log_probs(
        self, log_p: torch.Tensor, rows: np.ndarray | None = None, floor: float = -1e4, inplace: bool = False
    ) -> torch.Tensor:
        """`log_p` (n_rows, n_known) with the judgments imposed on a channel's training (a new tensor,
        or `log_p` itself with `inplace`, for a table the caller made and no longer needs unmasked):
        rejected pairs and, in an accepted lost word's row, every known word it was not accepted
        with, set to `floor` (impossible, but finite so that gradients stay finite). `rows`: the
        corpus lost indices of the rows when they are a subset."""
        if not len(self):
            return log_p
        if not inplace:
            log_p = log_p.clone()

        def on(a: np.ndarray) -> torch.Tensor:
            return torch.from_numpy(a).to(log_p.device)

        if self.rejected:
            lost, known = self._rows(self.rejected, rows)
            log_p[on(lost), on(known)] = floor
        if self.accepted:
            lost, known = self._rows(self.accepted, rows)
            kept = log_p[on(lost), on(known)]
            log_p[on(np.unique(lost))] = floor
            log_p[on(lost), on(known)] = kept
        return log_p

    def mask_listed(
        self,
        log_p: torch.Tensor,
        cols: torch.Tensor,
        rows: np.ndarray | None = None,
        floor: float = -1e4,
        inplace: bool = False,
    ) -> torch.Tensor:
        """`mask_log_probs` over listed pairs: log_p (n_rows, M) scores each row's listed known
        words cols (n_rows, M) (a trainer's shortlists). A listed rejected pair, and in an accepted
        lost word's row every listed known word it was not accepted with, is set to `floor`."""
        if not len(self):
            return log_p
        if not inplace:
            log_p = log_p.clone()

        def listed(pairs: tuple[tuple[int, int], ...]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            """(the pairs' rows, the listed ones' rows, their list positions)."""
            lost, known = (torch.from_numpy(a).to(cols.device) for a in self._rows(pairs, rows))
            hit, at = (cols[lost] == known[:, None]).nonzero(as_tuple=True)  # (pair, list position)
            return lost, lost[hit], at

        if self.rejected:
            _, lost, at = listed(self.rejected)
            log_p[lost, at] = floor
        if self.accepted:
            accepted_rows, lost, at = listed(self.accepted)
            kept = log_p[lost, at]
            log_p[accepted_rows.unique()] = floor
            log_p[lost, at] = kept
        return log_p

    def accepted_rows(self, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(row positions, known indices) of the accepted pairs, renumbered by `rows` if given."""
        return self._rows(self.accepted, rows)

    def apply_to_flow(self, flow: torch.Tensor) -> torch.Tensor:
        """The M-step's flow F (n_lost, n_known) with the judgments imposed (a new tensor).

        Rejected pairs get no flow; an accepted lost word sends flow 1 to each known word it was
        accepted with and nothing elsewhere.
        """
        if not len(self):
            return flow
        flow = flow.clone()
        if self.rejected:
            lost, known = self._rows(self.rejected, None)
            flow[torch.from_numpy(lost).to(flow.device), torch.from_numpy(known).to(flow.device)] = 0.0
        if self.accepted:
            lost_t, known_t = (torch.from_numpy(a).to(flow.device) for a in self._rows(self.accepted, None))
            flow[lost_t.unique()] = 0.0
            flow[lost_t, known_t] = 1.0
        return flow
