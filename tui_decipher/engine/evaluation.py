"""Cognate identification accuracy (evaluation only: the one place gold is read)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch

from .flow import FlowSolution


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
