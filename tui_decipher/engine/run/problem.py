"""A decipherment problem: the encoded vocabularies, the flow's demand and capacity, and what every
method shares around them (the min-cost flow solve, the gold-only evaluation, phase timers).

A method (engine/methods/) gets one `Problem` per run. It reports through `problem.on_event`,
checks `problem.cancel` and times its phases into `problem.phases`. Gold is read only by
`evaluate`, never by a method's training or its flow.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import time
from collections import defaultdict
from collections.abc import Sized
from dataclasses import dataclass
from typing import Any, Protocol, Self, TypeVar

import numpy as np
import torch

from ..constraints.review import ReviewConstraints
from ..constraints.sign_values import SignValues, read_sign_values
from ..corpora.charset import Charset
from ..corpora.corpus import Corpus
from ..corpora.vowels import known_vowels
from ..evaluation import metrics
from ..flow import FlowSolution, solve_sparsified
from ..flow.hubs import hub_shift
from ..neural.edit_distance import ids_to_text
from ..neural.scoring import KnownIndex, LostBatch
from .config import DecipherConfig
from .demand import Demand, settings_demand
from .device import flush_denormals, make_repeatable, select_device, use_threads
from .events import EventCallback, RunFinished
from .memory import PeakMemory


class Finished(Protocol):
    """What a problem stamps on a method's result when it ends (`Problem.finish`): the methods'
    `DecipherResult`, named here by its fields, since the methods build on problems and not the
    other way."""

    status: str
    accuracy: float | None
    accuracy_model: float | None
    seconds: float
    phase_seconds: dict[str, float]
    peak_bytes: int | None
    peak_phase: str | None

    @property
    def proposals(self) -> Sized: ...

    @property
    def beyond(self) -> Sized: ...


R = TypeVar("R", bound=Finished)


class RunCancelled(Exception):
    """Raised inside a method when the cancel event is set; the method keeps what it completed."""


_open_timers = threading.local()  # each thread's timers open now, innermost last


class Timer:
    """Adds the seconds of a `with` block to `phases[name]`, less those of the timers of the same
    phases opened inside it, so that each second counts in one phase (a check scored during
    training is "score", not also "train") and the phases add up to the run's time."""

    def __init__(self, phases: dict[str, float], name: str, peak: PeakMemory | None = None) -> None:
        self.phases, self.name, self.peak = phases, name, peak

    def __enter__(self) -> None:
        _open_timers.__dict__.setdefault("stack", []).append(self)
        self.t0 = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        elapsed = time.perf_counter() - self.t0
        stack: list[Timer] = _open_timers.stack
        stack.pop()
        self.phases[self.name] += elapsed
        if stack and stack[-1].phases is self.phases:
            self.phases[stack[-1].name] -= elapsed
        if self.peak is not None:
            self.peak.after(self.name)


