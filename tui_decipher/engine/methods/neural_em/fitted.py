"""The kept model of a neural EM run, which scores the pairs of other word lists (`result.fitted`)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from ...corpora.charset import Charset
from ...corpora.corpus import Word
from ...neural.edit_distance import ids_to_text
from ...neural.model import DecipherModel
from ...neural.scoring import KnownIndex, LostBatch, score_all_pairs
from ...run.config import DecipherConfig
from ...run.seeds import derive
from ..base import PairScores
from .e_step import eed_cost


@dataclass
class NeuralFitted:
    """The kept model of a neural EM run, and how its last round turned scores into flow costs."""

    model: DecipherModel
    cfg: DecipherConfig
    cost_kind: str  # the final round's flow cost: "nll" or "eed"

    def sizes(self) -> tuple[int, int]:
        return self.model.lost_weight.shape[0], self.model.known_weight.shape[0]

    def pair_scores(
        self,
        lost_words: list[Word],
        known_words: list[Word],
        lost_charset: Charset,
        known_charset: Charset,
        generator: torch.Generator | None = None,
    ) -> PairScores:
        """Score every pair as the final round would: -log P, or the expected edit distance
        (samples from `generator`, default seeded from the run's seed). Memory: the (n_lost,
        n_known) float32 table, twice for the expected edit distance."""
        cfg, phases = self.cfg, {"score": 0.0}
        device = next(self.model.parameters()).device
        known = KnownIndex(known_words, known_charset, device)
        t0 = time.perf_counter()
        scores = score_all_pairs(self.model, LostBatch.encode(lost_words, lost_charset, device), known, cfg.score_chunk)
        phases["score"] = time.perf_counter() - t0
        if not cfg.use_flow:  # the "-flow" ablation: the model's argmax is the answer
            return PairScores(scores.log_prob, self.cost_kind, use_flow=False, phase_seconds=phases)
        if self.cost_kind != "eed":
            return PairScores(scores.log_prob, self.cost_kind, phase_seconds=phases)
        t0 = time.perf_counter()
        if generator is None:
            generator = torch.Generator().manual_seed(derive(cfg.seed, "neural samples"))
        known_texts = [ids_to_text(ids[:-1]) for ids in known.ids]
        cost = eed_cost(cfg, scores, known_texts, generator).numpy()
        phases["eed"] = time.perf_counter() - t0
        return PairScores(scores.log_prob, self.cost_kind, cost, phase_seconds=phases)
