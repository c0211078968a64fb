"""Messages the engine worker posts to the app (thread-safe through `post_message`)."""

from __future__ import annotations

from textual.message import Message


class RunCreated(Message):
    """The worker loaded the corpus and recorded the run in the store."""

    def __init__(self, run_id: int) -> None:
        super().__init__()
        self.run_id = run_id


class RunRefused(Message):
    """The run could not start (bad corpus or config); nothing was stored."""

    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class EngineEvent(Message):
    """One engine progress event (RunStarted, EpochEnd, RoundEnd, RestartEnd, RunFinished)."""

    def __init__(self, run_id: int, event: object) -> None:
        super().__init__()
        self.run_id = run_id
        self.event = event


class RunDone(Message):
    """The run's result (finished or cancelled) is in the store."""

    def __init__(self, run_id: int, status: str) -> None:
        super().__init__()
        self.run_id = run_id
        self.status = status
