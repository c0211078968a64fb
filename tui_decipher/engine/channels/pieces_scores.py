"""The pieces channel's log P(x | y) compiled (numba), on the CPU: for every pair without a gradient
(`compiled_log_probs`) and with one by the forward-backward algorithm (`CompiledLattice`), and for
listed pairs (`compiled_pair_log_probs`, `CompiledPairs`: a plan's support, shortlists, judged pairs).

As edit_scores.py does for the edit channel: through torch's tensors the lattice
(pieces_lattice.py) moves each cell of an (n_x, N+1, n_y) table through memory several times. Here
each lost word's cells stay in cache: the same recursion (letter m dropped, written as one symbol,
written with letter m-1 as one symbol, or with letters m-2 and m-1, m-1 unwritten), in float32,
scaled by c^k as the tensors are, so that a score reads NEG exactly where theirs does. Rows of
pairs are split over threads; the loops hold no interpreter lock.
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
    def scores(lost, lost_len, known_len, active, one, two, gap, drop, log_c, out, first, last):  # pragma: no cover
        # one (M, S, n_y): letter m written alone as each lost symbol, for each known word; two
        # (M-1, S, n_y): letters m, m+1 written as one symbol; gap (M-2, S, n_y): letters m..m+2,
        # m+1 unwritten; drop (M, n_y). Four rows of cells rotate: letter m's from m-1's, m-2's and
        # m-3's. The innermost loops run over the known words, from active[m] on: the first whose
        # word has m letters or more (compiled.first_active).
        big_m, n_y = drop.shape[0], drop.shape[1]
        gaps = gap.shape[0] > 0  # (0, S, n_y): a channel without gapped pieces
        cells = np.empty((4, lost.shape[1] + 1, n_y), dtype=np.float32)
        for i in range(first, last):
            n = lost_len[i]
            before3, before2, before, new = cells[0], cells[1], cells[2], cells[3]
            before[0, :] = 1.0
            before[1 : n + 1, :] = 0.0
            for j in range(n_y):  # an empty known word writes only the empty lost word
                if known_len[j] == 0:
                    out[i, j] = 0.0 if n == 0 else NEG
            for m in range(1, big_m + 1):
                a = active[m]
                w = n_y - a
                p_drop, start, was = drop[m - 1, a:], new[0, a:], before[0, a:]
                for j in range(w):
                    start[j] = was[j] * p_drop[j]
                for k in range(1, n + 1):
                    symbol = lost[i, k - 1]
                    emit, here, prev = one[m - 1, symbol, a:], new[k, a:], before[k - 1, a:]
                    kept = before[k, a:]
                    if m >= 3 and gaps:
                        emit2, prev2 = two[m - 2, symbol, a:], before2[k - 1, a:]
                        emit3, prev3 = gap[m - 3, symbol, a:], before3[k - 1, a:]
                        for j in range(w):
                            here[j] = kept[j] * p_drop[j] + (
                                prev[j] * emit[j] + prev2[j] * emit2[j] + prev3[j] * emit3[j]
                            )
                    elif m >= 2:
                        emit2, prev2 = two[m - 2, symbol, a:], before2[k - 1, a:]
                        for j in range(w):
                            here[j] = kept[j] * p_drop[j] + (prev[j] * emit[j] + prev2[j] * emit2[j])
                    else:
                        for j in range(w):
                            here[j] = kept[j] * p_drop[j] + prev[j] * emit[j]
                for j in range(a, n_y):
                    if known_len[j] == m:
                        final = new[n, j]
                        out[i, j] = np.log(final) - log_c * n if final >= FLOAT32_TINY else NEG
                before3, before2, before, new = before2, before, new, before3

    return scores


def compiled_log_probs(
    log_one: torch.Tensor, log_two: torch.Tensor, log_gap: torch.Tensor, log_drop: torch.Tensor,
    lost: torch.Tensor, lost_len: torch.Tensor, known: torch.Tensor, known_len: torch.Tensor,
) -> torch.Tensor:  # fmt: skip
    """log P(x_i | y_j), (n_x, n_y) float32, from the tables of every letter (pair)
    `compiled_pair_log_probs` reads, (K+1, S), (K+1, K+1, S) twice and (K+1,); lost (n_x, N) ids
    trimmed to the longest, known (n_y, M) ids padded with the channel's `none`, with their lengths:
    the value of `pieces_lattice._alphas` then `scaled_log_probs`, to float rounding."""
    lost = lost.contiguous()
    rows = _known_rows(known.numpy(), log_one.shape[0], log_gap.shape[0] > 0)
    tables = _tables(log_one, log_two, log_gap, log_drop, rows, lost.shape[1])
    return _all_pair_scores(tables, lost, lost_len, known_len)


def _all_pair_scores(
    tables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float],
    lost: torch.Tensor, lost_len: torch.Tensor, known_len: torch.Tensor,
) -> torch.Tensor:  # fmt: skip
    """`compiled_log_probs` from the kernels' tables (`_tables`): (n_x, n_y) float32."""
    lengths = known_len.numpy()
    args = (lost.numpy(), lost_len.numpy(), lengths, first_active(lengths, tables[3].shape[0]), *tables)
    return over_rows(_kernel(), args, (lost.shape[0], tables[0].shape[-1]))


