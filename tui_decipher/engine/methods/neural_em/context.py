"""The run's state: the problem with the EM's bookkeeping (`EMContext`), and one restart's (`_RestartState`)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ...corpora.charset import shared_symbols
from ...corpora.corpus import Corpus
from ...flow import FlowSolution
from ...neural.model import DecipherModel, build_model
from ...neural.scoring import Scores
from ...run.config import DecipherConfig
from ...run.events import EventCallback, ignore
from ...run.problem import Problem
from ..base import RoundMetrics

METHOD_NAME = "neural"  # NeuralEM.name, which its checkpoints and start events record


@dataclass
class EMContext(Problem):
    """A problem with the EM's run state: where it checkpoints, the best restart so far."""

    checkpoint_path: Path | None = None  # written after every complete round
    best: _RestartState | None = None  # best completed restart so far (by objective)
    restart_objectives: list[float] = field(default_factory=list)
    refined: int = 0  # refinements so far, this one included (0: the run itself)
    # init_flow = "edit-distance": the words' own matching, solved once and shared by all restarts.
    edit_distance_matching: FlowSolution | None = None


def prepare(
    corpus: Corpus,
    cfg: DecipherConfig,
    on_event: EventCallback = ignore,
    cancel: threading.Event | None = None,
    **run_state: Any,
) -> EMContext:
    """Encode the vocabularies once for the whole run (see `Problem.prepare`)."""
    return EMContext.prepare(corpus, cfg, on_event, cancel or threading.Event(), **run_state)


@dataclass
class _RestartState:
    restart: int
    model: DecipherModel
    flow: torch.Tensor  # F (n_lost, n_known): the decayed flow
    sample_gen: torch.Generator | None = None  # draws the expected-edit-distance samples
    rounds: list[RoundMetrics] = field(default_factory=list)
    scores: Scores | None = None  # last E-step scoring
    cost: np.ndarray | None = None  # last E-step cost (n_lost, n_known)
    cost_kind: str = "nll"
    objective: float = float("inf")
    accuracy: float | None = None
    cancelled: bool = False
    kept_weights: dict[str, torch.Tensor] | None = None


def _new_model(ctx: EMContext) -> DecipherModel:
    """A model sized for the run's charsets, on its device."""
    shared = shared_symbols(ctx.lost_charset, ctx.known_charset)
    return build_model(len(ctx.lost_charset), len(ctx.known_charset), ctx.cfg, shared).to(ctx.device)
