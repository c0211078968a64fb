"""The pieces channel's lattice (channels/pieces.py), summed in probability space, scaled, with its
gradient written out by the forward-backward algorithm: over every pair of a lost and a known word
(`_Lattice`), and over aligned pairs only (`_PairedLattice`).
"""

from __future__ import annotations

from typing import NamedTuple

import torch

from .lattice import (
    emission_grads,
    emission_scale,
    emissions,
    final_cell_grads,
    inverse_finals,
    pair_cell_grads,
    scaled_log_probs,
    scaled_pair_log_probs,
)


class _ScaledLattice(NamedTuple):
    """The pieces lattice in probability space, scaled (`lattice.emission_scale`): alphas[m]
    (n_x, N+1, n_y) holds P(the first m known letters wrote the first k lost symbols) x c^k, so a
    cell's sum over paths needs no exp or log (docs/experiments.md, "The channels' lattices in
    probability space")."""

    alphas: list[torch.Tensor]
    log_c: float
    # Every letter's scaled one-letter emissions (M, n_x, N, n_y), with `keep`, two-letter ones
    # (M-1, n_x, N, n_y) and gapped ones (M-2, n_x, N, n_y); in a paired lattice (`_pair_alphas`)
    # (P, M, N), (P, M-1, N) and (P, M-2, N).
    e1: torch.Tensor | None
    e2: torch.Tensor | None
    e3: torch.Tensor | None
    drop: torch.Tensor  # P(drop) (n_y, M); paired (P, M)


def _alphas(
    one: torch.Tensor, two: torch.Tensor, gap: torch.Tensor, drop: torch.Tensor, lost: torch.Tensor,
    keep: bool = False,
) -> _ScaledLattice:  # fmt: skip
    """The pieces lattice of `CharacterChannel.log_prob` from one (n_y, M, S), two (n_y, M-1, S),
    gap (n_y, M-2, S; (n_y, 0, S): no gapped pieces) and drop (n_y, M), log-probabilities of the
    known words' pieces, and lost (n_x, N) ids. With `keep`, every letter's emissions are read at
    once (what the backward reads); without it, one letter at a time."""
    n_x, big_n = lost.shape
    n_y, big_m = one.shape[:2]
    log_c = emission_scale(one.shape[-1], big_n)
    table1 = (one + log_c).exp()  # (n_y, M, S)
    table2 = (two + log_c).exp()  # (n_y, M-1, S)
    table3 = (gap + log_c).exp()  # (n_y, M-2, S)
    p_drop = drop.exp()  # (n_y, M)
    e1 = emissions(table1, lost) if keep else None
    e2 = emissions(table2, lost) if keep and big_m > 1 else None
    gaps = gap.shape[1] > 0
    e3 = emissions(table3, lost) if keep and gaps else None
    start = one.new_zeros((n_x, big_n + 1, n_y))
    start[:, 0] = 1.0
    alphas = [start]
    for m in range(1, big_m + 1):
        prev = alphas[m - 1]
        new = prev * p_drop[:, m - 1]  # letter m dropped
        written = prev[:, :-1] * (e1[m - 1] if e1 is not None else emissions(table1, lost, m - 1))  # (n_x, N, n_y)
        if m >= 2:  # or letters m-1, m written as one symbol
            two_m = e2[m - 2] if e2 is not None else emissions(table2, lost, m - 2)
            written = torch.addcmul(written, alphas[m - 2][:, :-1], two_m)
        if m >= 3 and gaps:  # or letters m-2 .. m, m-1 unwritten inside them
            gap_m = e3[m - 3] if e3 is not None else emissions(table3, lost, m - 3)
            written = torch.addcmul(written, alphas[m - 3][:, :-1], gap_m)
        new[:, 1:] += written
        alphas.append(new)
    return _ScaledLattice(alphas, log_c, e1, e2, e3, p_drop)


