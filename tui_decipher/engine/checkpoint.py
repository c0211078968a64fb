"""Checkpoints: everything needed to continue a run from its last complete round.

Written after every complete round, atomically (write a temporary file, then rename), so a crash,
a kill or a cancel at any moment leaves either the previous checkpoint or the new one, never half
of one. A `Checkpoint` holds what every method shares (settings, corpus, clock, the completed
rounds of the restart under way) and the method's own `state`, which only that method reads.
Version 1 files (written before methods had their own state) are migrated on load.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from .config import DecipherConfig

CHECKPOINT_NAME = "checkpoint.pt"
CHECKPOINT_VERSION = 2
_V1_STATE = ("flow", "sample_gen", "current", "best", "restart_objectives")  # the neural EM's keys in v1


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
        payload = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as exc:  # a truncated or foreign file: torch raises many kinds
        raise CheckpointError(f"{path}: not a readable checkpoint ({type(exc).__name__}: {exc})") from None
    version = payload.get("version") if isinstance(payload, dict) else None
    if version not in (1, CHECKPOINT_VERSION):
        raise CheckpointError(f"{path}: checkpoint version {version!r} is not {CHECKPOINT_VERSION}")
    try:
        return Checkpoint.from_payload(payload)
    except (KeyError, TypeError) as exc:
        raise CheckpointError(f"{path}: not a readable checkpoint (missing or unknown field {exc})") from None
