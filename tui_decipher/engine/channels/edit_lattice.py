"""The edit channel's lattice (engine/channels/edit.py) in probability space, forward and backward:
every alignment of a lost word with a known word as insertions, writes and drops, summed by the
forward algorithm, its gradient by the backward one (as the pieces channel's, pieces_lattice.py)."""

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


class _Cells(NamedTuple):
    """The edit lattice of `EditChannel.log_prob` in probability space, scaled as the pieces
    channel's (`pieces_lattice._ScaledLattice`): alphas[m] (n_x, N+1, n_y) holds P(the first m known letters
    wrote the first k lost symbols, the insertions before letter m+1 included) x c^k. Every path to
    cell k emits k symbols (a write or an insertion each), so scaling each emission by c is exact.
    With `keep`, every emission at once (what the backward reads); without it they are read one
    letter at a time."""

    alphas: list[torch.Tensor]
    log_c: float
    # Scaled write emissions (M, n_x, N, n_y), with `keep`, and insertions (M+1, n_x, N, n_y); in a
    # paired lattice (`_pair_alphas`) (P, M, N) and (P, M+1, N).
    write: torch.Tensor | None
    insert: torch.Tensor | None
    drop: torch.Tensor  # P(drop) (n_y, M); paired (P, M)


def _alphas(
    write: torch.Tensor, insert: torch.Tensor, drop: torch.Tensor, lost: torch.Tensor, keep: bool = False
) -> _Cells:
    """The lattice from write (n_y, M, S), insert (n_y, M+1, S) and drop (n_y, M), log-probabilities
    of the known words' operations, and lost (n_x, N) ids (`_Cells`)."""
    n_x, big_n = lost.shape
    n_y, big_m = drop.shape
    log_c = emission_scale(write.shape[-1], big_n)
    write_table, insert_table = (write + log_c).exp(), (insert + log_c).exp()  # (n_y, M, S), (n_y, M+1, S)
    p_drop = drop.exp()
    cells = _Cells([], log_c, emissions(write_table, lost) if keep else None,
                   emissions(insert_table, lost) if keep else None, p_drop)  # fmt: skip

    def with_insertions(alpha: torch.Tensor, m: int) -> torch.Tensor:
        # alpha (n_x, N+1, n_y) after m letters; symbols inserted before letter m+1 (or the end)
        # extend k one at a time, so this runs along k.
        emit = cells.insert[m] if cells.insert is not None else emissions(insert_table, lost, m)  # (n_x, N, n_y)
        rows = [alpha[:, 0]]
        for k in range(1, big_n + 1):
            rows.append(torch.addcmul(alpha[:, k], rows[-1], emit[:, k - 1]))
        return torch.stack(rows, 1)

    start = write.new_zeros((n_x, big_n + 1, n_y))
    start[:, 0] = 1.0
    cells.alphas.append(with_insertions(start, 0))
    for m in range(1, big_m + 1):
        prev = cells.alphas[-1]
        new = prev * p_drop[:, m - 1]  # letter m dropped
        emit = cells.write[m - 1] if cells.write is not None else emissions(write_table, lost, m - 1)
        new[:, 1:] += prev[:, :-1] * emit  # or written as lost symbol k
        cells.alphas.append(with_insertions(new, m))
    return cells


class _Lattice(torch.autograd.Function):
    """log P(x_i | y_j) (n_x, n_y) through the edit lattice, before the final stop, with its gradient
    by the forward-backward algorithm, as the pieces channel's (`pieces_lattice._Lattice`): the lattice is
    linear in each cell, so the backward is its transpose, along the insertions (k) within a
    letter, then across the letter. With autograd's own backward (through the log-space lattice of
    then) a training step took 2.7 times as long (docs/experiments.md, "The channels' lattice
    backward, written out")."""

    @staticmethod
    def forward(ctx, write, insert, drop, lost, lost_len, known_len):
        cells = _alphas(write, insert, drop, lost, keep=True)
        logs, finals = scaled_log_probs(cells.alphas, cells.log_c, lost_len, known_len)
        ctx.save_for_backward(lost, lost_len, known_len, finals)
        ctx.lattice = cells, write.shape[-1]
        return logs

    @staticmethod
    def backward(ctx, grad):
        lost, lost_len, known_len, finals = ctx.saved_tensors
        cells, n_symbols = ctx.lattice  # kept: a graph may be walked back twice
        p_drop = cells.drop
        big_n, big_m = lost.shape[1], p_drop.shape[1]
        # g[m]: d (sum of grad x each pair's scaled probability) / d alphas[m]; a path's share is
        # (alpha x transition) x g, then divided by its pair's probability (`inverse`), so no
        # product on the way can overflow (as in `pieces_lattice._Lattice`).
        g = final_cell_grads(grad, lost_len, known_len, big_n, big_m)
        inverse = inverse_finals(finals)  # (n_x, 1, n_y)
        g_drop = torch.zeros_like(p_drop)
        share_write, share_insert = torch.empty_like(cells.write), torch.empty_like(cells.insert)
        for m in range(big_m, -1, -1):  # from the last letter back
            # Along the insertions: alphas[m][:, k] = (the cell before insertions) + alphas[m][:, k-1] x insert.
            g_alpha, alpha, emit = g[m], cells.alphas[m], cells.insert[m]
            for k in range(big_n, 0, -1):
                g_alpha[:, k - 1].addcmul_(g_alpha[:, k], emit[:, k - 1])
            torch.mul(alpha[:, :-1], emit, out=share_insert[m]).mul_(g_alpha[:, 1:])
            g[m] = None
            if m == 0:
                break
            # Across letter m: the cells before its insertions are alphas[m-1] x drop, plus alphas[m-1]
            # x write one symbol on; their gradient is alphas[m]'s (the insertions only add to them).
            h, prev = g_alpha, cells.alphas[m - 1]
            dropped = prev * p_drop[:, m - 1]
            g_drop[:, m - 1] = dropped.mul_(h).mul_(inverse).sum((0, 1))
            g[m - 1].addcmul_(h, p_drop[:, m - 1])
            torch.mul(prev[:, :-1], cells.write[m - 1], out=share_write[m - 1]).mul_(h[:, 1:])
            g[m - 1][:, :-1].addcmul_(h[:, 1:], cells.write[m - 1])
        return (emission_grads(share_write.mul_(inverse), lost, n_symbols),
                emission_grads(share_insert.mul_(inverse), lost, n_symbols), g_drop, None, None, None)  # fmt: skip


