"""Progress events the engine sends to a plain callback; front ends render them.

They are small frozen dataclasses so a UI can forward them as messages across threads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RunStarted:
    corpus: str
    lost_code: str
    known_code: str
    stats: dict[str, int]
    device: str
    rounds: int
    epochs: int
    restarts: int
    demand: int  # D, the number of cognate pairs the flow aims for
    first_epochs: int = 0  # M-step steps of round 1 when it differs from `epochs` (0 = the same)
    method: str = "neural"  # the method's registry name (engine/methods/); front ends read `rounds`, not this
    # Whether the channel steps are a budget the run may stop short of (auto stops once its fit's plan
    # settles, often at a fifth of it): a time left read from them is then at most that.
    steps_at_most: bool = False

    def epochs_of_round(self, round_: int) -> int:
        """M-step steps of a round (1-based)."""
        return epochs_of_round(self.first_epochs, self.epochs, round_)

    def steps_before_round(self, round_: int) -> int:
        """M-step steps of one restart's rounds before `round_` (1-based)."""
        return steps_before_round(self.epochs_of_round(1), self.epochs, round_)


def epochs_of_round(first_epochs: int, epochs: int, round_: int) -> int:
    """M-step steps of a round (1-based): `first_epochs` for round 1 when set (> 0), else `epochs`."""
    return first_epochs if round_ == 1 and first_epochs > 0 else epochs


def steps_before_round(first_epochs: int, epochs: int, round_: int) -> int:
    """M-step steps of one restart's rounds before `round_` (1-based), round 1 taking `first_epochs`."""
    return 0 if round_ <= 1 else first_epochs + (round_ - 2) * epochs


# Said in a round's log line when `RoundEnd.kept_previous` is set.
KEPT_PREVIOUS_NOTE = "M-step stalled: kept the last round's model"


@dataclass(frozen=True)
class ChannelStep:
    """One training step of the character channel that builds round 1's flow (init_flow = "channel")."""

    restart: int  # 0-based
    step: int  # 1-based
    steps: int
    loss: float  # the channel's objective on the step's batch (nats per lost word)
    seconds: float  # since the run started
    objective: str = "lexicon"  # which objective `loss` is: "lexicon" or "transport" (config field)
    # Which channel trains: "" the run's own, "reverse" auto's channel that writes the known words
    # from the lost ones, "search start K" one of auto's probe search's fresh starts, "probe split
    # K" its probe trained again on another split of the lost words (each its own curve: plots and
    # logs tell them apart).
    channel: str = ""

    @property
    def label(self) -> str:
        """What the step trains, for logs and plots: its objective, after its channel where not the run's."""
        return f"{self.channel} {self.objective}".strip()


@dataclass(frozen=True)
class EpochEnd:
    restart: int  # 0-based
    round: int  # 1-based
    epoch: int  # 1-based
    epochs: int
    loss: float
    nll: float
    reg: float
    seconds: float  # since the run started


@dataclass(frozen=True)
class RoundEnd:
    restart: int
    round: int
    rounds: int
    demand: int  # D used by this round's flow
    cost_kind: str  # "nll" (-log P) or "eed" (expected edit distance)
    loss: float  # last M-step loss
    flow_cost: float  # total cost of this round's flow solution
    flow: int  # flow achieved (<= demand)
    accuracy: float | None  # flow-mode accuracy, when gold exists
    accuracy_model: float | None  # model argmax accuracy, when gold exists
    seconds: float
    phase_seconds: dict[str, float] = field(default_factory=dict)
    kept_previous: bool = False  # this round's M-step was rejected: the last round's model was kept


@dataclass(frozen=True)
class RestartEnd:
    restart: int
    objective: float  # training objective (lower is better); chooses the kept restart
    accuracy: float | None


@dataclass(frozen=True)
class RunFinished:
    status: str  # "finished" | "cancelled"
    accuracy: float | None
    accuracy_model: float | None
    seconds: float
    proposals: int = 0  # the pairs proposed (D of them)
    beyond: int = 0  # and the pairs past D the evidence allows (`DecipherResult.beyond`)


@dataclass(frozen=True)
class Decided:
    """A choice `method = "auto"` made from the word lists (engine/methods/auto/), in one line."""

    what: str  # "script", "demand", ...
    line: str
    seconds: float  # since the run started


Event = RunStarted | ChannelStep | EpochEnd | RoundEnd | RestartEnd | RunFinished | Decided
EventCallback = Callable[[Any], None]


def ignore(_event: Any) -> None:
    """The default callback: drop events."""
