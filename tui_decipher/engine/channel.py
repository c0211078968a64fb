"""Beyond the paper: a small character channel whose lexicon matching seeds round 1's flow.

`init_flow = "channel"`. The channel is the classic decipherment story run backwards from the
paper's model: a known word y is *written* as a lost word x. y is cut, left to right, into pieces
of one or two letters, and each piece writes one lost symbol; a letter may also be left unwritten
(Linear B drops final and cluster consonants, ko-no-so for Knossos). So

    P(x | y) = sum over segmentations of prod_pieces P(action | letter) P(symbol | piece)

with P(symbol | a, b) = softmax_symbols(theta1[a] + theta2[b]) (b = "none" for a one-letter
piece) and P(action | letter) over {drop, one-letter piece, two-letter piece}. That is about
2 x |known alphabet| x |lost alphabet| numbers: it cannot memorise which lost word goes with
which known word, which is what the seq2seq model does from the uniform flow, so its best fit is
a character map.

It is trained by Adam on the lexicon objective: every lost word should be the writing of some
known word, L = -mean_i log mean_j P(x_i | y_j). Neither gold nor a shared alphabet is used, so it
applies across scripts (Linear B signs against Greek letters). `channel_objective = "transport"`
keeps that gradient, sum_j w_ij grad log P(x_i | y_j), but takes the weights w from a soft flow
(`transport_plan`) instead of the posterior over all known words: no known word explains more
than C lost words' worth, and D units in all reach known words. With the posterior a few easy
known words explain most lost words, and on linear-b-names, where half the lost words have no
name to be explained by, the map is never found (lexicon loss 13.9, 3-10% argmax); with the plan
it is. Its costs -log P(x_i | y_j) go
through the same min-cost flow as the model's; `em.initial_flow` mixes that flow into f^(0), and
`method = "channel"` deciphers with them alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from .channel_lattice import NEG, encode_padded, final_cells
from .charset import SPECIALS, Charset
from .config import ChannelKind, ChannelObjective, DecipherConfig
from .corpus import Word
from .edit_channel import EditChannel
from .edit_channel import character_map as edit_character_map

INIT_SCALE = DecipherConfig.channel_init_scale  # one default, the config field's

DROP, ONE, TWO = 0, 1, 2  # actions at a known letter


class CharacterChannel(nn.Module):
    """P(x | y): a known word y writes a lost word x, one or two letters per lost symbol."""

    def __init__(self, n_lost: int, n_known: int, generator: torch.Generator, init_scale: float = INIT_SCALE) -> None:
        super().__init__()
        self.none = n_known  # the second-letter id of a one-letter piece (and padding of known words)

        def param(*shape: int) -> nn.Parameter:
            return nn.Parameter(init_scale * torch.randn(*shape, generator=generator))

        self.first = param(n_known + 1, n_lost)  # theta1: a piece's first letter -> lost symbol
        self.second = param(n_known + 1, n_lost)  # theta2: its second letter (or none) -> lost symbol
        self.action = nn.Parameter(torch.zeros(n_known + 1, 3))  # drop / one-letter / two-letter

    @property
    def sizes(self) -> tuple[int, int]:
        """(lost symbols, known letters) of the charsets it was built for."""
        return self.first.shape[1], self.none

    def log_prob(
        self, lost: torch.Tensor, lost_len: torch.Tensor, known: torch.Tensor, known_len: torch.Tensor
    ) -> torch.Tensor:
        """log P(x_i | y_j) for every pair: lost (n_x, N) ids, known (n_y, M) ids padded with
        `self.none`; lengths without padding. Returns (n_x, n_y)."""
        n_x, n_y = lost.shape[0], known.shape[0]
        big_n, big_m = int(lost_len.max()), int(known_len.max())
        lost, known = lost[:, :big_n], known[:, :big_m]
        action = torch.log_softmax(self.action, -1)  # (K+1, 3)
        drop, take_one, take_two = (action[known, a] for a in (DROP, ONE, TWO))  # (n_y, M) each
        # log P(action) + log P(symbol | piece) for the piece starting at each known letter:
        # (n_y, M, S) and (n_y, M-1, S). Gathering them for each lost symbol is a product with
        # the lost words' one-hot codes (exact: one value times 1, the rest times 0), which BLAS
        # does far faster than an index gather of the same (n_x, N, n_y) entries.
        one = torch.log_softmax(self.first + self.second[self.none], -1)[known] + take_one[:, :, None]
        pair_first = self.first[known[:, :-1]]  # (n_y, M-1, S)
        two = torch.log_softmax(pair_first + self.second[known[:, 1:]], -1) + take_two[:, :-1, None]
        onehot = torch.nn.functional.one_hot(lost, one.shape[-1]).to(one.dtype)  # (n_x, N, S)
        # alpha[m] (n_x, N+1, n_y): log P(the first m letters wrote the first k symbols).
        start = torch.full((n_x, big_n + 1, n_y), NEG)
        start[:, 0] = 0.0
        alphas = [start]
        head = torch.full((n_x, 1, n_y), NEG)  # no symbol written yet: k = 0 is reached by drops only
        for m in range(1, big_m + 1):
            prev = alphas[m - 1]
            dropped = prev + drop[:, m - 1]
            written = prev[:, :-1] + onehot @ one[:, m - 1].T  # (n_x, N, n_y)
            if m >= 2:
                written = torch.logaddexp(written, alphas[m - 2][:, :-1] + onehot @ two[:, m - 2].T)
            new = torch.logaddexp(dropped, torch.cat([head, written], 1))
            alphas.append(new.clamp_min(NEG))
        return final_cells(alphas, lost_len, known_len)


Channel = CharacterChannel | EditChannel  # either kind: `.none`, `.sizes`, `.log_prob`


def new_channel(
    kind: ChannelKind, lost_charset: Charset, known_charset: Charset, generator: torch.Generator,
    init_scale: float = INIT_SCALE, copy_bias: float = DecipherConfig.channel_copy_bias,
) -> Channel:
    """An untrained channel of `kind`: "pieces" (one or two known letters per lost symbol) or
    "edit" (letter by letter with insertions, drops and a copy prior, engine/edit_channel.py)."""
    if kind == "edit":
        return EditChannel(lost_charset, known_charset, generator, init_scale, copy_bias)
    return CharacterChannel(len(lost_charset), len(known_charset), generator, init_scale)


@dataclass
class ChannelFit:
    """A trained channel's costs for the flow and how it got there."""

    cost: np.ndarray  # (n_lost, n_known): -log P(x_i | y_j)
    loss: float  # final lexicon objective over all lost words (nats per word)
    channel: Channel  # the trained parameters (for its character map)


