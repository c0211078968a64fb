"""What a decipherment method is, and what it hands back.

A `Method` fits a `Problem` (engine/run/problem.py) and returns a `DecipherResult` whose `fitted`
can score any (lost, known) word lists, so a run can be evaluated on another corpus of the same
scripts (engine/evaluation/transfer.py) without anyone naming the method. Front ends read a run's one-line
description from `describe(config)`, never from the method's name.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import torch

from ..channels.alignment import Alignment
from ..constraints.review import ReviewConstraints
from ..corpora.charset import Charset
from ..corpora.corpus import Corpus, Word
from ..evaluation.metrics import ProposalScores, proposal_scores
from ..run.checkpoint import Checkpoint
from ..run.config import DecipherConfig
from ..run.events import EventCallback

if TYPE_CHECKING:  # a method module builds the Problem; this module only reads it
    from ..constraints.sign_values import SignValues
    from ..run.problem import Problem


@dataclass
class RoundMetrics:
    """One completed EM round (methods without rounds report none)."""

    round: int
    demand: int
    cost_kind: str
    loss: float
    nll: float
    reg: float
    flow_cost: float
    flow: int
    accuracy: float | None
    accuracy_model: float | None
    seconds: float
    phase_seconds: dict[str, float]
    kept_previous: bool = False  # the new M-step explained the flow worse; the last model was kept


@dataclass
class Proposal:
    """A proposed cognate pair: indices into the corpus vocabularies."""

    lost: int
    known: int
    score: float  # the method's confidence: a per-symbol probability, in (0, 1]
    cost: float  # flow cost of the pair (lower is better)
    gold: bool | None  # whether it is a gold pair; None without gold
    # The method's best known words for this lost word, (known index, score), best first.
    alternatives: list[tuple[int, float]] = field(default_factory=list)
    # Soft alignment alpha for this pair, when the method has one: one row per known symbol (and
    # EOW), one column per lost symbol (and EOW): (|y| + 1, |x| + 1), rows sum to 1.
    attention: list[list[float]] = field(default_factory=list)
    # How the method reads the pair, segment by segment (engine/channels/alignment.py): its lost segments
    # concatenate to the lost word, its known ones to the known word; [] where it has none.
    alignment: Alignment = field(default_factory=list)


@dataclass
class PairScores:
    """A fitted method's scores of every pair of two word lists."""

    log_prob: torch.Tensor  # (n_lost, n_known): its score, whose argmax is the "model" prediction
    cost_kind: str  # what the flow cost is: "nll" or "channel" (-log_prob), or "eed"
    cost: np.ndarray | None = None  # (n_lost, n_known) flow cost when it is not -log_prob
    use_flow: bool = True  # False: the argmax is the answer (the "-flow" ablation)
    phase_seconds: dict[str, float] = field(default_factory=dict)

    def flow_cost(self) -> np.ndarray:
        """The flow cost (n_lost, n_known). When it is -log P it is made in place from `log_prob`
        (which is then gone), so a large table is held once."""
        return self.cost if self.cost is not None else self.log_prob.neg_().numpy()


class Fitted(Protocol):
    """What a method learnt: enough to score other word lists of the same two scripts."""

    def pair_scores(
        self,
        lost_words: list[Word],
        known_words: list[Word],
        lost_charset: Charset,
        known_charset: Charset,
        generator: torch.Generator | None = None,
    ) -> PairScores:
        """Score every (lost, known) pair, the words encoded with the training charsets (a symbol
        the training corpus lacked is the unknown symbol)."""
        ...

    def sizes(self) -> tuple[int, int]:
        """(lost symbols, known symbols) of the charsets it was trained with."""
        ...


@dataclass
class DecipherResult:
    config: DecipherConfig
    corpus_name: str
    lost_code: str
    known_code: str
    demand: int  # D: how many pairs it proposes (summary.json and the store call it n_cognates)
    status: str  # "finished" | "cancelled"
    device: str
    threads: int = 0  # torch CPU threads it computed with: a CPU seed repeats exactly only at the same count
    proposals: list[Proposal] = field(default_factory=list)
    # Pairs past the run's D, up to the most the evidence allows (`Problem.demand`'s `high`): lost
    # words not proposed, read by the flow at that D, best first. Not proposals: they count in no
    # precision, recall or F1, and a decipherer may judge them as any pair.
    beyond: list[Proposal] = field(default_factory=list)
    char_map: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    rounds: list[RoundMetrics] = field(default_factory=list)
    accuracy: float | None = None
    accuracy_model: float | None = None
    n_evaluated: int = 0
    seconds: float = 0.0
    objective: float | None = None
    restart: int = 0
    restart_objectives: list[float] = field(default_factory=list)
    phase_seconds: dict[str, float] = field(default_factory=dict)
    # The process's peak resident memory at the end, and the phase it was reached in (None: before
    # any phase, or not known): engine/run/memory.py.
    peak_bytes: int | None = None
    peak_phase: str | None = None
    fitted: Fitted | None = None  # what the method kept (for scoring other corpora); None if nothing
    # Flow-mode prediction per lost word (known index, -1 = none), from the evaluation flow: (n_lost,)
    predictions: np.ndarray | None = None
    refined: int = 0  # how many refinements (reviewer-guided continuations) this result has had
    # What a method that decides its own settings (auto) chose and why, with its one `line`; {} otherwise.
    decisions: dict[str, Any] = field(default_factory=dict)

    def proposal_scores(self) -> ProposalScores | None:
        """Its proposals judged as a user gets them, at its own D over every lost word (precision,
        recall, F1, calibration: engine/evaluation/metrics.py); None without gold."""
        if self.accuracy is None:
            return None
        ps = self.proposals
        return proposal_scores([p.gold for p in ps], self.n_evaluated, [p.score for p in ps], [p.lost for p in ps])


