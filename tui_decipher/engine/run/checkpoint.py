"""Checkpoints: everything needed to continue a run from its last complete round.

Written after every complete round, atomically (write a temporary file, then rename), so a crash,
a kill or a cancel at any moment leaves either the previous checkpoint or the new one, never half
of one. A `Checkpoint` holds what every method shares (settings, corpus, clock, the completed
rounds of the restart under way) and the method's own `state`, which only that method reads.

A checkpoint is data, not a program: its state is stored as `state_data.to_data` writes it
(tensors in a tree of JSON's kinds), and every file is read with `torch.load(weights_only=True)`,
which builds tensors, containers and the few classes allowed by name, and calls nothing else. A
file that is not such a checkpoint is refused in one line naming it. Older versions are migrated
on load: version 1 (before methods had their own state) and version 2 (before the state was data:
its few NumPy values, and a partial run's pickled stages, read through the same allow-list:
`allow_in_older_checkpoints`).
"""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .config import DecipherConfig
from .state_data import SCHEMA, StateDataError, from_data, to_data

CHECKPOINT_NAME = "checkpoint.pt"
CHECKPOINT_VERSION = 3
# Settings fields added after runs were saved, at the value that behaves as those runs did: a run
# saved without the field resumes and refines as it was decided (its default may differ).
SETTINGS_SINCE: dict[str, object] = {"auto_read_again": False}
_V1_STATE = ("flow", "sample_gen", "current", "best", "restart_objectives")  # the neural EM's keys in v1


_E = "tui_decipher.engine"
# Modules whose classes a checkpoint written before a move names: the module they moved to, or for
# a module that became a package, its modules to look in.
_MOVED: dict[str, tuple[str, ...]] = {
    f"{_E}.demand": (f"{_E}.methods.auto.demand",),
    f"{_E}.capacity": (f"{_E}.methods.auto.capacity",),
    f"{_E}.scripts": (f"{_E}.methods.auto.scripts",),
    f"{_E}.methods.auto": tuple(
        f"{_E}.methods.auto.{m}" for m in ("probe", "syllable_search", "fit_check", "schedule", "decisions", "training")
    ),
    f"{_E}.methods.neural_em": tuple(f"{_E}.methods.neural_em.{m}" for m in ("context", "fitted")),
}
# Modules and packages moved from the engine's root into its rooms (0.8.0): old prefix -> new.
_MOVED_PREFIXES: dict[str, str] = {
    **{
        f"{_E}.{m}": f"{_E}.corpora.{m}"
        for m in ("corpus", "registry", "charset", "demo_corpus", "formats", "generators")
    },
    **{
        f"{_E}.{m}": f"{_E}.run.{m}"
        for m in ("config", "presets", "seeds", "device", "events", "checkpoint", "problem")
    },
    **{f"{_E}.{m}": f"{_E}.constraints.{m}" for m in ("review", "sign_values")},
    f"{_E}.evaluation": f"{_E}.evaluation.metrics",
    f"{_E}.baseline": f"{_E}.evaluation.baseline",
    f"{_E}.transfer": f"{_E}.evaluation.transfer",
    f"{_E}.alignment": f"{_E}.channels.alignment",
}


def _older_names(cls: type) -> list[str]:
    """Every name older checkpoints store `cls` under: where it lives now, and where it lived."""
    here = f"{cls.__module__}.{cls.__qualname__}"
    names = [here]
    for old, new in _MOVED_PREFIXES.items():
        if cls.__module__ == new or cls.__module__.startswith(new + "."):
            names.append(old + cls.__module__[len(new) :] + "." + cls.__qualname__)
    names += [f"{old}.{cls.__qualname__}" for old, moved in _MOVED.items() if cls.__module__ in moved]
    return names


def allow_in_older_checkpoints(classes: Iterable[type]) -> None:
    """Let torch's weights-only reader build `classes` from version 1 and 2 files, under every
    name they had (their pickled stages name the project's classes). A pickled object is made with
    its class's `__new__` and given its attributes; a crafted file may also call a class with
    values of its own, and these classes' constructors only keep values and build tensors."""
    torch.serialization.add_safe_globals([(cls, name) for cls in classes for name in _older_names(cls)])


