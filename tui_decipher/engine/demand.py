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

A cognate does not always win: where spelling loses information (Linear B drops codas and
merges l and r) a decoy can explain a lost word as well as its true cognate, and 2p - 1 then
falls short of D / N by the rate at which cognates lose. That rate is measured on cognates whose
answer is known: lost words the channel itself writes from real known words (`synthetic_cognates`).
If they beat the decoys a share r of the time, a real lost word with a cognate wins about as
often, and D / N = (2p - 1) / (2r - 1). A channel whose own cognates barely beat the decoys
(2r - 1 below MIN_SEPARATION) cannot tell cognates from chance, and the estimate says so.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from .channels.protocol import Channel
from .charset import Charset
from .corpus import Word

_START, _END = "\x02", "\x03"  # context padding of the trigram model (never a real symbol)
MIN_SHARE = 0.05  # the estimate never goes below 5% of the lost words
MIN_SEPARATION = 0.2  # 2r - 1 below this: the channel's own cognates barely beat the decoys
UNSEPARATED_SHARE = 0.5  # the share assumed then: the middle, as far from every answer as can be


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


def synthetic_cognates(
    channel: Channel, known_words: Sequence[Word], lost_charset: Charset, known_charset: Charset, n: int, seed: int
) -> list[Word]:
    """`n` lost words written by the channel, x ~ P(x | y), each from a known word drawn at
    random (their answer is known: cognates by construction); empty draws are dropped."""
    generator = torch.Generator().manual_seed(seed)
    rng = random.Random(seed)
    out: list[Word] = []
    for _ in range(n):
        known = known_words[rng.randrange(len(known_words))]
        written = channel.sample(known_charset.encode(known), generator)
        if written:
            out.append(tuple(lost_charset.symbols[i] for i in written))
    return out


def word_wins(real_log_p: torch.Tensor, decoy_log_p: torch.Tensor) -> torch.Tensor:
    """Per row, whether its best real known word beats its best decoy: (n, n_known) and
    (n, n_decoys) -> (n,) of 1 (a win), 0 or, on a tie (both at -inf, or an exact tie), 0.5, as a
    coin would."""
    real_best = real_log_p.max(1).values  # (n,)
    decoy_best = decoy_log_p.max(1).values  # (n,)
    return (real_best > decoy_best).double() + 0.5 * (real_best == decoy_best).double()


def win_count(real_log_p: torch.Tensor, decoy_log_p: torch.Tensor) -> float:
    """How many rows' best real known word beats their best decoy (`word_wins`, summed)."""
    return float(word_wins(real_log_p, decoy_log_p).sum())


def paired_z(first: torch.Tensor, second: torch.Tensor) -> float:
    """How far `first`'s wins exceed `second`'s on the same words, in standard errors of a paired
    sign test: sum(d) / sqrt(sum(d^2)) over the per-word differences d (`word_wins` of two
    channels); 0 where no word differs. Pairing counts only the words the channels disagree on,
    so it tells two channels apart where two win rates, each uncertain by a few points, cannot."""
    d = first - second
    spread = float((d * d).sum()) ** 0.5
    return float(d.sum()) / spread if spread > 0 else 0.0


@dataclass(frozen=True)
class DemandEstimate:
    """The estimated demand and its evidence."""

    n_lost: int
    wins: int  # lost words whose best real known word beats their best decoy
    share: float  # the estimated share of lost words with a cognate, clipped to MIN_SHARE..1
    demand: int  # D = round(share * n_lost)
    n_synthetic: int = 0  # the channel's own cognates the loss rate was measured on
    synthetic_wins: int = 0  # of them, those whose best real known word beats their best decoy
    why: str = ""

    @property
    def separation(self) -> float | None:
        """2r - 1: how much better than chance the channel's own cognates beat the decoys."""
        return 2 * self.synthetic_wins / self.n_synthetic - 1 if self.n_synthetic else None

    def share_upper(self, z: float = 2.0) -> float:
        """The share as high as the evidence plausibly allows: computed as `share` is, with the
        held-out win rate p raised by `z` binomial standard errors (a few dozen held-out words
        leave p uncertain by several points). 1 at most."""
        p = self.wins / self.n_lost
        return _share(2.0 * min(1.0, p + z * (p * (1.0 - p) / self.n_lost) ** 0.5) - 1.0, self.separation)

    def as_dict(self) -> dict[str, float | int | str | None]:
        sep = self.separation
        return {
            "n_lost": self.n_lost, "wins": self.wins, "share": round(self.share, 4), "demand": self.demand,
            "n_synthetic": self.n_synthetic, "synthetic_wins": self.synthetic_wins,
            "separation": None if sep is None else round(sep, 4), "why": self.why,
        }  # fmt: skip


def _share(raw: float, separation: float | None) -> float:
    """The share of lost words with a cognate from 2p - 1 (`raw`) and 2r - 1 (`separation`, None
    when the channel's own cognates were not measured), clipped to MIN_SHARE..1; UNSEPARATED_SHARE
    where the channel's own cognates barely beat the decoys."""
    if separation is None:
        return min(1.0, max(MIN_SHARE, raw))
    if separation < MIN_SEPARATION:
        return UNSEPARATED_SHARE
    return min(1.0, max(MIN_SHARE, raw / separation))


def estimate_demand(
    real_log_p: torch.Tensor, decoy_log_p: torch.Tensor,
    synthetic_real_log_p: torch.Tensor | None = None, synthetic_decoy_log_p: torch.Tensor | None = None,
) -> DemandEstimate:  # fmt: skip
    """D from a channel's scores of held-out lost words against the real known words
    (n_lost, n_known) and against as many decoys (n_lost, n_decoys); with the scores of the
    channel's own cognates (n_synthetic, n_known) and (n_synthetic, n_decoys), corrected for the
    rate at which cognates lose to decoys (see the module's docstring)."""
    n_lost = real_log_p.shape[0]
    wins = win_count(real_log_p, decoy_log_p)
    raw = 2.0 * wins / n_lost - 1.0
    n_synth = 0 if synthetic_real_log_p is None or synthetic_decoy_log_p is None else synthetic_real_log_p.shape[0]
    synth_wins = win_count(synthetic_real_log_p, synthetic_decoy_log_p) if n_synth else 0.0
    separation = 2.0 * synth_wins / n_synth - 1.0 if n_synth else None
    share = _share(raw, separation)
    if separation is None:
        why = "2p - 1"
    elif separation < MIN_SEPARATION:
        why = f"the channel's own cognates beat decoys only {100 * synth_wins / n_synth:.0f}%: D unknown, half"
    else:
        why = (f"held-out words beat decoys {100 * wins / n_lost:.0f}%, the channel's own cognates "
               f"{100 * synth_wins / n_synth:.0f}%: (2p - 1) / (2r - 1)")  # fmt: skip
    return DemandEstimate(n_lost, round(wins), share, max(1, round(share * n_lost)), n_synth, round(synth_wins), why)
