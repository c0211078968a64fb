"""Whether cognates remain among the words D leaves out (a diagnosis; docs/demand.md, "At the gold
count, and the words D leaves out").

Runs `decipher run` in-process (the arguments after the script's name, `--out` among them), keeps
the channel auto kept, and reads the lost words no proposal took against the known words no
proposal took, each word's best there against its best in eight decoy lexicons of that size: p. With
fewer known words competing, a cognate D left out beats the decoys more often than it did against
the whole list. Three rates for words without a cognate there: null words (as auto draws them),
the proposed lost words (their cognates are taken), and the left-out lost words against the known
words the proposals took (q_used); and r from the channel's own cognates of the left-out known
words. Gold is read only to print what is true. Run from the repository root:

    python docs/scripts/words_left_out.py run --corpus romance --lost es --known it --seed 1234 --out /tmp/wlo
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

import tui_decipher.engine.methods.auto as auto
from tui_decipher.cli import app
from tui_decipher.engine.channels.protocol import Channel
from tui_decipher.engine.channels.scoring import channel_log_probs
from tui_decipher.engine.corpora.charset import Charset
from tui_decipher.engine.corpora.corpus import Word
from tui_decipher.engine.methods.auto.decoys import DECOY_LEXICONS, decoy_lexicon, null_words, synthetic_cognates
from tui_decipher.engine.methods.auto.demand import word_wins

KEPT: dict[str, object] = {}
_fit_stages = auto.fit_stages


def _keeping(*args: object, **kwargs: object) -> object:
    fitted = _fit_stages(*args, **kwargs)  # type: ignore[arg-type]
    KEPT["run"], KEPT["fitted"] = args[0], fitted
    return fitted


auto.fit_stages = _keeping  # type: ignore[assignment]


def wins_against(channel: Channel, charsets: tuple[Charset, Charset], words: Sequence[Word], known: Sequence[Word],
                 lexicons: Sequence[Sequence[Word]]) -> np.ndarray:  # fmt: skip
    """(n,) each word's share of lexicons whose best decoy its best word of `known` beats."""
    real = channel_log_probs(channel, words, known, *charsets)
    fake = torch.stack([channel_log_probs(channel, words, lx, *charsets).max(1).values for lx in lexicons], 1)
    return word_wins(real, fake[:, :, None]).numpy()


def share(p: float, q: float, r: float) -> float:
    """(p - q) / (r - q) clipped to 0..1: unlike `demand._share`, no floor (MIN_SHARE is a whole
    list's least share; none of the words left out may have a cognate)."""
    return float(np.clip((p - q) / max(1e-6, r - q), 0.0, 1.0))


def report(out: Path) -> None:
    run, fitted = KEPT["run"], KEPT["fitted"]
    problem = run.problem  # type: ignore[attr-defined]
    corpus, seed = problem.corpus, problem.cfg.seed
    charsets = (problem.lost_charset, problem.known_charset)
    channel = fitted.fit.channel if fitted.check.kept_fit else fitted.probed.channel  # type: ignore[attr-defined]
    lost_of = {"".join(w): w for w in corpus.lost_words}
    known_of = {"".join(w): w for w in corpus.known_words}
    with (out / "proposals.tsv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    proposed = [lost_of[r["lost"]] for r in rows]
    taken = {known_of[r["known"]] for r in rows}
    proposed_set = set(proposed)
    left_lost = [w for w in corpus.lost_words if w not in proposed_set]
    left_known = [w for w in corpus.known_words if w not in taken]
    used_known = sorted(taken)
    lexicons = [decoy_lexicon(left_known, seed * 100 + k) for k in range(DECOY_LEXICONS)]
    used_lexicons = [decoy_lexicon(used_known, seed * 100 + 20 + k) for k in range(DECOY_LEXICONS)]
    p = wins_against(channel, charsets, left_lost, left_known, lexicons)
    nulls = null_words(list(corpus.lost_words), 600, seed * 100 + 50, avoid=list(corpus.known_words))
    q_null = wins_against(channel, charsets, nulls, left_known, lexicons).mean()
    q_proposed = wins_against(channel, charsets, proposed, left_known, lexicons).mean()
    q_used = wins_against(channel, charsets, left_lost, used_known, used_lexicons).mean()
    own = synthetic_cognates(channel, left_known, *charsets, 600, seed * 100 + 60)
    r = wins_against(channel, charsets, own, left_known, lexicons).mean()
    # Gold, to print what is true only.
    index = {w: i for i, w in enumerate(corpus.lost_words)}
    left_set = set(left_known)
    has = np.array([any(corpus.known_words[j] in left_set for j in corpus.gold.get(index[w], ())) for w in left_lost])
    without = np.array([not corpus.gold.get(index[w]) for w in left_lost])
    n_gold = sum(1 for i in range(len(corpus.lost_words)) if corpus.gold.get(i))
    print(f"D {len(rows)} (gold {n_gold}); left out {len(left_lost)} lost, {len(left_known)} known; p {p.mean():.3f}, "
          f"r {r:.3f}; true: {has.sum()} left out with their cognate left out, their p {p[has].mean():.3f}, "
          f"p of those without a gold cognate {p[without].mean() if without.any() else float('nan'):.3f}")  # fmt: skip
    for name, q in (("null words", max(0.5, q_null)), ("proposed words", q_proposed), ("used known words", q_used)):
        s = share(float(p.mean()), float(q), float(r))
        print(f"  q from {name} {q:.3f}: share {s:.3f}, D {len(rows) + s * len(left_lost):.0f}")


if __name__ == "__main__":
    args = sys.argv[1:]
    app(args, standalone_mode=False)
    with torch.no_grad():
        report(Path(args[args.index("--out") + 1]))
