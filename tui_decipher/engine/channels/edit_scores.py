"""The edit channel's log P(x_i | y_j) for every pair without a gradient, compiled (numba), on the CPU.

All-pair scoring (plans, shortlist refreshes, held-out evidence, the final costs) needs no
gradient. Through torch's tensors the lattice (edit_lattice.py) reads and writes each cell of a
(n_x, N+1, n_y) table several times: on 2 cores it scored 255 M cells a second, what the memory
bus carries at about 80 bytes a cell, and 0.5% of the arithmetic the cores can do
(docs/scripts/lattice_rate.py, docs/speed.md). Here each pair's column of cells lives in a few
cache lines: the same recursion (a drop, a write, then the insertions along the lost word), in
float32, scaled by c^k as the tensors are, so that a score reads NEG exactly where theirs does
(a final cell below float32's normal range). Rows of pairs are split over threads; the loop holds
no interpreter lock.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import torch

from .compiled import FLOAT32_TINY, over_rows
from .lattice import NEG, emission_scale


@cache
def _kernel() -> Any:
    """The compiled loop, on first use: numba is imported only where pairs are scored."""
    from numba import njit

    @njit(nogil=True, cache=True, fastmath=True)
    def scores(lost, lost_len, known_len, write, insert, drop, log_c, out, first, last):  # pragma: no cover
        # write (M, S, n_y): letter m's write of each lost symbol, for each known word; insert
        # (M+1, S, n_y) before letter m (or the end); drop (M, n_y). The innermost loops run
        # over the known words, whose cells are independent and contiguous: they vectorise,
        # where one pair's cells would wait on one another along k.
        big_m, n_y = drop.shape[0], drop.shape[1]
        alpha = np.empty((lost.shape[1] + 1, n_y), dtype=np.float32)
        for i in range(first, last):
            n = lost_len[i]
            alpha[0, :] = 1.0
            alpha[1 : n + 1, :] = 0.0
            for m in range(big_m + 1):
                if m > 0:  # letter m dropped, or written as lost symbol k
                    p_drop = drop[m - 1]
                    for k in range(n, 0, -1):
                        emit, here, before = write[m - 1, lost[i, k - 1]], alpha[k], alpha[k - 1]
                        for j in range(n_y):
                            here[j] = here[j] * p_drop[j] + before[j] * emit[j]
                    for j in range(n_y):
                        alpha[0, j] *= p_drop[j]
                for k in range(1, n + 1):  # then symbols inserted before the next letter (or the end)
                    emit, here, before = insert[m, lost[i, k - 1]], alpha[k], alpha[k - 1]
                    for j in range(n_y):
                        here[j] += before[j] * emit[j]
                for j in range(n_y):
                    if known_len[j] == m:
                        final = alpha[n, j]
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
    n_x, n_y, big_m = lost.shape[0], nxt.shape[0], nxt.shape[1] - 1
    log_c = emission_scale(write.shape[-1], lost.shape[1])
    with torch.no_grad():
        scaled_write = (write + log_c).exp().T[:, nxt[:, :big_m]].permute(2, 0, 1).contiguous()  # (M, S, n_y)
        scaled_insert = (insert + log_c).exp().T[:, nxt].permute(2, 0, 1).contiguous()  # (M+1, S, n_y)
        p_drop = drop.exp()[nxt[:, :big_m]].T.contiguous()  # (M, n_y)
    out = np.empty((n_x, n_y), dtype=np.float32)
    args = (lost.numpy(), lost_len.numpy(), known_len.numpy(), scaled_write.numpy(), scaled_insert.numpy(),
            p_drop.numpy(), log_c, out)  # fmt: skip
    over_rows(_kernel(), args, n_x)
    return torch.from_numpy(out)
