"""A channel method's completed stages, saved as it goes: a killed or cancelled run resumes there.

auto runs in stages (the syllable search's starts, each channel its probes train, the probe, the
fit, the reverse channel), the channel method one stage a channel it trains; each is a function
of the word lists, the settings and its own seed. After each, what it produced is saved in the
run's checkpoint (a *partial* one: `state["partial"]`), atomically, and a stage that trains a
channel saves its training state every SAVE_EVERY steps (engine/channels/training.py). `--resume`
reruns the run with those results read back instead of recomputed, so it reaches what the
uninterrupted run reaches; the finished run's checkpoint (`save_channel`) then replaces it.

A partial checkpoint stores the stages' objects (channels included) as data
(engine/run/state_data.py): each object is one of `STAGE_CLASSES`, stored as its attributes, and
read back by building that class and nothing else. A partial checkpoint of version 2 pickled them;
it is read through torch's weights-only reader with the same classes allowed, under the names
they had (`allow_in_older_checkpoints`).
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import torch

from ..channels.edit import EditChannel
from ..channels.pieces import CharacterChannel
from ..channels.spelling import Reading, Spelling
from ..channels.syllables import SyllableMap
from ..channels.trainer import ChannelFit
from ..channels.training import Saving, TrainingState
from ..constraints.review import ReviewConstraints
from ..constraints.sign_values import SignValue, SignValues
from ..run.checkpoint import Checkpoint, CheckpointError, allow_in_older_checkpoints, save_checkpoint
from ..run.config import DecipherConfig
from ..run.side_by_side import Job, side_by_side
from ..run.state_data import ClassTable, class_table, from_data, to_data

if TYPE_CHECKING:
    from ..run.problem import Problem

T = TypeVar("T")

# The classes a channel method's stages hold (its trained channels, their fits and training under
# way, the syllable maps, the judgments and sign values they were trained under); auto adds its own
# (methods/auto/__init__.py: STAGE_CLASSES). No other class is ever built from a partial checkpoint.
CHANNEL_STAGE_CLASSES: ClassTable = class_table(
    CharacterChannel, EditChannel, ChannelFit, TrainingState, SyllableMap, Spelling, Reading, SignValues, SignValue,
    ReviewConstraints,
)  # fmt: skip
allow_in_older_checkpoints(CHANNEL_STAGE_CLASSES.values())
STAGES_SCHEMA = "stages"  # the key of a packed stages' data (a version 2 file packed a pickled dict of objects)


class StageMemo:
    """The stages a run has completed (name -> result), saved to `path` after each one."""

    def __init__(self, method: str, stages: dict[str, Any] | None = None, review: ReviewConstraints | None = None,
                 seconds: float = 0.0, phases: dict[str, float] | None = None,
                 training: dict[str, Any] | None = None,
                 classes: ClassTable = CHANNEL_STAGE_CLASSES) -> None:  # fmt: skip
        self.method = method  # the method whose run it is (the checkpoint's `method`)
        self.classes = classes  # what its stages may hold (the only classes read back)
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
    def resuming(cls, start: Checkpoint | None, method: str, classes: ClassTable = CHANNEL_STAGE_CLASSES) -> StageMemo:
        """The memo of `method`'s run that `start` checkpointed (an empty one for a new run), its
        stages holding objects of `classes` only. A finished run's checkpoint has nothing to
        resume: it is refined (`check_resumable` refuses it before a run is recorded)."""
        if start is None:
            return cls(method, classes=classes)
        stages, saved, review = _stage_tables(start, classes)
        return cls(method, stages, review, start.seconds, start.phases, saved, classes)

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
            self._packed_stages, self._packed_names = packed(self.stages, self.classes), list(self.stages)
        state = {"partial": True, "stages": self._packed_stages, "stage_names": list(self.stages),
                 "training": packed(self.training, self.classes), "review": problem.review}  # fmt: skip
        save_checkpoint(self.path, Checkpoint(
            method=self.method, config=self.cfg.to_dict(), corpus=problem.corpus.name,
            shape=(problem.n_lost, problem.n_known), restart=0, round=0, rounds=[], seconds=problem.elapsed(),
            phases=dict(problem.phases), state=state,
        ))  # fmt: skip


def check_resumable(start: Checkpoint, classes: ClassTable = CHANNEL_STAGE_CLASSES) -> None:
    """Refuse (CheckpointError) a channel method's finished run, which has nothing to resume, and
    a partial one whose stages are not stages of `classes` (read here, and again by `resuming`:
    a refusal must come before the run is marked running)."""
    _stage_tables(start, classes)


def _stage_tables(
    start: Checkpoint, classes: ClassTable
) -> tuple[dict[str, Any], dict[str, Any] | None, ReviewConstraints | None]:
    """A partial checkpoint's completed stages, the training under way and the known pairs, read back."""
    if not start.state.get("partial"):
        raise CheckpointError(f"this {start.method} run finished: refine it (--refine) to continue it")
    stages, training = start.state.get("stages"), start.state.get("training")
    if not isinstance(stages, bytes) or not isinstance(training, bytes | None):
        raise CheckpointError("the checkpoint holds no stages to resume")
    try:
        return unpacked(stages, classes), unpacked(training, classes) if training else None, _review(start.state)
    except CheckpointError as exc:
        raise CheckpointError(f"the checkpoint's stages are not readable ({exc})") from None


def check_refinable(start: Checkpoint) -> None:
    """Refuse a channel method's run that holds no finished channel (CheckpointError)."""
    if start.state.get("partial"):
        raise CheckpointError(f"this {start.method} run stopped before it finished: resume it (--resume) first")
    if not isinstance(start.state.get("channel"), dict) or "n_cognates" not in start.state:
        raise CheckpointError("the checkpoint holds no trained channel to refine")


def packed(stages: dict[str, Any], classes: ClassTable) -> bytes:
    """The stages as bytes: their data (`state_data.to_data`, objects of `classes` only) saved
    once, as the stages stood when they completed. A checkpoint's dataclass fields are turned into
    dicts when it is saved (`dataclasses.asdict`), which the stages' own dataclasses must not be."""
    buffer = io.BytesIO()
    torch.save({STAGES_SCHEMA: to_data(stages, classes)}, buffer)
    return buffer.getvalue()


def unpacked(blob: bytes, classes: ClassTable) -> dict[str, Any]:
    """The stages `packed` wrote, or a version 2 file's pickle of them (read by torch's
    weights-only reader, which builds the stage classes allowed and nothing else); CheckpointError
    where the bytes are neither."""
    try:
        loaded = torch.load(io.BytesIO(blob), map_location="cpu", weights_only=True)
        if isinstance(loaded, dict) and STAGES_SCHEMA in loaded:
            loaded = from_data(loaded[STAGES_SCHEMA], classes)
    except Exception as exc:  # torch's refusals and a truncated blob raise many kinds
        raise CheckpointError(f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1][:200]}") from None
    if not isinstance(loaded, dict):
        raise CheckpointError("the stages are not a table")
    return loaded


def _review(state: dict[str, Any]) -> ReviewConstraints | None:
    """The known pairs a partial checkpoint saved: a dict (its fields, as every checkpoint's
    dataclasses are saved; version 2 saved them so too, and read them back as the dict, which
    failed), or None."""
    saved = state.get("review")
    if not saved:
        return None
    try:
        accepted, rejected = (tuple((int(a), int(b)) for a, b in saved[k]) for k in ("accepted", "rejected"))
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"its known pairs are not pairs ({exc})") from None
    return ReviewConstraints(accepted, rejected)