def _known_buckets(known: torch.Tensor, known_len: torch.Tensor, n_buckets: int = 4) -> list[torch.Tensor]:
    """Known-word indices in length buckets, so short words are not padded to the longest."""
    order = torch.argsort(known_len, stable=True)
    return [b for b in torch.chunk(order, n_buckets) if len(b)]


def _all_log_probs(
    channel: Channel,
    lost: torch.Tensor,
    lost_len: torch.Tensor,
    known: torch.Tensor,
    known_len: torch.Tensor,
    buckets: list[torch.Tensor],
    lost_idx: torch.Tensor,
) -> torch.Tensor:
    """log P(x_i | y_j) for the lost words `lost_idx` and every known word: (len(lost_idx), n_known)."""
    out = torch.empty(len(lost_idx), known.shape[0])
    parts = [channel.log_prob(lost[lost_idx], lost_len[lost_idx], known[b], known_len[b]) for b in buckets]
    out[:, torch.cat(buckets)] = torch.cat(parts, 1)
    return out


def fit_channel(
    lost_words: Sequence[Word],
    known_words: Sequence[Word],
    lost_charset: Charset,
    known_charset: Charset,
    steps: int,
    lr: float,
    batch: int,
    seed: int,
    init_scale: float = INIT_SCALE,
    on_step: Callable[[int, float], None] | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    objective: ChannelObjective = "lexicon",
    n_cognates: int | None = None,
    capacity: int = 1,
    kind: ChannelKind = "pieces",
    copy_bias: float = DecipherConfig.channel_copy_bias,
) -> ChannelFit | None:
    """Train a channel (Adam, `batch` random lost words a step against every known word) on the
    lexicon objective, or with `objective = "transport"` on the weights of a transport plan with
    D = `n_cognates` (None: every lost word) and C = `capacity`, refreshed every PLAN_EVERY steps;
    return its costs for all pairs. `kind` and `copy_bias`: see `new_channel`. None when
    `should_stop` said so."""
    generator = torch.Generator().manual_seed(seed)
    channel = new_channel(kind, lost_charset, known_charset, generator, init_scale, copy_bias)
    lost, lost_len = encode_padded(lost_words, lost_charset, 0)
    known, known_len = encode_padded(known_words, known_charset, channel.none)
    buckets = _known_buckets(known, known_len)
    log_n_known = math.log(len(known_words))
    optimiser = torch.optim.Adam(channel.parameters(), lr=lr)
    n_lost = len(lost_words)
    plan, potentials = None, None
    demand = n_cognates if n_cognates is not None else n_lost
    for step in range(1, steps + 1):
        if should_stop():
            return None
        if objective == "transport" and (step - 1) % PLAN_EVERY == 0:
            every = channel_log_probs(channel, lost_words, known_words, lost_charset, known_charset)
            plan, potentials = transport_plan(every, demand, capacity, potentials=potentials)
        idx = torch.randint(0, n_lost, (min(batch, n_lost),), generator=generator)
        log_p = _all_log_probs(channel, lost, lost_len, known, known_len, buckets, idx)  # (B, n_known)
        # The lexicon, log mean_j P(x_i | y_j), has the posterior over known words as its gradient's
        # weights; the transport objective puts the plan's weights there: sum_j w_ij log P(x_i | y_j).
        log_fit = torch.logsumexp(log_p, 1) - log_n_known if plan is None else (plan[idx] * log_p).sum(1)
        loss = -log_fit.mean()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if on_step is not None:
            on_step(step, loss.item())
    log_p = channel_log_probs(channel, lost_words, known_words, lost_charset, known_charset)  # (n_lost, n_known)
    final = float(-(torch.logsumexp(log_p, 1) - log_n_known).mean())
    return ChannelFit(cost=(-log_p).numpy().astype(np.float64), loss=final, channel=channel)


