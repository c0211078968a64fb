"""Beyond the paper: many starts of the syllable search (channels/syllables.py), several at once.

A start is a function of its seed alone, so the maps are the ones a single start at a time finds.
The moves run compiled without holding the interpreter's lock (channels/annealing_moves.py), so
starts in threads of this process use the cores as worker processes would, without a process's
start-up (about a second, where a start now takes under one).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from ..corpora.corpus import Word
from .syllables import MOVES, SyllableMap, search_syllables

PARALLEL_STARTS = 4  # starts annealed at once at most, one a thread (where cores allow)
POLL = 0.1  # seconds between progress reports while starts run in threads


def search_starts(
    lost_words: Sequence[Word],
    known_words: Sequence[Word],
    seeds: Sequence[int],
    moves: int = MOVES,
    workers: int = 1,
    should_stop: Callable[[], bool] = lambda: False,
    on_progress: Callable[[int, float], None] | None = None,
    fixed: dict[tuple[str, str], str] | None = None,
) -> Generator[SyllableMap | None, None, None]:
    """`search_syllables` from a random start for each of `seeds`, yielding the maps in the seeds'
    order; the caller stops whenever it has enough (close the iterator: starts still running are
    stopped). With `workers` > 1, up to that many starts anneal at once, each in a thread.
    `on_progress(moves done over every start so far, -log-likelihood a lost word of the latest
    report)`, always from the caller's thread; yields None, and stops, when `should_stop` said so."""
    workers = max(1, min(workers, PARALLEL_STARTS, len(seeds)))
    progress = [0] * len(seeds)  # each start's moves done so far
    losses = [math.nan] * len(seeds)  # each start's latest loss; NaN until it has measured one
    stopped = threading.Event()  # the iterator was closed: starts still running stop

    def one(k: int, report_here: bool) -> SyllableMap | None:
        def report(m: int, _total: int, loss: float) -> None:
            progress[k], losses[k] = m, loss
            if report_here and on_progress is not None:
                on_progress(sum(progress), loss)

        return search_syllables(lost_words, known_words, seeds[k], moves, on_progress=report, fixed=fixed,
                                should_stop=lambda: stopped.is_set() or should_stop())  # fmt: skip

    if workers == 1:
        for k in range(len(seeds)):
            found = one(k, True)
            yield found
            if found is None:
                return
        return
    pool = ThreadPoolExecutor(workers, thread_name_prefix="syllable-start")
    running: dict[int, Future[SyllableMap | None]] = {}
    try:
        for k in range(len(seeds)):
            for j in range(k, min(k + workers, len(seeds))):  # keep `workers` starts in flight
                if j not in running:
                    running[j] = pool.submit(one, j, False)
            while True:
                try:
                    found = running[k].result(timeout=POLL)
                    break
                except FutureTimeout:
                    if should_stop():
                        yield None
                        return
                    _report(progress, losses, k, running, on_progress)
            del running[k]
            _report(progress, losses, k, running, on_progress)
            yield found
            if found is None:
                return
    finally:
        stopped.set()
        pool.shutdown(wait=True, cancel_futures=True)


def _report(
    progress: list[int], losses: list[float], k: int, running: dict[int, Future[SyllableMap | None]],
    on_progress: Callable[[int, float], None] | None,
) -> None:  # fmt: skip
    """Report the moves done so far with start `k`'s loss, or the earliest running start's that has
    measured one (a start that has not yet measured holds NaN, which must never be reported)."""
    measured = [losses[j] for j in (k, *sorted(running)) if math.isfinite(losses[j])]
    if on_progress is not None and measured:
        on_progress(sum(progress), measured[0])
