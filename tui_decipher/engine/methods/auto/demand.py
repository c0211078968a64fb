"""The demand D, estimated from the word lists: how many lost words have a cognate in the known list.

Users rarely know D, and a wrong D misleads a transport-trained channel (too small and true
cognates go unmatched; too large and words without a cognate pull known words away from the
ones that have one). The estimate compares, for each lost word, its best score against the real
known lexicon with its best score against a *decoy* lexicon: known-language-like words of the
same number, sampled from a character trigram model of the known words (eight such lexicons, a
word's win averaged over them: `decoys.DECOY_LEXICONS`). A lost word without a
cognate matches the real lexicon only by chance, as well as it matches the decoys, so it wins
against the decoys about half of the time; a lost word with a cognate wins almost always. With a
share p of lost words winning, D / N = 2p - 1. No gold is read: only the two word lists and a
channel's scores.

A cognate does not always win: where spelling loses information (Linear B drops codas and
merges l and r) a decoy can explain a lost word as well as its true cognate, and 2p - 1 then
falls short of D / N by the rate at which cognates lose. That rate is measured on cognates whose
answer is known: lost words the channel itself writes from real known words (`decoys.synthetic_cognates`).
If they beat the decoys a share r of the time, a real lost word with a cognate wins about as
often, and D / N = (2p - 1) / (2r - 1). A channel whose own cognates barely beat the decoys
(2r - 1 below MIN_SEPARATION) cannot tell cognates from chance, and the estimate says so.

A word without a cognate does not win exactly half of the time either: a lossy spelling (a
syllabary that drops codas) lets any lost-like word fit some real known word better than a trigram
decoy, and related languages share affixes beyond trigrams. That rate q is measured too, on *null
words*: lost-language-like words sampled from a trigram model of the lost words the probe trained
on (bigrams, then symbol frequencies, where a list of short words leaves trigrams too few new
words: `decoys.null_words`), whose answer is known to be "none". Then p = s r + (1 - s) q for a
share s of lost words with a cognate, and s = (p - q) / (r - q): 2p - 1 and 2r - 1 are the case q =
1/2. Measured, q was 0.64-0.68 on Linear B's spelling (the names' D had read 1.33 times the gold
count with q taken as 1/2) and 0.44-0.55 on the alphabets; it is taken as at least 1/2
(CHANCE_FLOOR, docs/demand.md). A null word drawn from the training words' trigrams is often a near
copy of one of them (one sign changed), and fits the channel that trained on it nearly as well: on
the Linear B names, null words lay 0.27 of a word's length from the nearest training word where
held-out words lay 0.42, and beat the decoys 71% of the time against the real non-cognates' 53%. So
q is measured at the held-out words' own distances: the null words' rate at each held-out word's
distance from the nearest training word, averaged over the held-out words
(`decoys.chance_at_distances`).

The estimate comes with the range the evidence allows (`share_range`): from the share if every
cognate beat the decoys (r = 1) to the estimate's, with p and q each moved by two binomial standard
errors the way that widens it. The channel's own cognates can lose more often than real ones: on
the small Ugaritic file the probe's edit channel writes more edits than real cognates have, and
its own cognates beat the decoys 75% of the time where the gold ones did 95% (docs/demand.md), so
auto reads D with a calibrated copy of the probe (calibration.py). And a channel scores its own
writing better than a real cognate's: on a short list of one alphabet r is read by a channel
trained on the held-out words too (cross_channel.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .decoys import chance_at_distances

MIN_SHARE = 0.05  # the estimate never goes below 5% of the lost words
MIN_SEPARATION = 0.2  # 2r - 1 below this: the channel's own cognates barely beat the decoys
UNSEPARATED_SHARE = 0.5  # the share assumed then: the middle, as far from every answer as can be
# q is at least a half: a real word without a cognate shares more with a real lexicon than with
# trigram decoys (both are language, the decoys are trigrams), while a null word is itself trigrams
# and may fit the decoys better (docs/demand.md, "How many: D against null words").
CHANCE_FLOOR = 0.5


def word_wins(real_log_p: torch.Tensor, decoy_log_p: torch.Tensor) -> torch.Tensor:
    """Per row, whether its best real known word beats its best decoy: (n, n_known) and
    (n, n_decoys) -> (n,) of 1 (a win), 0 or, on a tie (both at -inf, or an exact tie), 0.5, as a
    coin would. Decoys (n, n_lexicons, n_decoys) are several lexicons: a row's win is then its
    share of wins against each lexicon's best (decoys.against_decoys)."""
    real_best = real_log_p.max(1).values[:, None]  # (n, 1)
    decoy_best = decoy_log_p.max(-1).values  # (n,) or (n, n_lexicons)
    decoy_best = decoy_best[:, None] if decoy_best.dim() == 1 else decoy_best
    return ((real_best > decoy_best).double() + 0.5 * (real_best == decoy_best).double()).mean(1)


