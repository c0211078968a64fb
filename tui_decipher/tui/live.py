"""The state of the run the engine is working on, built from its events (no Textual here)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..engine.run.events import (
    ChannelStep,
    EpochEnd,
    RoundEnd,
    RunFinished,
    RunStarted,
    steps_before_round,
)
from ..session.run_views import loss_curve
from ..session.wording import event_line


@dataclass
class LiveRun:
    """What the Progress screen shows while a run trains; updated on the UI thread only."""

    run_id: int | None = None
    status: str = "loading"  # loading | running | cancelling | finished | cancelled | failed
    started: float = field(default_factory=time.monotonic)
    corpus: str = ""
    rounds: int = 0
    epochs: int = 0  # M-step steps of the current round
    restarts: int = 1
    restart: int = 0
    round: int = 0  # rounds completed in the current restart
    epoch: int = 0
    channel_step: int = 0  # init_flow = "channel": steps of the channel that builds round 1's flow
    channel_steps: int = 0
    losses: list[float] = field(default_factory=list)  # every M-step epoch's loss
    channel_losses: list[tuple[str, float]] = field(default_factory=list)  # (objective, loss) a channel step
    round_ends: list[RoundEnd] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    finished_seconds: float | None = None
    refining: bool = False  # a refinement of a finished run (a cancel leaves that run finished)
    _shape: RunStarted | None = field(default=None, repr=False)
    _round_open: bool = field(default=False, repr=False)

    def apply(self, event: object) -> str | None:
        """Update from one engine event; returns a log line when the event deserves one."""
        if isinstance(event, RunStarted):
            self.status = "running" if self.status == "loading" else self.status
            self.corpus = event.corpus
            self.rounds, self.epochs, self.restarts = event.rounds, event.epochs, event.restarts
            self._shape = event
        elif isinstance(event, ChannelStep):
            self.restart, self.channel_step, self.channel_steps = event.restart, event.step, event.steps
            self.channel_losses.append((event.label, event.loss))
        elif isinstance(event, EpochEnd):
            self.restart, self.epoch, self.epochs = event.restart, event.epoch, event.epochs
            self._round_open = True
            self.round = event.round - 1
            self.losses.append(event.loss)
        elif isinstance(event, RoundEnd):
            self.round, self.epoch = event.round, self.epochs
            self._round_open = False
            self.round_ends.append(event)
        elif isinstance(event, RunFinished):
            self.status = event.status
            self.finished_seconds = event.seconds
        return event_line(event, rounds=not self.no_rounds)

    def _steps_before(self, round_: int) -> int:
        """M-step steps of one restart's rounds before `round_` (1-based)."""
        if self._shape is None:
            return steps_before_round(self.epochs, self.epochs, round_)
        return self._shape.steps_before_round(round_)

    def loss_curve(self) -> tuple[str, list[float]]:
        """The loss plot's label and points so far (`run_views.loss_curve`)."""
        return loss_curve(self.losses, self.channel_losses)

    @property
    def in_channel(self) -> bool:
        """Whether the step bar counts channel steps: the channel of init_flow = "channel" is
        training right now, or the run has no rounds and the channel is all of it."""
        return self.no_rounds or (0 < self.channel_step < self.channel_steps and not self._round_open)

    @property
    def no_rounds(self) -> bool:
        """Whether the run has no EM rounds (its channel steps are the whole run)."""
        return self._shape is not None and self._shape.rounds == 0

    @property
    def cancel_note(self) -> str:
        """What a cancel keeps, for the log."""
        if self.refining:
            kept = "the run keeps its channel" if self.no_rounds else "the run keeps the rounds it completed"
            return f"cancelling the refinement: {kept} and stays finished"
        if self.no_rounds:
            return "cancelling: the channel stops at its next step, nothing is kept"
        return "cancelling: the current epoch finishes, completed rounds are kept"

    @property
    def steps_total(self) -> int:
        return max(1, self.restarts * self._steps_before(self.rounds + 1))

    @property
    def steps_done(self) -> int:
        in_round = self.epoch if self._round_open else 0  # steps of the round under way
        return self.restart * self._steps_before(self.rounds + 1) + self._steps_before(self.round + 1) + in_round

    def elapsed(self) -> float:
        return self.finished_seconds if self.finished_seconds is not None else time.monotonic() - self.started

    @property
    def eta_at_most(self) -> bool:
        """Whether `eta` is an upper bound: the run may stop short of its steps (`RunStarted.steps_at_most`)."""
        return self._shape is not None and self._shape.steps_at_most

    def eta(self) -> float | None:
        """Seconds left, from the pace of M-step epochs so far (of channel steps for a run without
        rounds); None before the first."""
        if self.no_rounds:
            done, total = self.channel_step, self.channel_steps
        else:
            done, total = self.steps_done, self.steps_total
        if done == 0 or self.status not in ("running", "cancelling"):
            return None
        return self.elapsed() / done * (total - done)
