"""Beyond the paper: many starts of the syllable search (channels/syllables.py), each where it can run
in a worker process of its own.

A start is a function of its seed alone, so a map found in a worker is the one this process would
find. A worker is `python -m` this module: it reads its request (the pickled word lists, moves,
fixed units and seed) on stdin and writes progress lines and the found map, as JSON, on stdout.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable, Generator, Sequence
from pathlib import Path

from ..corpora.corpus import Word
from .spelling import Spelling
from .syllables import MOVES, SyllableMap, search_syllables

PARALLEL_STARTS = 4  # starts annealed at once at most, one a worker process (where cores allow)


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
    stopped). With `workers` > 1, up to that many starts anneal at once, each in a worker process
    of its own (`python -m` this module: it never imports the caller's main script, and a start is
    a function of its seed alone, so the maps are the ones one process finds).
    `on_progress(moves done over every start so far, -log-likelihood a lost word of the latest
    report)`; yields None, and stops, when `should_stop` said so."""
    workers = max(1, min(workers, PARALLEL_STARTS, len(seeds)))
    progress = [0] * len(seeds)  # each start's moves done so far

    def one_here(k: int) -> SyllableMap | None:
        def report(m: int, _total: int, loss: float) -> None:
            progress[k] = m
            if on_progress is not None:
                on_progress(sum(progress), loss)

        return search_syllables(lost_words, known_words, seeds[k], moves, should_stop=should_stop,
                                on_progress=report, fixed=fixed)  # fmt: skip

    if workers == 1:
        for k in range(len(seeds)):
            found = one_here(k)
            yield found
            if found is None:
                return
        return
    request = pickle.dumps((tuple(lost_words), tuple(known_words), moves, fixed))  # once for every worker
    yield from _in_workers(request, seeds, moves, workers, progress, one_here, should_stop, on_progress)


def _in_workers(
    request: bytes,
    seeds: Sequence[int],
    moves: int,
    workers: int,
    progress: list[int],
    one_here: Callable[[int], SyllableMap | None],
    should_stop: Callable[[], bool],
    on_progress: Callable[[int, float], None] | None,
) -> Generator[SyllableMap | None, None, None]:
    """`search_starts` with up to `workers` starts in worker processes at once, each sent `request`
    and its seed; `progress` (each start's moves done so far) updated in place, `one_here(k)` start
    k run in this process."""
    running: dict[int, _Worker] = {}
    try:
        for k in range(len(seeds)):
            for j in range(k, min(k + workers, len(seeds))):  # keep `workers` starts in flight
                if j not in running:
                    running[j] = _Worker(request, seeds[j])
            while not running[k].finished(0.25):
                for j, worker in running.items():
                    progress[j] = worker.moves
                # A worker that has not measured yet holds NaN: report the surest loss measured so far.
                losses = [w.loss for w in (running[k], *running.values()) if math.isfinite(w.loss)]
                if on_progress is not None and losses:
                    on_progress(sum(progress), losses[0])
                if should_stop():
                    yield None
                    return
            # A worker that could not run (no interpreter to start, a killed process) leaves its
            # start to this process: the same map, or the same error where the start itself fails.
            done = running.pop(k)
            found = done.found or one_here(k)
            progress[k] = moves
            if on_progress is not None and done.found is not None and math.isfinite(done.loss):
                on_progress(sum(progress), done.loss)  # its last report: a start that ended between polls
            yield found
            if found is None:
                return
    finally:
        for worker in running.values():
            worker.stop()


# The folder that holds this package: a worker imports the very code that started it.
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[3])


class _Worker:
    """One start of `search_starts` in a worker process: its request on stdin, then progress lines
    ("P moves loss") and the found map ("R" and its JSON) on stdout, read by a thread."""

    def __init__(self, request: bytes, seed: int) -> None:
        """Start a worker on `request` (the pickled word lists, moves and fixed units) and `seed`."""
        self.moves, self.loss = 0, math.nan
        self.found: SyllableMap | None = None
        path = os.pathsep.join(p for p in (_PACKAGE_ROOT, os.environ.get("PYTHONPATH")) if p)
        self.process: subprocess.Popen[bytes] | None = None
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": path},
            )  # fmt: skip
            assert self.process.stdin is not None
            self.process.stdin.write(request + pickle.dumps(seed))
            self.process.stdin.close()
        except OSError:  # no interpreter to start, or it died at once: the start runs in the caller
            self.stop()
            self.process = None
            return
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            kind, _, rest = line.decode().partition(" ")
            if kind == "P":
                moves, loss = rest.split()
                self.moves, self.loss = int(moves), float(loss)
            elif kind == "R":
                self.found = _map_from_json(rest)

    def finished(self, wait: float) -> bool:
        """Whether the start ended (found its map or failed), after waiting up to `wait` seconds."""
        if self.process is None:
            return True
        self.reader.join(wait)
        return not self.reader.is_alive()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def _map_to_json(found: SyllableMap) -> str:
    units = list(found.sign_of)
    return json.dumps({"vowels": found.vowels, "units": units, "signs": [found.sign_of[u] for u in units],
                       "weights": [found.weight[u] for u in units], "log_likelihood": found.log_likelihood,
                       "background": found.background, "n_lost": found.n_lost,
                       "spelling": [found.spelling.clusters, found.spelling.finals]})  # fmt: skip


def _map_from_json(text: str) -> SyllableMap:
    d = json.loads(text)
    units = [tuple(u) for u in d["units"]]
    return SyllableMap(tuple(d["vowels"]), dict(zip(units, d["signs"], strict=True)), d["log_likelihood"],
                       d["background"], d["n_lost"], dict(zip(units, d["weights"], strict=True)),
                       Spelling(*d["spelling"]))  # fmt: skip


def _worker_main() -> None:
    """A worker process of `search_starts`: one start, its request read from stdin."""
    lost_words, known_words, moves, fixed = pickle.load(sys.stdin.buffer)
    seed = pickle.load(sys.stdin.buffer)

    def report(m: int, _total: int, loss: float) -> None:
        print(f"P {m} {loss!r}", flush=True)

    found = search_syllables(lost_words, known_words, seed, moves, on_progress=report, fixed=fixed)
    assert found is not None
    print(f"R {_map_to_json(found)}", flush=True)


if __name__ == "__main__":
    _worker_main()
