"""Channels draw lost words from their own P(x | y): sample frequencies match exp(log_prob)."""

from __future__ import annotations

from collections import Counter

import pytest
import torch

from tui_decipher.engine.channels.lattice import encode_padded
from tui_decipher.engine.channels.trainer import new_channel
from tui_decipher.engine.corpora.charset import Charset


@pytest.mark.parametrize("kind", ["pieces", "edit"])
def test_sample_frequencies_match_the_channel(kind: str) -> None:
    lost_cs, known_cs = Charset("abc"), Charset("ab")
    channel = new_channel(kind, lost_cs, known_cs, torch.Generator().manual_seed(0), 1.0, 0.0)
    known = known_cs.encode(("a", "b", "a"))
    gen = torch.Generator().manual_seed(1)
    n = 2000
    counts = Counter(tuple(channel.sample(known, gen)) for _ in range(n))
    drawn = [x for x in counts if x]
    words = [tuple(lost_cs.symbols[i] for i in x) for x in drawn]
    lost, lost_len = encode_padded(words, lost_cs, 0)
    y, y_len = encode_padded([("a", "b", "a")], known_cs, channel.none)
    with torch.no_grad():
        p = channel.log_prob(lost, lost_len, y, y_len).exp()[:, 0]  # (n_drawn,)
    # Draws come in proportion to P(x | y) over the words a draw can give (the mass a channel
    # leaks is drawn again): compare with P normalised over the drawn words.
    p = p / p.sum()
    for x, prob in zip(drawn, p.tolist(), strict=True):
        if prob > 0.03:
            freq = counts[x] / sum(counts[w] for w in drawn)
            assert abs(freq - prob) < 4 * (prob * (1 - prob) / n) ** 0.5 + 2e-3, (x, freq, prob)
    assert all(i >= 4 for x in counts for i in x)  # no special symbol is ever written