@cache
def _gradient_kernel() -> Any:
    """The forward-backward loop, compiled on first use. No reassociation (fastmath without
    "reassoc"): a path's share, alpha x transition x beta, is at most its pair's scaled probability
    and is only then multiplied by grad / that probability, as pieces_lattice._Lattice does, so
    that no product on the way can overflow."""
    from numba import njit

    @njit(nogil=True, cache=True, fastmath={"nsz", "arcp", "contract", "afn"})
    def gradients(
        lost, lost_len, known_len, active, one, two, gap, drop, grad, g_one, g_two, g_gap, g_drop, first, last, j0, j1
    ):  # pragma: no cover
        # one (M, S, n_y), two (M-1, S, n_y), gap (M-2, S, n_y), drop (M, n_y) as `scores` reads them;
        # grad (n_x, n_y) the loss's gradient at each pair's log-probability. Adds lost words
        # first..last's gradient at the log tables into g_one, g_two, g_gap, g_drop (shaped as the
        # tables), in the columns of known
        # words j0..j1 only: this part's own cells. At letter m only the known words from active[m]
        # on have cells (compiled.first_active): a shorter word's cells past its length are never read.
        # Every row of cells is this part's columns alone (width w), its tables' rows sliced to
        # them: contiguous, so the loops over the known words vectorise.
        big_m, w = drop.shape[0], j1 - j0
        gaps = gap.shape[0] > 0  # (0, S, n_y): a channel without gapped pieces
        alpha = np.empty((big_m + 1, lost.shape[1] + 1, w), dtype=np.float32)
        beta = np.empty((big_m + 1, lost.shape[1] + 1, w), dtype=np.float32)
        weight = np.empty(w, dtype=np.float32)
        lengths = known_len[j0:j1]
        for i in range(first, last):
            n = lost_len[i]
            alpha[0, 0, :] = 1.0
            alpha[0, 1 : n + 1, :] = 0.0
            for m in range(1, big_m + 1):
                a = min(max(active[m] - j0, 0), w)  # this part's first column with cells at letter m
                p_drop, start, was = drop[m - 1, j0 + a : j1], alpha[m, 0, a:], alpha[m - 1, 0, a:]
                for j in range(w - a):
                    start[j] = was[j] * p_drop[j]
                for k in range(1, n + 1):
                    symbol = lost[i, k - 1]
                    emit, here = one[m - 1, symbol, j0 + a : j1], alpha[m, k, a:]
                    kept, prev = alpha[m - 1, k, a:], alpha[m - 1, k - 1, a:]
                    if m >= 3 and gaps:
                        emit2, prev2 = two[m - 2, symbol, j0 + a : j1], alpha[m - 2, k - 1, a:]
                        emit3, prev3 = gap[m - 3, symbol, j0 + a : j1], alpha[m - 3, k - 1, a:]
                        for j in range(w - a):
                            here[j] = kept[j] * p_drop[j] + (
                                prev[j] * emit[j] + prev2[j] * emit2[j] + prev3[j] * emit3[j]
                            )
                    elif m >= 2:
                        emit2, prev2 = two[m - 2, symbol, j0 + a : j1], alpha[m - 2, k - 1, a:]
                        for j in range(w - a):
                            here[j] = kept[j] * p_drop[j] + (prev[j] * emit[j] + prev2[j] * emit2[j])
                    else:
                        for j in range(w - a):
                            here[j] = kept[j] * p_drop[j] + prev[j] * emit[j]
            g_row = grad[i, j0:j1]
            for j in range(w):  # grad / the pair's scaled probability; 0 where it read NEG
                final = alpha[lengths[j], n, j]
                weight[j] = g_row[j] / final if final >= FLOAT32_TINY else 0.0
            beta[:, : n + 1, :] = 0.0
            for m in range(big_m, 0, -1):  # from the last letter back
                a = min(max(active[m] - j0, 0), w)
                for j in range(a, w):
                    if lengths[j] == m:
                        beta[m, n, j] = 1.0
                p_drop = drop[m - 1, j0 + a : j1]
                g_d = g_drop[m - 1, j0 + a : j1]
                wt = weight[a:]
                for k in range(n + 1):
                    h, before = beta[m, k, a:], alpha[m - 1, k, a:]
                    back = beta[m - 1, k, a:]
                    for j in range(w - a):
                        g_d[j] += (before[j] * p_drop[j] * h[j]) * wt[j]
                        back[j] += h[j] * p_drop[j]
                    if k == 0:
                        continue
                    symbol = lost[i, k - 1]
                    emit, prev, back1, g1 = (
                        one[m - 1, symbol, j0 + a : j1],
                        alpha[m - 1, k - 1, a:],
                        beta[m - 1, k - 1, a:],
                        g_one[m - 1, symbol, j0 + a : j1],
                    )
                    for j in range(w - a):
                        g1[j] += (prev[j] * emit[j] * h[j]) * wt[j]
                        back1[j] += h[j] * emit[j]
                    if m >= 2:
                        emit2, prev2, back2, g2 = (
                            two[m - 2, symbol, j0 + a : j1],
                            alpha[m - 2, k - 1, a:],
                            beta[m - 2, k - 1, a:],
                            g_two[m - 2, symbol, j0 + a : j1],
                        )
                        for j in range(w - a):
                            g2[j] += (prev2[j] * emit2[j] * h[j]) * wt[j]
                            back2[j] += h[j] * emit2[j]
                    if m >= 3 and gaps:
                        emit3, prev3, back3, g3 = (
                            gap[m - 3, symbol, j0 + a : j1],
                            alpha[m - 3, k - 1, a:],
                            beta[m - 3, k - 1, a:],
                            g_gap[m - 3, symbol, j0 + a : j1],
                        )
                        for j in range(w - a):
                            g3[j] += (prev3[j] * emit3[j] * h[j]) * wt[j]
                            back3[j] += h[j] * emit3[j]

    return gradients


