"""Scoring word pairs with a channel: every pair in bounded blocks, or listed pairs only.

A channel's dynamic programme pads every word of a block to the block's longest, so both ways
sort words by length first: all pairs in blocks of lost words x known words of like lengths, listed
pairs in short runs of pairs with like lengths (a run spanning every length pads the short ones
tenfold on the Ugaritic lists, whose words are 4-5 symbols long but up to 13).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import torch

from ..corpora.charset import Charset
from ..corpora.corpus import Word
from .compiled import runs_compiled
from .lattice import channel_device, encode_padded, on_channel
from .protocol import Channel

MAX_PAIRS = 1 << 18  # pairs in one forward pass of all-pair scoring: about 0.3 GB of DP tables
PAIR_BLOCK = 1 << 12  # listed pairs in one forward pass: short runs of like lengths pad little
# ...through the compiled lattices, which do not pad: a run's words (int64 ids) stay near 10 MB.
COMPILED_PAIR_BLOCK = 1 << 16
LOST_BLOCK = 128  # lost words in one all-pair block


def encode_both(
    channel: Channel,
    lost_words: Sequence[Word],
    known_words: Sequence[Word],
    lost_charset: Charset,
    known_charset: Charset,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(lost ids, lost lengths, known ids, known lengths), the known words padded with the
    channel's `none`. A symbol the charsets lack is the unknown symbol, whose parameters were never
    trained, so a channel trained on one corpus scores another of the same scripts."""
    lost, lost_len = encode_padded(lost_words, lost_charset, 0)
    known, known_len = encode_padded(known_words, known_charset, channel.none)
    return lost, lost_len, known, known_len


