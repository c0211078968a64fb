"""The transport objective's soft flow: which known words explain each lost word, under D and C.

`channel_objective = "transport"` weights each pair's gradient by an entropic transport plan
(Sinkhorn, in log space) instead of the posterior over known words (engine/channels/trainer.py).
The plan is over every pair (`transport_plan`), or over each lost word's listed known words only
(`listed_transport_plan`, for long word lists: engine/channels/shortlist.py); with every known
word listed the two are the same plan.
"""

from __future__ import annotations

import math
from typing import Literal

import torch

from .lattice import NEG

PLAN_EVERY = 5  # channel steps between two transport plans (a plan scores every pair, or every listed pair)
PLAN_ITERS = 50  # Sinkhorn sweeps per plan at most; warm-started from the last plan's potentials
# ...and fewer once a sweep moves no potential by more than this (nats): every weight of the plan
# then moves by less than 0.001% a sweep (docs/speed.md, "Plans stop sweeping once settled").
PLAN_SETTLED = 1e-5

# How a plan scores "no cognate" for a lost word. "average": its mean probability over the known
# words, as if written from one drawn at random; every word's best known word beats that by far,
# so wherever D exceeds the words with a cognate, words without one send their units to known
# words and the channel learns to write them as well (its own cognates then lose to decoys more
# often than real ones do: docs/demand.md). "chance": its second-best known word, what a word
# without a cognate reaches by chance among as many words; a word with one beats it clearly.
NoCognate = Literal["average", "chance"]


def no_cognate_scores(log_p: torch.Tensor, n_known: int, no_cognate: NoCognate) -> torch.Tensor:
    """Each lost word's "no cognate" score (n_lost,) from its scores log_p (n_lost, M) against
    its M known words (every known word, or those listed) among `n_known` (`NoCognate`)."""
    if no_cognate == "chance":
        k = min(2, log_p.shape[1])
        return torch.topk(log_p, k, 1).values[:, k - 1]
    return torch.logsumexp(log_p, 1) - math.log(n_known)


