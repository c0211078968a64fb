"""Checkpoints: everything needed to continue a run from its last complete round.

Written after every complete round, atomically (write a temporary file, then rename), so a crash,
a kill or a cancel at any moment leaves either the previous checkpoint or the new one, never half
of one. A `Checkpoint` holds what every method shares (settings, corpus, clock, the completed
rounds of the restart under way) and the method's own `state`, which only that method reads.
Version 1 files (written before methods had their own state) are migrated on load.
"""

from __future__ import annotations

import importlib
import os
import pickle
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from .config import DecipherConfig

CHECKPOINT_NAME = "checkpoint.pt"
CHECKPOINT_VERSION = 2
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


def _moved_to(module: str) -> tuple[str, ...]:
    """Where the classes of `module`, as an older checkpoint names it, live now."""
    for old, new in _MOVED_PREFIXES.items():
        if module == old or module.startswith(old + "."):
            return (new + module[len(old) :],)
    return _MOVED.get(module, ())


class _Unpickler(pickle.Unpickler):
    """Finds a class where it lives now when the checkpoint names where it lived."""

    def find_class(self, module: str, name: str) -> Any:
        try:
            return super().find_class(module, name)
        except (ModuleNotFoundError, AttributeError):
            for moved in _moved_to(module):
                found = getattr(importlib.import_module(moved), name, None)
                if found is not None:
                    return found
            raise


class MovedClasses:
    """The pickle module torch.load reads checkpoints with: classes that moved are found."""

    Unpickler = _Unpickler
    load = staticmethod(pickle.load)


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
        """The validated settings it was made with (a resumed run uses exactly these)."""
        cfg = DecipherConfig(**self.config)
        cfg.validate()
        return cfg

    def check_corpus(self, name: str, shape: tuple[int, int]) -> None:
        """A checkpoint continues only the run it came from: the same corpus."""
        if self.corpus != name or tuple(self.shape) != tuple(shape):
            raise CheckpointError(f"checkpoint was made on another corpus ({self.corpus} {tuple(self.shape)})")

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> Checkpoint:
        """From a loaded file's dict, migrating version 1 (a flat dict of the neural EM's state)."""
        if payload.get("version") == 1:
            return cls(
                method="neural", config=payload["config"], corpus=payload["corpus"], shape=tuple(payload["shape"]),
                restart=payload["restart"], round=payload["round"], rounds=list(payload["current"]["rounds"]),
                seconds=payload["seconds"], phases=dict(payload["phases"]), refined=int(payload.get("refined", 0)),
                state={k: payload[k] for k in _V1_STATE},
            )  # fmt: skip
        fields = {k: v for k, v in payload.items() if k != "version"}
        fields["shape"] = tuple(fields["shape"])
        return cls(**fields)


def save_checkpoint(path: Path, checkpoint: Checkpoint) -> None:
    """torch.save to a temporary file beside `path`, fsync, then rename over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("wb") as fh:
        torch.save({"version": CHECKPOINT_VERSION, **asdict(checkpoint)}, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def load_checkpoint(path: str | Path) -> Checkpoint:
    """Read a checkpoint file (or the one inside a run folder); CheckpointError says what is wrong."""
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT_NAME
    if not path.exists():
        raise CheckpointError(f"{path}: no checkpoint (the run did not complete a round)")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=False, pickle_module=MovedClasses)
    except Exception as exc:  # a truncated or foreign file: torch raises many kinds
        raise CheckpointError(f"{path}: not a readable checkpoint ({type(exc).__name__}: {exc})") from None
    version = payload.get("version") if isinstance(payload, dict) else None
    if version not in (1, CHECKPOINT_VERSION):
        raise CheckpointError(f"{path}: checkpoint version {version!r} is not {CHECKPOINT_VERSION}")
    try:
        return Checkpoint.from_payload(payload)
    except (KeyError, TypeError) as exc:
        raise CheckpointError(f"{path}: not a readable checkpoint (missing or unknown field {exc})") from None
