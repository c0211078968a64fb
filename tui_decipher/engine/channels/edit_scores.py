"""The edit channel's log P(x | y) compiled (numba), on the CPU: for every pair without a gradient
(`compiled_log_probs`) and with one (`CompiledLattice`), and for listed pairs (`CompiledPairs`).

All-pair scoring (plans, shortlist refreshes, held-out evidence, the final costs) needs no
gradient. Through torch's tensors the lattice (edit_lattice.py) reads and writes each cell of a
(n_x, N+1, n_y) table several times: on 2 cores it scored 255 M cells a second, what the memory
bus carries at about 80 bytes a cell, and 0.5% of the arithmetic the cores can do
(docs/scripts/lattice_rate.py, docs/speed.md). Here each pair's column of cells lives in a few
cache lines: the same recursion (a drop, a write, then the insertions along the lost word), in
float32, scaled by c^k as the tensors are, so that a score reads NEG exactly where theirs does
(a final cell below float32's normal range). Listed pairs (a plan's support, shortlists, judged
pairs: what training steps score) run one pair's lattice at a time, forward and backward, reading
each pair's operations from the tables of every letter and adding their gradients back there.
Rows of pairs are split over threads; the loops hold no interpreter lock.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import torch

from .compiled import (
    FLOAT32_TINY,
    first_active,
    gathered,
    over_rows,
    pair_words,
    scaled_tables,
    scattered,
    summed_over_columns,
    summed_over_rows,
)  # fmt: skip
from .lattice import NEG


@cache
def _kernel() -> Any:
    """The compiled loop, on first use: numba is imported only where pairs are scored."""
    from numba import njit

    @njit(nogil=True, cache=True, fastmath=True)
    def scores(lost, lost_len, known_len, active, write, insert, drop, log_c, out, first, last):  # pragma: no cover
        # write (M, S, n_y): letter m's write of each lost symbol, for each known word; insert
        # (M+1, S, n_y) before letter m (or the end); drop (M, n_y). The innermost loops run
        # over the known words, whose cells are independent and contiguous: they vectorise,
        # where one pair's cells would wait on one another along k; at letter m, from active[m]
        # on (the first whose word has m letters or more: compiled.first_active).
        big_m, n_y = drop.shape[0], drop.shape[1]
        # One plane of cells a letter (M+1, N+1, n_y), each written from the one before: updating
        # a single plane in place ran at about 60% of this rate (a micro-benchmark, docs/speed.md).
        alpha = np.empty((big_m + 1, lost.shape[1] + 1, n_y), dtype=np.float32)
        for i in range(first, last):
            n = lost_len[i]
            alpha[0, 0, :] = 1.0
            alpha[0, 1 : n + 1, :] = 0.0
            for m in range(big_m + 1):
                a = active[m]
                w = n_y - a
                if m > 0:  # letter m dropped, or written as lost symbol k
                    p_drop, start, was = drop[m - 1, a:], alpha[m, 0, a:], alpha[m - 1, 0, a:]
                    for j in range(w):
                        start[j] = was[j] * p_drop[j]
                    for k in range(1, n + 1):
                        emit, here = write[m - 1, lost[i, k - 1], a:], alpha[m, k, a:]
                        kept, prev = alpha[m - 1, k, a:], alpha[m - 1, k - 1, a:]
                        for j in range(w):
                            here[j] = kept[j] * p_drop[j] + prev[j] * emit[j]
                for k in range(1, n + 1):  # then symbols inserted before the next letter (or the end)
                    emit, here, prev = insert[m, lost[i, k - 1], a:], alpha[m, k, a:], alpha[m, k - 1, a:]
                    for j in range(w):
                        here[j] += prev[j] * emit[j]
            for j in range(n_y):
                final = alpha[known_len[j], n, j]
                out[i, j] = np.log(final) - log_c * n if final >= FLOAT32_TINY else NEG

    return scores


def compiled_log_probs(
    write: torch.Tensor, insert: torch.Tensor, drop: torch.Tensor,
    lost: torch.Tensor, lost_len: torch.Tensor, nxt: torch.Tensor, known_len: torch.Tensor,
) -> torch.Tensor:  # fmt: skip
    """log P(x_i | y_j) before the final stop, (n_x, n_y) float32, from the channel's log P(write,
    symbol | letter) and log P(insert, symbol | next letter) (K+1, S) each, log P(drop | letter)
    (K+1,), lost (n_x, N) ids trimmed to the longest (`EditChannel.log_prob`) with their lengths,
    and each known word's next letter at positions 0..M (n_y, M+1; the end id past its last letter)
    with their lengths: the value of `edit_lattice._alphas` then `scaled_log_probs`, to float
    rounding."""
    lost = lost.contiguous()
    return _all_pair_scores(_known_tables(write, insert, drop, nxt, lost.shape[1]), lost, lost_len, known_len)


def _all_pair_scores(
    tables: tuple[np.ndarray, np.ndarray, np.ndarray, float],
    lost: torch.Tensor, lost_len: torch.Tensor, known_len: torch.Tensor,
) -> torch.Tensor:  # fmt: skip
    """log P(x_i | y_j) before the stop, (n_x, n_y) float32, from the kernels' tables of each known
    word (M, S, n_y), (M+1, S, n_y), (M, n_y) and log c (`compiled_log_probs`, `_known_tables`)."""
    lengths = known_len.numpy()
    args = (lost.numpy(), lost_len.numpy(), lengths, first_active(lengths, tables[2].shape[0]), *tables)
    return over_rows(_kernel(), args, (lost.shape[0], tables[2].shape[-1]))


@cache
def _gradient_kernel() -> Any:
    """Every pair's lattice forward and backward, compiled on first use, for a training step over
    every known word (the lexicon objective). No reassociation (fastmath without "reassoc"), as
    `_pair_kernels`' backward."""
    from numba import njit

    @njit(nogil=True, cache=True, fastmath={"nsz", "arcp", "contract", "afn"})
    def gradients(  # pragma: no cover
        lost, lost_len, known_len, active, write, insert, drop, grad, g_write, g_insert, g_drop, first, last, j0, j1
    ):
        # write (M, S, n_y), insert (M+1, S, n_y), drop (M, n_y) as `_kernel` reads them; grad
        # (n_x, n_y). Adds lost words first..last's gradient at the log tables into g_write, g_insert,
        # g_drop (shaped as the tables), in the columns of known words j0..j1 only (this part's own
        # cells); the known words innermost, at letter m from active[m] on (compiled.first_active).
        # Every row of cells is this part's columns alone (width w), its tables' rows sliced to
        # them: contiguous, so the loops over the known words vectorise.
        big_m, w = drop.shape[0], j1 - j0
        alpha = np.empty((big_m + 1, lost.shape[1] + 1, w), dtype=np.float32)
        beta = np.empty_like(alpha)
        weight = np.empty(w, dtype=np.float32)
        lengths = known_len[j0:j1]
        for i in range(first, last):
            n = lost_len[i]
            alpha[0, 0, :] = 1.0
            alpha[0, 1 : n + 1, :] = 0.0
            for m in range(big_m + 1):
                a = min(max(active[m] - j0, 0), w)  # this part's first column with cells at letter m
                if m > 0:  # letter m dropped, or written as lost symbol k
                    p_drop, start, was = drop[m - 1, j0 + a : j1], alpha[m, 0, a:], alpha[m - 1, 0, a:]
                    for j in range(w - a):
                        start[j] = was[j] * p_drop[j]
                    for k in range(1, n + 1):
                        emit, here = write[m - 1, lost[i, k - 1], j0 + a : j1], alpha[m, k, a:]
                        kept, prev = alpha[m - 1, k, a:], alpha[m - 1, k - 1, a:]
                        for j in range(w - a):
                            here[j] = kept[j] * p_drop[j] + prev[j] * emit[j]
                for k in range(1, n + 1):  # then the insertions before the next letter (or the end)
                    emit, here, before = insert[m, lost[i, k - 1], j0 + a : j1], alpha[m, k, a:], alpha[m, k - 1, a:]
                    for j in range(w - a):
                        here[j] += before[j] * emit[j]
            g_row = grad[i, j0:j1]
            for j in range(w):  # grad / the pair's scaled probability; 0 where it read NEG
                final = alpha[lengths[j], n, j]
                weight[j] = g_row[j] / final if final >= FLOAT32_TINY else 0.0
            beta[:, : n + 1, :] = 0.0
            for m in range(big_m, -1, -1):  # from the last letter back
                a = min(max(active[m] - j0, 0), w)
                wt = weight[a:]
                for j in range(a, w):
                    if lengths[j] == m:
                        beta[m, n, j] = 1.0
                for k in range(n, 0, -1):  # along the insertions: beta[m, k] is then complete
                    symbol = lost[i, k - 1]
                    emit, h, before, back, g_i = (
                        insert[m, symbol, j0 + a : j1],
                        beta[m, k, a:],
                        alpha[m, k - 1, a:],
                        beta[m, k - 1, a:],
                        g_insert[m, symbol, j0 + a : j1],
                    )
                    for j in range(w - a):
                        g_i[j] += (before[j] * emit[j] * h[j]) * wt[j]
                        back[j] += h[j] * emit[j]
                if m == 0:
                    break
                p_drop, g_d = drop[m - 1, j0 + a : j1], g_drop[m - 1, j0 + a : j1]  # across letter m
                for k in range(n + 1):
                    h, kept, back = beta[m, k, a:], alpha[m - 1, k, a:], beta[m - 1, k, a:]
                    for j in range(w - a):
                        g_d[j] += (kept[j] * p_drop[j] * h[j]) * wt[j]
                        back[j] += h[j] * p_drop[j]
                    if k == 0:
                        continue
                    symbol = lost[i, k - 1]
                    emit, prev, back1, g_w = (
                        write[m - 1, symbol, j0 + a : j1],
                        alpha[m - 1, k - 1, a:],
                        beta[m - 1, k - 1, a:],
                        g_write[m - 1, symbol, j0 + a : j1],
                    )
                    for j in range(w - a):
                        g_w[j] += (prev[j] * emit[j] * h[j]) * wt[j]
                        back1[j] += h[j] * emit[j]

    return gradients


