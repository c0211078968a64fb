"""Round checkpoints: everything needed to continue EM from the last complete round.

Written after every EM round, atomically (write a temporary file, then rename), so a crash, a
kill or a cancel at any moment leaves either the previous checkpoint or the new one, never half
of one. The optimiser is not saved because each M-step starts from fresh parameters and a fresh
optimiser (periodic reset), and the global torch RNG is re-seeded per round; what carries over is
the decayed flow, the sampling generator of the expected edit distance, and the kept weights.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch

from .config import DecipherConfig

CHECKPOINT_NAME = "checkpoint.pt"
CHECKPOINT_VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, unreadable, from another version or config."""


def save_checkpoint(path: Path, payload: dict[str, Any]) -> None:
    """torch.save to a temporary file beside `path`, fsync, then rename over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("wb") as fh:
        torch.save({"version": CHECKPOINT_VERSION, **payload}, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def load_checkpoint(path: str | Path) -> dict[str, Any]:
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
    if not isinstance(payload, dict) or payload.get("version") != CHECKPOINT_VERSION:
        raise CheckpointError(f"{path}: checkpoint version {payload.get('version')!r} is not {CHECKPOINT_VERSION}")
    return payload


def checkpoint_config(payload: dict[str, Any]) -> DecipherConfig:
    """The validated settings a checkpoint was made with (a resumed run uses exactly these)."""
    cfg = DecipherConfig(**payload["config"])
    cfg.validate()
    return cfg
