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

FLOAT32_TINY = float(np.finfo(np.float32).tiny)


@cache
def _threads(n: int) -> ThreadPoolExecutor:
    """A pool of `n` threads kept for every call: a run scores thousands of blocks."""
    return ThreadPoolExecutor(n, thread_name_prefix="compiled-scores")


def row_parts(n_rows: int) -> list[tuple[int, int]]:
    """Rows 0..n_rows as (first, last) parts, one for each thread torch computes with."""
    threads = max(1, min(torch.get_num_threads(), n_rows))
    bounds = np.linspace(0, n_rows, threads + 1).astype(int)
    return [(int(bounds[k]), int(bounds[k + 1])) for k in range(threads)]


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
    `shape`, split into as many parts as torch computes with threads (each row's cells are its
    own); returns `out`."""
    out = np.empty(shape, dtype=np.float32)
    in_threads([partial(kernel, *args, out, *after, first, last) for first, last in row_parts(shape[0])])
    return torch.from_numpy(out)


def summed_over_rows(
    kernel: Callable[..., None], args: tuple[Any, ...], like: tuple[np.ndarray, ...], n_rows: int
) -> tuple[torch.Tensor, ...]:
    """kernel(*args, *buffers, first, last) over rows 0..n_rows split as `over_rows` splits them,
    each part adding into its own zeroed buffers shaped as the arrays `like` (a backward's
    gradient tables: no two threads add into one array); the parts' sums, as tensors."""
    parts = row_parts(n_rows)
    buffers = [tuple(np.zeros_like(array) for array in like) for _ in parts]
    in_threads([partial(kernel, *args, *own, *part) for part, own in zip(parts, buffers, strict=True)])
    return tuple(torch.from_numpy(sum(arrays[1:], arrays[0])) for arrays in zip(*buffers, strict=True))
