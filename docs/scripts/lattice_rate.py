"""How close all-pair scoring comes to the machine's limits (issue "Seconds, not minutes").

Scores every (lost, known) pair of a corpus through a channel's lattice (the edit channel's, or
with `--channel pieces` the pieces channel's), as auto's plans, refreshes and final costs do
(`scoring.score_every_pair`), counts the lattice cells computed, and sets the rate beside two
limits of this machine: the float32 multiply-adds its cores can issue, and the memory bandwidth a
plain array copy reaches. Run from the repository root:

    python docs/scripts/lattice_rate.py --corpus ugaritic-small [--channel pieces] [--threads 2]

A cell is one (known letter m, lost symbol k) entry of one pair's forward table: for the edit
channel a drop, a write and an insertion, five floating-point operations; for the pieces channel a
drop, a one-letter and a two-letter piece, also five (docs/speed.md). The figures are in docs/speed.md.
"""

from __future__ import annotations

import argparse
import time

import torch

from tui_decipher.engine.channels import edit as edit_module
from tui_decipher.engine.channels import pieces as pieces_module
from tui_decipher.engine.channels.scoring import encode_both, score_every_pair
from tui_decipher.engine.channels.trainer import new_channel
from tui_decipher.engine.corpora.charset import Charset
from tui_decipher.engine.corpora.registry import load_corpus
from tui_decipher.engine.run.config import DecipherConfig

FLOPS_A_CELL = 5  # edit: a drop (mul), a write (mul, add), an insertion (mul, add); pieces: a drop, two pieces


def copy_bandwidth(n_bytes: int = 1 << 30, repeats: int = 5) -> float:
    """Bytes a second a torch array copy moves (read and write counted), the best of `repeats`."""
    src = torch.ones(n_bytes // 4)
    dst = torch.empty_like(src)
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        dst.copy_(src)
        best = max(best, 2 * n_bytes / (time.perf_counter() - start))
    return best


def fma_rate(size: int = 2048, repeats: int = 5) -> float:
    """Floating-point operations a second of a float32 matrix product (2 n^3 each), the best of
    `repeats`: what the cores reach on the friendliest work there is."""
    a, b = torch.randn(size, size), torch.randn(size, size)
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        torch.mm(a, b)
        best = max(best, 2 * size**3 / (time.perf_counter() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="ugaritic-small")
    parser.add_argument("--channel", choices=("edit", "pieces"), default="edit")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.set_flush_denormal(True)  # as a run does (`Problem.prepare`)
    corpus = load_corpus(DecipherConfig(corpus=args.corpus)).corpus
    lost_cs, known_cs = Charset.from_words(corpus.lost_words), Charset.from_words(corpus.known_words)
    channel = new_channel(args.channel, lost_cs, known_cs, torch.Generator().manual_seed(0), copy_bias=3.0)
    encoded = encode_both(channel, corpus.lost_words, corpus.known_words, lost_cs, known_cs)
    cells = [0]
    cls = edit_module.EditChannel if args.channel == "edit" else pieces_module.CharacterChannel
    real_log_prob = cls.log_prob

    def counted(self, lost, lost_len, known, known_len):  # type: ignore[no-untyped-def]
        # The lattice trims each block to its longest words (`log_prob` of either channel).
        cells[0] += lost.shape[0] * (int(lost_len.max()) + 1) * known.shape[0] * (int(known_len.max()) + 1)
        return real_log_prob(self, lost, lost_len, known, known_len)

    cls.log_prob = counted  # type: ignore[method-assign]
    score_every_pair(channel, *encoded)  # a warm-up pass: allocations, first-call costs
    cells[0] = 0
    start = time.perf_counter()
    score_every_pair(channel, *encoded)
    seconds = time.perf_counter() - start
    lost_len, known_len = encoded[1].numpy(), encoded[3].numpy()
    useful = float((lost_len + 1).sum()) * float((known_len + 1).sum())
    pairs = len(lost_len) * len(known_len)
    flops, bandwidth = fma_rate(), copy_bandwidth()
    print(f"{args.corpus}, {args.channel} channel: {pairs / 1e6:.1f} M pairs in {seconds:.2f} s"
          f" on {args.threads} thread(s) = {pairs / seconds / 1e6:.2f} M pairs/s")  # fmt: skip
    print(f"cells computed {cells[0] / 1e9:.2f} G ({cells[0] / seconds / 1e6:.0f} M/s), of them within the words"
          f" {useful / 1e9:.2f} G ({100 * useful / cells[0]:.0f}%)")  # fmt: skip
    reached = FLOPS_A_CELL * cells[0] / seconds
    print(f"arithmetic: {reached / 1e9:.1f} GFLOP/s at {FLOPS_A_CELL} a cell; a float32 matrix product reaches"
          f" {flops / 1e9:.1f} GFLOP/s here: {100 * reached / flops:.1f}%")  # fmt: skip
    print(f"memory: a copy moves {bandwidth / 1e9:.1f} GB/s; at that rate the cells would need"
          f" {bandwidth / (cells[0] / seconds):.0f} bytes each to be bandwidth-bound")  # fmt: skip


if __name__ == "__main__":
    main()
