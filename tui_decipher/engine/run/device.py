"""Device choice and CPU math: cuda when present, CPU otherwise; seeded CPU runs repeat exactly,
and subnormal floats are flushed to zero."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import torch


class DeviceError(ValueError):
    """A device the run asks for that this machine does not have (the message is one line)."""


def select_device(name: str = "auto") -> torch.device:
    """The device a run computes on: `auto` picks cuda when available, else the CPU; `cuda` (or
    `cuda:N`) is that GPU or a DeviceError, never a silent fall-back to the CPU."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda"):
        if not torch.cuda.is_available():
            raise DeviceError(f"device = {name!r}, but torch finds no CUDA GPU here: use --device cpu or auto")
        index = torch.device(name).index
        if index is not None and index >= torch.cuda.device_count():
            raise DeviceError(f"device = {name!r}, but this machine has {torch.cuda.device_count()} CUDA GPU(s)")
    return torch.device(name)


def make_repeatable(device: torch.device) -> None:
    """Make a seeded CPU run give the same result every time it runs with the same thread count.

    With two or more intra-op threads, the CPU gradient of advanced indexing (`W[idx]`, an
    accumulating `index_put_`) adds in a thread-dependent order, so two runs of one seed
    drifted apart (tiny ugaritic-preset run: 0.86, 0.865, 0.87). Their deterministic variants cost
    nothing measurable here (romance M-step, 2 threads: 1.41 s against 1.35 s). The flag is
    process-wide; on CUDA it is left alone, since it would require a cuBLAS workspace setting.
    """
    if device.type != "cpu":
        return
    # torch.use_deterministic_algorithms sets this flag and also imports torch._inductor's config to
    # set its own (1.1 s of a run's start with torch 2.13); nothing here compiles with inductor.
    set_flag = getattr(torch._C, "_set_deterministic_algorithms", None)
    if set_flag is None:  # a torch without it: the public call
        torch.use_deterministic_algorithms(True, warn_only=True)
    else:
        set_flag(True, warn_only=True)


def flush_denormals(device: torch.device) -> bool:
    """On CPU, treat float32 values below about 1.2e-38 (subnormals) as zero in this thread (and
    the threads it starts); returns whether the CPU supports it.

    As an M-step trains, its backward pass fills with subnormal numbers, which x86 CPUs compute
    many times slower: on linear-b, steps 75-100 of round 1 took 6.8 s each, 2.1 s flushed (one
    thread; the loss after 100 steps 21.3 against 21.4). Nothing the model learns lives below 1e-38.
    """
    if device.type != "cpu":
        return False
    return torch.set_flush_denormal(True)


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity, where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def screen_threads() -> int:
    """torch threads for a run beside a live screen: one core fewer than the process may use.

    With every core busy, the screen's thread preempts torch's worker threads, and torch waits
    for all of them at each operation: on 2 cores, with another process busy, the demo's run
    took over 6 minutes for 4% of its steps with 2 threads, and 39 s in all with 1."""
    return max(1, usable_cores() - 1)


_kernel_cores = threading.local()  # this thread's share of the cores for compiled kernels (0: torch's)


@contextmanager
def kernel_cores(cores: int) -> Iterator[None]:
    """Within the block, the compiled kernels this thread calls split their work over at most
    `cores` threads (a stage trained beside others, engine/run/side_by_side.py, has its share)."""
    before = getattr(_kernel_cores, "cores", 0)
    _kernel_cores.cores = cores
    try:
        yield
    finally:
        _kernel_cores.cores = before


def compiled_threads() -> int:
    """The threads this thread's compiled kernels split their work over: its `kernel_cores`, else
    as many as torch computes with."""
    return getattr(_kernel_cores, "cores", 0) or torch.get_num_threads()


def use_threads(threads: int) -> None:
    """Compute with `threads` torch CPU threads from here on, in this thread; 0 leaves the
    process's own count (torch's default, OMP_NUM_THREADS, or what the front end set)."""
    if threads > 0 and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
