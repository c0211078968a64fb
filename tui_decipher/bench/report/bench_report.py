"""`BenchReport`: one bench run as its report holds it (options, machine, the jobs finished so far,
status), the machine it ran on, and the schedule it ran with in words."""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass, field
from typing import Any

from ..engine_api import select_device
from ..experiments.experiment import QUICK_CHANGES
from ..jobs import JobResult


@dataclass
class BenchReport:
    """One bench run: its options, machine, the jobs finished so far (in planned order), status."""

    command: str
    settings: list[str]
    seeds: list[int]
    quick: bool
    threads: int | None
    machine: dict[str, Any]
    jobs: list[JobResult] = field(default_factory=list)
    started_at: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    finished_at: str | None = None
    wall_seconds: float = 0.0
    status: str = "running"  # "running" | "finished" | "cancelled"


def machine_info(threads: int | None = None) -> dict[str, Any]:
    """The machine a bench runs on, as its report names it (`threads`: the bench's --threads)."""
    import torch

    return {
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "device": str(select_device("auto")),
        "threads_requested": threads,
        "torch_threads_default": torch.get_num_threads(),
    }


def schedule_text(report: BenchReport) -> str:
    """The schedule the report's jobs ran with, in words (the full presets' or --quick's)."""
    if report.quick:
        changes = ", ".join(f"{k}={v}" for k, v in QUICK_CHANGES.items())
        return f"quick: 1 seed, every preset reduced to {changes} (rounds at most 2); a smoke check only"
    return f"full: the presets' schedules, {len(report.seeds)} seed(s) ({', '.join(map(str, report.seeds))})"
