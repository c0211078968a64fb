"""What the store hands back: runs, proposals and rounds as rows, the review and run statuses, and
the one error the store raises."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass, field
from typing import Any

from ..engine.channels.alignment import Alignment, Segment, attention_path
from ..engine.constraints.judgments import ACCEPTED, REJECTED, UNSURE
from ..engine.corpora.corpus import graphemes
from ..engine.evaluation.metrics import ProposalScores

# Review statuses. "open" is stored as the absence of a decision row.
OPEN = "open"  # a proposal without a decision; decisions are the engine's ACCEPTED / REJECTED / UNSURE
DECIDED = (ACCEPTED, REJECTED, UNSURE)  # what a decision row may hold
STATUSES = (OPEN, *DECIDED)

# Run statuses.
RUNNING, FINISHED, CANCELLED, FAILED, INTERRUPTED = "running", "finished", "cancelled", "failed", "interrupted"


UNKNOWN_VALUE = "?"  # a pinned sign marked unknown: listed and exported, never a constraint

# The columns of a recorded pair (a proposal, or a pair beyond D), in the order runs.py's `_pair_rows` writes them.
PAIR_COLUMNS = (
    "run_id, rank, lost_index, known_index, lost, known, score, cost, gold, gold_known_json, alternatives_json, "
    "attention_json, lost_tokens, known_tokens, lost_gloss, known_gloss, alignment_json"
)
PAIR_VALUES = f"({PAIR_COLUMNS}) VALUES ({', '.join('?' * len(PAIR_COLUMNS.split(',')))})"


class StoreError(RuntimeError):
    """The database cannot be used (newer schema, corrupted, unwritable); the message says why."""


@dataclass
class RunRow:
    """One run as listed in the Runs screen."""

    id: int
    created_at: float
    status: str
    corpus: str
    preset: str | None
    lost_code: str
    known_code: str
    has_gold: bool
    accuracy: float | None
    accuracy_model: float | None
    n_evaluated: int | None
    seconds: float | None
    rounds_planned: int | None
    corpus_path: str
    config: dict[str, Any]
    stats: dict[str, int]
    run_dir: str | None
    error: str | None
    pid: int | None
    host: str | None
    n_cognates: int | None
    device: str | None
    decisions: dict[str, Any] = field(default_factory=dict)  # what auto chose, with its `line`; {} otherwise
    # The source's name and Glottocode of the lost and known languages, when it gives them:
    # {code: {"name": ..., "glottocode": ...}}; {} for a `.cog` corpus and for runs before schema 3.
    languages: dict[str, dict[str, str]] = field(default_factory=dict)
    n_proposals: int = 0  # its proposals, and of them the gold pairs (counted from the proposals table)
    n_correct: int = 0

    def proposal_scores(self) -> ProposalScores | None:
        """Its proposals judged as a user gets them (precision, recall, F1 at its own D); None
        without gold or before it has proposals."""
        if not self.has_gold or self.accuracy is None:
            return None
        return ProposalScores(self.n_proposals, self.n_correct, self.n_evaluated or 0)


@dataclass
class ProposalRow:
    """A proposed cognate pair with its review status; or, `beyond`, a pair past the run's D that
    the evidence still allows (ranked after the proposals, not one of them)."""

    rank: int
    lost_index: int
    known_index: int
    lost: str
    known: str
    score: float
    cost: float
    gold: bool | None
    status: str = OPEN
    gold_known: list[str] = field(default_factory=list)
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    attention: list[list[float]] = field(default_factory=list)
    # Each word's symbols (one per segment of a CLDF / EDICTOR source; a run recorded before schema 3
    # reads its grapheme clusters) and its concept in the source ("" when it has none).
    lost_tokens: list[str] = field(default_factory=list)
    known_tokens: list[str] = field(default_factory=list)
    lost_gloss: str = ""
    known_gloss: str = ""
    # The method's reading of the pair (engine/channels/alignment.py); a neural run recorded before schema 6
    # reads its attention's path, any other run recorded before it none.
    alignment: Alignment = field(default_factory=list)
    beyond: bool = False


@dataclass(frozen=True)
class RankedPair:
    """A pair of a run's ranking (a proposal, or a pair past D) as settling D reads it (`Store.ranking`)."""

    rank: int
    lost_index: int
    score: float
    gold: bool | None
    status: str
    beyond: bool


@dataclass
class RoundRow:
    restart: int
    round: int
    demand: int
    cost_kind: str
    loss: float
    flow_cost: float
    flow: int
    accuracy: float | None
    accuracy_model: float | None
    seconds: float


def proposal_row(r: sqlite3.Row, beyond: bool = False) -> ProposalRow:
    """A proposals row (joined with its decision) as a ProposalRow; `beyond`: a beyond_pairs row."""
    lost_tokens, known_tokens = _tokens(r["lost_tokens"], r["lost"]), _tokens(r["known_tokens"], r["known"])
    attention = json.loads(r["attention_json"])
    alignment = [Segment.from_json(seg) for seg in json.loads(r["alignment_json"])]
    if not alignment and attention:  # a neural run recorded before schema 6: its attention's path
        alignment = attention_path(lost_tokens, known_tokens, attention)
    return ProposalRow(
        rank=r["rank"], lost_index=r["lost_index"], known_index=r["known_index"], lost=r["lost"],
        known=r["known"], score=r["score"], cost=r["cost"],
        gold=None if r["gold"] is None else bool(r["gold"]), status=r["decision"] or OPEN,
        gold_known=json.loads(r["gold_known_json"]),
        alternatives=[tuple(a) for a in json.loads(r["alternatives_json"])],
        attention=attention, lost_tokens=lost_tokens, known_tokens=known_tokens,
        lost_gloss=r["lost_gloss"], known_gloss=r["known_gloss"], alignment=alignment, beyond=beyond,
    )  # fmt: skip


def _tokens(stored: str, text: str) -> list[str]:
    """A word's symbols as stored (space-separated), or, for a run recorded before schema 3, the
    grapheme clusters of its text (what its `.cog` reader made of it)."""
    return stored.split(" ") if stored else list(graphemes(text))


def round_dicts(rows: list[RoundRow]) -> list[dict[str, Any]]:
    return [asdict(r) for r in rows]