def _tables(
    log_one: torch.Tensor, log_two: torch.Tensor, log_gap: torch.Tensor, log_drop: torch.Tensor,
    rows: tuple[np.ndarray, np.ndarray, np.ndarray], longest: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:  # fmt: skip
    """The all-pair kernels' scaled tables (M, S, n_y), (M-1, S, n_y), (M-2, S, n_y), (M, n_y) of the
    known words whose `_known_rows` are `rows`, from the tables of every letter (pair)
    (`compiled.scaled_tables`), and log c for lost words of up to `longest` symbols."""
    one, two, gap, drop, log_c = scaled_tables((log_one, log_two, log_gap), log_drop, longest)
    letters, pairs, gapped = rows
    two, gap = (table.reshape(-1, table.shape[-1]) for table in (two, gap))  # a row a letter pair
    return gathered(letters, one), gathered(pairs, two), gathered(gapped, gap), gathered(letters, drop), log_c


def _known_rows(known: np.ndarray, n_letters: int, gaps: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows the known words (n_y, M) read: of a letter table (n_y, M), and of a letter pair
    table flattened to (K+1)^2 rows, for two-letter pieces (n_y, M-1; letters m and m+1) and
    gapped ones (n_y, M-2; letters m and m+2; none where the channel has no `gaps`)."""
    gapped = known[:, :-2] * n_letters + known[:, 2:] if gaps else known[:, :0]
    return known, known[:, :-1] * n_letters + known[:, 1:], gapped


class CompiledLattice(torch.autograd.Function):
    """`pieces_lattice._Lattice` compiled: log P(x_i | y_j) (n_x, n_y) with its gradient by the
    forward-backward algorithm, each lost word's lattice recomputed in cache by the backward rather
    than kept (float32 on the CPU; what a training step runs). It takes the tables of every letter
    (pair), as `CompiledPairs` does, and returns their gradients: each known word's pieces are
    gathered and their gradients scattered inside compiled loops, not by torch's indexing."""

    @staticmethod
    def forward(ctx, log_one, log_two, log_gap, log_drop, lost, lost_len, known, known_len):
        lost = lost.contiguous()
        ctx.rows, ctx.n_letters = _known_rows(known.numpy(), log_one.shape[0], log_gap.shape[0] > 0), log_one.shape[0]
        ctx.gap_shape = tuple(log_gap.shape)  # (K+1, K+1, S), or (0, 0, S): no gapped pieces
        ctx.save_for_backward(lost, lost_len, known_len)
        # read again by the backward
        ctx.tables = _tables(log_one, log_two, log_gap, log_drop, ctx.rows, lost.shape[1])
        return _all_pair_scores(ctx.tables, lost, lost_len, known_len)

    @staticmethod
    def backward(ctx, grad):
        lost, lost_len, known_len = ctx.saved_tensors
        table1, table2, table3, p_drop, _ = ctx.tables
        grad = grad.detach().contiguous().numpy()
        ids, lengths, known_lengths = lost.numpy(), lost_len.numpy(), known_len.numpy()
        active = first_active(known_lengths, p_drop.shape[0])
        args = (ids, lengths, known_lengths, active, table1, table2, table3, p_drop, grad)
        tables = (table1, table2, table3, p_drop)
        g1, g2, g3, gd = summed_over_columns(_gradient_kernel(), args, tables, lost.shape[0])
        (letters, pairs, gapped), n_letters = ctx.rows, ctx.n_letters
        g_one = scattered(letters, g1.numpy(), n_letters)
        g_two = scattered(pairs, g2.numpy(), n_letters * n_letters).reshape(n_letters, n_letters, -1)
        g_gap = scattered(gapped, g3.numpy(), ctx.gap_shape[0] * ctx.gap_shape[1]).reshape(ctx.gap_shape)
        g_drop = scattered(letters, gd.numpy(), n_letters)
        grads = (torch.from_numpy(g) for g in (g_one, g_two, g_gap, g_drop))
        return *grads, None, None, None, None


@cache
def _pair_kernel() -> Any:
    """The paired lattice's loop, compiled on first use: each pair's score and, `with_grad`, its
    gradient by the forward-backward algorithm, in one function (a compiled function that calls
    another defined beside it is compiled afresh by every process; numba caches this one). No
    reassociation (fastmath without "reassoc"), as `_gradient_kernel`."""
    from numba import njit

    @njit(nogil=True, cache=True, fastmath={"nsz", "arcp", "contract", "afn"})
    def pairs(  # pragma: no cover
        lost, lost_len, known, known_len, one, two, gap, drop, log_c, out, with_grad, grad, g_one, g_two, g_gap,
        g_drop, first, last,
    ):  # fmt: skip
        # Pair p's lattice in alpha (M+1, N+1): letter m (1-based) dropped, written alone as lost
        # symbol k, written with letter m-1 as one symbol, or with letter m-2 (m-1 unwritten); one
        # (K+1, S), two and gap (K+1, K+1, S) and drop (K+1,) are the scaled tables of every letter
        # (pair). Its score into out[p]; with_grad, its gradient at the log tables added into g_one,
        # g_two, g_gap, g_drop (this part's own buffers):
        # a path's share, alpha x transition x beta, times grad / the pair's probability (0 where it
        # read NEG).
        alpha = np.empty((known.shape[1] + 1, lost.shape[1] + 1), dtype=np.float32)
        beta = np.empty_like(alpha)
        gaps = gap.shape[0] > 0  # (0, 0, S): a channel without gapped pieces
        for p in range(first, last):
            n, letters = lost_len[p], known_len[p]
            alpha[0, 0] = 1.0
            alpha[0, 1 : n + 1] = 0.0
            for m in range(1, letters + 1):
                a = known[p, m - 1]
                p_drop = drop[a]
                alpha[m, 0] = alpha[m - 1, 0] * p_drop
                for k in range(1, n + 1):
                    symbol = lost[p, k - 1]
                    written = alpha[m - 1, k - 1] * one[a, symbol]
                    if m >= 2:
                        written += alpha[m - 2, k - 1] * two[known[p, m - 2], a, symbol]
                    if m >= 3 and gaps:
                        written += alpha[m - 3, k - 1] * gap[known[p, m - 3], a, symbol]
                    alpha[m, k] = alpha[m - 1, k] * p_drop + written
            final = alpha[letters, n]
            out[p] = np.log(final) - log_c * n if final >= FLOAT32_TINY else NEG
            if not with_grad or final < FLOAT32_TINY:
                continue
            weight = grad[p] / final
            beta[: letters + 1, : n + 1] = 0.0
            beta[letters, n] = 1.0
            for m in range(letters, 0, -1):
                a = known[p, m - 1]
                p_drop = drop[a]
                for k in range(n + 1):
                    h = beta[m, k]
                    if h == 0.0:
                        continue
                    g_drop[a] += (alpha[m - 1, k] * p_drop * h) * weight
                    beta[m - 1, k] += h * p_drop
                    if k == 0:
                        continue
                    symbol = lost[p, k - 1]
                    emit = one[a, symbol]
                    g_one[a, symbol] += (alpha[m - 1, k - 1] * emit * h) * weight
                    beta[m - 1, k - 1] += h * emit
                    if m >= 2:
                        b = known[p, m - 2]
                        emit2 = two[b, a, symbol]
                        g_two[b, a, symbol] += (alpha[m - 2, k - 1] * emit2 * h) * weight
                        beta[m - 2, k - 1] += h * emit2
                    if m >= 3 and gaps:
                        b = known[p, m - 3]
                        emit3 = gap[b, a, symbol]
                        g_gap[b, a, symbol] += (alpha[m - 3, k - 1] * emit3 * h) * weight
                        beta[m - 3, k - 1] += h * emit3

    return pairs


def compiled_pair_log_probs(
    log_one: torch.Tensor, log_two: torch.Tensor, log_gap: torch.Tensor, log_drop: torch.Tensor,
    lost: torch.Tensor, lost_len: torch.Tensor, known: torch.Tensor, known_len: torch.Tensor,
) -> torch.Tensor:  # fmt: skip
    """log P(x_p | y_p) (P,) float32 for aligned pairs, from every letter's log P(ONE) + log P(symbol |
    letter) (K+1, S), every letter pair's log P(TWO) + log P(symbol | the pair) (K+1, K+1, S, the
    action of the first letter), the same pairs' log P(GAP) + log P(symbol | the pair) as a gapped
    piece's first and last letter, and log P(DROP) (K+1,); lost (P, N) and known (P, M) ids with their
    lengths: the value of `pieces_lattice._pair_alphas` then `scaled_pair_log_probs`, to float rounding."""
    tables = scaled_tables((log_one, log_two, log_gap), log_drop, lost.shape[1])
    return _pair_scores(pair_words(lost, lost_len, known, known_len), tables)


# The gradient buffers the paired kernel is given when it computes none (it never writes them).
_NO_GRADIENT = (np.zeros(1, np.float32), np.zeros((1, 1), np.float32), np.zeros((1, 1, 1), np.float32),
                np.zeros((1, 1, 1), np.float32), np.zeros(1, np.float32))  # fmt: skip


def _pair_scores(
    words: tuple[np.ndarray, ...], tables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]
) -> torch.Tensor:
    """`compiled_pair_log_probs` from the word arrays (`compiled.pair_words`) and tables
    (`compiled.scaled_tables`): (P,)."""
    return over_rows(_pair_kernel(), (*words, *tables), (words[0].shape[0],), (False, *_NO_GRADIENT))


class CompiledPairs(torch.autograd.Function):
    """`pieces_lattice._PairedLattice` compiled: log P(x_p | y_p) (P,) with its gradient at the
    tables of every letter (`compiled_pair_log_probs`'s), each pair's lattice recomputed in cache
    by the backward. Gathering each pair's emissions and scattering their gradients back, which the
    tensors' lattice does around it, happen inside the loops."""

    @staticmethod
    def forward(ctx, log_one, log_two, log_gap, log_drop, lost, lost_len, known, known_len):
        # Kept for the backward, which runs the same kernel again with its gradient.
        ctx.words = pair_words(lost, lost_len, known, known_len)
        ctx.tables = scaled_tables((log_one, log_two, log_gap), log_drop, lost.shape[1])
        return _pair_scores(ctx.words, ctx.tables)

    @staticmethod
    def backward(ctx, grad):
        n_pairs = ctx.words[0].shape[0]
        args = (*ctx.words, *ctx.tables, np.empty(n_pairs, np.float32), True, grad.detach().contiguous().numpy())
        g_one, g_two, g_gap, g_drop = summed_over_rows(_pair_kernel(), args, ctx.tables[:4], n_pairs)
        return g_one, g_two, g_gap, g_drop, None, None, None, None
