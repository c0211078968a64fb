"""How `decipher run` shows a run's events: Rich progress bars on a terminal, a plain line every
LOG_EVERY seconds off one, and a line per EM round (the words are session/wording.py's)."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console

from ..engine.run.events import ChannelStep, EpochEnd, RoundEnd, RunFinished, RunStarted
from ..session.run_views import percent
from ..session.wording import event_line
from .app import progress_bars

LOG_EVERY = 10.0  # seconds between plain progress lines when the output is not a terminal


class RichReporter:
    """Renders engine events as two progress bars and a line per EM round; `quiet`: nothing (the
    summary table after the run is all `--quiet` prints)."""

    def __init__(self, console: Console, quiet: bool) -> None:
        self.console = console
        self.quiet = quiet
        self.progress = progress_bars(console, quiet=quiet)
        self.rounds_task: Any = None
        self.epochs_task: Any = None
        # Bars draw only on a terminal: into a file or a pipe, a plain line every LOG_EVERY seconds
        # says where a long run is (a channel step or an M-step), so a log shows it is alive.
        self.log_lines = not console.is_terminal
        self.last_line = time.monotonic()

    def _log(self, text: str, seconds: float) -> None:
        """A plain progress line, at most one per LOG_EVERY seconds (off a terminal only)."""
        if self.log_lines and time.monotonic() - self.last_line >= LOG_EVERY:
            self.last_line = time.monotonic()
            self.console.print(f"{text}, {seconds:.0f}s", highlight=False, markup=False)

    def __call__(self, event: object) -> None:
        if self.quiet:  # the summary table after the run is all --quiet prints
            return
        if isinstance(event, ChannelStep):
            line = f"channel step {event.step}/{event.steps}: {event.label} loss {event.loss:.3f}"
            self._log(line, event.seconds)
        elif isinstance(event, EpochEnd):
            self._log(
                f"restart {event.restart + 1} round {event.round} M-step {event.epoch}/{event.epochs}: "
                f"loss {event.loss:.3f}", event.seconds,
            )  # fmt: skip
        self._render(event)

    def _render(self, event: object) -> None:
        if isinstance(event, RunFinished):  # the summary table follows
            return
        line = event_line(event, rounds=self.rounds_task is not None)
        if isinstance(event, RunStarted):
            self.console.print(line, highlight=False, markup=False)
            if event.rounds == 0:  # no EM rounds: the channel's steps are the whole run
                self.epochs_task = self.progress.add_task("channel", total=None, info="", at_most=event.steps_at_most)
                return
            total = event.rounds * event.restarts
            self.rounds_task = self.progress.add_task("EM rounds", total=total, info="")
            self.epochs_task = self.progress.add_task("M-step", total=event.epochs_of_round(1), info="")
            return
        if isinstance(event, ChannelStep):
            self.progress.update(
                self.epochs_task, description="channel", total=event.steps, completed=event.step,
                info=f"{event.label} loss {event.loss:.3f}",
            )  # fmt: skip
            if event.step == event.steps and self.rounds_task is not None:
                self.progress.reset(self.epochs_task, description="M-step", info="")
            if event.step != event.steps:  # the bar shows a channel's start and steps; its end gets a line
                return
        elif isinstance(event, EpochEnd):
            self.progress.update(
                self.epochs_task, total=event.epochs, completed=event.epoch,
                info=f"loss {event.loss:.3f} (nll {event.nll:.3f}, reg {event.reg:.3f})",
            )  # fmt: skip
        elif isinstance(event, RoundEnd):
            self.progress.advance(self.rounds_task)
            self.progress.update(self.rounds_task, info=f"acc {percent(event.accuracy)}")
            self.progress.reset(self.epochs_task, info="")
        if line is not None:
            self.progress.console.print(line, highlight=False, markup=False)
