"""Cognate identification accuracy (evaluation only: the one place gold is read)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # annotations only: the store and the CLI read these metrics without torch or OR-Tools
    import torch

    from ..flow import FlowSolution


def flow_predictions(solution: FlowSolution, n_lost: int) -> np.ndarray:
    """Known index each lost word sends its flow to, -1 where it sends none: (n_lost,)."""
    pred = np.full(n_lost, -1, dtype=np.int64)
    pred[solution.lost] = solution.known
    return pred


def model_predictions(log_prob: torch.Tensor) -> np.ndarray:
    """argmax_j log P(y_j | x_i): (n_lost,)."""
    return log_prob.argmax(dim=1).cpu().numpy()


def evaluated_lost(gold: Mapping[int, frozenset[int]]) -> list[int]:
    """Lost words that have at least one gold cognate."""
    return sorted(i for i, g in gold.items() if g)


def accuracy(predictions: np.ndarray, gold: Mapping[int, frozenset[int]]) -> tuple[float, int, int]:
    """(accuracy, correct, evaluated): a prediction is right if it is any gold cognate."""
    evaluated = evaluated_lost(gold)
    correct = sum(1 for i in evaluated if int(predictions[i]) in gold[i])
    return (correct / len(evaluated) if evaluated else 0.0), correct, len(evaluated)


CALIBRATION_BINS = 10  # equal-width score bins of the expected calibration error


@dataclass(frozen=True)
class ProposalScores:
    """A run's proposals judged as a user gets them, at the run's own D over every lost word:
    precision = correct proposals / proposals, recall = correct / lost words with a gold cognate.
    The paper's protocol (`accuracy`) instead solves a flow over the gold rows alone with D = their
    number, so it never pays for proposing too many or too few."""

    n_proposals: int
    n_correct: int
    n_gold: int  # lost words that have a gold cognate
    calibration_error: float | None = None  # expected calibration error of the proposals' scores

    @property
    def precision(self) -> float | None:
        return self.n_correct / self.n_proposals if self.n_proposals else None

    @property
    def recall(self) -> float | None:
        return self.n_correct / self.n_gold if self.n_gold else None

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None:
            return None
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict[str, float | int | None]:
        def rounded(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {
            "precision": rounded(self.precision), "recall": rounded(self.recall), "f1": rounded(self.f1),
            "n_proposals": self.n_proposals, "n_correct": self.n_correct, "n_gold": self.n_gold,
            "calibration_error": rounded(self.calibration_error),
        }  # fmt: skip

    def line(self) -> str:
        """`precision 88.1%, recall 80.2%, F1 84.0 (601 proposals for 455 lost words with a gold cognate)`."""

        def pct(x: float | None) -> str:
            return "-" if x is None else f"{100 * x:.1f}%"

        f1 = "-" if self.f1 is None else f"{100 * self.f1:.1f}"
        return (f"precision {pct(self.precision)}, recall {pct(self.recall)}, F1 {f1} ({self.n_proposals} "
                f"proposals for {self.n_gold} lost words with a gold cognate)")  # fmt: skip


def proposal_scores(
    correct: Sequence[bool | None], n_gold: int, scores: Sequence[float] | None = None,
    lost: Sequence[int] | None = None,
) -> ProposalScores:  # fmt: skip
    """Score a run's proposals (`correct`: each proposal is a gold pair) against the `n_gold` lost
    words that have a gold cognate. With `lost` (each proposal's lost word), a lost word proposed
    twice counts once toward recall. With `scores` (each proposal's confidence in [0, 1]), the
    expected calibration error: how far, bin by bin, the share of correct proposals is from their
    mean score, weighted by the bin's size (0: the score reads as the chance of being right)."""
    hits = [bool(c) for c in correct]
    n_correct = len({i for i, h in zip(lost, hits, strict=True) if h}) if lost is not None else sum(hits)
    ece = calibration_error(scores, hits) if scores is not None and hits else None
    return ProposalScores(len(hits), min(n_correct, n_gold) if n_gold else n_correct, n_gold, ece)


def calibration_error(scores: Sequence[float], correct: Sequence[bool], bins: int = CALIBRATION_BINS) -> float:
    """Expected calibration error of confidences `scores` in [0, 1] against outcomes `correct`."""
    curve = calibration_curve(scores, correct, bins)
    return sum(n * abs(share - mean) for mean, share, n in curve) / sum(n for _, _, n in curve)


def calibration_curve(
    scores: Sequence[float], correct: Sequence[bool], bins: int = CALIBRATION_BINS
) -> list[tuple[float, float, int]]:
    """(mean score, share correct, proposals) of each non-empty score bin: the calibration line."""
    s = np.clip(np.asarray(scores, dtype=np.float64), 0.0, 1.0)
    c = np.asarray(correct, dtype=np.float64)
    which = np.minimum((s * bins).astype(np.int64), bins - 1)
    return [(float(s[which == b].mean()), float(c[which == b].mean()), int((which == b).sum()))
            for b in range(bins) if (which == b).any()]  # fmt: skip
