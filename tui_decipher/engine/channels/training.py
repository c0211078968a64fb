"""What a channel's training is given and what it leaves to resume from: its settings
(`ChannelTraining`, one object in place of `fit_channel`'s two dozen parameters) and its saved
state (`TrainingState`, `Saving`). The trainer itself is engine/channels/trainer.py."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from ..run.config import ChannelKind, ChannelObjective, DecipherConfig
from .pieces import INIT_SCALE
from .shortlist import REFRESH_EVERY
from .transport import NoCognate


@dataclass(frozen=True)
class ChannelTraining:
    """How one channel trains (`fit_channel`).

    Adam for `steps` steps at rate `lr`, `batch` random lost words a step, its batches and a fresh
    channel's start drawn from `seed`. `objective`: "lexicon" (every lost word is the writing of
    some known word) or "transport" (the weights of a plan with D = `demand`, None: every lost
    word, and C = `capacity`; "no cognate" scored as `no_cognate`, engine/channels/transport.py).
    A fresh channel is of `kind` ("pieces" or "edit"), started at `init_scale` with the edit
    channel's copy prior `copy_bias`. `sure_share`: the share of every step's loss the accepted
    pairs carry together (None: each accepted pair is one more word of the batch). `shortlist`:
    whether to train through each lost word's listed known words (None: above SHORTLIST_ABOVE
    pairs). `score_all` False skips the final scoring of every pair (the fit's cost is then empty).
    `settle`: training stops early once it has settled (`settled`; the lexicon objective's batch
    losses, `losses_settled`)."""

    steps: int
    lr: float
    batch: int
    seed: int
    objective: ChannelObjective = "lexicon"
    demand: int | None = None
    capacity: int = 1
    kind: ChannelKind = "pieces"
    init_scale: float = INIT_SCALE
    copy_bias: float = DecipherConfig.channel_copy_bias
    gaps: bool = DecipherConfig.channel_gaps
    sure_share: float | None = None
    shortlist: bool | None = None
    no_cognate: NoCognate = "average"
    score_all: bool = True
    settle: float = 0.0  # stop once the objective rose less than this over SETTLE_STEPS (0: never)

    @classmethod
    def of(cls, cfg: DecipherConfig, steps: int, seed: int, **changes: Any) -> ChannelTraining:
        """The training a run's settings `cfg` give (its channel section, objective and C), for
        `steps` steps from `seed`, with `changes` (any other field) over them."""
        settings = cls(
            steps, cfg.channel_lr, cfg.channel_batch, seed, objective=cfg.channel_objective, capacity=cfg.capacity,
            kind=cfg.channel_kind, init_scale=cfg.channel_init_scale, copy_bias=cfg.channel_copy_bias,
            gaps=cfg.channel_gaps,
        )  # fmt: skip
        return dataclasses.replace(settings, **changes)


# Steps between two saved training states: where the shortlist (every REFRESH_EVERY steps) and the
# transport plan (every PLAN_EVERY, which divides it) are drawn afresh, so a resumed training
# draws them from the same channel as the uninterrupted one.
SAVE_EVERY = REFRESH_EVERY
# ...or sooner, at the next step where what is drawn afresh allows it, once this many seconds have
# passed since the last save: on a machine whose cores are shared, 50 steps can take minutes.
SAVE_SECONDS = 30.0


# The transport plan's objective is compared across this many steps (10 plans) to tell whether a
# training has settled: a batch's loss is too noisy for that, the plan's is over every lost word.
SETTLE_STEPS = 50


def plan_objective(plan: torch.Tensor, log_p: torch.Tensor) -> float:
    """A transport plan's objective a unit it sends to real pairs: sum_ij w_ij log P(x_i | y_j) /
    sum_ij w_ij, from the plan (n_lost, n) and the log-probabilities it was drawn from (n_lost, n)."""
    sent = plan.sum()
    weighed = torch.where(plan > 0, plan * log_p, torch.zeros_like(plan)).sum()
    return float(weighed / sent) if sent > 0 else math.nan


def settled(objectives: Sequence[tuple[int, float]], tolerance: float) -> bool:
    """Whether the plan's objective, (step drawn at, value) for each plan so far, rose by less than
    `tolerance` nats a unit between the last plan and the last one drawn SETTLE_STEPS or more steps
    before it (False while there is none)."""
    if tolerance <= 0 or not objectives:
        return False
    last_step, last = objectives[-1]
    before = next((value for at, value in reversed(objectives) if at <= last_step - SETTLE_STEPS), None)
    return before is not None and last - before < tolerance


def losses_settled(objectives: Sequence[tuple[int, float]], tolerance: float) -> bool:
    """The lexicon objective's `settled`, which has no plan: whether its batch losses, (step, minus
    the loss) for each step so far, improved by less than `tolerance` nats a word from the mean of
    the SETTLE_STEPS steps before the last SETTLE_STEPS to the mean of those (False before twice
    SETTLE_STEPS steps). One batch's loss is too noisy to tell; fifty batches' mean is not."""
    if tolerance <= 0 or len(objectives) < 2 * SETTLE_STEPS:
        return False
    last = sum(value for _, value in objectives[-SETTLE_STEPS:]) / SETTLE_STEPS
    before = sum(value for _, value in objectives[-2 * SETTLE_STEPS : -SETTLE_STEPS]) / SETTLE_STEPS
    return last - before < tolerance


@dataclass
class TrainingState:
    """Where `fit_channel` is after `step` steps: enough to continue to the very channel the
    uninterrupted training ends with."""

    step: int
    channel: dict[str, torch.Tensor]
    optimiser: dict[str, Any]
    generator: torch.Tensor  # the batches' random stream
    potentials: Any  # the transport plan's warm start (None before the first plan)
    # each plan's (step, objective) so far (`settled`); the lexicon's, each step's (step, -loss)
    objectives: tuple[tuple[int, float], ...] = ()


@dataclass
class Saving:
    """A training that saves its state every SAVE_EVERY steps or SAVE_SECONDS (`on_save`), and the state it
    resumes from (None: it starts at step 1)."""

    on_save: Callable[[TrainingState], None]
    resume_from: TrainingState | None = None
