"""One wording of the engine's events for both front ends: the line `decipher run` prints and the
line the TUI's Progress log shows for the same event are the same words (`event_line`)."""

from __future__ import annotations

from ..engine.run.events import (
    KEPT_PREVIOUS_NOTE,
    ChannelStep,
    Decided,
    RestartEnd,
    RoundEnd,
    RunFinished,
    RunStarted,
)  # fmt: skip
from .run_views import percent


def event_line(event: object, rounds: bool) -> str | None:
    """The line an event deserves, or None (a step inside a channel's training, an M-step epoch:
    progress bars show those). `rounds`: whether the run trains in EM rounds (a channel then builds
    round 1's flow; without rounds it is the decipherment)."""
    use = "round 1's flow" if rounds else "the decipherment"
    if isinstance(event, RunStarted):
        s = event.stats
        return (
            f"{event.corpus}: {s['lost_words']} lost ({event.lost_code}) x {s['known_words']} known "
            f"({event.known_code}) words, {s['lost_symbols']}/{s['known_symbols']} symbols; "
            f"N = {event.demand} cognates sought; device {event.device}"
        )
    if isinstance(event, ChannelStep):
        if event.step == 1:
            return f"restart {event.restart + 1} channel: training for {use} ({event.steps} steps)"
        if event.step == event.steps:
            return (f"restart {event.restart + 1} channel done: {event.steps} steps, {event.label} loss "
                    f"{event.loss:.3f}, {event.seconds:.1f}s ({use})")  # fmt: skip
        return None
    if isinstance(event, RoundEnd):
        return (
            f"restart {event.restart + 1} round {event.round}/{event.rounds}: D={event.demand} cost={event.cost_kind} "
            f"loss {event.loss:.3f} flow {event.flow} (cost {event.flow_cost:.1f}) accuracy {percent(event.accuracy)} "
            f"model {percent(event.accuracy_model)} {event.seconds:.1f}s"
            + (f" ({KEPT_PREVIOUS_NOTE})" if event.kept_previous else "")
        )
    if isinstance(event, Decided):
        return f"{event.line} ({event.seconds:.1f}s)"
    if isinstance(event, RestartEnd):
        return f"restart {event.restart + 1} done: objective {event.objective:.4f}, accuracy {percent(event.accuracy)}"
    if isinstance(event, RunFinished):
        accuracy = "" if event.accuracy is None else f", accuracy {percent(event.accuracy)}"
        past = f" (and {event.beyond} past D the evidence allows: Review, b)" if event.beyond else ""
        proposed = f"; {event.proposals} pairs proposed{past}" if event.proposals else ""
        return f"{event.status} in {event.seconds:.1f}s{accuracy}{proposed}"
    return None