def win_count(real_log_p: torch.Tensor, decoy_log_p: torch.Tensor) -> float:
    """How many rows' best real known word beats their best decoy (`word_wins`, summed: a row read
    against several lexicons counts its share of wins)."""
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
    n_null: int = 0  # null words (answer: no cognate) the chance rate q was measured on; 0: q = 1/2
    null_wins: int = 0  # of them, those whose best real known word beats their best decoy
    share_low: float | None = None  # the range the evidence allows (`share_range`)
    share_high: float | None = None
    # The null words' rate at the held-out words' distances from the training words
    # (`chance_at_distances`); None where the distances were not measured (their plain rate).
    null_matched: float | None = None

    @property
    def chance(self) -> float:
        """q: how often a word without a cognate beats the decoys (`_chance`)."""
        if self.null_matched is not None and self.n_null:
            return max(CHANCE_FLOOR, self.null_matched)
        return _chance(self.null_wins, self.n_null)

    @property
    def separation(self) -> float | None:
        """(r - q) / (1 - q): how much better than chance the channel's own cognates beat the
        decoys (2r - 1 where q = 1/2)."""
        if not self.n_synthetic:
            return None
        return _separation(self.synthetic_wins / self.n_synthetic, self.chance)

    def share_upper(self, z: float = 2.0) -> float:
        """The share as high as the evidence plausibly allows: computed as `share` is, with the
        held-out win rate p raised by `z` binomial standard errors (a few dozen held-out words
        leave p uncertain by several points). 1 at most."""
        p = self.wins / self.n_lost
        return _share(min(1.0, p + z * _error(p, self.n_lost)), self.chance, self.separation)

    def as_dict(self) -> dict[str, float | int | str | None]:
        sep = self.separation
        return {
            "n_lost": self.n_lost, "wins": self.wins, "share": round(self.share, 4), "demand": self.demand,
            "n_synthetic": self.n_synthetic, "synthetic_wins": self.synthetic_wins,
            "separation": None if sep is None else round(sep, 4), "why": self.why,
            "n_null": self.n_null, "null_wins": self.null_wins, "chance": round(self.chance, 4),
            "share_low": None if self.share_low is None else round(self.share_low, 4),
            "share_high": None if self.share_high is None else round(self.share_high, 4),
            "null_matched": None if self.null_matched is None else round(self.null_matched, 4),
        }  # fmt: skip


def _chance(null_wins: float, n_null: int) -> float:
    """q from the null words' wins: their win rate, at least CHANCE_FLOOR (and that without them)."""
    return max(CHANCE_FLOOR, null_wins / n_null) if n_null else CHANCE_FLOOR


def _error(rate: float, n: int) -> float:
    """A binomial rate's standard error on `n` trials."""
    return (rate * (1.0 - rate) / max(n, 1)) ** 0.5


def _separation(r: float, q: float) -> float:
    """(r - q) / (1 - q): where the channel's own cognates' win rate r lies between chance (0) and
    always (1); 0 where chance already wins every time."""
    return (r - q) / (1.0 - q) if q < 1.0 else 0.0


def _share(p: float, q: float, separation: float | None) -> float:
    """The share of lost words with a cognate from the held-out win rate `p`, the null words' `q`
    and the channel's own cognates' `separation` (None when not measured: r taken as 1), clipped
    to MIN_SHARE..1; UNSEPARATED_SHARE where the channel's own cognates barely beat chance."""
    raw = (p - q) / (1.0 - q) if q < 1.0 else 0.0
    if separation is None:
        return min(1.0, max(MIN_SHARE, raw))
    if separation < MIN_SEPARATION:
        return UNSEPARATED_SHARE
    return min(1.0, max(MIN_SHARE, raw / separation))


