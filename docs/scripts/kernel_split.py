"""Whether a compiled lattice call gains from a second thread (`compiled.PAIRS_A_PART`).

Times one training call of a channel's all-pair lattice (forward and backward, as a lexicon step
runs it) for 20 lost words against known lists of several lengths, whole (one thread) and split
over the run's threads, and the paired lattice (shortlists, a plan's support) at several pair
counts. Run from the repository root, nothing else running:

    python docs/scripts/kernel_split.py --corpus ugaritic-small [--channel pieces] [--threads 2]

The figures are in docs/speed.md ("Stages side by side, and kernel calls split only where a second
thread pays").
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from tui_decipher.engine.channels import compiled
from tui_decipher.engine.channels.scoring import encode_both
from tui_decipher.engine.channels.trainer import new_channel
from tui_decipher.engine.corpora.charset import Charset
from tui_decipher.engine.corpora.registry import load_corpus
from tui_decipher.engine.run.config import DecipherConfig
from tui_decipher.engine.run.device import flush_denormals, make_repeatable


def _best_ms(call, repeats: int = 3, calls: int = 20) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            call()
        best = min(best, (time.perf_counter() - t0) / calls * 1000)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="ugaritic-small")
    parser.add_argument("--channel", default="edit", choices=["edit", "pieces"])
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    make_repeatable(torch.device("cpu"))
    flush_denormals(torch.device("cpu"))
    corpus = load_corpus(DecipherConfig(corpus=args.corpus)).corpus
    lost, known = list(corpus.lost_words), list(corpus.known_words)
    lost_cs, known_cs = Charset.from_words(lost), Charset.from_words(known)
    channel = new_channel(args.channel, lost_cs, known_cs, torch.Generator().manual_seed(1), 0.1, 0.0, [],
                          torch.device("cpu"))  # fmt: skip
    modes = {"whole": 1 << 62, "split": 1}  # PAIRS_A_PART: never split, or always
    for n_known in (350, 1452, 4000, 12_000):
        words = (known * (n_known // len(known) + 1))[:n_known]
        encoded = encode_both(channel, lost[:20], words, lost_cs, known_cs)
        row = {}
        for mode, pairs in modes.items():
            compiled.PAIRS_A_PART = pairs
            row[mode] = _best_ms(lambda encoded=encoded: channel.log_prob(*encoded).log_softmax(1).sum().backward())
        print(f"all pairs, 20 x {n_known}: " + ", ".join(f"{k} {v:.2f} ms" for k, v in row.items()), flush=True)
    rng = np.random.default_rng(0)
    for n_pairs in (1000, 4000, 16_000, 64_000):
        li, ki = rng.integers(0, len(lost), n_pairs), rng.integers(0, len(known), n_pairs)
        encoded = encode_both(channel, [lost[i] for i in li], [known[j] for j in ki], lost_cs, known_cs)
        row = {}
        for mode, pairs in modes.items():
            compiled.PAIRS_A_PART = pairs
            row[mode] = _best_ms(lambda encoded=encoded: channel.log_prob_pairs(*encoded).sum().backward())
        print(f"paired, {n_pairs} pairs: " + ", ".join(f"{k} {v:.2f} ms" for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
