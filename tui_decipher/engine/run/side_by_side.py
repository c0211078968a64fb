"""Stages of a run that do not wait for one another (a probe search's random starts; an alphabet's fit
and reverse channel), trained side by side, each in a thread of its own, where the run has the cores
for it (`side_by_side`; a run's stages go through `StageMemo.run_side_by_side`).

Why threads: a training step's compiled lattices hold no interpreter lock, and on small batches a
step is mostly fixed costs (torch's operators, the hand-over of a kernel's rows to a second thread)
that do not shrink with more cores. Two starts of a 200-word syllabary's probe search, 300 steps
each on 2 cores: 4.6-5.0 s one after the other with each kernel in one part, 4.9-7.2 s with each
split over both cores as today, 3.3-3.9 s side by side (docs/speed.md).

Each job gets a copy of the run's `Problem` whose events are queued and passed on from the caller's
thread (an event callback may write to a store or a screen bound to that thread), whose phases are
its own (the caller counts the whole wait as the jobs' phase) and whose compiled kernels use that
job's share of the cores (`device.kernel_cores`). A job's result is a function of its own seeds,
not of the order the threads run in.
"""

from __future__ import annotations

import dataclasses
import queue
import threading
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Any

import torch

from .device import kernel_cores
from .events import ChannelStep
from .memory import PeakMemory
from .problem import Problem, RunCancelled

POLL = 0.1  # seconds between the caller's passes over the jobs' queued events


@dataclasses.dataclass(frozen=True)
class Job:
    """One stage to train side by side: `train(problem)` with the job's copy of the run's problem,
    reporting channel steps numbered from `first_step` + 1 (its place on the run's progress bar)."""

    first_step: int
    train: Callable[[Problem], Any]


def as_job(stage: Problem, own: Problem) -> Problem:
    """`stage` (a problem of the run's, e.g. with its decided D) reporting as the job whose problem
    is `own`: its events, cancel flag, phases and peak."""
    return dataclasses.replace(stage, on_event=own.on_event, cancel=own.cancel, phases=own.phases, peak=own.peak)


def run_cores(problem: Problem) -> int:
    """The cores the run computes with: its settings' threads, or else torch's (the front end set
    them to the run's share of the machine, beside other runs and a live screen)."""
    return problem.cfg.threads or torch.get_num_threads()


def side_by_side(
    problem: Problem, jobs: Sequence[Job], on_result: Callable[[int, Any], object] = lambda _k, _result: None,
    phase: str = "train",
) -> list[Any]:  # fmt: skip
    """Each job's result, in the jobs' order: one after another in this thread where the run has one
    core or there is one job (exactly as calling them), else all at once, each in a thread with its
    share of the cores, this thread passing their events on (each ChannelStep as the run's progress:
    the steps every job has done, counted from the first job's `first_step`) and counting the wait
    as `phase`. `on_result(k, result)` in this thread, in the jobs' order, as soon as job k and those
    before it are done (a stage saved as it completes). A job that raises stops the others (through
    their cancel flag) and its error is raised here; RunCancelled where the run's cancel flag was set."""
    cores = run_cores(problem)
    if len(jobs) < 2 or cores < 2:
        results = []
        for k, job in enumerate(jobs):
            results.append(job.train(problem))
            on_result(k, results[-1])
        return results
    events: queue.SimpleQueue[tuple[int, Any]] = queue.SimpleQueue()
    stop = threading.Event()  # the jobs' cancel flag: the run's was set, or a job failed
    done = [0] * len(jobs)  # each job's steps so far
    share = max(1, cores // len(jobs))

    def in_thread(k: int, job: Job) -> Any:
        own = dataclasses.replace(
            problem, on_event=lambda event: events.put((k, event)), cancel=stop,
            phases=defaultdict(float), peak=PeakMemory(),
        )  # fmt: skip
        with kernel_cores(share):
            return job.train(own)

    def pass_on() -> None:
        while True:
            try:
                k, event = events.get_nowait()
            except queue.Empty:
                return
            if isinstance(event, ChannelStep):
                done[k] = max(done[k], event.step - jobs[k].first_step)
                event = dataclasses.replace(event, step=jobs[0].first_step + sum(done))
            problem.on_event(event)

    with problem.timer(phase), ThreadPoolExecutor(len(jobs), thread_name_prefix="side-by-side") as pool:
        futures = [pool.submit(in_thread, k, job) for k, job in enumerate(jobs)]
        pending, reported = set(futures), 0
        while pending:
            _, pending = wait(pending, timeout=POLL, return_when=FIRST_EXCEPTION)
            if problem.cancel.is_set() or any(f.done() and f.exception() is not None for f in futures):
                stop.set()
            pass_on()
            while reported < len(futures) and futures[reported].done() and futures[reported].exception() is None:
                on_result(reported, futures[reported].result())
                reported += 1
    errors = [f.exception() for f in futures]
    failed = [e for e in errors if e is not None and not isinstance(e, RunCancelled)]
    if failed:  # the job's own error, not the stops it caused in the others
        raise failed[0]
    if problem.cancel.is_set() or any(errors):
        raise RunCancelled()
    return [future.result() for future in futures]
