"""All-pairs scoring: log P_theta(y_j | x_i) for every lost x_i and every known y_j.

The decoder never sees the target, so one pass per lost word gives per-step distributions
p_t(c); log P(y | x) = sum_{t=1}^{|y|+1} log p_t(y_t) is then a product of the flattened
(T * n_chars) log-prob table with a fixed word-by-(position, char) indicator matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..corpora.charset import EOW_ID, Charset
from ..corpora.corpus import Word
from .model import DecipherModel


class KnownIndex:
    """The known vocabulary as an indicator matrix M: (steps * n_chars, n_known), M[t*C + y_t, j] = 1."""

    def __init__(self, words: list[Word] | tuple[Word, ...], charset: Charset, device: torch.device) -> None:
        self.n_chars = len(charset)
        self.ids = [[*charset.encode(w), EOW_ID] for w in words]
        self.lengths = torch.tensor([len(s) for s in self.ids], dtype=torch.long)  # incl. EOW
        self.steps = int(self.lengths.max())
        rows = torch.tensor([t * self.n_chars + c for s in self.ids for t, c in enumerate(s)], dtype=torch.long)
        cols = torch.tensor([j for j, s in enumerate(self.ids) for _ in s], dtype=torch.long)
        matrix = torch.zeros(self.steps * self.n_chars, len(self.ids))
        matrix[rows, cols] = 1.0
        self.matrix = matrix.to(device)

    def __len__(self) -> int:
        return len(self.ids)

    def log_prob(self, log_probs: torch.Tensor, columns: torch.Tensor | None = None) -> torch.Tensor:
        """log_probs: (n, T >= steps, C) -> log P(y_j | x_i): (n, n_known) (or the given columns)."""
        n = log_probs.shape[0]
        flat = log_probs[:, : self.steps].reshape(n, self.steps * self.n_chars)
        matrix = self.matrix if columns is None else self.matrix[:, columns]
        return flat @ matrix


@dataclass
class LostBatch:
    """The lost vocabulary encoded once: ids (n, L) with EOW, lengths (n,) incl. EOW."""

    ids: torch.Tensor
    lengths: torch.Tensor

    @classmethod
    def encode(cls, words, charset: Charset, device: torch.device) -> LostBatch:
        ids, lengths = charset.encode_batch(words)
        return cls(ids.to(device), lengths.to(device))

    def __len__(self) -> int:
        return self.ids.shape[0]

    def take(self, rows: torch.Tensor) -> LostBatch:
        """The words at `rows` (a 1-D index tensor), padding cut to the longest of them."""
        lengths = self.lengths[rows]
        return LostBatch(self.ids[rows, : int(lengths.max())], lengths)

    def slice(self, start: int, stop: int) -> LostBatch:
        lengths = self.lengths[start:stop]
        width = int(lengths.max()) if len(lengths) else 1
        return LostBatch(self.ids[start:stop, :width], lengths)


@dataclass
class Scores:
    """Eval-mode decoding of every lost word: per-step log-probs and the all-pairs log P table."""

    step_log_probs: torch.Tensor  # (n_lost, T, n_known_chars), on CPU
    log_prob: torch.Tensor  # (n_lost, n_known) log P(y_j | x_i), on CPU


@torch.no_grad()
def score_all_pairs(model: DecipherModel, lost: LostBatch, known: KnownIndex, chunk: int = 256) -> Scores:
    """Decode lost words in chunks (memory stays bounded) and score all known words for each."""
    was_training = model.training
    model.eval()
    steps, logps, tables = known.steps, [], []
    for start in range(0, len(lost), chunk):
        part = lost.slice(start, start + chunk)
        dec = model(part.ids, part.lengths, steps)
        logps.append(dec.log_probs.cpu())
        tables.append(known.log_prob(dec.log_probs).cpu())
    model.train(was_training)
    return Scores(step_log_probs=torch.cat(logps), log_prob=torch.cat(tables))
