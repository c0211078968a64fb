"""What both character channels' dynamic programmes share: word encoding and reading each pair's
final cell. A channel's lattice alphas[m] (n_x, N+1, n_y) holds log P(the first m known letters
wrote the first k lost symbols) for every pair; its paired lattice alphas[m] (P, N+1), for aligned
pairs only (`log_prob_pairs`)."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ..charset import Charset
from ..corpus import Word

NEG = -1e4  # log-probability of an impossible state (finite, so gradients stay finite)


def channel_device(channel: torch.nn.Module) -> torch.device:
    """Where a channel's parameters live: its dynamic programmes run there (cuda when the run
    selected it), while words are encoded, and tables for the flow are kept, on the CPU."""
    return next(channel.parameters()).device


def on_channel(channel: torch.nn.Module, *tensors: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The tensors on the channel's device (each unchanged where it is there already)."""
    device = channel_device(channel)
    return tuple(t.to(device) for t in tensors)


def encode_padded(words: Sequence[Word], charset: Charset, pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Ids (n, L) padded with `pad` (the charset's PAD_ID may not be the channel's) and lengths (n,)."""
    ids, lengths = charset.encode_batch(words, add_eow=False)
    mask = torch.arange(ids.shape[1])[None, :] >= lengths[:, None]
    ids[mask] = pad
    return ids, lengths


def final_cells(alphas: list[torch.Tensor], lost_len: torch.Tensor, known_len: torch.Tensor) -> torch.Tensor:
    """log P(x_i | y_j) (n_x, n_y): each known word's lattice at its own length m, each lost word's
    row at its length k (so no word is read past its end)."""
    n_x = lost_len.shape[0]
    order, parts = [], []
    rows = lost_len[:, None, None]
    for m in known_len.unique().tolist():
        cols = (known_len == m).nonzero().squeeze(1)
        order.append(cols)
        parts.append(alphas[m][:, :, cols].gather(1, rows.expand(n_x, 1, len(cols))).squeeze(1))
    out = torch.cat(parts, 1)  # (n_x, n_y) in the order of `order`
    return out[:, torch.argsort(torch.cat(order))]


def pair_cells(alphas: list[torch.Tensor], lost_len: torch.Tensor, known_len: torch.Tensor) -> torch.Tensor:
    """log P(x_p | y_p) (P,) from a paired lattice (alphas[m]: (P, N+1)): each pair's cell at its
    known word's length m and its lost word's length k."""
    stacked = torch.stack(alphas)  # (M+1, P, N+1)
    return stacked[known_len, torch.arange(lost_len.shape[0]), lost_len]
