"""Both character channels' lattices have their gradient written out (forward-backward) rather than
left to autograd: it must be autograd's gradient through the same forward, wherever cells are
clamped too, and the scores must not depend on whether a gradient is wanted."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from test_channel import syllabary_corpus

from tui_decipher.engine.channels import edit, pieces
from tui_decipher.engine.channels.edit import EditChannel
from tui_decipher.engine.channels.lattice import encode_padded, scaled_log_probs
from tui_decipher.engine.channels.pieces import CharacterChannel
from tui_decipher.engine.charset import Charset


def _channel(kind: str, lost_charset: Charset, known_charset: Charset, pinned: bool) -> torch.nn.Module:
    """A random channel in float64 (so the two gradients can be compared closely), its actions or
    operations random too; `pinned`: one sign's value known, so some pairs cannot be written."""
    generator = torch.Generator().manual_seed(7)
    if kind == "pieces":
        channel = CharacterChannel(len(lost_charset), len(known_charset), generator, 1.0).double()
        actions = channel.action
    else:
        channel = EditChannel(lost_charset, known_charset, generator, 1.0, 2.0).double()
        actions = channel.operation
    with torch.no_grad():
        actions.normal_(0.0, 1.0, generator=torch.Generator().manual_seed(8))
    if pinned:  # the first real sign written from "p" (and "a", for a piece) only
        letters = (known_charset.index["p"], known_charset.index["a"])
        channel.pin_signs([(4, letters if kind == "pieces" else letters[:1])])
        for name in ("pinned_one", "pinned_two", "pinned"):
            if getattr(channel, name, None) is not None:
                setattr(channel, name, getattr(channel, name).double())
    return channel


def _gradients(channel: torch.nn.Module, score: Callable[[], torch.Tensor], weights: torch.Tensor) -> list:
    channel.zero_grad()
    (score() * weights).sum().backward()
    return [p.grad.clone() for p in channel.parameters()]


@pytest.mark.parametrize("pinned", [False, True])
@pytest.mark.parametrize("kind", ["pieces", "edit"])
def test_the_written_out_backward_is_autograds_through_the_same_forward(kind: str, pinned: bool) -> None:
    module = pieces if kind == "pieces" else edit
    lost_words, known_words = syllabary_corpus(30, 10, seed=5)
    lost_words = [*lost_words, tuple(lost_words[0] * 4)]  # 8+ symbols: more than a known word has letters
    lost_charset, known_charset = Charset.from_words(lost_words), Charset.from_words(known_words)
    channel = _channel(kind, lost_charset, known_charset, pinned)
    lost, lost_len = encode_padded(lost_words, lost_charset, 0)
    known, known_len = encode_padded(known_words, known_charset, channel.none)
    weights = torch.rand(len(lost_words), len(known_words), generator=torch.Generator().manual_seed(9),
                         dtype=torch.float64)  # fmt: skip

    def written_out() -> torch.Tensor:
        return channel.log_prob(lost, lost_len, known, known_len)

    def forward(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, lost: torch.Tensor, lost_len: torch.Tensor,
                known_len: torch.Tensor) -> torch.Tensor:  # fmt: skip
        lattice = (pieces if kind == "pieces" else edit)._alphas(a, b, c, lost)  # scaled probabilities
        return scaled_log_probs(lattice.alphas, lattice.log_c, lost_len, known_len)[0]

    def by_autograd() -> torch.Tensor:  # the same forward ops, differentiated by autograd
        original = module._Lattice.apply
        module._Lattice.apply = forward
        try:
            return channel.log_prob(lost, lost_len, known, known_len)
        finally:
            module._Lattice.apply = original

    scores = written_out().detach()
    if kind == "pieces" or pinned:  # impossible pairs: their final cells are clamped
        assert (scores < -1000).any() and (scores > -1000).any()
    with torch.no_grad():
        assert torch.equal(channel.log_prob(lost, lost_len, known, known_len), scores)
    assert torch.equal(by_autograd().detach(), scores)
    expected, got = _gradients(channel, by_autograd, weights), _gradients(channel, written_out, weights)
    for e, g in zip(expected, got, strict=True):
        assert e.abs().max() > 0.1
        assert torch.allclose(g, e, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kind", ["pieces", "edit"])
def test_the_written_out_backward_passes_gradcheck(kind: str) -> None:
    gen = torch.Generator().manual_seed(11)
    n_x, n_y, big_n, big_m, n_symbols = 3, 4, 3, 4, 5

    def table(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen, dtype=torch.float64, requires_grad=True)

    # pieces: one-letter (n_y, M, S) and two-letter (n_y, M-1, S) pieces, drop (n_y, M);
    # edit: write (n_y, M, S), insert (n_y, M+1, S), drop (n_y, M).
    second = table(n_y, big_m - 1 if kind == "pieces" else big_m + 1, n_symbols)
    tables = (table(n_y, big_m, n_symbols), second, table(n_y, big_m))
    lost = torch.randint(0, n_symbols, (n_x, big_n), generator=gen)
    lost_len, known_len = torch.tensor([3, 1, 2]), torch.tensor([4, 2, 3, 1])
    lattice = (pieces if kind == "pieces" else edit)._Lattice
    assert torch.autograd.gradcheck(lambda a, b, c: lattice.apply(a, b, c, lost, lost_len, known_len), tables)


@pytest.mark.parametrize("kind", ["pieces", "edit"])
def test_a_lattice_in_probability_space_stays_finite_where_pairs_are_near_underflow(kind: str) -> None:
    """Both lattices sum scaled probabilities in float32: a sharp channel (logits of spread 20) on
    long lost words puts many pairs near or below float32's smallest number. Their scores must be
    NEG or the log-space paired lattice's, and every gradient finite."""
    rng = torch.Generator().manual_seed(13)
    lost_words, known_words = syllabary_corpus(40, 10, seed=6)
    lost_words = [*lost_words, tuple(lost_words[0] * 5), tuple(lost_words[1] * 4)]  # 10-20 signs
    lost_charset, known_charset = Charset.from_words(lost_words), Charset.from_words(known_words)
    if kind == "pieces":
        channel = CharacterChannel(len(lost_charset), len(known_charset), rng, 20.0)
    else:
        channel = EditChannel(lost_charset, known_charset, rng, 20.0, 2.0)
    lost, lost_len = encode_padded(lost_words, lost_charset, 0)
    known, known_len = encode_padded(known_words, known_charset, channel.none)
    scores = channel.log_prob(lost, lost_len, known, known_len)  # (n_x, n_y)
    n_x, n_y = scores.shape
    rows, cols = torch.arange(n_x).repeat_interleave(n_y), torch.arange(n_y).repeat(n_x)
    with torch.no_grad():  # log space: no underflow
        reference = channel.log_prob_pairs(lost[rows], lost_len[rows], known[cols], known_len[cols]).view(n_x, n_y)
    below = scores.detach() < -1000
    assert below.any() and (reference[below] > -1000).any()  # pairs that underflowed here, not there
    assert (reference[below] < -60).all()  # ...and only those too unlikely to matter
    kept = ~below
    assert torch.allclose(scores.detach()[kept], reference[kept], rtol=1e-4, atol=1e-3)
    assert torch.isfinite(scores).all()
    weights = torch.rand(n_x, n_y, generator=rng)
    grads = torch.autograd.grad((scores * weights).sum(), list(channel.parameters()))
    assert all(torch.isfinite(g).all() for g in grads)
    assert max(g.abs().max() for g in grads) > 0.1