def _known_tables(
    write: torch.Tensor, insert: torch.Tensor, drop: torch.Tensor, nxt: torch.Tensor, longest: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The all-pair kernels' tables of each known word, from the tables of every letter
    (`compiled_log_probs`'s) at its next letters `nxt` (n_y, M+1): scaled log P(write, symbol | its
    letter m) (M, S, n_y), log P(insert, symbol | its next letter) (M+1, S, n_y), P(drop) (M, n_y),
    and log c for lost words of up to `longest` symbols."""
    scaled_write, scaled_insert, p_drop, log_c = scaled_tables((write, insert), drop, longest)
    ids = nxt.numpy()
    letters = ids[:, :-1]
    return gathered(letters, scaled_write), gathered(ids, scaled_insert), gathered(letters, p_drop), log_c


class CompiledLattice(torch.autograd.Function):
    """`edit_lattice._Lattice` compiled: log P(x_i | y_j) (n_x, n_y) before the stop, with its
    gradient by the forward-backward algorithm, each lost word's lattice recomputed in cache by the
    backward rather than kept. It takes the tables of every letter (`compiled_log_probs`'s) and
    returns their gradients: each known word's operations are gathered and their gradients
    scattered inside compiled loops (compiled.py), not by torch's indexing."""

    @staticmethod
    def forward(ctx, write, insert, drop, lost, lost_len, nxt, known_len):
        lost = lost.contiguous()
        ctx.nxt, ctx.n_letters = nxt.numpy(), write.shape[0]
        ctx.save_for_backward(lost, lost_len, known_len)
        ctx.tables = _known_tables(write, insert, drop, nxt, lost.shape[1])  # read again by the backward
        return _all_pair_scores(ctx.tables, lost, lost_len, known_len)

    @staticmethod
    def backward(ctx, grad):
        lost, lost_len, known_len = ctx.saved_tensors
        scaled_write, scaled_insert, p_drop, _ = ctx.tables
        lengths = known_len.numpy()
        args = (lost.numpy(), lost_len.numpy(), lengths, first_active(lengths, p_drop.shape[0]), scaled_write,
                scaled_insert, p_drop, grad.detach().contiguous().numpy())  # fmt: skip
        tables = (scaled_write, scaled_insert, p_drop)
        g_write, g_insert, g_drop = summed_over_columns(_gradient_kernel(), args, tables, lost.shape[0])
        ids, n = ctx.nxt, ctx.n_letters
        letters = ids[:, :-1]  # each known word's letters; `ids` adds the end past its last one
        tables = (scattered(letters, g_write.numpy(), n), scattered(ids, g_insert.numpy(), n),
                  scattered(letters, g_drop.numpy(), n))  # fmt: skip
        return (*(torch.from_numpy(t) for t in tables), None, None, None, None)


@cache
def _pair_kernel() -> Any:
    """The paired lattice's loop, compiled on first use: each pair's score and, `with_grad`, its
    gradient by the forward-backward algorithm, in one function (a compiled function that calls
    another defined beside it is compiled afresh by every process; numba caches this one). No
    reassociation in the backward (fastmath without "reassoc"): a path's share, alpha x
    transition x beta, is formed before it is divided by the pair's probability, as
    edit_lattice._PairedLattice does, so no product on the way can overflow."""
    from numba import njit

    @njit(nogil=True, cache=True, fastmath={"nsz", "arcp", "contract", "afn"})
    def pairs(  # pragma: no cover
        lost, lost_len, known, known_len, write, insert, drop, none, log_c, out, with_grad, grad, g_write, g_insert,
        g_drop, first, last,
    ):  # fmt: skip
        # Pair p's lattice in alpha (M+1, N+1): after letter m (0..its length) and the symbols
        # inserted before the next letter (or the end, `none`); write and insert (K+1, S) are the
        # scaled tables of every letter, drop (K+1,). Its score (before the stop) into out[p];
        # with_grad, its gradient at the log tables added into g_write, g_insert, g_drop (this
        # part's own buffers): a path's share times grad / the pair's probability (0 at NEG).
        alpha = np.empty((known.shape[1] + 1, lost.shape[1] + 1), dtype=np.float32)
        beta = np.empty_like(alpha)
        for p in range(first, last):
            n, letters = lost_len[p], known_len[p]
            alpha[0, 0] = 1.0
            for m in range(letters + 1):
                if m > 0:  # letter m dropped, or written as lost symbol k
                    a = known[p, m - 1]
                    p_drop = drop[a]
                    alpha[m, 0] = alpha[m - 1, 0] * p_drop
                    for k in range(1, n + 1):
                        alpha[m, k] = alpha[m - 1, k] * p_drop + alpha[m - 1, k - 1] * write[a, lost[p, k - 1]]
                else:
                    alpha[0, 1 : n + 1] = 0.0
                nxt = known[p, m] if m < letters else none
                for k in range(1, n + 1):  # then the insertions, along the lost word
                    alpha[m, k] += alpha[m, k - 1] * insert[nxt, lost[p, k - 1]]
            final = alpha[letters, n]
            out[p] = np.log(final) - log_c * n if final >= FLOAT32_TINY else NEG
            if not with_grad or final < FLOAT32_TINY:
                continue
            weight = grad[p] / final
            beta[: letters + 1, : n + 1] = 0.0
            beta[letters, n] = 1.0
            for m in range(letters, -1, -1):  # from the last letter back
                nxt = known[p, m] if m < letters else none
                for k in range(n, 0, -1):  # along the insertions: beta[m, k] is then complete
                    symbol = lost[p, k - 1]
                    emit, h = insert[nxt, symbol], beta[m, k]
                    g_insert[nxt, symbol] += (alpha[m, k - 1] * emit * h) * weight
                    beta[m, k - 1] += h * emit
                if m == 0:
                    break
                a = known[p, m - 1]  # across letter m
                p_drop = drop[a]
                for k in range(n + 1):
                    h = beta[m, k]
                    g_drop[a] += (alpha[m - 1, k] * p_drop * h) * weight
                    beta[m - 1, k] += h * p_drop
                    if k > 0:
                        symbol = lost[p, k - 1]
                        emit = write[a, symbol]
                        g_write[a, symbol] += (alpha[m - 1, k - 1] * emit * h) * weight
                        beta[m - 1, k - 1] += h * emit

    return pairs


def compiled_pair_log_probs(
    write: torch.Tensor, insert: torch.Tensor, drop: torch.Tensor, none: int,
    lost: torch.Tensor, lost_len: torch.Tensor, known: torch.Tensor, known_len: torch.Tensor,
) -> torch.Tensor:  # fmt: skip
    """log P(x_p | y_p) (P,) float32 before the final stop, for aligned pairs, from the channel's
    log P(write, symbol | letter) and log P(insert, symbol | next letter) (K+1, S) each and log
    P(drop | letter) (K+1,), `none` the end's letter id; lost (P, N) and known (P, M) ids with their
    lengths: the value of `edit_lattice._pair_alphas` then `scaled_pair_log_probs`, to float rounding."""
    return _pair_scores(pair_words(lost, lost_len, known, known_len), scaled_tables((write, insert), drop,
                                                                                    lost.shape[1]), none)  # fmt: skip


# The gradient buffers the paired kernel is given when it computes none (it never writes them).
_NO_GRADIENT = (np.zeros(1, np.float32), np.zeros((1, 1), np.float32), np.zeros((1, 1), np.float32),
                np.zeros(1, np.float32))  # fmt: skip


def _pair_scores(
    words: tuple[np.ndarray, ...], tables: tuple[np.ndarray, np.ndarray, np.ndarray, float], none: int
) -> torch.Tensor:
    """`compiled_pair_log_probs` from the word arrays (`compiled.pair_words`) and tables
    (`compiled.scaled_tables`): (P,)."""
    scaled_write, scaled_insert, p_drop, log_c = tables
    args = (*words, scaled_write, scaled_insert, p_drop, none, log_c)
    return over_rows(_pair_kernel(), args, (words[0].shape[0],), (False, *_NO_GRADIENT))


class CompiledPairs(torch.autograd.Function):
    """`edit_lattice._PairedLattice` compiled: log P(x_p | y_p) (P,) before the stop, with its
    gradient at the tables of every letter (`compiled_pair_log_probs`'s), each pair's lattice
    recomputed in cache by the backward; each thread adds into its own gradient tables."""

    @staticmethod
    def forward(ctx, write, insert, drop, none, lost, lost_len, known, known_len):
        # Kept for the backward, which runs the same kernel again with its gradient.
        ctx.words = pair_words(lost, lost_len, known, known_len)
        ctx.tables, ctx.none = scaled_tables((write, insert), drop, lost.shape[1]), none
        return _pair_scores(ctx.words, ctx.tables, none)

    @staticmethod
    def backward(ctx, grad):
        scaled_write, scaled_insert, p_drop, log_c = ctx.tables
        n_pairs = ctx.words[0].shape[0]
        args = (*ctx.words, scaled_write, scaled_insert, p_drop, ctx.none, log_c, np.empty(n_pairs, np.float32), True,
                grad.detach().contiguous().numpy())  # fmt: skip
        tables = (scaled_write, scaled_insert, p_drop)
        g_write, g_insert, g_drop = summed_over_rows(_pair_kernel(), args, tables, n_pairs)
        return g_write, g_insert, g_drop, None, None, None, None, None
