"""An engine event callback that records a run into the store as it goes (`RunRecorder`)."""

from __future__ import annotations

import logging
import math
import sqlite3
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.corpora.corpus import Corpus
from ..engine.run.events import ChannelStep, EpochEnd, RoundEnd, RunStarted
from .database import Store
from .rows import StoreError

if TYPE_CHECKING:
    from ..engine.methods import DecipherResult
    from ..engine.run.checkpoint import Checkpoint

log = logging.getLogger(__name__)  # the run's log (run.log in its folder, run_session.py)


class RunRecorder:
    """An engine event callback that records a run into the store as it goes, then forwards.

    Created in the thread that runs the engine (it opens its own connection there). Rounds and
    their epochs are committed at each round's end, so a crash keeps every finished round; channel
    steps every CHANNEL_BATCH steps, at a round's end and when the run ends.
    """

    CHANNEL_BATCH = 200  # channel steps a write: a step can take milliseconds, a commit as long

    def __init__(self, store_path: Path, run_id: int, forward: Any = None) -> None:
        self.store_path, self.run_id, self.forward = store_path, run_id, forward
        self._store: Store | None = None
        self._epochs: list[EpochEnd] = []
        self._channel: list[ChannelStep] = []

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.store_path)
        return self._store

    def __call__(self, event: object) -> None:
        try:
            self._record(event)
        except (sqlite3.Error, StoreError, OSError) as exc:
            # A progress point is worth a log line, never the run: the result is recorded at its end.
            log.warning("run #%s: could not record %s: %s: %s", self.run_id, type(event).__name__,
                        type(exc).__name__, exc)  # fmt: skip
        if self.forward is not None:
            self.forward(event)

    def _record(self, event: object) -> None:
        if isinstance(event, RunStarted):
            self.store.record_started(self.run_id, event)
        elif isinstance(event, EpochEnd):
            if math.isfinite(event.loss):  # a point a plot can draw; NaN or inf is no measurement
                self._epochs.append(event)
        elif isinstance(event, ChannelStep):
            if math.isfinite(event.loss):
                self._channel.append(event)
            if len(self._channel) >= self.CHANNEL_BATCH:
                self._flush_channel()
        elif isinstance(event, RoundEnd):
            self._flush_channel()
            self.store.record_round(self.run_id, event, self._epochs)
            self._epochs = []

    def _flush_channel(self) -> None:
        steps, self._channel = self._channel, []
        self.store.record_channel_steps(self.run_id, steps)

    def _flush_channel_quietly(self) -> None:
        """The last steps of a run that failed or stopped: a plot's points, never worth an error
        that would hide the run's own."""
        with suppress(sqlite3.Error, StoreError):
            self._flush_channel()

    def catch_up(self, checkpoint: Checkpoint | None) -> None:
        """Record the checkpointed rounds the store lacks, before a run continues from `checkpoint`.

        The engine checkpoints a round just before reporting it, so a run killed between the two
        resumes past a round the store never recorded. Its epochs are gone; the round's row is not.
        """
        if checkpoint is None:
            return
        restart = checkpoint.restart
        have = {(r.restart, r.round) for r in self.store.rounds(self.run_id)}
        elapsed = 0.0  # RoundEnd.seconds is time since the run began; a checkpoint keeps each round's own
        for m in checkpoint.rounds:
            elapsed += m["seconds"]
            if (restart, m["round"]) not in have:
                fields = {k: m[k] for k in ("demand", "cost_kind", "loss", "flow_cost", "flow", "accuracy",
                                            "accuracy_model", "phase_seconds", "kept_previous")}  # fmt: skip
                event = RoundEnd(restart, m["round"], checkpoint.config["rounds"], seconds=elapsed, **fields)
                self.store.record_round(self.run_id, event, [])

    def finish(self, result: DecipherResult, corpus: Corpus) -> None:
        self._flush_channel()
        self.store.record_result(self.run_id, result, corpus)

    def fail(self, error: str) -> None:
        self.store.mark_failed(self.run_id, error)
        self._flush_channel_quietly()

    def close(self) -> None:
        self._flush_channel_quietly()
        if self._store is not None:
            self._store.close()
            self._store = None
