"""A channel method's completed stages, saved as it goes: a killed or cancelled run resumes there.

auto runs in stages (the syllable search's starts, each channel its probes train, the probe, the
fit, the reverse channel), the channel method one stage a channel it trains; each is a function
of the word lists, the settings and its own seed. After each, what it produced is saved in the
run's checkpoint (a *partial* one: `state["partial"]`), atomically, and a stage that trains a
channel saves its training state every SAVE_EVERY steps (engine/channels/training.py). `--resume`
reruns the run with those results read back instead of recomputed, so it reaches what the
uninterrupted run reaches; the finished run's checkpoint (`save_channel`) then replaces it.

A partial checkpoint pickles the stages' objects (channels included): it is read back to finish
one run, not kept across versions as a finished run's is; classes that moved since one was written
are found where they are now (engine/run/checkpoint.py: `MovedClasses`).
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import torch

from ..channels.training import Saving
from ..constraints.review import ReviewConstraints
from ..run.checkpoint import Checkpoint, CheckpointError, MovedClasses, save_checkpoint
from ..run.config import DecipherConfig
from ..run.side_by_side import Job, side_by_side

if TYPE_CHECKING:
    from ..run.problem import Problem

T = TypeVar("T")


class StageMemo:
    """The stages a run has completed (name -> result), saved to `path` after each one."""

    def __init__(self, method: str, stages: dict[str, Any] | None = None, review: ReviewConstraints | None = None,
                 seconds: float = 0.0, phases: dict[str, float] | None = None,
                 training: dict[str, Any] | None = None) -> None:  # fmt: skip
        self.method = method  # the method whose run it is (the checkpoint's `method`)
        self.stages: dict[str, Any] = dict(stages or {})
        # A stage under way: what it saved so far (a channel's TrainingState every SAVE_EVERY
        # steps, the syllable search's maps start by start).
        self.training: dict[str, Any] = dict(training or {})
        self._packed_stages = b""  # the stages as last saved
        self._packed_names: list[str] | None = None
        self.review = review  # the run's known pairs, which a resumed session no longer reads
        self.seconds, self.phases = seconds, dict(phases or {})
        self.path: Path | None = None
        self.cfg: DecipherConfig | None = None
        self.problem: Problem | None = None
        # Stages trained side by side (engine/run/side_by_side.py) save their progress from their own
        # threads: one save at a time.
        self._lock = threading.RLock()

    @classmethod
    def resuming(cls, start: Checkpoint | None, method: str) -> StageMemo:
        """The memo of `method`'s run that `start` checkpointed (an empty one for a new run). A
        finished run's checkpoint has nothing to resume: it is refined."""
        if start is None:
            return cls(method)
        if not start.state.get("partial"):
            raise CheckpointError(f"this {method} run finished: refine it (--refine) to continue it")
        training = start.state.get("training")
        return cls(method, _unpacked(start.state["stages"]), start.state.get("review"), start.seconds,
                   start.phases, _unpacked(training) if training else None)  # fmt: skip

    def names(self) -> list[str]:
        """The completed stages, in the order they ran."""
        return list(self.stages)

    def bind(self, path: Path | None, cfg: DecipherConfig, problem: Problem) -> None:
        """Where to save (None: nowhere), the settings the run was started with, and its problem."""
        self.path, self.cfg, self.problem = path, cfg, problem

    def run(self, name: str, stage: Callable[[], T]) -> T:
        """`stage()`'s result: read back where a resumed run completed it, else computed and saved."""
        if name in self.stages:
            return self._on_device(self.stages[name])
        result = stage()
        with self._lock:
            self.stages[name] = result
            self.training.pop(name, None)
            self._save()
        return result

    def run_side_by_side(self, problem: Problem, jobs: dict[str, Job]) -> dict[str, Any]:
        """Each named stage's result: read back where a resumed run completed it, the rest trained
        side by side (`side_by_side`, in turn on one core), each saved as it completes."""
        todo = [name for name in jobs if name not in self.stages]

        def save(k: int, result: Any) -> None:
            self.run(todo[k], lambda: result)

        side_by_side(problem, [jobs[name] for name in todo], save)
        return {name: self._on_device(self.stages[name]) for name in jobs}

    def progress(self, name: str) -> tuple[Any, Callable[[Any], None]]:
        """For the stage `name` under way: what a killed run saved of it (None: nothing), and the
        callback that saves what it has done so far."""

        def on_save(state: Any) -> None:
            with self._lock:
                self.training[name] = state
                self._save()

        return self.training.get(name), on_save

    def saving(self, name: str) -> Saving | None:
        """For the stage `name` that trains a channel: save its training state as it goes, and
        resume it from the state a killed run saved (`fit_channel`'s `saving`); None where the run
        saves nowhere and resumes nothing (no copy of the training's state is made then)."""
        saved, on_save = self.progress(name)
        return Saving(on_save, saved) if self.path is not None or saved is not None else None

    def _on_device(self, value: T) -> T:
        """A restored stage's channels on the run's device (a checkpoint is read onto the CPU):
        the stage's result itself, its `channel`, or those of the items of a tuple it returned."""
        assert self.problem is not None
        for item in value if isinstance(value, tuple) else (value,):
            for holder in (item, getattr(item, "channel", None)):
                if isinstance(holder, torch.nn.Module):
                    holder.to(self.problem.device)
        return value

    def _save(self) -> None:
        if self.path is None:
            return
        assert self.problem is not None and self.cfg is not None
        problem = self.problem
        if self._packed_names != list(self.stages):  # packed again only when a stage was added
            self._packed_stages, self._packed_names = _packed(self.stages), list(self.stages)
        state = {"partial": True, "stages": self._packed_stages, "stage_names": list(self.stages),
                 "training": _packed(self.training), "review": problem.review}  # fmt: skip
        save_checkpoint(self.path, Checkpoint(
            method=self.method, config=self.cfg.to_dict(), corpus=problem.corpus.name,
            shape=(problem.n_lost, problem.n_known), restart=0, round=0, rounds=[], seconds=problem.elapsed(),
            phases=dict(problem.phases), state=state,
        ))  # fmt: skip


def _packed(stages: dict[str, Any]) -> bytes:
    """The stages as bytes: a checkpoint's dataclass fields are turned into dicts when it is saved
    (`dataclasses.asdict`), which the stages' own dataclasses must not be."""
    buffer = io.BytesIO()
    torch.save(stages, buffer)
    return buffer.getvalue()


def _unpacked(blob: bytes) -> dict[str, Any]:
    return torch.load(io.BytesIO(blob), map_location="cpu", weights_only=False, pickle_module=MovedClasses)