def _masses(
    n_lost: int, n_known: int, demand: int, capacity: int, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    """The log marginals (n_lost + 1,), (n_known + 1,): one unit per lost word and the slack row's
    n_known * C - D; C per known word and "no cognate"'s n_lost - D. A zero mass would be log 0, so
    the dummies keep a sliver when D fills everything."""
    d = min(demand, n_lost, n_known * capacity)
    row_mass = torch.cat([torch.zeros(n_lost), torch.tensor([math.log(max(n_known * capacity - d, 1e-6))])])
    col_mass = torch.cat([torch.full((n_known,), math.log(capacity)), torch.tensor([math.log(max(n_lost - d, 1e-6))])])
    return row_mass.to(device), col_mass.to(device)


def transport_plan(
    log_p: torch.Tensor,
    demand: int,
    capacity: int,
    iters: int = PLAN_ITERS,
    potentials: tuple[torch.Tensor, torch.Tensor] | None = None,
    forced_rows: torch.Tensor | None = None,
    no_cognate: NoCognate = "average",
) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """A soft flow for the channel's objective: the entropic transport plan (Sinkhorn, in log
    space) of log_p (n_lost, n_known) in which each lost word sends one unit, each known word
    takes at most `capacity`, and `demand` (D) units reach known words. A "no cognate" column
    takes the other n_lost - D units and a slack row fills the known words' unused capacity
    (n_known * C - D units). "No cognate" scores each word at its average known word, so it does
    not sort words by length; it takes about 1 - D/N of every word's unit, more of a word whose
    known words are taken by others. Within a word the plan is the posterior over known words,
    reshaped so that no known word is over capacity. `forced_rows`: lost words that must send
    their unit to known words (accepted by a reviewer): their "no cognate" is closed. `no_cognate`:
    how "no cognate" scores a word (`NoCognate`; "average" as above). Returns the plan over real
    pairs (n_lost, n_known) and the potentials, to warm-start the next plan."""
    n_lost, n_known = log_p.shape
    device = log_p.device
    scores = torch.zeros(n_lost + 1, n_known + 1, device=device)  # the slack row scores 0 everywhere...
    scores[:n_lost, :n_known] = log_p
    scores[:n_lost, n_known] = no_cognate_scores(log_p, n_known, no_cognate)  # "no cognate"
    scores[n_lost, n_known] = NEG  # ...but never fills "no cognate": then exactly D units are real
    if forced_rows is not None and forced_rows.numel():
        scores[forced_rows, n_known] = NEG
    row_mass, col_mass = _masses(n_lost, n_known, demand, capacity, device)
    u, v = potentials if potentials is not None else (torch.zeros(n_lost + 1, device=device),
                                                      torch.zeros(n_known + 1, device=device))  # fmt: skip
    swept = _kernel_sweeps(scores, row_mass, col_mass, v, iters)
    u, v = swept if swept is not None else _log_sweeps(scores, row_mass, col_mass, u, v, iters)
    plan = (scores + u[:, None] + v[None, :]).exp()
    return plan[:n_lost, :n_known], (u, v)


def _log_sweeps(
    scores: torch.Tensor, row_mass: torch.Tensor, col_mass: torch.Tensor, u: torch.Tensor, v: torch.Tensor, iters: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Sinkhorn's sweeps in log space: up to `iters`, from the potentials u (n + 1,), v (m + 1,)
    over `scores` (n + 1, m + 1); each sweep reads the whole table twice through logsumexp."""
    for _ in range(iters):
        before = v
        u = row_mass - torch.logsumexp(scores + v[None, :], 1)
        v = col_mass - torch.logsumexp(scores + u[:, None], 0)
        if _settled(before, v):
            break
    return u, v


def _kernel_sweeps(
    scores: torch.Tensor, row_mass: torch.Tensor, col_mass: torch.Tensor, v: torch.Tensor, iters: int
) -> tuple[torch.Tensor, torch.Tensor] | None:
    """The same sweeps as `_log_sweeps` (the same potentials, to float rounding), through the
    kernel K = exp(scores - each row's max) (n + 1, m + 1), float64, exponentiated once: a sweep
    is then two matrix-vector products instead of two logsumexps over the table, a fifth of their
    time or less on a CPU (docs/speed.md). The row max keeps every row's largest entry at 1 and
    the potentials are exponentiated less their own max, so nothing overflows; None where a sum
    still comes out 0 or non-finite (potentials more than ~700 nats apart), and the caller sweeps
    in log space."""
    if iters <= 0:
        return None
    shift = scores.max(1).values.double()  # (n + 1,)
    kernel = (scores.double() - shift[:, None]).exp_()  # (n + 1, m + 1)
    rows, cols, v64 = row_mass.double(), col_mass.double(), v.double()
    u64 = torch.zeros_like(shift)
    for _ in range(iters):
        before = v64
        top = v64.max()
        u64 = rows - shift - top - torch.log(kernel @ (v64 - top).exp())  # (n + 1,)
        lifted = u64 + shift  # each row's potential on the kernel's scale
        top = lifted.max()
        v64 = cols - top - torch.log(kernel.T @ (lifted - top).exp())  # (m + 1,)
        if _settled(before, v64):
            break
    # A sum of 0 (log -inf) turns every later sweep to NaN, so one check at the end finds it.
    if not bool(torch.isfinite(v64).all() and torch.isfinite(u64).all()):
        return None
    return u64.to(scores.dtype), v64.to(scores.dtype)


def _settled(before: torch.Tensor, after: torch.Tensor) -> bool:
    """Whether a Sinkhorn sweep moved no column potential by more than PLAN_SETTLED (the row
    potentials follow from the columns', so they settle with them)."""
    return bool((after - before).abs().max() <= PLAN_SETTLED)


def _column_logsumexp(values: torch.Tensor, cols: torch.Tensor, n_cols: int, base: torch.Tensor) -> torch.Tensor:
    """Per column c: logsumexp of `base[c]` and every values[p] with cols[p] == c: (n_cols,).
    values, cols (P,); base (n_cols,), finite (so every column has a term)."""
    top = base.clone().scatter_reduce_(0, cols, values, "amax")  # (n_cols,)
    total = (base - top).exp().index_add_(0, cols, (values - top[cols]).exp())
    return top + total.log()


def listed_transport_plan(
    log_p: torch.Tensor,
    cols: torch.Tensor,
    n_known: int,
    demand: int,
    capacity: int,
    iters: int = PLAN_ITERS,
    potentials: tuple[torch.Tensor, torch.Tensor] | None = None,
    forced_rows: torch.Tensor | None = None,
    no_cognate: NoCognate = "average",
) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """`transport_plan` over listed pairs only: log_p (n_lost, M) scores each lost word's M listed
    known words cols (n_lost, M) (distinct within a row) among n_known. A pair not listed carries
    nothing; "no cognate" scores a word at its listed words' average over all n_known (the words
    left out add little to it). The slack row still reaches every known word, so the marginals are
    `transport_plan`'s. Returns the plan over the listed pairs (n_lost, M) and the potentials
    ((n_lost + 1,), (n_known + 1,)), to warm-start the next plan (also after the lists change)."""
    n_lost, device = log_p.shape[0], log_p.device
    none = no_cognate_scores(log_p, n_known, no_cognate)  # (n_lost,) "no cognate"
    if forced_rows is not None and forced_rows.numel():
        none = none.clone()
        none[forced_rows] = NEG
    flat_cols = cols.reshape(-1)
    row_mass, col_mass = _masses(n_lost, n_known, demand, capacity, device)
    u, v = potentials if potentials is not None else (torch.zeros(n_lost + 1, device=device),
                                                      torch.zeros(n_known + 1, device=device))  # fmt: skip
    neg = torch.tensor([NEG], device=device)
    for _ in range(iters):
        # Rows: each lost word over its listed words and "no cognate"; the slack row over every
        # known word (score 0) and "no cognate" (NEG).
        real = log_p + v[cols]  # (n_lost, M)
        u_lost = -torch.logsumexp(torch.cat([real, (none + v[n_known])[:, None]], 1), 1)
        u_slack = row_mass[n_lost] - torch.logsumexp(torch.cat([v[:n_known], neg + v[n_known]]), 0)
        u = torch.cat([u_lost, u_slack[None]])
        # Columns: each known word over the lost words listing it and the slack row; "no cognate"
        # over every lost word and the slack row (NEG).
        v_known = col_mass[:n_known] - _column_logsumexp(
            (log_p + u_lost[:, None]).reshape(-1), flat_cols, n_known, u_slack.expand(n_known)
        )  # fmt: skip
        v_none = col_mass[n_known] - torch.logsumexp(torch.cat([none + u_lost, neg + u_slack]), 0)
        before, v = v, torch.cat([v_known, v_none[None]])
        if _settled(before, v):
            break
    plan = (log_p + u[:n_lost, None] + v[cols]).exp()  # (n_lost, M)
    return plan, (u, v)
