"""The bench's vocabulary: a setting, the figures (rows) it reports, what a job measured of one,
and the reporter a running job gets. Used by every other module of the bench."""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .engine_api import ChannelStep, DecipherConfig, EpochEnd, RoundEnd, RunStarted

BASE_SEED = DecipherConfig().seed  # seed k of a bench is BASE_SEED + k - 1 (seed 1 = `decipher run`)
DECIPHER, BASELINE = "decipher", "baseline"


class BenchError(ValueError):
    """Bad bench options (an unknown setting name, a bad count); the message is one line."""


@dataclass(frozen=True)
class RowSpec:
    """One figure a setting reports: its key, what it is evaluated on, and the reference figures
    (percent): the paper's, and the issue's measurement of the edit-distance baseline."""

    key: str
    label: str
    paper: float | None = None
    baseline_reference: float | None = None


@dataclass
class RowResult:
    """One figure of one job. Accuracies are fractions in [0, 1]."""

    key: str
    accuracy: float | None  # flow (the paper's figure); the model argmax when the flow is ablated
    accuracy_model: float | None = None  # model argmax
    n_evaluated: int = 0
    seconds: float = 0.0  # the work of this row alone (its training, or its evaluation)
    phase_seconds: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


class JobReporter:
    """What a setting's `run` gets to report progress: call it with engine events (it is an
    EventCallback) and `stage(text)` to say what it does now. Epoch events are thinned."""

    def __init__(self, emit: Callable[[dict[str, Any]], None] = lambda _msg: None, every: float = 0.25) -> None:
        self.emit, self.every, self._last = emit, every, 0.0

    def __call__(self, event: object) -> None:
        if isinstance(event, RunStarted):
            self.emit(
                {
                    "type": "start",
                    "corpus": event.corpus,
                    "lost": event.lost_code,
                    "known": event.known_code,
                    "rounds": event.rounds,
                    "epochs": event.epochs,
                    "first_epochs": event.epochs_of_round(1),
                    "restarts": event.restarts,
                }
            )
        elif isinstance(event, ChannelStep):
            now = time.monotonic()
            if now - self._last >= self.every or event.step in (1, event.steps):
                self._last = now
                self.emit({"type": "channel", "restart": event.restart, "step": event.step, "steps": event.steps,
                           "objective": event.objective, "loss": event.loss})  # fmt: skip
        elif isinstance(event, EpochEnd):
            now = time.monotonic()
            if now - self._last >= self.every or event.epoch == event.epochs:
                self._last = now
                self.emit(
                    {
                        "type": "epoch",
                        "restart": event.restart,
                        "round": event.round,
                        "epoch": event.epoch,
                        "epochs": event.epochs,
                    }
                )
        elif isinstance(event, RoundEnd):
            self.emit(
                {
                    "type": "round",
                    "restart": event.restart,
                    "round": event.round,
                    "rounds": event.rounds,
                    "accuracy": event.accuracy,
                    "accuracy_model": event.accuracy_model,
                }
            )

    def stage(self, text: str) -> None:
        self.emit({"type": "stage", "text": text})


# run(seed, quick, reporter) -> rows; baseline(reporter) -> rows (no seed: it is deterministic);
# configs(seed, quick) -> the configs a job trains with, in order (for the report and for tests).
# A setting with `parts` is run one part per job: run(seed, quick, reporter, part=name).
RunFn = Callable[..., list[RowResult]]
CombineFn = Callable[[list[RowResult]], list[RowResult]]
BaselineFn = Callable[[JobReporter], list[RowResult]]
ConfigsFn = Callable[[int, bool], list[DecipherConfig]]


@dataclass(frozen=True)
class BenchSetting:
    name: str
    description: str
    rows: tuple[RowSpec, ...]
    run: RunFn
    corpora: tuple[str, ...] = ()  # registry names it needs; a missing one skips the setting
    baseline: BaselineFn | None = None
    baseline_of: str | None = None  # share another setting's baseline job (same corpora)
    group: str = "main"  # "main" | "ablation": one Markdown table per group
    note: str = ""
    configs: ConfigsFn | None = None
    # Independent pieces of one seed's work, each its own job (so they can run side by side and a
    # failed one loses only itself); `combine` gets the ok rows of all of a seed's parts, in part
    # order, and returns the rows derived from them (none unless every part is there).
    parts: tuple[str, ...] = ()
    combine: CombineFn | None = None
    # An exploratory row (a change that did not pay, or a costly variant): run by `--all` or
    # `--only`, left out of the default bench so that its three seeds fit in a working day or two.
    extra: bool = False

    @property
    def baseline_key(self) -> str | None:
        """The name of the baseline job this setting's baseline rows come from."""
        if self.baseline_of:
            return self.baseline_of
        return self.name if self.baseline is not None else None


def peak_rss_mb() -> float:
    """The peak resident memory of this process so far, or of the largest child process it waited
    for where that is larger (a user-path job runs `decipher run` as its child), in MB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return max(own, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024.0  # Linux: KB
