"""What both character channels' dynamic programmes share: word encoding and reading each pair's
final cell. A channel's lattice alphas[m] (n_x, N+1, n_y) holds, for every pair, P(the first m
known letters wrote the first k lost symbols), scaled (`emission_scale`); its paired lattice
alphas[m] (P, N+1), for aligned pairs only (`log_prob_pairs`), holds the same for pair p alone."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Protocol

import torch

from ..corpora.charset import Charset
from ..corpora.corpus import Word

NEG = -1e4  # log-probability of an impossible state (finite, so gradients stay finite)
# The scaled lattices' emission scale c is at most e^(LOG_SCALE_CAP / N) for lost words of up to N
# symbols: a cell holds at most c^N, well inside float32 (e^88).
LOG_SCALE_CAP = 60.0


class _HasParameters(Protocol):
    """A torch module, or a channel (engine/channels/protocol.py): what has parameters."""

    def parameters(self, recurse: bool = True) -> Iterator[torch.nn.Parameter]: ...


def channel_device(channel: _HasParameters) -> torch.device:
    """Where a channel's parameters live: its dynamic programmes run there (cuda when the run
    selected it), while words are encoded, and tables for the flow are kept, on the CPU."""
    return next(channel.parameters()).device


def on_channel(channel: _HasParameters, *tensors: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The tensors on the channel's device (each unchanged where it is there already)."""
    device = channel_device(channel)
    return tuple(t.to(device) for t in tensors)