def share_range(p: float, n: int, q: float, n_null: int, r: float | None, z: float = 2.0) -> tuple[float, float]:
    """The shares the evidence allows. Low: as if every cognate beat the decoys (r = 1; the channel's
    own cognates may lose more often than real ones do, as its writing is broader than theirs),
    with the held-out win rate `p` (on `n` words) `z` binomial standard errors lower and the null
    words' `q` (on `n_null`; its error 0 where it was not measured) `z` higher. High: with the
    channel's own cognates' `r` (None: not measured, r = 1), p higher and q lower."""
    dp, dq = z * _error(p, n), z * _error(q, n_null) if n_null else 0.0
    low_p, low_q = max(0.0, p - dp), min(1.0, q + dq)
    high_p, high_q = min(1.0, p + dp), max(CHANCE_FLOOR, q - dq)
    low = _share(low_p, low_q, None)
    high = _share(high_p, high_q, None if r is None else _separation(r, high_q))
    return min(low, high), max(low, high)


def estimate_demand(
    real_log_p: torch.Tensor, decoy_log_p: torch.Tensor,
    synthetic_real_log_p: torch.Tensor | None = None, synthetic_decoy_log_p: torch.Tensor | None = None,
    null_real_log_p: torch.Tensor | None = None, null_decoy_log_p: torch.Tensor | None = None,
    null_distance: np.ndarray | None = None, held_distance: np.ndarray | None = None,
) -> DemandEstimate:  # fmt: skip
    """D from a channel's scores of held-out lost words against the real known words
    (n_lost, n_known) and against as many decoys (n_lost, n_decoys); with the scores of the
    channel's own cognates (n_synthetic, n_known) and (n_synthetic, n_decoys), corrected for the
    rate at which cognates lose to decoys; with the scores of null words (n_null, n_known) and
    (n_null, n_decoys), for the rate at which words without a cognate beat them, taken at the
    held-out words' distances from the training words where both are given (`null_distance`
    (n_null,), `held_distance` (n_lost,); see the module's docstring)."""
    n_lost = real_log_p.shape[0]
    wins = win_count(real_log_p, decoy_log_p)
    p = wins / n_lost
    n_synth = 0 if synthetic_real_log_p is None or synthetic_decoy_log_p is None else synthetic_real_log_p.shape[0]
    synth_wins = (
        win_count(synthetic_real_log_p, synthetic_decoy_log_p)
        if n_synth and synthetic_real_log_p is not None and synthetic_decoy_log_p is not None  # n_synth: both given
        else 0.0
    )
    n_null = 0 if null_real_log_p is None or null_decoy_log_p is None else null_real_log_p.shape[0]
    each = (  # (n_null,)
        word_wins(null_real_log_p, null_decoy_log_p).numpy()
        if n_null and null_real_log_p is not None and null_decoy_log_p is not None  # n_null: both given
        else np.zeros(0)
    )
    null_wins = float(each.sum())
    matched = None
    if n_null and null_distance is not None and held_distance is not None:
        matched = chance_at_distances(each, null_distance, held_distance)
    q = max(CHANCE_FLOOR, matched) if matched is not None else _chance(null_wins, n_null)
    separation = _separation(synth_wins / n_synth, q) if n_synth else None
    share = _share(p, q, separation)
    low, high = share_range(p, n_lost, q, n_null, synth_wins / n_synth if n_synth else None)
    chance = f", null words {100 * q:.0f}%" if n_null else ""
    if matched is not None:
        chance = f", null words {100 * matched:.0f}% at their distances ({100 * null_wins / n_null:.0f}% in all)"
    formula = "(p - q) / (r - q)" if n_null else "(2p - 1) / (2r - 1)"
    if separation is None:
        why = f"held-out words beat decoys {100 * p:.0f}%{chance}: " + ("(p - q) / (1 - q)" if n_null else "2p - 1")
    elif separation < MIN_SEPARATION:
        why = f"the channel's own cognates beat decoys only {100 * synth_wins / n_synth:.0f}%{chance}: D unknown, half"
    else:
        why = (f"held-out words beat decoys {100 * p:.0f}%, the channel's own cognates "
               f"{100 * synth_wins / n_synth:.0f}%{chance}: {formula}")  # fmt: skip
    return DemandEstimate(n_lost, round(wins), share, max(1, round(share * n_lost)), n_synth, round(synth_wins), why,
                          n_null, round(null_wins), low, high, matched)  # fmt: skip