class _Lattice(torch.autograd.Function):
    """log P(x_i | y_j) (n_x, n_y) through the pieces lattice, with its gradient by the
    forward-backward algorithm: each transition's share of a pair's probability carries the pair's
    gradient back. The lattice is linear in each cell, so the backward is the forward's transpose
    (autograd's own backward took 1.9 times as long a step; docs/experiments.md, "The channels'
    lattice backward, written out")."""

    @staticmethod
    def forward(ctx, one, two, gap, drop, lost, lost_len, known_len):
        lattice = _alphas(one, two, gap, drop, lost, keep=True)
        logs, cells = scaled_log_probs(lattice.alphas, lattice.log_c, lost_len, known_len)
        ctx.save_for_backward(lost, lost_len, known_len, cells)
        ctx.lattice = lattice, one.shape[-1]
        return logs

    @staticmethod
    def backward(ctx, grad):
        lost, lost_len, known_len, cells = ctx.saved_tensors
        lattice, n_symbols = ctx.lattice  # kept: a graph may be walked back twice
        alphas, e1, e2, e3, p_drop = lattice.alphas, lattice.e1, lattice.e2, lattice.e3, lattice.drop
        big_n, big_m = lost.shape[1], p_drop.shape[1]
        # g[m]: d (sum of grad x each pair's scaled probability) / d alphas[m], bounded as the cells
        # are. A path's share is (alpha x transition) x g, at most its pair's probability, and only
        # then divided by that probability (`inverse`): no product on the way can overflow, even
        # where a pair's probability is near float's smallest and a cell's alpha is 0.
        g = final_cell_grads(grad, lost_len, known_len, big_n, big_m)
        inverse = inverse_finals(cells)  # (n_x, 1, n_y)
        g_drop = torch.zeros_like(p_drop)
        # Each piece's share of its pairs' probability, times their gradient, shaped as its emissions:
        # (M, n_x, N, n_y), (M-1, n_x, N, n_y) and (M-2, n_x, N, n_y).
        share_one = torch.empty_like(e1)
        share_two = torch.empty_like(e2) if e2 is not None else None
        share_gap = torch.empty_like(e3) if e3 is not None else None
        for m in range(big_m, 0, -1):  # from the last letter back
            h = g[m]
            prev = alphas[m - 1]
            dropped = prev * p_drop[:, m - 1]
            g_drop[:, m - 1] = dropped.mul_(h).mul_(inverse).sum((0, 1))
            g[m - 1].addcmul_(h, p_drop[:, m - 1])
            h = h[:, 1:]
            torch.mul(prev[:, :-1], e1[m - 1], out=share_one[m - 1]).mul_(h)
            g[m - 1][:, :-1].addcmul_(h, e1[m - 1])
            if share_two is not None and m >= 2:
                torch.mul(alphas[m - 2][:, :-1], e2[m - 2], out=share_two[m - 2]).mul_(h)
                g[m - 2][:, :-1].addcmul_(h, e2[m - 2])
            if share_gap is not None and m >= 3:
                torch.mul(alphas[m - 3][:, :-1], e3[m - 3], out=share_gap[m - 3]).mul_(h)
                g[m - 3][:, :-1].addcmul_(h, e3[m - 3])
            g[m] = None
        g_one = emission_grads(share_one.mul_(inverse), lost, n_symbols)
        g_two = emission_grads(share_two.mul_(inverse), lost, n_symbols) if share_two is not None else None
        g_gap = emission_grads(share_gap.mul_(inverse), lost, n_symbols) if share_gap is not None else None
        return g_one, g_two, g_gap, g_drop, None, None, None