PLAN_EVERY = 5  # channel steps between two transport plans (a plan scores every pair)
PLAN_ITERS = 50  # Sinkhorn sweeps per plan; warm-started from the last plan's potentials


def transport_plan(
    log_p: torch.Tensor, n_cognates: int, capacity: int, iters: int = PLAN_ITERS,
    potentials: tuple[torch.Tensor, torch.Tensor] | None = None,
) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """A soft flow for the channel's objective: the entropic transport plan (Sinkhorn, in log
    space) of log_p (n_lost, n_known) in which each lost word sends one unit, each known word
    takes at most `capacity`, and `n_cognates` (D) units reach known words. A "no cognate" column
    takes the other n_lost - D units and a slack row fills the known words' unused capacity
    (n_known * C - D units). "No cognate" scores each word at its average known word, so it does
    not sort words by length; it takes about 1 - D/N of every word's unit, more of a word whose
    known words are taken by others. Within a word the plan is the posterior over known words,
    reshaped so that no known word is over capacity. Returns the plan over real pairs
    (n_lost, n_known) and the potentials, to warm-start the next plan."""
    n_lost, n_known = log_p.shape
    d = min(n_cognates, n_lost, n_known * capacity)
    scores = torch.zeros(n_lost + 1, n_known + 1)  # the slack row scores 0 everywhere...
    scores[:n_lost, :n_known] = log_p
    scores[:n_lost, n_known] = torch.logsumexp(log_p, 1) - math.log(n_known)  # "no cognate"
    scores[n_lost, n_known] = NEG  # ...but never fills "no cognate": then exactly D units are real
    # Marginals; a zero one would be log 0, so the dummies keep a sliver when D fills everything.
    row_mass = torch.cat([torch.zeros(n_lost), torch.tensor([math.log(max(n_known * capacity - d, 1e-6))])])
    col_mass = torch.cat([torch.full((n_known,), math.log(capacity)), torch.tensor([math.log(max(n_lost - d, 1e-6))])])
    u, v = potentials if potentials is not None else (torch.zeros(n_lost + 1), torch.zeros(n_known + 1))
    for _ in range(iters):
        u = row_mass - torch.logsumexp(scores + v[None, :], 1)
        v = col_mass - torch.logsumexp(scores + u[:, None], 0)
    plan = (scores + u[:, None] + v[None, :]).exp()
    return plan[:n_lost, :n_known], (u, v)


