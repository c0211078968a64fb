"""Runs side by side share the machine's cores instead of fighting for them.

torch waits for all its threads at every operation, so two runs that each take every core slow
each other down many times (a 134 x 143-word pair trained in 37 s alone and 271 s beside a second
run, 2 threads each on 2 cores; the demo's 20 s run took 91 s beside another). Each run therefore
registers the threads it computes with in a folder every process of this user sees (the temp
folder, so runs of every data folder count), and a run whose settings leave threads to the program
(`threads = 0`) takes the cores the live runs of other processes leave free, at least one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from ..engine.run.device import screen_threads as screen_threads  # the New run form's default
from ..engine.run.device import usable_cores, use_threads
from ..store.runs import pid_alive

try:  # POSIX: the check and the registration are one step under a lock
    import fcntl
except ImportError:  # pragma: no cover - not on Windows CI
    fcntl = None  # type: ignore[assignment]

REGISTRY = Path(tempfile.gettempdir()) / f"tui-decipher-runs-{os.getuid() if hasattr(os, 'getuid') else 0}"


@dataclass(frozen=True)
class CoreShare:
    """The threads a run computes with, and the others' it found (0: it has the machine to itself)."""

    threads: int
    others: int  # threads that live runs of other processes registered
    cores: int

    def line(self) -> str | None:
        """The start line's words where the run shares the machine (None where it does not)."""
        if not self.others:
            return None
        return (f"computing with {self.threads} thread(s): other runs use {self.others} of this machine's "
                f"{self.cores} core(s)")  # fmt: skip


def _others(registry: Path) -> int:
    """Threads registered by live processes other than this one; entries of dead ones are removed."""
    total = 0
    for entry in registry.glob("*.threads"):
        pid = int(entry.stem) if entry.stem.isdigit() else 0
        if pid == os.getpid():
            continue
        if not pid_alive(pid):
            with suppress(OSError):
                entry.unlink()
            continue
        with suppress(OSError, ValueError):
            total += int(entry.read_text(encoding="utf-8").strip() or 0)
    return total


@contextmanager
def shared_cores(wanted: int, current: int, registry: Path | None = None) -> Iterator[CoreShare]:
    """While the block runs, this process is registered as computing with the threads it yields as
    a CoreShare: `wanted` where the settings name a count (> 0: the user's choice, kept), else the
    cores other live runs leave free, at most `current` (the front end's own count: the TUI keeps
    a core for its screen), at least one. The registration is removed when the block ends."""
    registry = registry or REGISTRY
    registry.mkdir(parents=True, exist_ok=True)
    cores = usable_cores()
    entry = registry / f"{os.getpid()}.threads"
    with open(registry / ".lock", "a+") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        others = _others(registry)
        threads = wanted if wanted > 0 else max(1, min(current, cores - others))
        entry.write_text(str(threads), encoding="utf-8")
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_UN)
    try:
        yield CoreShare(threads, others, cores)
    finally:
        with suppress(OSError):
            entry.unlink()


def use_screen_threads() -> None:
    """Compute with `screen_threads()`: a run beside a live screen leaves it a core (engine/run/device.py)."""
    use_threads(screen_threads())