def _pair_alphas(
    one: torch.Tensor, two: torch.Tensor, gap: torch.Tensor, drop: torch.Tensor, n_symbols: int
) -> _ScaledLattice:
    """The pieces lattice of aligned pairs (`CharacterChannel.log_prob_pairs`), scaled as `_alphas`'s:
    alphas[m] (P, N+1) for pair p alone, from one (P, M, N), two (P, M-1, N), gap (P, M-2, N; (P, 0,
    N): no gapped pieces) and drop (P, M), log-probabilities of each pair's pieces already read at
    its lost word's symbols."""
    n_p, big_m, big_n = one.shape
    log_c = emission_scale(n_symbols, big_n)
    e1, e2, e3, p_drop = (one + log_c).exp(), (two + log_c).exp(), (gap + log_c).exp(), drop.exp()
    start = one.new_zeros((n_p, big_n + 1))
    start[:, 0] = 1.0
    alphas = [start]
    for m in range(1, big_m + 1):
        prev = alphas[m - 1]
        new = prev * p_drop[:, m - 1, None]  # letter m dropped
        written = prev[:, :-1] * e1[:, m - 1]  # (P, N)
        if m >= 2:  # or letters m-1, m written as one symbol
            written = torch.addcmul(written, alphas[m - 2][:, :-1], e2[:, m - 2])
        if m >= 3 and e3.shape[1] > 0:  # or letters m-2 .. m, m-1 unwritten inside them
            written = torch.addcmul(written, alphas[m - 3][:, :-1], e3[:, m - 3])
        new[:, 1:] += written
        alphas.append(new)
    return _ScaledLattice(alphas, log_c, e1, e2, e3, p_drop)


class _PairedLattice(torch.autograd.Function):
    """log P(x_p | y_p) (P,) through the paired pieces lattice, with `_Lattice`'s written-out
    backward for one pair a row, so no product on the way can overflow, as there. Shortlisted steps
    and judged pairs score through it (docs/experiments.md, "The paired lattices in probability
    space")."""

    @staticmethod
    def forward(ctx, one, two, gap, drop, lost_len, known_len, n_symbols):
        lattice = _pair_alphas(one, two, gap, drop, n_symbols)
        logs, finals = scaled_pair_log_probs(lattice.alphas, lattice.log_c, lost_len, known_len)
        ctx.save_for_backward(lost_len, known_len, finals)
        ctx.lattice = lattice
        return logs

    @staticmethod
    def backward(ctx, grad):
        lost_len, known_len, finals = ctx.saved_tensors
        lattice = ctx.lattice
        alphas, e1, e2, e3, p_drop = lattice.alphas, lattice.e1, lattice.e2, lattice.e3, lattice.drop
        big_m, big_n = e1.shape[1:]
        g = pair_cell_grads(grad, lost_len, known_len, big_n, big_m)  # g[m] (P, N+1)
        inverse = inverse_finals(finals)  # (P, 1)
        g_drop = torch.zeros_like(p_drop)  # (P, M)
        # (P, M, N), (P, M-1, N), (P, M-2, N)
        share_one, share_two, share_gap = torch.empty_like(e1), torch.empty_like(e2), torch.empty_like(e3)
        for m in range(big_m, 0, -1):  # from the last letter back
            h, prev = g[m], alphas[m - 1]
            g_drop[:, m - 1] = (prev * p_drop[:, m - 1, None]).mul_(h).sum(1)
            g[m - 1].addcmul_(h, p_drop[:, m - 1, None])
            h = h[:, 1:]
            torch.mul(prev[:, :-1], e1[:, m - 1], out=share_one[:, m - 1]).mul_(h)
            g[m - 1][:, :-1].addcmul_(h, e1[:, m - 1])
            if m >= 2:
                torch.mul(alphas[m - 2][:, :-1], e2[:, m - 2], out=share_two[:, m - 2]).mul_(h)
                g[m - 2][:, :-1].addcmul_(h, e2[:, m - 2])
            if m >= 3 and e3.shape[1] > 0:
                torch.mul(alphas[m - 3][:, :-1], e3[:, m - 3], out=share_gap[:, m - 3]).mul_(h)
                g[m - 3][:, :-1].addcmul_(h, e3[:, m - 3])
            g[m] = None
        inverse_3d = inverse[:, :, None]  # (P, 1, 1)
        shares = (share_one.mul_(inverse_3d), share_two.mul_(inverse_3d), share_gap.mul_(inverse_3d))
        return *shares, g_drop.mul_(inverse), None, None, None