def encode_padded(words: Sequence[Word], charset: Charset, pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Ids (n, L) padded with `pad` (the charset's PAD_ID may not be the channel's) and lengths (n,)."""
    ids, lengths = charset.encode_batch(words, add_eow=False)
    mask = torch.arange(ids.shape[1])[None, :] >= lengths[:, None]
    ids[mask] = pad
    return ids, lengths


def emissions(table: torch.Tensor, ids: torch.Tensor, m: int | None = None) -> torch.Tensor:
    """A lattice's emissions: `table` (n_y, M, S), log P(symbol | the known word's letter m), read at
    each lost symbol `ids` (n_x, N): (M, n_x, N, n_y), or at one letter m only: (n_x, N, n_y). Rows
    of a (S, n_y) table copied, so exact: the product with one-hot codes used before gave the same
    values, more slowly."""
    n_x, big_n = ids.shape
    by_symbol = (table.permute(1, 2, 0) if m is None else table[:, m].T).contiguous()  # (M, S, n_y) or (S, n_y)
    picked = by_symbol.index_select(by_symbol.dim() - 2, ids.reshape(-1))
    return picked.view(*by_symbol.shape[:-2], n_x, big_n, by_symbol.shape[-1])


def emission_grads(shares: torch.Tensor, ids: torch.Tensor, n_symbols: int) -> torch.Tensor:
    """`emissions`' gradient: shares (M, n_x, N, n_y), the gradient at each cell that read a lost
    symbol, summed into the (n_y, M, S) table it was read from."""
    n_letters, n_y = shares.shape[0], shares.shape[-1]
    table = shares.new_zeros(n_letters, n_symbols, n_y)
    return table.index_add_(1, ids.reshape(-1), shares.view(n_letters, -1, n_y)).permute(2, 0, 1)


def emission_scale(n_symbols: int, longest: int) -> float:
    """log c for a scaled lattice (a channel's alphas in probability space, each emission times c):
    every path to cell k emits k lost symbols, so a cell holds P x c^k exactly. c = the number of
    symbols keeps a typical pair's product near 1, far above float32's underflow (e^-87), and is
    capped so c^N, for the longest lost word's N symbols, cannot overflow."""
    return min(math.log(n_symbols), LOG_SCALE_CAP / max(longest, 1))


def _readable(finals: torch.Tensor) -> torch.Tensor:
    """Where a scaled final cell is a normal float (its log and inverse are exact), not 0 or subnormal."""
    return finals >= torch.finfo(finals.dtype).tiny


def scaled_log_probs(
    alphas: list[torch.Tensor], log_c: float, lost_len: torch.Tensor, known_len: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """log P(x_i | y_j) (n_x, n_y) from a scaled lattice (`emission_scale`), NEG where the final cell
    is 0 or below float's normal range (no path, or one too unlikely to matter); and the final
    cells themselves (n_x, n_y)."""
    finals = final_cells(alphas, lost_len, known_len)  # (n_x, n_y), scaled by c^k
    return _unscaled_logs(finals, log_c, lost_len[:, None]), finals


def _unscaled_logs(finals: torch.Tensor, log_c: float, lost_len: torch.Tensor) -> torch.Tensor:
    """log P from scaled final cells (each c^k times its pair's probability, k its lost word's
    length `lost_len`, broadcast to `finals`), NEG where a cell is not `_readable`."""
    real = _readable(finals)
    logs = torch.where(real, finals, 1.0).log() - log_c * lost_len
    return torch.where(real, logs, NEG)


def inverse_finals(finals: torch.Tensor) -> torch.Tensor:
    """1 / each pair's scaled probability, shaped to multiply a lattice's cells: (n_x, 1, n_y) from
    (n_x, n_y), or (P, 1) from a paired lattice's (P,); 0 where the score read NEG. A written-out
    backward multiplies a path's share, (alpha x transition) x gradient, by it last, so no product
    on the way can overflow."""
    real = _readable(finals)
    return torch.where(real, 1.0 / torch.where(real, finals, 1.0), 0.0).unsqueeze(1)


def final_cells(alphas: list[torch.Tensor], lost_len: torch.Tensor, known_len: torch.Tensor) -> torch.Tensor:
    """Each pair's final cell (n_x, n_y), log P(x_i | y_j) or its scaled probability: each known
    word's lattice at its own length m, each lost word's row at its length k (so no word is read
    past its end)."""
    n_x = lost_len.shape[0]
    order, parts = [], []
    rows = lost_len[:, None, None]
    for m in known_len.unique().tolist():
        cols = (known_len == m).nonzero().squeeze(1)
        order.append(cols)
        parts.append(alphas[m][:, :, cols].gather(1, rows.expand(n_x, 1, len(cols))).squeeze(1))
    out = torch.cat(parts, 1)  # (n_x, n_y) in the order of `order`
    return out[:, torch.argsort(torch.cat(order))]


def final_cell_grads(
    grad: torch.Tensor, lost_len: torch.Tensor, known_len: torch.Tensor, big_n: int, big_m: int
) -> list[torch.Tensor]:
    """`final_cells`' gradient: grad (n_x, n_y) placed at each pair's final cell of lattices
    alphas[m] (n_x, N+1, n_y), m = 0..M; every other cell 0. A written-out backward starts here."""
    n_x, n_y = grad.shape
    g = [grad.new_zeros(n_x, big_n + 1, n_y) for _ in range(big_m + 1)]
    rows = torch.arange(n_x, device=grad.device)[:, None]
    for m in known_len.unique().tolist():
        cols = (known_len == m).nonzero().squeeze(1)
        g[m][rows, lost_len[:, None], cols[None, :]] = grad[:, cols]
    return g


def scaled_pair_log_probs(
    alphas: list[torch.Tensor], log_c: float, lost_len: torch.Tensor, known_len: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """`scaled_log_probs` of a paired lattice (alphas[m]: (P, N+1)): log P(x_p | y_p) (P,), NEG where
    the final cell is not a normal float, and the final cells (P,): each pair's cell at its known
    word's length m and its lost word's length k."""
    finals = torch.stack(alphas)[known_len, torch.arange(lost_len.shape[0], device=lost_len.device), lost_len]
    return _unscaled_logs(finals, log_c, lost_len), finals


def pair_cell_grads(
    grad: torch.Tensor, lost_len: torch.Tensor, known_len: torch.Tensor, big_n: int, big_m: int
) -> list[torch.Tensor]:
    """`final_cell_grads` of a paired lattice: grad (P,) at each pair's final cell of alphas[m]
    (P, N+1), m = 0..M; every other cell 0."""
    g = [grad.new_zeros(grad.shape[0], big_n + 1) for _ in range(big_m + 1)]
    rows = torch.arange(grad.shape[0], device=grad.device)
    for m in known_len.unique().tolist():
        at = known_len == m
        g[m][rows[at], lost_len[at]] = grad[at]
    return g