# What versions 1 and 2 hold beside tensors: NumPy arrays and scalars (and the bytes, sets and
# frozensets of a pickled stage). Each only makes a value; none calls anything the file names.
_MULTIARRAY = importlib.import_module("numpy._core.multiarray")
_NUMPY: list[Any] = [np.ndarray, np.dtype] + [
    (getattr(_MULTIARRAY, name), f"{module}.{name}")
    for name in ("_reconstruct", "scalar")
    for module in ("numpy._core.multiarray", "numpy.core.multiarray")  # NumPy 2 and 1
]
_DTYPES = [type(np.dtype(t)) for t in ("f8", "f4", "f2", "i8", "i4", "i2", "i1", "u8", "u4", "u2", "u1", "?")]
torch.serialization.add_safe_globals([*_NUMPY, *_DTYPES, bytes, set, frozenset])


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, unreadable, from another version or config."""


@dataclass
class Checkpoint:
    """A run after its last complete round."""

    method: str  # the method that wrote it (engine/methods/), the only reader of `state`
    config: dict[str, Any]  # every setting, as DecipherConfig.to_dict() wrote them
    corpus: str  # corpus name
    shape: tuple[int, int]  # (n_lost, n_known)
    restart: int  # the restart under way (0-based)
    round: int  # its last complete round (1-based)
    rounds: list[dict[str, Any]]  # that restart's completed rounds (RoundMetrics as dicts)
    seconds: float  # run time so far
    phases: dict[str, float]  # seconds per phase so far
    refined: int = 0  # refinements the run has had
    state: dict[str, Any] = field(default_factory=dict)

    def settings(self) -> DecipherConfig:
        """The validated settings it was made with (a resumed run uses exactly these). A field
        added since keeps the behaviour the run was made with where its default would change it
        (SETTINGS_SINCE)."""
        cfg = DecipherConfig(**{**SETTINGS_SINCE, **self.config})
        cfg.validate()
        return cfg

    def check_corpus(self, name: str, shape: tuple[int, int]) -> None:
        """A checkpoint continues only the run it came from: the same corpus."""
        if self.corpus != name or tuple(self.shape) != tuple(shape):
            raise CheckpointError(f"checkpoint was made on another corpus ({self.corpus} {tuple(self.shape)})")

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> Checkpoint:
        """From a loaded file's dict, migrating version 1 (a flat dict of the neural EM's state);
        version 3's state is rebuilt from its data (`state_data.from_data`, no classes)."""
        if payload.get("version") == 1:
            return cls(
                method="neural", config=payload["config"], corpus=payload["corpus"], shape=tuple(payload["shape"]),
                restart=payload["restart"], round=payload["round"], rounds=list(payload["current"]["rounds"]),
                seconds=payload["seconds"], phases=dict(payload["phases"]), refined=int(payload.get("refined", 0)),
                state={k: payload[k] for k in _V1_STATE},
            )  # fmt: skip
        fields = {k: v for k, v in payload.items() if k not in ("version", "data_schema")}
        if payload.get("version") == CHECKPOINT_VERSION:
            fields = from_data(fields)
        fields["shape"] = tuple(fields["shape"])
        checkpoint = cls(**fields)
        if not isinstance(checkpoint.config, dict) or not isinstance(checkpoint.state, dict):
            raise TypeError("'config' and 'state' are not tables")
        return checkpoint


def save_checkpoint(path: Path, checkpoint: Checkpoint) -> None:
    """torch.save the checkpoint as data to a temporary file beside `path`, fsync, then rename over
    it. Its fields as `dataclasses.asdict` gives them (a dataclass inside the state is a dict);
    anything else that is not data is refused (StateDataError) before a byte is written."""
    payload = {"version": CHECKPOINT_VERSION, "data_schema": SCHEMA, **to_data(asdict(checkpoint))}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with tmp.open("wb") as fh:
            torch.save(payload, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:  # a full disk, a cancel: the previous checkpoint stays, whole
        tmp.unlink(missing_ok=True)
        raise


def load_checkpoint(path: str | Path) -> Checkpoint:
    """Read a checkpoint file (or the one inside a run folder); CheckpointError says what is wrong,
    in one line naming the file. Nothing in the file is run (see the module's docstring)."""
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT_NAME
    if not path.exists():
        raise CheckpointError(f"{path}: no checkpoint (the run did not complete a round)")
    try:
        with warnings.catch_warnings():  # torch warns of a foreign pickle's protocol; the refusal says enough
            warnings.simplefilter("ignore")
            payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # a truncated, foreign or planted file: torch raises many kinds
        raise CheckpointError(f"{path}: not a readable checkpoint ({_first_line(exc)})") from None
    version = payload.get("version") if isinstance(payload, dict) else None
    if version not in (1, 2, CHECKPOINT_VERSION):
        raise CheckpointError(f"{path}: checkpoint version {version!r} is not {CHECKPOINT_VERSION}")
    try:
        return Checkpoint.from_payload(payload)
    except (KeyError, TypeError, StateDataError) as exc:
        raise CheckpointError(f"{path}: not a readable checkpoint (missing or unknown field {exc})") from None


def _first_line(exc: BaseException) -> str:
    """An exception in one line: torch's refusals run to paragraphs; their reason is the line
    naming what the file asked for."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    marked = [k for k, line in enumerate(lines) if "WeightsUnpickler error:" in line]
    if marked:  # the reason follows the marker, on its line or the next
        after = lines[marked[0]].split("WeightsUnpickler error:", 1)[1].strip()
        reason = after or (lines[marked[0] + 1] if marked[0] + 1 < len(lines) else "")
    else:
        reason = lines[0] if lines else ""
    return f"{type(exc).__name__}: {reason}"[:300]