MAX_PAIRS = 1 << 18  # pairs in one forward pass of channel_log_probs: about 0.3 GB of DP tables


@torch.no_grad()
def channel_log_probs(
    channel: Channel,
    lost_words: Sequence[Word],
    known_words: Sequence[Word],
    lost_charset: Charset,
    known_charset: Charset,
    max_pairs: int = MAX_PAIRS,
) -> torch.Tensor:
    """log P(x_i | y_j) for every pair: (n_lost, n_known), float32.

    The words are encoded with the charsets the channel was trained with (a symbol they lack is
    the unknown symbol, whose parameters were never trained), so a channel trained on one corpus
    scores another of the same scripts. Words are sorted by length and scored in blocks of at most
    `max_pairs` pairs, so memory stays bounded on large lists (2182 x 39451 for the full Ugaritic
    list) and short words are not padded to the longest."""
    lost, lost_len = encode_padded(lost_words, lost_charset, 0)
    known, known_len = encode_padded(known_words, known_charset, channel.none)
    lost_order = torch.argsort(lost_len, stable=True)
    known_order = torch.argsort(known_len, stable=True)
    lost_chunk = max(1, min(len(lost_words), 128))
    known_chunk = max(1, max_pairs // lost_chunk)
    out = torch.empty(len(lost_words), len(known_words))
    for i in range(0, len(lost_words), lost_chunk):
        rows = lost_order[i : i + lost_chunk]
        for j in range(0, len(known_words), known_chunk):
            cols = known_order[j : j + known_chunk]
            block = channel.log_prob(lost[rows], lost_len[rows], known[cols], known_len[cols])  # (rows, cols)
            out[rows[:, None], cols[None, :]] = block
    return out


@torch.no_grad()
def character_map(
    channel: Channel, known_words: Sequence[Word], lost_charset: Charset, known_charset: Charset,
    top: int = 5,
) -> dict[str, list[tuple[str, float]]]:
    """Lost symbol -> the known pieces (one or two letters) that write it, best first, with
    P(piece | symbol) from the channel: each piece weighted by how often the known words hold it,
    the chance a letter starts such a piece, and P(symbol | piece). A syllabary reads as
    syllables (a Linear B sign as "ko"), an alphabet as letters. An edit channel reads each
    symbol as the letters written as it (engine/edit_channel.py)."""
    if isinstance(channel, EditChannel):
        return edit_character_map(channel, known_words, lost_charset, known_charset, top)
    k = channel.none  # known ids 0..k-1 (specials included: they never occur, so they weigh nothing)
    known, known_len = encode_padded(known_words, known_charset, k)
    positions = torch.arange(known.shape[1])[None, :]
    letters = known[positions < known_len[:, None]]
    pairs = known[:, :-1] * k + known[:, 1:]  # (n_y, M-1): a two-letter piece's id
    pairs = pairs[positions[:, :-1] + 1 < known_len[:, None]]
    action = torch.log_softmax(channel.action[:k], -1)  # (k, 3)
    one = torch.log_softmax(channel.first[:k] + channel.second[k], -1)  # (k, S)
    two = torch.log_softmax(channel.first[:k, None] + channel.second[None, :k], -1).reshape(k * k, -1)
    one_weight = torch.bincount(letters, minlength=k).double().log() + action[:, ONE].double()  # (k,)
    two_weight = torch.bincount(pairs, minlength=k * k).double().log() + action[:, TWO].double().repeat_interleave(k)
    joint = torch.cat([one_weight[:, None] + one.double(), two_weight[:, None] + two.double()])  # (k + k*k, S)
    posterior = torch.softmax(joint, 0)  # P(piece | lost symbol), one column per symbol
    names = [known_charset.symbols[a] for a in range(k)]
    names += [names[a] + names[b] for a in range(k) for b in range(k)]
    out: dict[str, list[tuple[str, float]]] = {}
    for s in range(len(SPECIALS), len(lost_charset)):
        values, idx = posterior[:, s].topk(min(top, posterior.shape[0]))
        out[lost_charset.symbols[s]] = [(names[int(j)], float(v)) for v, j in zip(values, idx, strict=True)]
    return out
