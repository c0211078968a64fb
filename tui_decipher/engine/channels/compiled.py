"""What the channels' compiled all-pair scorers (edit_scores.py, pieces_scores.py) share: the
smallest normal float32 (below it a scaled final cell reads NEG, as the tensors' lattices do), and
a kernel's rows split over a thread pool kept for every call."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache, partial
from typing import Any

import numpy as np
import torch

from ..run.device import compiled_threads
from .lattice import emission_scale

FLOAT32_TINY = float(np.finfo(np.float32).tiny)


def runs_compiled(tensor: torch.Tensor) -> bool:
    """Whether a channel's tables like `tensor` score through the compiled lattices: float32 on the
    CPU, as runs train (a float64 channel, as tests build, or a cuda one keeps the tensors' lattice)."""
    return tensor.device.type == "cpu" and tensor.dtype == torch.float32


def scaled_tables(emissions: tuple[torch.Tensor, ...], log_drop: torch.Tensor, longest: int) -> tuple[Any, ...]:
    """A channel's log tables of every letter (pair) as the kernels read them: each of `emissions`
    as exp(table + log c) (symbols on the last axis), then exp(log_drop), then log c for lost words
    of up to `longest` symbols (`lattice.emission_scale`)."""
    log_c = emission_scale(emissions[0].shape[-1], longest)
    with torch.no_grad():
        tables = [(table + log_c).exp() for table in emissions] + [log_drop.exp()]
    return (*(t.contiguous().numpy() for t in tables), log_c)


@cache
def _threads(n: int) -> ThreadPoolExecutor:
    """A pool of `n` threads kept for every call: a run scores thousands of blocks."""
    return ThreadPoolExecutor(n, thread_name_prefix="compiled-scores")


# An all-pair call is split over threads only where each part has at least this many pairs: below
# it a split gains nothing on 2 cores (docs/scripts/kernel_split.py, docs/speed.md).
PAIRS_A_PART = 1 << 15


def even_parts(n: int, pairs_each: int) -> list[tuple[int, int]]:
    """0..n (rows or columns) as (first, last) parts, one for each thread this thread's kernels may
    use (`device.compiled_threads`: torch's, or a share of them where stages train side by side),
    but fewer where a part would score fewer than PAIRS_A_PART pairs (`pairs_each`: the pairs of a
    row, or of a column)."""
    threads = max(1, min(compiled_threads(), n, n * pairs_each // PAIRS_A_PART))  # pairs_each 0: whole
    bounds = np.linspace(0, n, threads + 1).astype(int)
    return [(int(bounds[k]), int(bounds[k + 1])) for k in range(threads)]


def first_active(known_len: np.ndarray, longest: int) -> np.ndarray:
    """For each letter m = 0..`longest`, the first of the known words (in the order given) from which
    on every word has at least m letters, where their lengths `known_len` (n_y,) rise: an all-pair
    kernel computes cells at letter m from there on only, as a shorter word's cells past its own
    length are never read. Zeros where the lengths do not rise (every cell computed). (longest + 1,)."""
    if len(known_len) > 1 and bool((known_len[1:] < known_len[:-1]).any()):
        return np.zeros(longest + 1, np.int64)
    return np.searchsorted(known_len, np.arange(longest + 1), side="left").astype(np.int64)


def in_threads(calls: list[Callable[[], None]]) -> None:
    """Each call in a thread of the kept pool (the last in this one), back when all have returned:
    compiled kernels hold no interpreter lock."""
    if len(calls) > 1:
        pending = [_threads(len(calls) - 1).submit(call) for call in calls[:-1]]
        calls[-1]()
        for future in pending:
            future.result()
    elif calls:
        calls[0]()


def pair_words(
    lost: torch.Tensor, lost_len: torch.Tensor, known: torch.Tensor, known_len: torch.Tensor
) -> tuple[np.ndarray, ...]:
    """A paired kernel's word arrays: lost (P, N) ids, their lengths, known (P, M) ids, their lengths."""
    return lost.contiguous().numpy(), lost_len.numpy(), known.contiguous().numpy(), known_len.numpy()


def over_rows(
    kernel: Callable[..., None], args: tuple[Any, ...], shape: tuple[int, ...], after: tuple[Any, ...] = ()
) -> torch.Tensor:
    """kernel(*args, out, *after, first, last) over rows 0..shape[0] of a new float32 `out` of
    `shape`, split into `even_parts` (each row's cells are its own); returns `out`."""
    out = np.empty(shape, dtype=np.float32)
    # A row of all pairs: a lost word's pairs. A paired call (a row a pair) stays whole: a second
    # thread saved nothing at 1000-64,000 pairs, or cost up to a quarter (docs/speed.md).
    parts = even_parts(shape[0], shape[1] if len(shape) > 1 else 0)
    in_threads([partial(kernel, *args, out, *after, first, last) for first, last in parts])
    return torch.from_numpy(out)


def summed_over_rows(
    kernel: Callable[..., None], args: tuple[Any, ...], like: tuple[np.ndarray, ...], n_rows: int
) -> tuple[torch.Tensor, ...]:
    """kernel(*args, *buffers, 0, n_rows) adding every row's (one pair's) gradient into one set of
    zeroed buffers shaped as the arrays `like` (a paired backward's tables of every letter), returned
    as tensors. In one part: parts of their own, added up, would make the gradient depend on the
    threads, and on 2 cores a second thread saved nothing at 1000-64,000 pairs (docs/speed.md)."""
    buffers = tuple(np.zeros_like(array) for array in like)
    kernel(*args, *buffers, 0, n_rows)
    return tuple(torch.from_numpy(array) for array in buffers)


def summed_over_columns(
    kernel: Callable[..., None], args: tuple[Any, ...], like: tuple[np.ndarray, ...], n_rows: int
) -> tuple[torch.Tensor, ...]:
    """kernel(*args, *buffers, 0, n_rows, first, last) over the known words (the last axis of the
    arrays `like`, an all-pair backward's gradient tables) split into `even_parts`: every part adds
    into its own known words' cells of one set of zeroed buffers shaped as `like`, which are returned
    as tensors. Why not parts over the lost words: each would need buffers as large as the tables,
    zeroed and then added up, which cost more than the part saved (a 20 x 1452 step on 2 cores:
    4-6 ms zeroing and 4-5 ms adding against a 2-3 ms kernel, docs/speed.md); and each cell adds
    the lost words in one order, so the gradient is the same whatever the threads."""
    buffers = tuple(np.zeros_like(array) for array in like)
    n_cols = like[0].shape[-1]
    in_threads([partial(kernel, *args, *buffers, 0, n_rows, first, last) for first, last in even_parts(n_cols, n_rows)])
    return tuple(torch.from_numpy(array) for array in buffers)


@cache
def _row_kernels() -> tuple[Any, Any]:
    """Two loops, compiled on first use: `gather` writes each known word's rows of a letter table
    in the layout the all-pair kernels read, `scatter` adds their gradients back in a fixed order
    (one thread: a seed reads the same on every run)."""
    from numba import njit

    @njit(nogil=True, cache=True)
    def gather(ids, table, out):  # pragma: no cover
        # ids (P, n_y): each known word's rows at its positions; table (S, R), a letter table
        # transposed; out (P, S, n_y). Each (p, s) reads one short row of the table (in cache)
        # and writes a contiguous row of out.
        n_p, n_y = ids.shape
        for p in range(n_p):
            at = ids[p]
            for s in range(table.shape[0]):
                row, written = table[s], out[p, s]
                for j in range(n_y):
                    written[j] = row[at[j]]

    @njit(nogil=True, cache=True)
    def scatter(ids, grad, out):  # pragma: no cover
        # gather's reverse: grad (P, S, n_y) added into out (R, S) at the rows ids (n_y, P). (Over
        # gather's transposed layout it ran slower: 0.9 ms against 0.3 ms at 20 x 350 pairs.)
        n_y, n_p = ids.shape
        for p in range(n_p):
            for j in range(n_y):
                row = ids[j, p]
                for s in range(out.shape[1]):
                    out[row, s] += grad[p, s, j]

    return gather, scatter


def gathered(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    """table[ids[j, p], s] at out[p, s, j]: a letter table's rows (R, S) float32 at each known
    word's positions ids (n_y, P) int64, in the all-pair kernels' layout (P, S, n_y) (the known
    words innermost, where the kernels' loops run); a table of one value a row (R,) gives (P, n_y)."""
    rows = table if table.ndim > 1 else table[:, None]
    out = np.empty((ids.shape[1], rows.shape[1], ids.shape[0]), np.float32)
    _row_kernels()[0](np.ascontiguousarray(ids.T), np.ascontiguousarray(rows.T), out)
    return out if table.ndim > 1 else out[:, 0]


def scattered(ids: np.ndarray, grad: np.ndarray, n_rows: int) -> np.ndarray:
    """`gathered`'s gradient: grad (P, S, n_y) summed into the table's rows (n_rows, S), or grad
    (P, n_y) into (n_rows,)."""
    per_row = grad if grad.ndim == 3 else grad[:, None]
    out = np.zeros((n_rows, per_row.shape[1]), np.float32)
    _row_kernels()[1](np.ascontiguousarray(ids), np.ascontiguousarray(per_row), out)
    return out if grad.ndim == 3 else out[:, 0]