def empty_result(problem: Problem) -> DecipherResult:
    """A finished result of a run on `problem` with nothing in it yet (a method fills it in)."""
    corpus = problem.corpus
    return DecipherResult(
        config=problem.cfg, corpus_name=corpus.name, lost_code=corpus.lost_code, known_code=corpus.known_code,
        demand=problem.demand.value, status="finished", device=str(problem.device),
        threads=torch.get_num_threads(),
    )  # fmt: skip


class Method(Protocol):
    """A decipherment method: one module in engine/methods/ and one line in its registry."""

    name: str  # the `method` config value that selects it
    summary: str  # what it is, in a few words (`--method`'s help, the New run form)
    keeps_rounds: bool  # whether its runs train in EM rounds (progress shows rounds; a checkpoint comes after one)
    decides_demand: bool  # whether it chooses D and C itself: the config's are not checked against a corpus
    refines_with_signs: bool  # whether a refinement can hold sign values pinned after the run (`refine`'s signs)

    def check_known_signs(self, signs: SignValues, cfg: DecipherConfig) -> None:
        """Raise CorpusError, naming the file's line, where known sign values cannot constrain the
        channel this method will train under `cfg` (called before a run is recorded)."""
        ...

    def quick_changes(self, cfg: DecipherConfig, channel_steps: int) -> dict[str, Any]:
        """The settings a reduced (`decipher bench --quick`) run of `cfg` changes beyond the
        neural EM's rounds and epochs: any channel it trains cut to `channel_steps` steps."""
        ...

    def fit(
        self,
        corpus: Corpus,
        cfg: DecipherConfig,
        on_event: EventCallback,
        cancel: threading.Event,
        checkpoint_path: Path | None = None,
        start: Checkpoint | None = None,
        review: ReviewConstraints | None = None,
    ) -> DecipherResult:
        """Decipher `corpus`; with `start` (a checkpoint of this run), continue it to where an
        uninterrupted run would end. With `checkpoint_path`, save progress there as it goes (a
        finished run's checkpoint is what `refine` continues). `review`: judgments known before
        the run (a scholar's known pairs), constraining it from its start as a refinement's do."""
        ...

    def refine(
        self,
        corpus: Corpus,
        start: Checkpoint,
        constraints: ReviewConstraints,
        rounds: int,
        on_event: EventCallback,
        cancel: threading.Event,
        checkpoint_path: Path | None = None,
        draw: int = 0,
        signs: SignValues | None = None,
    ) -> DecipherResult:
        """Continue a finished run for `rounds` more rounds under the reviewer's judgments. `draw`
        picks the refinement's random stream (batches, dropout, samples): 0 is the run's own; the
        bench repeats its reviewer over several draws, since one draw's noise can exceed the effect.
        `signs`: sign values the decipherer pinned, held from here on beside (and over, symbol by
        symbol) those the run had; ValueError where the method's channel cannot take them."""
        ...

    def check(self, corpus: Corpus, cfg: DecipherConfig) -> None:
        """Raise ValueError, in one line for the user, where this method cannot run on `corpus`
        (called before a run is recorded, so a refusal leaves nothing behind)."""
        ...

    def check_resume(self, start: Checkpoint) -> None:
        """Raise CheckpointError, saying what to do instead, where `start` holds nothing to resume
        (a finished run); called before a run is marked running, as `check` is."""
        ...

    def check_refine(self, start: Checkpoint) -> None:
        """Raise CheckpointError, saying what to do instead, where `start` holds nothing to refine
        (a run stopped before it finished); called before a run is marked running."""
        ...

    def describe(self, config: dict[str, Any]) -> str:
        """One line: how a run with this stored config deciphered (fields a stored run lacks read
        as their defaults)."""
        ...

    def char_map_source(self, config: dict[str, Any]) -> str:
        """One line: where a run's character map comes from, for the Key screen."""
        ...
