"""How a training step scores its batch of lost words: against every known word in length buckets
(`all_log_probs`), against each word's listed known words on a long list (`listed_log_probs`), or,
for the transport objective, only the pairs that carry the plan (`plan_support`, `plan_fit`).
The trainer (trainer.py) draws the batches; this is what each one costs."""

from __future__ import annotations

from collections.abc import Callable

import torch

from .protocol import Channel
from .scoring import score_pairs

# A transport step scores only the pairs that carry the plan (`plan_support`): each lost word's
# heaviest ones, leaving out at most this share of its unit. A trained plan puts nearly all of a
# word's weight on a few known words, so a step scores tens of pairs a word, not every known word
# (docs/speed.md); the gradient it leaves out is bounded by this share.
PLAN_TOLERANCE = 1e-3
# A pair scored alone (`score_pairs`) costs about this many pairs of a batch's table against every
# known word (`all_log_probs`), forward and backward, so a support wider than a quarter of the table
# is read through the table (docs/speed.md).
PAIRED_COST = 4


# A training step scores its batch against every known word in this many length buckets, each one
# lattice call (its tables gathered, its autograd node). The words come in rising length, and the
# compiled kernels skip each word's cells past its own length (compiled.first_active), so one bucket
# pads nothing and its steps run faster than four (docs/speed.md). The tensors' lattices (float64,
# cuda) pad each bucket to its longest word: they keep the four buckets they were measured with.
KNOWN_BUCKETS = 1
PADDED_BUCKETS = 4


def known_buckets(known: torch.Tensor, known_len: torch.Tensor, n_buckets: int) -> list[torch.Tensor]:
    """Known-word indices in length buckets (rising length), so short words are not padded to the longest."""
    order = torch.argsort(known_len, stable=True)
    return [b for b in torch.chunk(order, n_buckets) if len(b)]


def all_log_probs(
    channel: Channel,
    lost: torch.Tensor,
    lost_len: torch.Tensor,
    known: torch.Tensor,
    known_len: torch.Tensor,
    buckets: list[torch.Tensor],
    lost_idx: torch.Tensor,
) -> torch.Tensor:
    """log P(x_i | y_j) for the lost words `lost_idx` and every known word: (len(lost_idx), n_known)."""
    out = torch.empty(len(lost_idx), known.shape[0], device=known.device)
    parts = [channel.log_prob(lost[lost_idx], lost_len[lost_idx], known[b], known_len[b]) for b in buckets]
    out[:, torch.cat(buckets)] = torch.cat(parts, 1)
    return out


def listed_log_probs(
    channel: Channel,
    lost: torch.Tensor,
    lost_len: torch.Tensor,
    known: torch.Tensor,
    known_len: torch.Tensor,
    lost_idx: torch.Tensor,
    cols: torch.Tensor,
) -> torch.Tensor:
    """log P(x_i | y_j) for the lost words `lost_idx` (B,) and their listed known words cols (B, M): (B, M)."""
    b, m = cols.shape
    listed = score_pairs(channel, lost, lost_len, known, known_len, lost_idx.repeat_interleave(m), cols.reshape(-1))
    return listed.view(b, m)


def plan_support(
    weights: torch.Tensor, tolerance: float = PLAN_TOLERANCE
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The pairs that carry a batch's transport plan: weights (B, n_known) of B lost words over
    every known word. Each row keeps its heaviest pairs until what it leaves out weighs at most
    `tolerance` of the word's unit, so the step's gradient, sum_j w_ij grad log P(x_i | y_j),
    changes by at most that share. Returns the kept pairs' batch rows (P,), known indices (P,)
    and weights (P,)."""
    ordered, order = weights.sort(1, descending=True)  # (B, n_known)
    left = weights.sum(1, keepdim=True) - ordered.cumsum(1)  # what each row leaves out past a pair
    kept = torch.cat([torch.ones_like(left[:, :1], dtype=torch.bool), left[:, :-1] > tolerance], 1)
    row, rank = kept.nonzero(as_tuple=True)
    return row, order[row, rank], ordered[row, rank]


class PlanSupport:
    """`plan_support` of a whole plan (n_lost, n_known), sorted once and read for each batch drawn
    from it (a plan serves PLAN_EVERY steps): each lost word's pairs, in `plan_support`'s order."""

    def __init__(self, plan: torch.Tensor) -> None:
        row, self.col, self.weight = plan_support(plan)  # (P,) each, row by row
        self.first = torch.zeros(plan.shape[0] + 1, dtype=torch.long, device=plan.device)  # (n_lost + 1,)
        self.first[1:] = torch.bincount(row, minlength=plan.shape[0]).cumsum(0)

    def of(self, idx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """`plan_support(plan[idx])` for a batch's lost words `idx` (B,), repeats included: the
        pairs' batch rows (P,), known indices (P,) and weights (P,)."""
        starts = self.first[idx]
        counts = self.first[idx + 1] - starts  # (B,)
        row = torch.repeat_interleave(torch.arange(len(idx), device=idx.device), counts)  # (P,)
        ends = counts.cumsum(0)
        entry = starts[row] + torch.arange(int(ends[-1]) if len(ends) else 0, device=idx.device) - (ends - counts)[row]
        return row, self.col[entry], self.weight[entry]


def plan_fit(
    channel: Channel,
    lost: torch.Tensor,
    lost_len: torch.Tensor,
    known: torch.Tensor,
    known_len: torch.Tensor,
    buckets: list[torch.Tensor],
    idx: torch.Tensor,
    weights: torch.Tensor,
    cols: torch.Tensor | None,
    support: Callable[[], PlanSupport] | None = None,
) -> torch.Tensor:
    """The transport objective's sum_j w_ij log P(x_i | y_j) for the batch's lost words `idx` (B,),
    weights (B, n_known) from the plan, or (B, M) over their listed known words `cols` (n_lost, M):
    (B,). Listed, each word's M pairs are scored (docs/speed.md); otherwise the plan's support
    (`plan_support`; `support()` gives the whole plan's, None: the batch's own is sorted), or the
    whole table where the support is too wide for pairs scored alone."""
    if cols is not None:
        log_p = listed_log_probs(channel, lost, lost_len, known, known_len, idx, cols[idx])  # (B, M)
        return (weights * log_p).sum(1)
    # Every pair heavier than the tolerance is in the support: where those alone make it too wide,
    # the table is read without sorting the plan.
    if int((weights > PLAN_TOLERANCE).sum()) * PAIRED_COST < weights.numel():
        row, col, weight = plan_support(weights) if support is None else support().of(idx)
        if len(row) * PAIRED_COST < weights.numel():
            log_p = score_pairs(channel, lost, lost_len, known, known_len, idx[row], col)  # (P,)
            return torch.zeros(len(idx), device=weights.device).index_add_(0, row, weight * log_p)
    log_p = all_log_probs(channel, lost, lost_len, known, known_len, buckets, idx)  # (B, n_known)
    return (weights * log_p).sum(1)