def row_blocks(
    channel: Channel,
    lost: torch.Tensor,
    lost_len: torch.Tensor,
    known: torch.Tensor,
    known_len: torch.Tensor,
    max_pairs: int = MAX_PAIRS,
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """(rows, log P(x_rows | y_j) for every known word j: (len(rows), n_known)) for up to
    LOST_BLOCK lost words at a time, shortest first; each row block scored against the known words
    in length-sorted blocks of at most `max_pairs` pairs. Memory: one row block's table. Rows and
    blocks are on the channel's device."""
    lost, lost_len, known, known_len = on_channel(channel, lost, lost_len, known, known_len)
    n_lost, n_known = lost.shape[0], known.shape[0]
    lost_order = torch.argsort(lost_len, stable=True)
    known_order = torch.argsort(known_len, stable=True)
    # The known words in length order, and where each one's column is in that order: a row block
    # is scored in that order and put back in one gather (writing each block's columns into place
    # took a tenth of the full Ugaritic list's run).
    known, known_len, unsorted = known[known_order], known_len[known_order], torch.argsort(known_order)
    lost_chunk = max(1, min(n_lost, LOST_BLOCK))
    known_chunk = max(1, max_pairs // lost_chunk)
    for i in range(0, n_lost, lost_chunk):
        rows = lost_order[i : i + lost_chunk]
        ordered = torch.cat([
            channel.log_prob(lost[rows], lost_len[rows], known[j : j + known_chunk], known_len[j : j + known_chunk])
            for j in range(0, n_known, known_chunk)
        ], 1)  # fmt: skip  # (len(rows), n_known), the known words in length order
        yield rows, ordered.index_select(1, unsorted)


@torch.no_grad()
def channel_log_probs(
    channel: Channel,
    lost_words: Sequence[Word],
    known_words: Sequence[Word],
    lost_charset: Charset,
    known_charset: Charset,
    max_pairs: int = MAX_PAIRS,
) -> torch.Tensor:
    """log P(x_i | y_j) for every pair: (n_lost, n_known), float32, on the CPU.

    The words are encoded with the charsets the channel was trained with (`encode_both`). Words
    are sorted by length and scored in blocks of at most `max_pairs` pairs, so memory stays bounded
    beside the table itself (2182 x 39451 for the full Ugaritic list) and short words are not
    padded to the longest."""
    encoded = encode_both(channel, lost_words, known_words, lost_charset, known_charset)
    return score_every_pair(channel, *encoded, max_pairs, out_device=torch.device("cpu"))


def row_logsumexp(table: torch.Tensor, cells: int = 1 << 24) -> torch.Tensor:
    """logsumexp over each row of `table` (n, m) -> (n,), a block of about `cells` cells at a time:
    torch's logsumexp holds a temporary of its input's size (1.1 GB on the full Ugaritic list)."""
    step = max(1, cells // max(table.shape[1], 1))
    return torch.cat([torch.logsumexp(table[i : i + step], 1) for i in range(0, table.shape[0], step)])


@torch.no_grad()
def add_channel_log_probs(
    into: torch.Tensor,
    weight: float,
    channel: Channel,
    lost_words: Sequence[Word],
    known_words: Sequence[Word],
    lost_charset: Charset,
    known_charset: Charset,
    across: bool = False,
    max_pairs: int = MAX_PAIRS,
) -> torch.Tensor:
    """`into` += `weight` * `channel_log_probs` of the word lists, in place: `into` is (n_lost,
    n_known), or with `across` (n_known, n_lost) and the scores are added transposed. One row block
    is scored at a time (`row_blocks`), so no second table of `into`'s size is ever held (the full
    Ugaritic list's is 1.1 GB); each cell gets the same float32 sum as the whole table would."""
    encoded = encode_both(channel, lost_words, known_words, lost_charset, known_charset)
    for rows, block in row_blocks(channel, *encoded, max_pairs):
        rows, block = rows.to(into.device), block.to(into.device).mul_(weight)  # (r,), (r, n_known)
        if across:
            into.index_add_(1, rows, block.T)
        else:
            into.index_add_(0, rows, block)
    return into


@torch.no_grad()
def score_every_pair(
    channel: Channel,
    lost: torch.Tensor,
    lost_len: torch.Tensor,
    known: torch.Tensor,
    known_len: torch.Tensor,
    max_pairs: int = MAX_PAIRS,
    out_device: torch.device | None = None,
) -> torch.Tensor:
    """`channel_log_probs` of encoded words (`encode_both`): (n_lost, n_known), float32, on
    `out_device` (None: the channel's device)."""
    out_device = out_device or channel_device(channel)
    out = torch.empty(lost.shape[0], known.shape[0], device=out_device)
    for rows, block in row_blocks(channel, lost, lost_len, known, known_len, max_pairs):
        out[rows.to(out_device)] = block.to(out_device)
    return out


def score_pairs(
    channel: Channel,
    lost: torch.Tensor,
    lost_len: torch.Tensor,
    known: torch.Tensor,
    known_len: torch.Tensor,
    lost_idx: torch.Tensor,
    known_idx: torch.Tensor,
    block: int = PAIR_BLOCK,
) -> torch.Tensor:
    """log P(x_i | y_j) for the listed pairs (lost_idx[p], known_idx[p]) of encoded words: (P,),
    differentiable (the trainer's steps use it). Through the tensors' lattice pairs are sorted by
    their words' lengths and scored in runs of at most `block`, so a run pads little; the compiled
    lattices (float32 on the CPU) run each pair at its own lengths, so pairs go in their order, in
    runs of COMPILED_PAIR_BLOCK. On the channel's device."""
    if not len(lost_idx):
        return torch.empty(0, device=channel_device(channel))
    lost, lost_len, known, known_len, lost_idx, known_idx = on_channel(
        channel, lost, lost_len, known, known_len, lost_idx, known_idx
    )
    if runs_compiled(next(channel.parameters())):
        return torch.cat([
            channel.log_prob_pairs(lost[i], lost_len[i], known[j], known_len[j])
            for i, j in zip(lost_idx.split(COMPILED_PAIR_BLOCK), known_idx.split(COMPILED_PAIR_BLOCK), strict=True)
        ])  # fmt: skip
    width = int(known_len.max()) + 1
    order = torch.argsort(lost_len[lost_idx] * width + known_len[known_idx], stable=True)  # (P,)
    parts = []
    for start in range(0, len(order), block):
        run = order[start : start + block]
        i, j = lost_idx[run], known_idx[run]
        parts.append(channel.log_prob_pairs(lost[i], lost_len[i], known[j], known_len[j]))
    return torch.cat(parts)[torch.argsort(order)]


@torch.no_grad()
def pair_log_probs(
    channel: Channel,
    lost_words: Sequence[Word],
    known_words: Sequence[Word],
    lost_idx: np.ndarray,
    known_idx: np.ndarray,
    lost_charset: Charset,
    known_charset: Charset,
    block: int = PAIR_BLOCK,
) -> torch.Tensor:
    """log P(x_i | y_j) for the listed pairs only (lost_idx[p], known_idx[p]): (P,), float32, on
    the CPU; the cells of `channel_log_probs` at those pairs, at the cost of P pairs (`score_pairs`)."""
    encoded = encode_both(channel, lost_words, known_words, lost_charset, known_charset)
    lost_t, known_t = torch.as_tensor(lost_idx, dtype=torch.long), torch.as_tensor(known_idx, dtype=torch.long)
    return score_pairs(channel, *encoded, lost_t, known_t, block).cpu()