def _pair_alphas(write: torch.Tensor, insert: torch.Tensor, drop: torch.Tensor, n_symbols: int) -> _Cells:
    """The edit lattice of aligned pairs (`EditChannel.log_prob_pairs`), scaled as `_alphas`'s:
    alphas[m] (P, N+1) for pair p alone, from write (P, M, N), insert (P, M+1, N) and drop (P, M),
    log-probabilities of each pair's operations already read at its lost word's symbols."""
    n_p, big_m, big_n = write.shape
    log_c = emission_scale(n_symbols, big_n)
    scaled_write, scaled_insert = (write + log_c).exp(), (insert + log_c).exp()
    cells = _Cells([], log_c, scaled_write, scaled_insert, drop.exp())

    def with_insertions(alpha: torch.Tensor, m: int) -> torch.Tensor:
        rows = [alpha[:, 0]]  # (P,) each, along k
        for k in range(1, big_n + 1):
            rows.append(torch.addcmul(alpha[:, k], rows[-1], scaled_insert[:, m, k - 1]))
        return torch.stack(rows, 1)

    start = write.new_zeros((n_p, big_n + 1))
    start[:, 0] = 1.0
    cells.alphas.append(with_insertions(start, 0))
    for m in range(1, big_m + 1):
        prev = cells.alphas[-1]
        new = prev * cells.drop[:, m - 1, None]  # letter m dropped
        new[:, 1:] += prev[:, :-1] * scaled_write[:, m - 1]  # or written as lost symbol k
        cells.alphas.append(with_insertions(new, m))
    return cells


class _PairedLattice(torch.autograd.Function):
    """log P(x_p | y_p) (P,) through the paired edit lattice, before the final stop, with
    `_Lattice`'s written-out backward for one pair a row."""

    @staticmethod
    def forward(ctx, write, insert, drop, lost_len, known_len, n_symbols):
        cells = _pair_alphas(write, insert, drop, n_symbols)
        logs, finals = scaled_pair_log_probs(cells.alphas, cells.log_c, lost_len, known_len)
        ctx.save_for_backward(lost_len, known_len, finals)
        ctx.lattice = cells
        return logs

    @staticmethod
    def backward(ctx, grad):
        lost_len, known_len, finals = ctx.saved_tensors
        cells = ctx.lattice
        big_m, big_n = cells.write.shape[1:]
        g = pair_cell_grads(grad, lost_len, known_len, big_n, big_m)  # g[m] (P, N+1)
        inverse = inverse_finals(finals)  # (P, 1)
        g_drop = torch.zeros_like(cells.drop)  # (P, M)
        share_write, share_insert = torch.empty_like(cells.write), torch.empty_like(cells.insert)
        for m in range(big_m, -1, -1):  # from the last letter back
            g_alpha, alpha, emit = g[m], cells.alphas[m], cells.insert[:, m]  # emit (P, N)
            for k in range(big_n, 0, -1):  # along the insertions
                g_alpha[:, k - 1].addcmul_(g_alpha[:, k], emit[:, k - 1])
            torch.mul(alpha[:, :-1], emit, out=share_insert[:, m]).mul_(g_alpha[:, 1:])
            g[m] = None
            if m == 0:
                break
            h, prev = g_alpha, cells.alphas[m - 1]  # across letter m
            g_drop[:, m - 1] = (prev * cells.drop[:, m - 1, None]).mul_(h).sum(1)
            g[m - 1].addcmul_(h, cells.drop[:, m - 1, None])
            torch.mul(prev[:, :-1], cells.write[:, m - 1], out=share_write[:, m - 1]).mul_(h[:, 1:])
            g[m - 1][:, :-1].addcmul_(h[:, 1:], cells.write[:, m - 1])
        inverse_3d = inverse[:, :, None]  # (P, 1, 1)
        return (share_write.mul_(inverse_3d), share_insert.mul_(inverse_3d), g_drop.mul_(inverse),
                None, None, None)  # fmt: skip
