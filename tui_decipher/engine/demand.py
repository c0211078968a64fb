"""The demand D, estimated from the word lists: how many lost words have a cognate in the known list.

Users rarely know D, and a wrong D misleads a transport-trained channel (too small and true
cognates go unmatched; too large and words without a cognate pull known words away from the
ones that have one). The estimate compares, for each lost word, its best score against the real
known lexicon with its best score against a *decoy* lexicon: known-language-like words of the
same number, sampled from a character trigram model of the known words. A lost word without a
cognate matches the real lexicon only by chance, as well as it matches the decoys, so it wins
against the decoys about half of the time; a lost word with a cognate wins almost always. With a
share p of lost words winning, D / N = 2p - 1. No gold is read: only the two word lists and a
channel's scores.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from .corpus import Word

_START, _END = "\x02", "\x03"  # context padding of the trigram model (never a real symbol)
MIN_SHARE = 0.05  # the estimate never goes below 5% of the lost words


def decoy_lexicon(known_words: Sequence[Word], seed: int, max_tries: int = 50) -> list[Word]:
    """One decoy per known word, of the same length, sampled from a character trigram model of
    `known_words` and (when a redraw allows) not itself a known word."""
    follow: dict[tuple[str, str], list[str]] = defaultdict(list)
    for word in known_words:
        padded = (_START, _START, *word, _END)
        for a, b, c in zip(padded, padded[1:], padded[2:], strict=False):
            follow[(a, b)].append(c)
    real = set(known_words)
    rng = random.Random(seed)
    out: list[Word] = []
    for target in known_words:
        best: Word = target
        for _try in range(max_tries):
            word: list[str] = []
            context = (_START, _START)
            while len(word) <= len(target):
                nxt = rng.choice(follow[context])
                if nxt == _END:
                    break
                word.append(nxt)
                context = (context[1], nxt)
            candidate = tuple(word)
            if len(candidate) == len(target) and (candidate not in real or best == target):
                best = candidate
                if candidate not in real:
                    break
        out.append(best)
    return out


@dataclass(frozen=True)
class DemandEstimate:
    """The estimated demand and its evidence."""

    n_lost: int
    wins: int  # lost words whose best real known word beats their best decoy
    share: float  # the estimated share of lost words with a cognate, 2 * wins / n_lost - 1, clipped
    demand: int  # D = round(share * n_lost)

    def as_dict(self) -> dict[str, float | int]:
        return {"n_lost": self.n_lost, "wins": self.wins, "share": round(self.share, 4), "demand": self.demand}


def estimate_demand(real_log_p: torch.Tensor, decoy_log_p: torch.Tensor) -> DemandEstimate:
    """D from a channel's scores of every lost word against the real known words (n_lost, n_known)
    and against as many decoys (n_lost, n_decoys)."""
    real_best = real_log_p.max(1).values  # (n_lost,)
    decoy_best = decoy_log_p.max(1).values  # (n_lost,)
    n_lost = real_log_p.shape[0]
    # A tie (both at -inf, or an exact tie) counts as half a win, as a coin would.
    wins = float((real_best > decoy_best).sum()) + 0.5 * float((real_best == decoy_best).sum())
    share = min(1.0, max(MIN_SHARE, 2.0 * wins / n_lost - 1.0))
    return DemandEstimate(n_lost, round(wins), share, max(1, round(share * n_lost)))
