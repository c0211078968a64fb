"""Monotonic alignment regularizers (paper section 3.1): penalise insertions and deletions.

p_t = sum_k k * alpha_t(k) is the expected lost position the decoder attends to at step t.
Omega_1 (alphabetic scripts) wants p_t = p_{t-1} + 1: one known letter per lost letter.
Omega_2 (syllabic scripts, Linear B) wants p_t = p_{t-2} + 1: two known letters per sign.
"""

from __future__ import annotations

import torch


def expected_positions(attention: torch.Tensor) -> torch.Tensor:
    """attention: (n, T, L) -> expected aligned position p_t: (n, T)."""
    positions = torch.arange(attention.shape[-1], dtype=attention.dtype, device=attention.device)
    return attention @ positions


def _omega(attention: torch.Tensor, lost_lengths: torch.Tensor, lag: int) -> torch.Tensor:
    p = expected_positions(attention)  # (n, T)
    start = p.new_full((p.shape[0], lag), -1.0)  # p_0 = p_{-1} = -1
    p_prev = torch.cat([start, p], dim=1)[:, : p.shape[1]]  # p_{t-lag} (n, T)
    # Published weighting: steps once the alignment has reached the last lost character cost
    # nothing, so the end-of-word steps are free. len(x) counts characters, not the EOW.
    n_chars = (lost_lengths - 1).to(p.dtype)[:, None]  # (n, 1)
    weight = (n_chars - 1 - p_prev).clamp(0.0, 1.0)
    return (weight * (p - p_prev - 1.0) ** 2).sum(dim=1)  # (n,)


def omega_alphabetic(attention: torch.Tensor, lost_lengths: torch.Tensor) -> torch.Tensor:
    """Omega_1 per lost word: sum_t w_t (p_t - p_{t-1} - 1)^2; attention (n, T, L) -> (n,)."""
    return _omega(attention, lost_lengths, lag=1)


def omega_syllabic(attention: torch.Tensor, lost_lengths: torch.Tensor) -> torch.Tensor:
    """Omega_2 per lost word: sum_t w_t (p_t - p_{t-2} - 1)^2; attention (n, T, L) -> (n,)."""
    return _omega(attention, lost_lengths, lag=2)


def regularizer(kind: str, attention: torch.Tensor, lost_lengths: torch.Tensor) -> torch.Tensor:
    """The configured regularizer per lost word (zeros for "none")."""
    if kind == "alphabetic":
        return omega_alphabetic(attention, lost_lengths)
    if kind == "syllabic":
        return omega_syllabic(attention, lost_lengths)
    if kind == "none":
        return attention.new_zeros(attention.shape[0])
    raise ValueError(f"unknown regularizer {kind!r}")
