"""A channel's paired scoring (`log_prob_pairs`) is its all-pairs scoring's diagonal, gradients included."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from tui_decipher.engine.channels import scoring
from tui_decipher.engine.channels.lattice import encode_padded
from tui_decipher.engine.channels.scoring import add_channel_log_probs, channel_log_probs, pair_log_probs
from tui_decipher.engine.channels.trainer import new_channel
from tui_decipher.engine.corpora.charset import Charset


def _words(alphabet: str, n: int, rng: random.Random, longest: int) -> list[tuple[str, ...]]:
    return [tuple(rng.choice(alphabet) for _ in range(rng.randint(1, longest))) for _ in range(n)]


@pytest.mark.parametrize("kind", ["pieces", "edit"])
@pytest.mark.parametrize("pinned", [False, True])
def test_paired_scores_are_the_all_pairs_diagonal(kind: str, pinned: bool) -> None:
    rng = random.Random(7)
    lost_cs, known_cs = Charset("abcdefg"), Charset("abcxyz")
    channel = new_channel(kind, lost_cs, known_cs, torch.Generator().manual_seed(3), 1.0, 1.5)
    if pinned:  # a known sign value: lost "c" is written from known "x" only
        channel.pin_signs([(lost_cs.index["c"], (known_cs.index["x"],))])
    lost_words = _words("abcdefg", 24, rng, 5)  # lengths 1-5 and 1-7: padding on both sides
    known_words = _words("abcxyz", 24, rng, 7)
    lost, lost_len = encode_padded(lost_words, lost_cs, 0)
    known, known_len = encode_padded(known_words, known_cs, channel.none)

    every = channel.log_prob(lost, lost_len, known, known_len).diagonal()  # (24,)
    # Gradients of the possible pairs: an impossible pair's score is NEG-sized (about -1e4), where
    # float32 keeps 3 decimals, so its gradient differs with the order of operations.
    possible = every.detach() > -1e3
    every_grad = torch.autograd.grad(every[possible].sum(), list(channel.parameters()), allow_unused=True)
    paired = channel.log_prob_pairs(lost, lost_len, known, known_len)  # (24,)
    paired_grad = torch.autograd.grad(paired[possible].sum(), list(channel.parameters()), allow_unused=True)

    assert paired.shape == (24,)
    torch.testing.assert_close(paired, every, rtol=1e-5, atol=1e-4)
    assert (every > -1e3).sum() >= 12  # most pairs are possible: the check compares real probabilities
    for a, b in zip(paired_grad, every_grad, strict=True):
        if a is None or b is None:
            assert a is None and b is None
        else:
            torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind", ["pieces", "edit"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_listed_pairs_are_the_all_pairs_table_at_those_cells(
    kind: str, dtype: torch.dtype, monkeypatch: pytest.MonkeyPatch
) -> None:
    # float64: the tensors' lattice, pairs sorted by length in runs of `block`; float32: the compiled
    # one, pairs in their order in runs of COMPILED_PAIR_BLOCK (16 here: several runs).
    monkeypatch.setattr(scoring, "COMPILED_PAIR_BLOCK", 16)
    rng = random.Random(11)
    lost_cs, known_cs = Charset("abcdefg"), Charset("abcxyz")
    channel = new_channel(kind, lost_cs, known_cs, torch.Generator().manual_seed(4), 1.0, 1.5).to(dtype)
    lost_words, known_words = _words("abcdefg", 15, rng, 6), _words("abcxyz", 20, rng, 8)
    with torch.no_grad():  # the channel's own all-pairs table, in its dtype: (15, 20)
        table = channel.log_prob(*encode_padded(lost_words, lost_cs, 0), *encode_padded(known_words, known_cs,
                                                                                          channel.none))  # fmt: skip
    pairs = np.random.default_rng(2).integers(0, [15, 20], size=(90, 2))  # repeats and every length
    listed = pair_log_probs(channel, lost_words, known_words, pairs[:, 0], pairs[:, 1], lost_cs, known_cs,
                            block=16)  # fmt: skip
    assert listed.dtype == dtype
    torch.testing.assert_close(listed, table[pairs[:, 0], pairs[:, 1]], rtol=1e-5, atol=1e-4)
    assert pair_log_probs(channel, lost_words, known_words, pairs[:0, 0], pairs[:0, 1], lost_cs, known_cs).shape == (0,)


@pytest.mark.parametrize("kind", ["pieces", "edit"])
@pytest.mark.parametrize("across", [False, True])
def test_scores_added_a_row_block_at_a_time_are_the_whole_table_added(
    kind: str, across: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scoring, "LOST_BLOCK", 4)  # 15 lost words: four row blocks
    rng = random.Random(5)
    lost_cs, known_cs = Charset("abcdefg"), Charset("abcxyz")
    channel = new_channel(kind, lost_cs, known_cs, torch.Generator().manual_seed(6), 1.0, 1.5)
    lost_words, known_words = _words("abcdefg", 15, rng, 6), _words("abcxyz", 20, rng, 8)
    table = channel_log_probs(channel, lost_words, known_words, lost_cs, known_cs, max_pairs=16)  # (15, 20)
    base = torch.randn(20, 15) if across else torch.randn(15, 20)
    expected = base + 0.3 * (table.T if across else table)

    into = base.clone()
    added = add_channel_log_probs(into, 0.3, channel, lost_words, known_words, lost_cs, known_cs, across, max_pairs=16)

    assert added is into  # in place: no second table
    assert torch.equal(added, expected)  # the same float32 sums as the whole table's
    assert (table > -1e3).sum() > 100  # real probabilities, not only impossible pairs


def test_row_logsumexp_in_blocks_is_torchs_over_the_whole_table() -> None:
    table = torch.randn(101, 37, generator=torch.Generator().manual_seed(1)) * 5
    table[3] = -1e4  # a row of impossible pairs stays finite

    blocked = scoring.row_logsumexp(table, cells=100)  # two rows a block: 51 blocks

    assert blocked.shape == (101,)
    assert torch.equal(blocked, torch.logsumexp(table, 1))
