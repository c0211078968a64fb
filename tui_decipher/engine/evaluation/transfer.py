"""Evaluate a trained model on another corpus of the same language pair.

The paper trains on the 10% Ugaritic subset (uga-heb.small) and tests on the full list: the
model never sees the full vocabularies in training, and its flow is solved afresh over the full
list's evaluated lost words (those with a gold cognate) against ALL of its known words.

The evaluation corpus is encoded with the TRAINING character sets (the model's embedding rows).
A symbol the training corpus never had becomes the unknown symbol (UNK): on the lost side its
embedding row exists but was never trained; on the known side the model never emits UNK (its
logit is masked to -1e4), so a known word with an unseen symbol gets log P ~ -1e4 per such
symbol: a finite, very high cost, never NaN. `TransferEvaluation.unseen_*` counts them.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import torch

from ..corpora.charset import Charset
from ..corpora.corpus import Corpus
from ..flow import solve_sparsified
from ..flow.hubs import hub_shift
from . import metrics


@dataclass
class TransferEvaluation:
    """Accuracy of a trained model on an evaluation corpus, with what it cost."""

    accuracy: float | None  # flow: fresh flow over the evaluated lost words, D = their number
    accuracy_model: float | None  # model argmax over all known words
    n_evaluated: int
    n_known: int
    cost_kind: str  # the final training round's flow cost: "nll" or "eed"; "channel" for a channel run
    seconds: float
    phase_seconds: dict[str, float] = field(default_factory=dict)  # score / eed / flow / eval
    unseen_lost_symbols: list[str] = field(default_factory=list)  # evaluated-lost symbols not in training
    unseen_known_symbols: list[str] = field(default_factory=list)
    predictions: np.ndarray | None = None  # (n_lost of the eval corpus,) flow prediction, -1 = none


def training_charsets(train_corpus: Corpus) -> tuple[Charset, Charset]:
    """The lost and known character sets a run on `train_corpus` used (em.prepare builds the same)."""
    return Charset.from_words(train_corpus.lost_words), Charset.from_words(train_corpus.known_words)


def _checked_model(result, train_corpus: Corpus, eval_corpus: Corpus) -> tuple[Any, Charset, Charset]:
    """The run's kept model and its training character sets, where it can score `eval_corpus`:
    a model was kept, `train_corpus` is the one it trained on, and `eval_corpus` has gold."""
    fitted = result.fitted
    if fitted is None:
        raise ValueError("the run kept no model (it was cancelled before its first round ended)")
    lost_cs, known_cs = training_charsets(train_corpus)
    if fitted.sizes() != (len(lost_cs), len(known_cs)):
        raise ValueError("train_corpus is not the corpus this model was trained on (character sets differ)")
    if not eval_corpus.has_gold:
        raise ValueError(f"{eval_corpus.name}: no gold cognates to evaluate against")
    return fitted, lost_cs, known_cs


def _other_costs(
    fitted: Any, corpus: Corpus, rows: np.ndarray, lost_cs: Charset, known_cs: Charset, block: int = 512
) -> Iterator[np.ndarray]:
    """The costs (n_rows, n_known) of `corpus`'s lost words not in `rows`, `block` words at a time."""
    others = np.setdiff1d(np.arange(len(corpus.lost_words)), rows)
    for start in range(0, len(others), block):
        words = [corpus.lost_words[i] for i in others[start : start + block]]
        yield fitted.pair_scores(words, corpus.known_words, lost_cs, known_cs).flow_cost()


def _flow_predictions(
    cost: np.ndarray, rows: np.ndarray, n_lost: int, cfg: FlowSettings, kind: str,
    model: tuple[Any, Corpus, Charset, Charset],
) -> np.ndarray:  # fmt: skip
    """The evaluation flow's known word per lost word of the corpus (-1 = none), over the evaluated
    rows' `cost`. A channel run's own protocol shifts its costs for hubs among every lost word
    (flow/hubs.py): the words not evaluated are scored too (`model`: the fitted model, the corpus
    and the training charsets), a block at a time, only each known word's nearest kept."""
    shift = hub_shift(cost, more=_other_costs(*model[:2], rows, *model[2:])) if kind == "channel" else None
    solution = solve_sparsified(cost, len(rows), cfg.capacity, cfg.top_k, cfg.sparsify, column_shift=shift)
    predictions = np.full(n_lost, -1, dtype=np.int64)
    predictions[rows] = metrics.flow_predictions(solution, len(rows))
    return predictions


class FlowSettings(Protocol):
    """The settings of a run the evaluation flow reads (a `DecipherConfig`'s)."""

    @property
    def capacity(self) -> int: ...

    @property
    def top_k(self) -> int: ...

    @property
    def sparsify(self) -> str: ...


def evaluate_on_corpus(
    result,
    train_corpus: Corpus,
    eval_corpus: Corpus,
    cfg: FlowSettings | None = None,
    generator: torch.Generator | None = None,
) -> TransferEvaluation:
    """Score `eval_corpus` with what a run on `train_corpus` kept (`result.fitted`), as that run
    scored its own corpus, and solve the evaluation flow over its evaluated lost words.

    result: the run's DecipherResult; cfg: the run's config (default: result.config), for the
    flow's C, top-k and sparsification; generator: draws the samples of a method that samples
    (default: its own seeded one, so the figure is reproducible). Memory: the (n_evaluated,
    n_known) float32 table, twice when the cost is the expected edit distance (2182 x 39451 for
    the full Ugaritic list: about 345 MB each).
    """
    started = time.perf_counter()
    cfg = cfg or result.config
    fitted, lost_cs, known_cs = _checked_model(result, train_corpus, eval_corpus)
    phases: dict[str, float] = defaultdict(float)
    rows = np.asarray(metrics.evaluated_lost(eval_corpus.gold), dtype=np.int64)
    lost_words = [eval_corpus.lost_words[i] for i in rows]
    unseen_lost = sorted({s for w in lost_words for s in w} - set(lost_cs.symbols))
    unseen_known = sorted(eval_corpus.known_symbols() - set(known_cs.symbols))

    scored = fitted.pair_scores(lost_words, eval_corpus.known_words, lost_cs, known_cs, generator)
    for name, seconds in scored.phase_seconds.items():
        phases[name] += seconds

    t0 = time.perf_counter()
    n_lost = len(eval_corpus.lost_words)
    model_pred = np.full(n_lost, -1, dtype=np.int64)
    model_pred[rows] = metrics.model_predictions(scored.log_prob)
    acc_model, _, n_eval = metrics.accuracy(model_pred, eval_corpus.gold)
    phases["eval"] += time.perf_counter() - t0

    kind = scored.cost_kind
    if not scored.use_flow:  # the "-flow" ablation: the model's argmax is the answer, as in the engine
        acc_flow, predictions = acc_model, model_pred
    else:
        cost = scored.flow_cost()
        del scored  # the score table is not needed past here
        t0 = time.perf_counter()
        predictions = _flow_predictions(cost, rows, n_lost, cfg, kind, (fitted, eval_corpus, lost_cs, known_cs))
        phases["flow"] += time.perf_counter() - t0
        acc_flow, _, _ = metrics.accuracy(predictions, eval_corpus.gold)
    return TransferEvaluation(
        accuracy=acc_flow,
        accuracy_model=acc_model,
        n_evaluated=n_eval,
        n_known=len(eval_corpus.known_words),
        cost_kind=kind,
        seconds=time.perf_counter() - started,
        phase_seconds=dict(phases),
        unseen_lost_symbols=unseen_lost,
        unseen_known_symbols=unseen_known,
        predictions=predictions,
    )
