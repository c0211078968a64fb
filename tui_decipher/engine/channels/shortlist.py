"""Shortlists: a channel trained on long word lists through each lost word's best known words.

On the full Ugaritic list (7235 x 39451 words) a transport plan over every pair scores 285 M pairs
and a batch step 5 M: hours of training. A lost word's weight in a plan, and its gradient, come
almost wholly from the few known words the channel scores best for it. So above SHORTLIST_ABOVE
pairs the trainer lists, for each lost word, the SHORTLIST_SIZE known words the channel now scores
best, and rescores every pair only every REFRESH_EVERY steps (in row blocks: memory holds
n_lost x SHORTLIST_SIZE, not n_lost x n_known). The plans and the batch steps in between score the
listed pairs only. A list is drawn by the channel itself, not by a plain edit distance, which
misses most Ugaritic cognates among Hebrew's many short words (docs/experiments.md). The final
scoring (the flows' costs) is over every pair, so a list can only shape training. A channel that
starts at random (the pieces channel) draws random first lists: on two scripts, shortlists can
keep it from finding the map, so it lists only on long lists. The edit channel, whose copy prior
ranks words spelled alike first, lists from far fewer pairs (`lists`).
"""

from __future__ import annotations

import numpy as np
import torch

from ..constraints.review import ReviewConstraints
from .lattice import channel_device
from .protocol import Channel
from .scoring import row_blocks

SHORTLIST_ABOVE = 1 << 24  # training pairs (lost x known words) above which every channel lists (~17 M)
# A channel that ranks cognates first from its start (`Channel.lists_from_start`: the edit channel's
# copy prior) lists from this many pairs (~1 M): there a plan over every pair every PLAN_EVERY steps
# is most of a step's time, and its lists hold the cognates from the first refresh. Measured on
# generated tuning pairs (docs/speed.md, "Shortlists from a million pairs on one alphabet").
COPYING_SHORTLIST_ABOVE = 1 << 20
SHORTLIST_SIZE = 128  # known words listed per lost word
REFRESH_EVERY = 50  # steps between two listings (each scores every pair once)


def shortlisted(n_lost: int, n_known: int) -> bool:
    """Whether n_lost x n_known words are a long list, which every channel trains through
    shortlists (the full Ugaritic list): there a full scoring takes tens of seconds."""
    return n_lost * n_known > SHORTLIST_ABOVE and n_known > SHORTLIST_SIZE


def lists(channel: Channel, n_lost: int, n_known: int) -> bool:
    """Whether `channel`, trained on n_lost x n_known words, trains through shortlists: on a long
    list (`shortlisted`), and from COPYING_SHORTLIST_ABOVE pairs where it ranks cognates first from
    its start."""
    if shortlisted(n_lost, n_known):
        return True
    return channel.lists_from_start and n_lost * n_known > COPYING_SHORTLIST_ABOVE and n_known > SHORTLIST_SIZE


@torch.no_grad()
def draw_shortlist(
    channel: Channel,
    lost: torch.Tensor,
    lost_len: torch.Tensor,
    known: torch.Tensor,
    known_len: torch.Tensor,
    size: int | None = None,
    review: ReviewConstraints | None = None,
    rows: np.ndarray | None = None,
) -> torch.Tensor:
    """Each lost word's `size` (None: SHORTLIST_SIZE) known words of highest log P(x | y) under the channel, best first:
    (n_lost, size) known indices, from every pair scored in row blocks (`scoring.row_blocks`).
    Under `review` (lost words `rows` of the corpus; None: all, in order) an accepted lost word
    lists its accepted known words first, so its fixed observations are always scored. On the
    channel's device."""
    n_lost, n_known = lost.shape[0], known.shape[0]
    size = min(size or SHORTLIST_SIZE, n_known)
    cols = torch.empty(n_lost, size, dtype=torch.long, device=channel_device(channel))
    for block_rows, block in row_blocks(channel, lost, lost_len, known, known_len):
        cols[block_rows] = block.topk(size, 1).indices
    if review is not None and review.accepted:
        cols = _with_accepted(cols, review, rows)
    return cols


def _with_accepted(cols: torch.Tensor, review: ReviewConstraints, rows: np.ndarray | None) -> torch.Tensor:
    """`cols` with each accepted lost word's accepted known words listed first, its others after."""
    lost, known = review.accepted_rows(rows)
    accepted: dict[int, list[int]] = {}
    for i, j in zip(lost.tolist(), known.tolist(), strict=True):
        accepted.setdefault(i, []).append(j)
    cols = cols.clone()
    size = cols.shape[1]
    for i, first in accepted.items():
        first = list(dict.fromkeys(first))[:size]
        rest = [j for j in cols[i].tolist() if j not in first]
        cols[i] = torch.tensor((first + rest)[:size], device=cols.device)
    return cols
