"""Expected edit distance d_ij = E_{y ~ P(.|x_i)} d(y, y_j), the flow cost after warm-up.

Published estimator (Shen et al. 2016 style): draw S strings per lost word from the per-step
distributions sharpened as softmax(sharpen * log p_t); the candidate set for pair (i, j) is the
distinct samples plus y_j itself, weighted by the softmax of their model log-probabilities;
dist is the insertion/deletion edit distance (substitution = 2) normalised by
min(len(candidate), len(y_j)) + 1. rapidfuzz's compiled `Indel` does the distances in bulk.
"""

from __future__ import annotations

import numpy as np
import torch
from rapidfuzz.distance import Indel
from rapidfuzz.process import cdist

from ..corpora.charset import EOW_ID

# Symbol id -> one code point, so words become plain strings for rapidfuzz.
_CODE_OFFSET = 0x100


def ids_to_text(ids) -> str:
    """A sequence of symbol ids as a string of private code points (one per symbol)."""
    return "".join(chr(_CODE_OFFSET + int(i)) for i in ids)


def sample_strings(
    step_log_probs: torch.Tensor,
    n_samples: int,
    sharpen: float,
    generator: torch.Generator | None = None,
    score_sharpened: bool = False,
) -> tuple[list[list[str]], torch.Tensor]:
    """Sample S strings per lost word from the sharpened per-step distributions, and score them.

    step_log_probs: (n, T, C). Returns, per lost word, its distinct sampled strings (as
    `ids_to_text` strings, EOW excluded) and their log-probabilities: (n, S) padded with -inf,
    under the model, or with `score_sharpened` under the sharpened distributions they were drawn
    from (the published code's choice: the samples then outweigh y_j's own, unsharpened, term,
    so d_ij measures how far y_j is from what the model would write).
    """
    n, steps, n_chars = step_log_probs.shape
    sharp_lp = torch.log_softmax(sharpen * step_log_probs, dim=-1)  # (n, T, C)
    sharp = sharp_lp.exp().reshape(n * steps, n_chars)
    draws = torch.multinomial(sharp, n_samples, replacement=True, generator=generator)  # (n*T, S)
    draws = draws.reshape(n, steps, n_samples).permute(0, 2, 1)  # (n, S, T)
    is_eow = draws == EOW_ID
    # A sample ends at its first EOW (which is scored); one without EOW uses all T steps.
    first_eow = torch.where(is_eow.any(-1), is_eow.float().argmax(-1), torch.full_like(draws[..., 0], steps))
    position = torch.arange(steps)[None, None, :]
    scored = position <= first_eow[..., None]  # (n, S, T)
    scoring = sharp_lp if score_sharpened else step_log_probs
    token_lp = scoring.gather(2, draws.permute(0, 2, 1)).permute(0, 2, 1)  # (n, S, T)
    sample_lp = (token_lp * scored).sum(-1)  # (n, S)
    texts: list[list[str]] = []
    out_lp = torch.full((n, n_samples), float("-inf"))
    rows = draws.tolist()
    ends = first_eow.tolist()
    for i in range(n):
        seen: dict[str, int] = {}
        for s in range(n_samples):
            text = ids_to_text(rows[i][s][: ends[i][s]])
            if text not in seen:
                seen[text] = len(seen)
                out_lp[i, seen[text]] = sample_lp[i, s]
        texts.append(list(seen))
    return texts, out_lp


def expected_edit_distance(
    log_prob: torch.Tensor,
    sample_texts: list[list[str]],
    sample_log_prob: torch.Tensor,
    known_texts: list[str],
    columns: np.ndarray | None = None,
    chunk_elements: int = 16_000_000,
) -> torch.Tensor:
    """d_ij for every lost i and every known j (or the known `columns` only).

    log_prob: (n, n_known) log P(y_j | x_i); sample_log_prob: (n, S) from `sample_strings`;
    known_texts: known words as `ids_to_text` strings. Returns (n, n_cols) float32.
    """
    n, n_samples = sample_log_prob.shape
    if columns is not None:
        known_texts = [known_texts[j] for j in columns]
        log_prob = log_prob[:, torch.as_tensor(columns)]
    n_known = len(known_texts)
    known_len = torch.tensor([len(t) for t in known_texts], dtype=torch.float32)  # (n_known,)
    out = torch.empty(n, n_known)
    rows_per_chunk = max(1, chunk_elements // max(1, n_samples * n_known))
    for start in range(0, n, rows_per_chunk):
        stop = min(n, start + rows_per_chunk)
        flat = [t for i in range(start, stop) for t in sample_texts[i]]
        dist = torch.from_numpy(cdist(flat, known_texts, scorer=Indel.distance, dtype=np.int32, workers=-1))
        lengths = torch.tensor([len(t) for t in flat], dtype=torch.float32)
        norm = dist.float() / (torch.minimum(lengths[:, None], known_len[None, :]) + 1.0)  # (m, n_known)
        padded = torch.zeros(stop - start, n_samples, n_known)  # (c, S, n_known)
        row = 0
        for i in range(start, stop):
            k = len(sample_texts[i])
            padded[i - start, :k] = norm[row : row + k]
            row += k
        slp = sample_log_prob[start:stop]  # (c, S)
        # y_j itself joins the candidates unless it was already sampled (distance 0 to itself).
        valid = torch.isfinite(slp)[:, :, None]
        already = ((padded == 0) & valid).any(1)  # (c, n_known)
        own = log_prob[start:stop].masked_fill(already, float("-inf"))  # (c, n_known)
        total = torch.logaddexp(torch.logsumexp(slp, dim=1, keepdim=True), own)  # (c, n_known)
        weights = torch.exp(slp[:, :, None] - total[:, None, :])  # (c, S, n_known)
        out[start:stop] = (weights * padded).sum(1)
    return out
