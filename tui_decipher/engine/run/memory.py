"""Where a run's memory peaked: the phase during which the process's peak resident memory last rose
(`decipher run --profile`). The peak is the process's (`getrusage`), so it is a run's own only where
the run is the process's largest work, as in `decipher run`; a screen that ran a bigger run before
reads no rise."""

from __future__ import annotations

import sys
from collections.abc import Callable


def process_peak_bytes() -> int | None:
    """The process's peak resident memory so far, in bytes; None where the OS does not say."""
    try:
        import resource
    except ImportError:  # not on Unix
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # macOS counts bytes, Linux KiB


class PeakMemory:
    """The process's peak so far and the phase it was reached in: each timed phase reports when it
    ends (`after`), and the innermost phase that raised the peak keeps it (an outer phase ending
    later takes it only where the peak rose again after the inner one ended)."""

    def __init__(self, read: Callable[[], int | None] = process_peak_bytes) -> None:
        self.read = read
        self.bytes = read()
        self.phase: str | None = None  # None: the peak was reached before any phase (loading, imports)

    def after(self, phase: str) -> None:
        """`phase` has just ended: it holds the peak if the peak rose since it was last read."""
        now = self.read()
        if now is not None and self.bytes is not None and now > self.bytes:
            self.bytes, self.phase = now, phase