@dataclass
class Problem:
    """Everything fixed for a run: the corpus, settings, encoded vocabularies, callbacks, clock.

    `review` holds the reviewer's judgments a refinement imposes on every flow (None otherwise);
    `signs` the scholar's known sign values, which hold every character channel of the run;
    `map_pins` the values of a syllable search's map that auto chose to pin its channels to as well
    (engine/methods/auto/probe.py), where the scholar gave none for a sign.
    """

    corpus: Corpus
    cfg: DecipherConfig
    device: torch.device
    lost_charset: Charset
    known_charset: Charset
    lost: LostBatch
    known: KnownIndex
    known_texts: list[str]
    demand: Demand  # D: how many pairs the flows propose, and where it came from (run/demand.py)
    on_event: EventCallback
    cancel: threading.Event
    started: float
    phases: dict[str, float]
    review: ReviewConstraints | None = None
    signs: SignValues | None = None
    map_pins: SignValues | None = None
    peak: PeakMemory = dataclasses.field(default_factory=PeakMemory)  # where memory peaked, by phase

    @classmethod
    def prepare(
        cls,
        corpus: Corpus,
        cfg: DecipherConfig,
        on_event: EventCallback,
        cancel: threading.Event,
        review: ReviewConstraints | None = None,
        seconds_before: float = 0.0,
        phases_before: dict[str, float] | None = None,
        signs: SignValues | None = None,
        map_pins: SignValues | None = None,
        **run_state: Any,
    ) -> Self:
        """Encode the vocabularies once for the whole run; `seconds_before` and `phases_before`
        carry the time of an interrupted run this one continues. `signs`: known sign values (None:
        those of the `known_signs` file, if the settings name one), checked against the channel
        kind. `map_pins`: a syllable map's values the run's channels are pinned to (the field's). `run_state`:
        the fields a method's subclass adds (e.g. where it checkpoints), set at construction."""
        if signs is None and cfg.known_signs:
            signs = read_sign_values(cfg.known_signs, corpus)
        if signs:
            signs.check_channel(cfg.channel_kind)
        device = select_device(cfg.device)
        make_repeatable(device)
        flush_denormals(device)
        use_threads(cfg.threads)
        lost_cs = Charset.from_words(corpus.lost_words)
        known_cs = Charset.from_words(corpus.known_words)
        known = KnownIndex(corpus.known_words, known_cs, device)
        phases: dict[str, float] = defaultdict(float)
        phases.update(phases_before or {})
        return cls(
            corpus=corpus,
            cfg=cfg,
            device=device,
            lost_charset=lost_cs,
            known_charset=known_cs,
            lost=LostBatch.encode(corpus.lost_words, lost_cs, device),
            known=known,
            known_texts=[ids_to_text(ids[:-1]) for ids in known.ids],
            demand=settings_demand(cfg.cognate_fraction, cfg.capacity, len(corpus.lost_words), len(corpus.known_words)),
            on_event=on_event,
            cancel=cancel,
            started=time.perf_counter() - seconds_before,
            phases=phases,
            review=review,
            signs=signs or None,
            map_pins=map_pins or None,
            **run_state,
        )

    def reversed(self, demand: Demand) -> Problem:
        """The same two word lists read the other way: the known words as the ones written, from
        the lost words, with D = `demand`. It shares this problem's clock, phases, events and
        cancel flag, and carries no gold, judgments or sign values (they name pairs and signs of
        this direction; the flows that obey them stay this problem's)."""
        corpus = self.corpus
        back = dataclasses.replace(
            corpus, lost_code=corpus.known_code, known_code=corpus.lost_code, lost_words=corpus.known_words,
            known_words=corpus.lost_words, gold={}, lost_glosses=corpus.known_glosses,
            known_glosses=corpus.lost_glosses,
        )  # fmt: skip
        known = KnownIndex(back.known_words, self.lost_charset, self.device)
        return dataclasses.replace(
            self, corpus=back, lost_charset=self.known_charset, known_charset=self.lost_charset,
            lost=LostBatch.encode(back.lost_words, self.known_charset, self.device), known=known,
            known_texts=[ids_to_text(ids[:-1]) for ids in known.ids], demand=demand, review=None, signs=None,
            map_pins=None,
        )  # fmt: skip

    @property
    def n_lost(self) -> int:
        return len(self.corpus.lost_words)

    @property
    def n_known(self) -> int:
        return len(self.corpus.known_words)

    @functools.cached_property
    def pinned_signs(self) -> list[tuple[int, tuple[int, ...]]]:
        """The known sign values as channel ids (lost symbol, known letters), the pinned map's
        (`map_pins`) for the signs the scholar gave none; empty when none. A scholar's syllable value
        also lets its sign write its consonant alone (`SignValues.with_dead_vowels`; the vowels as
        the syllable search finds them). Read once a run: every channel it trains asks, and finding
        the vowels reads every known word."""
        signs = self.signs.with_dead_vowels(known_vowels(self.corpus.known_words)) if self.signs else None
        values = self.map_pins.merged(signs) if self.map_pins and signs else signs or self.map_pins
        if not values:
            return []
        return values.resolve(self.lost_charset, self.known_charset)

    def with_demand(self, demand: Demand) -> Problem:
        """This problem proposing at `demand` (run/demand.py's `decide_demand` made it), its
        settings' share of the lost words said so."""
        return dataclasses.replace(self, demand=demand, cfg=self.cfg.replace(cognate_fraction=demand.share))

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def timer(self, name: str) -> Timer:
        """Time a phase: `with problem.timer("flow"): ...`."""
        return Timer(self.phases, name, self.peak)

    def solve(
        self, cost: np.ndarray, demand: int, rows: np.ndarray | None = None, row_scale: np.ndarray | None = None,
        column_shift: np.ndarray | None = None,
    ) -> FlowSolution:  # fmt: skip
        """Sparsify the cost matrix (n_rows, n_known) and solve the min-cost flow for demand D.

        `rows` names the lost words of a row subset (evaluation), so that reviewer judgments, when
        a run has them, land on the right rows: rejected pairs leave the graph, accepted ones are forced.
        `row_scale` (n_rows,): each row's costs divided by it in the flow; `column_shift` (n_known,):
        added to each known word's costs (flow.solve_sparsified).
        """
        with self.timer("flow"):
            forced = None
            if self.review is not None and len(self.review):
                cost = self.review.mask_rejected(cost, rows)
                forced = self.review.forced_edges(cost, demand, self.cfg.capacity, rows)
            return solve_sparsified(cost, demand, self.cfg.capacity, self.cfg.top_k, self.cfg.sparsify, forced,
                                    row_scale, column_shift)  # fmt: skip

    def flow_predictions(self, cost: np.ndarray, hubs: bool = False) -> np.ndarray:
        """The evaluation flow's known word per lost word (-1 = none): (n_lost,).

        As in the published evaluation, the flow is solved afresh over the evaluated lost words only
        (those with a gold cognate) with D = their number and capacity C, so each gets a prediction.
        With `hubs`, each known word's costs are first shifted for hubs (flow/hubs.py), as the
        channel methods' flows that pair every word they are given are.
        """
        rows = np.asarray(metrics.evaluated_lost(self.corpus.gold), dtype=np.int64)
        shift = hub_shift(cost) if hubs else None  # read from every lost word, as the method's own flows
        solution = self.solve(cost[rows], len(rows), rows, column_shift=shift)
        predictions = np.full(self.n_lost, -1, dtype=np.int64)
        predictions[rows] = metrics.flow_predictions(solution, len(rows))
        return predictions

    def evaluate(
        self, best_known: np.ndarray, cost: np.ndarray | None, hubs: bool = False
    ) -> tuple[float | None, float | None, np.ndarray | None]:
        """(flow accuracy, model-argmax accuracy, flow predictions), Nones without gold or without a
        cost (see `flow_predictions`, and its `hubs`); best_known (n_lost,) is the model's prediction, each lost
        word's best-scoring known word (`metrics.model_predictions`). A method passes predictions
        rather than its scores so that none makes a second table of its costs' size here (the
        negated costs of the full Ugaritic list were the run's peak, 1.1 GB)."""
        gold = self.corpus.gold
        if not self.corpus.has_gold:
            return None, None, None
        with self.timer("eval"):
            acc_model, _, _ = metrics.accuracy(best_known, gold)
            acc_flow = predictions = None
            if cost is not None:
                predictions = self.flow_predictions(cost, hubs)
                acc_flow, _, _ = metrics.accuracy(predictions, gold)
        return acc_flow, acc_model, predictions

    def finish(self, result: R) -> R:
        """Stamp the run's time and phases on the result and report RunFinished."""
        result.seconds = self.elapsed()
        result.phase_seconds = dict(self.phases)
        result.peak_bytes, result.peak_phase = self.peak.read(), self.peak.phase
        self.on_event(RunFinished(result.status, result.accuracy, result.accuracy_model, result.seconds,
                                  len(result.proposals), len(result.beyond)))  # fmt: skip
        return result
