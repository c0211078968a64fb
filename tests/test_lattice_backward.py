"""Both character channels' lattices have their gradient written out (forward-backward) rather than
left to autograd: it must be autograd's gradient through the same forward, wherever cells are
clamped too, and the scores must not depend on whether a gradient is wanted."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import torch
from test_channel import syllabary_corpus

from tui_decipher.engine.channels import edit, pieces
from tui_decipher.engine.channels.edit import EditChannel
from tui_decipher.engine.channels.lattice import NEG, encode_padded, scaled_log_probs, scaled_pair_log_probs
from tui_decipher.engine.channels.pieces import CharacterChannel
from tui_decipher.engine.corpora.charset import Charset


def _channel(kind: str, lost_charset: Charset, known_charset: Charset, pinned: bool) -> torch.nn.Module:
    """A random channel in float64 (so the two gradients can be compared closely), its actions or
    operations random too; `pinned`: one sign's value known (its other readings start behind)."""
    generator = torch.Generator().manual_seed(7)
    if kind == "pieces":
        channel = CharacterChannel(len(lost_charset), len(known_charset), generator, 1.0).double()
        actions = channel.action
    else:
        channel = EditChannel(lost_charset, known_charset, generator, 1.0, 2.0).double()
        actions = channel.operation
    with torch.no_grad():
        actions.normal_(0.0, 1.0, generator=torch.Generator().manual_seed(8))
    if pinned:  # the first real sign read first as "p" (and "a", for a piece)
        letters = (known_charset.index["p"], known_charset.index["a"])
        channel.pin_signs([(4, letters if kind == "pieces" else letters[:1])])
        for name in ("pinned_one", "pinned_two", "pinned"):
            if getattr(channel, name, None) is not None:
                setattr(channel, name, getattr(channel, name).double())
    return channel


def _log_space_pairs(channel: torch.nn.Module, lost, lost_len, known, known_len) -> torch.Tensor:
    """log P(x_p | y_p) (P,) by each channel's paired lattice in log space, as the channels computed
    it before their paired lattices moved to probability space: a reference that cannot underflow."""
    big_n, big_m = int(lost_len.max()), int(known_len.max())
    lost, known = lost[:, :big_n], known[:, :big_m]
    n_p = lost.shape[0]
    start = torch.full((n_p, big_n + 1), NEG)
    start[:, 0] = 0.0
    head = torch.full((n_p, 1), NEG)
    if isinstance(channel, CharacterChannel):
        action = torch.log_softmax(channel.action, -1)
        drop, take_one, take_two, take_gap = (action[known, a] for a in (pieces.DROP, pieces.ONE, pieces.TWO,
                                                                          pieces.GAP))  # fmt: skip
        one = torch.log_softmax(channel._one_logits(), -1)
        alphas = [start]
        for m in range(1, big_m + 1):
            prev = alphas[m - 1]
            written = prev[:, :-1] + one[known[:, m - 1, None], lost] + take_one[:, m - 1, None]
            if m >= 2:
                two = torch.log_softmax(channel._two_logits(known[:, m - 2], known[:, m - 1]), -1)
                piece = two.gather(1, lost) + take_two[:, m - 2, None]
                written = torch.logaddexp(written, alphas[m - 2][:, :-1] + piece)
            if m >= 3:  # a gapped piece: letters m-2 .. m, m-1 unwritten
                gap = torch.log_softmax(channel._two_logits(known[:, m - 3], known[:, m - 1]), -1)
                piece = gap.gather(1, lost) + take_gap[:, m - 3, None]
                written = torch.logaddexp(written, alphas[m - 3][:, :-1] + piece)
            alphas.append(torch.logaddexp(prev + drop[:, m - 1, None], torch.cat([head, written], 1)).clamp_min(NEG))
        end = 0.0
    else:
        nxt = torch.cat([known, known.new_full((n_p, 1), channel.none)], 1)
        operation = channel.log_operations()
        write, insert = channel.log_emissions()

        def with_insertions(alpha: torch.Tensor, m: int) -> torch.Tensor:
            emit, rows = insert[nxt[:, m, None], lost], [alpha[:, 0]]
            for k in range(1, big_n + 1):
                rows.append(torch.logaddexp(alpha[:, k], rows[-1] + emit[:, k - 1]).clamp_min(NEG))
            return torch.stack(rows, 1)

        alphas = [with_insertions(start, 0)]
        for m in range(1, big_m + 1):
            prev = alphas[-1]
            written = prev[:, :-1] + write[nxt[:, m - 1, None], lost]
            new = torch.logaddexp(prev + operation[nxt[:, m - 1], edit.DROP][:, None], torch.cat([head, written], 1))
            alphas.append(with_insertions(new.clamp_min(NEG), m))
        end = operation[channel.none, edit.STOP]
    return torch.stack(alphas)[known_len, torch.arange(n_p), lost_len] + end


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

    def forward(*args: torch.Tensor) -> torch.Tensor:
        *tables, lost, lost_len, known_len = args
        lattice = (pieces if kind == "pieces" else edit)._alphas(*tables, lost)  # scaled probabilities
        return scaled_log_probs(lattice.alphas, lattice.log_c, lost_len, known_len)[0]

    def by_autograd() -> torch.Tensor:  # the same forward ops, differentiated by autograd
        original = module._Lattice.apply
        module._Lattice.apply = forward
        try:
            return channel.log_prob(lost, lost_len, known, known_len)
        finally:
            module._Lattice.apply = original

    scores = written_out().detach()
    if kind == "pieces":  # impossible pairs (a lost word longer than its known word): final cells clamped
        assert (scores < -1000).any() and (scores > -1000).any()
    with torch.no_grad():
        assert torch.equal(channel.log_prob(lost, lost_len, known, known_len), scores)
    assert torch.equal(by_autograd().detach(), scores)
    expected, got = _gradients(channel, by_autograd, weights), _gradients(channel, written_out, weights)
    for e, g in zip(expected, got, strict=True):
        assert e.abs().max() > 0.1
        assert torch.allclose(g, e, rtol=1e-9, atol=1e-9)


def _through_compiled(scores: torch.Tensor) -> bool:
    """Whether a compiled lattice's backward is in the graph that made `scores`."""
    todo, seen = [scores.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if "Compiled" in type(node).__name__:
            return True
        todo.extend(next_node for next_node, _ in node.next_functions)
    return False


def _as_type(channel: torch.nn.Module, dtype: torch.dtype) -> None:
    """The channel, its pinned tables included, in `dtype` (float32: the compiled lattices; float64:
    the tensors' ones, the reference)."""
    channel.to(dtype)
    for name in ("pinned_one", "pinned_two", "pinned"):
        if getattr(channel, name, None) is not None:
            setattr(channel, name, getattr(channel, name).to(dtype))


def _same_as_float64(
    channel: torch.nn.Module, score: Callable[[], torch.Tensor], got: torch.Tensor, expected: torch.Tensor,
    weights: torch.Tensor,
) -> None:  # fmt: skip
    """`got`, the float32 channel's compiled scores, against `expected`, the float64 tensors' ones,
    and the gradients of their sum under `weights` alike (the channel is float64 after). NEG in
    float32 where there is no path, or where the probability is below float32's range: float64 holds
    the latter (an edit channel always has a path), so the reference reads them low, and they are
    left out of the gradients compared."""
    below = got.detach() < -1000
    assert below.any() and (~below).sum() > 500
    assert (expected[below] < -80).all() and (expected[~below] > -80).all()
    assert torch.allclose(got.detach()[~below].double(), expected[~below], rtol=1e-5, atol=1e-4)
    weights[below] = 0.0
    got_grads = _gradients(channel, score, weights.float())
    _as_type(channel, torch.float64)
    for g, e in zip(got_grads, _gradients(channel, score, weights), strict=True):
        assert e.abs().max() > 0.1
        assert torch.allclose(g.double(), e, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("pinned", [False, True])
@pytest.mark.parametrize("kind", ["pieces", "edit"])
def test_the_compiled_lattice_is_the_tensors_lattice_gradients_included(kind: str, pinned: bool) -> None:
    # A float32 channel on the CPU (as runs train) scores every pair through its compiled lattice
    # (pieces_scores.CompiledLattice, which gathers each known word's pieces and scatters their
    # gradients itself; edit_scores.CompiledLattice); the same channel in float64 runs the tensors'
    # `_Lattice`: the reference, NEG pairs included (lost words longer than their known word for the
    # pieces, insertions at 40 nats for the edit channel, and words of 8+ signs).
    lost_words, known_words = syllabary_corpus(30, 10, seed=5)
    lost_words = [*lost_words, tuple(lost_words[0] * 4)]
    lost_charset, known_charset = Charset.from_words(lost_words), Charset.from_words(known_words)
    channel = _channel(kind, lost_charset, known_charset, pinned)  # float64
    if kind == "edit":
        with torch.no_grad():
            channel.operation[:, edit.INSERT] = -40.0
    lost, lost_len = encode_padded(lost_words, lost_charset, 0)
    known, known_len = encode_padded(known_words, known_charset, channel.none)
    weights = torch.rand(len(lost_words), len(known_words), generator=torch.Generator().manual_seed(9),
                         dtype=torch.float64)  # fmt: skip

    def scores() -> torch.Tensor:
        return channel.log_prob(lost, lost_len, known, known_len)

    expected = scores()
    assert not _through_compiled(expected)
    expected = expected.detach()
    _as_type(channel, torch.float32)
    got = scores()
    assert got.dtype == torch.float32 and _through_compiled(got)
    with torch.no_grad():  # the compiled lattice without a gradient reads the same
        assert torch.equal(scores(), got.detach())
    _same_as_float64(channel, scores, got, expected, weights)


@pytest.mark.parametrize("pinned", [False, True])
@pytest.mark.parametrize("kind", ["pieces", "edit"])
def test_the_compiled_paired_lattice_is_the_tensors_one_gradients_included(kind: str, pinned: bool) -> None:
    # Listed pairs (plans' support, shortlists, judged pairs) of a float32 channel on the CPU score
    # through the channel's CompiledPairs (pieces_scores.py, edit_scores.py), which gathers each
    # pair's operations and scatters their gradients itself; the same channel in float64 runs the
    # tensors' `_PairedLattice`: the reference.
    lost_words, known_words = syllabary_corpus(30, 10, seed=5)
    lost_words = [*lost_words, tuple(lost_words[0] * 4)]
    lost_charset, known_charset = Charset.from_words(lost_words), Charset.from_words(known_words)
    channel = _channel(kind, lost_charset, known_charset, pinned)  # float64
    if kind == "edit":
        with torch.no_grad():  # an insertion costs 40 nats: long lost words of short known ones read NEG
            channel.operation[:, edit.INSERT] = -40.0
    lost, lost_len = encode_padded(lost_words, lost_charset, 0)
    known, known_len = encode_padded(known_words, known_charset, channel.none)
    n_x, n_y = len(lost_words), len(known_words)
    rows, cols = torch.arange(n_x).repeat_interleave(n_y), torch.arange(n_y).repeat(n_x)
    weights = torch.rand(n_x * n_y, generator=torch.Generator().manual_seed(9), dtype=torch.float64)

    def paired() -> torch.Tensor:
        return channel.log_prob_pairs(lost[rows], lost_len[rows], known[cols], known_len[cols])

    expected = paired().detach()  # float64
    _as_type(channel, torch.float32)
    got = paired()
    assert got.dtype == torch.float32 and _through_compiled(got)
    _same_as_float64(channel, paired, got, expected, weights)


@pytest.mark.parametrize("kind", ["pieces", "edit"])
def test_the_written_out_backward_passes_gradcheck(kind: str) -> None:
    gen = torch.Generator().manual_seed(11)
    n_x, n_y, big_n, big_m, n_symbols = 3, 4, 3, 4, 5

    def table(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen, dtype=torch.float64, requires_grad=True)

    # pieces: one-letter (n_y, M, S), two-letter (n_y, M-1, S) and gapped (n_y, M-2, S) pieces, drop
    # (n_y, M); edit: write (n_y, M, S), insert (n_y, M+1, S), drop (n_y, M).
    if kind == "pieces":
        tables = (table(n_y, big_m, n_symbols), table(n_y, big_m - 1, n_symbols), table(n_y, big_m - 2, n_symbols),
                  table(n_y, big_m))  # fmt: skip
    else:
        tables = (table(n_y, big_m, n_symbols), table(n_y, big_m + 1, n_symbols), table(n_y, big_m))
    lost = torch.randint(0, n_symbols, (n_x, big_n), generator=gen)
    lost_len, known_len = torch.tensor([3, 1, 2]), torch.tensor([4, 2, 3, 1])
    lattice = (pieces if kind == "pieces" else edit)._Lattice
    assert torch.autograd.gradcheck(lambda *t: lattice.apply(*t, lost, lost_len, known_len), tables)


@pytest.mark.parametrize("pinned", [False, True])
@pytest.mark.parametrize("kind", ["pieces", "edit"])
def test_the_paired_lattices_backward_is_autograds_through_the_same_forward(kind: str, pinned: bool) -> None:
    module = pieces if kind == "pieces" else edit
    lost_words, known_words = syllabary_corpus(30, 10, seed=5)
    lost_words = [*lost_words, tuple(lost_words[0] * 4)]
    lost_charset, known_charset = Charset.from_words(lost_words), Charset.from_words(known_words)
    channel = _channel(kind, lost_charset, known_charset, pinned)
    lost, lost_len = encode_padded(lost_words, lost_charset, 0)
    known, known_len = encode_padded(known_words, known_charset, channel.none)
    n_x, n_y = len(lost_words), len(known_words)
    rows, cols = torch.arange(n_x).repeat_interleave(n_y), torch.arange(n_y).repeat(n_x)  # every pair, paired
    weights = torch.rand(n_x * n_y, generator=torch.Generator().manual_seed(9), dtype=torch.float64)

    def written_out() -> torch.Tensor:
        return channel.log_prob_pairs(lost[rows], lost_len[rows], known[cols], known_len[cols])

    def forward(*args) -> torch.Tensor:
        *tables, lost_len, known_len, n_symbols = args
        lattice = module._pair_alphas(*tables, n_symbols)
        return scaled_pair_log_probs(lattice.alphas, lattice.log_c, lost_len, known_len)[0]

    def by_autograd() -> torch.Tensor:
        original = module._PairedLattice.apply
        module._PairedLattice.apply = forward
        try:
            return written_out()
        finally:
            module._PairedLattice.apply = original

    scores = written_out().detach()
    if kind == "pieces":
        assert (scores < -1000).any() and (scores > -1000).any()
    with torch.no_grad():
        assert torch.equal(written_out(), scores)
    assert torch.equal(by_autograd().detach(), scores)
    # The all-pairs lattice gives the same scores, in another order of operations.
    assert torch.allclose(scores, channel.log_prob(lost, lost_len, known, known_len).detach().reshape(-1),
                          rtol=1e-9, atol=1e-9)  # fmt: skip
    expected, got = _gradients(channel, by_autograd, weights), _gradients(channel, written_out, weights)
    for e, g in zip(expected, got, strict=True):
        assert e.abs().max() > 0.1
        assert torch.allclose(g, e, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kind", ["pieces", "edit"])
def test_the_paired_lattices_written_out_backward_passes_gradcheck(kind: str) -> None:
    gen = torch.Generator().manual_seed(12)
    n_p, big_n, big_m, n_symbols = 5, 3, 4, 6

    def table(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen, dtype=torch.float64, requires_grad=True)

    # Each pair's emissions read at its lost word's symbols. pieces: one-letter (P, M, N), two-letter
    # (P, M-1, N), gapped (P, M-2, N), drop (P, M); edit: write (P, M, N), insert (P, M+1, N), drop (P, M).
    if kind == "pieces":
        tables = (table(n_p, big_m, big_n), table(n_p, big_m - 1, big_n), table(n_p, big_m - 2, big_n),
                  table(n_p, big_m))  # fmt: skip
    else:
        tables = (table(n_p, big_m, big_n), table(n_p, big_m + 1, big_n), table(n_p, big_m))
    lost_len, known_len = torch.tensor([3, 1, 2, 3, 0]), torch.tensor([4, 2, 3, 1, 2])
    lattice = (pieces if kind == "pieces" else edit)._PairedLattice
    assert torch.autograd.gradcheck(lambda *t: lattice.apply(*t, lost_len, known_len, n_symbols), tables)


@pytest.fixture(params=[False, True], ids=["subnormals kept", "subnormals flushed"])
def flushed(request):
    """The CPU's subnormal mode for the test, restored after. A run flushes subnormals in its thread
    and the threads that thread starts (engine/run/device.py), and pytest's thread may have run one, so
    the mode is set here, on one intra-op thread (torch's pool threads keep the mode they began with)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    torch.set_flush_denormal(request.param)
    yield request.param
    torch.set_flush_denormal(False)
    torch.set_num_threads(threads)


@pytest.mark.parametrize("kind", ["pieces", "edit"])
def test_a_lattice_in_probability_space_stays_finite_where_pairs_are_near_underflow(kind: str, flushed: bool) -> None:
    """Both lattices sum scaled probabilities in float32: a sharp channel (logits of spread 20) on
    long lost words puts many pairs near or below float32's smallest number. Their scores must be
    NEG or the log-space lattice's, and every gradient finite: in the all-pairs lattice and in the
    paired one. Where a run flushes subnormals (as every run does on CPU), a pair below float32's
    normal range (log P < -87.3) keeps no digits to compare: the scores must agree above -80."""
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
    n_x, n_y = len(lost_words), len(known_words)
    rows, cols = torch.arange(n_x).repeat_interleave(n_y), torch.arange(n_y).repeat(n_x)
    with torch.no_grad():  # log space: no underflow
        reference = _log_space_pairs(channel, lost[rows], lost_len[rows], known[cols], known_len[cols]).view(n_x, n_y)
    weights = torch.rand(n_x, n_y, generator=rng)
    # The all-pairs lattice, and the paired lattice over the same pairs (as shortlists score them).
    for scores in (
        channel.log_prob(lost, lost_len, known, known_len),
        channel.log_prob_pairs(lost[rows], lost_len[rows], known[cols], known_len[cols]).view(n_x, n_y),
    ):
        below = scores.detach() < -1000
        assert below.any() and (reference[below] > -1000).any()  # pairs that underflowed here, not there
        assert (reference[below] < -60).all()  # ...and only those too unlikely to matter
        kept = ~below & (reference > -80) if flushed else ~below
        assert torch.allclose(scores.detach()[kept], reference[kept], rtol=1e-4, atol=1e-3)
        assert torch.isfinite(scores).all()
        grads = torch.autograd.grad((scores * weights).sum(), list(channel.parameters()))
        assert all(torch.isfinite(g).all() for g in grads)
        assert max(g.abs().max() for g in grads) > 0.1


@pytest.mark.parametrize("kind", ["pieces", "edit"])
def test_the_compiled_lattice_reads_the_same_whatever_the_threads_it_splits_over(kind: str, monkeypatch) -> None:
    # A training step's all-pair lattice splits its lost words (scores) and known words (gradients)
    # over the threads it is given: each cell's gradient adds the lost words in one order however
    # the known words are split, so scores and gradients are equal bit for bit on 1, 2 or 3 threads.
    from tui_decipher.engine.channels import compiled
    from tui_decipher.engine.run.device import kernel_cores

    monkeypatch.setattr(compiled, "PAIRS_A_PART", 16)  # this small lattice splits too
    lost_words, known_words = syllabary_corpus(40, 10, seed=6)
    lost_charset, known_charset = Charset.from_words(lost_words), Charset.from_words(known_words)
    channel = _channel(kind, lost_charset, known_charset, pinned=False)
    _as_type(channel, torch.float32)
    lost, lost_len = encode_padded(lost_words, lost_charset, 0)
    known, known_len = encode_padded(known_words, known_charset, channel.none)
    weights = torch.rand(len(lost_words), len(known_words), generator=torch.Generator().manual_seed(3))
    read = []
    for cores in (1, 2, 3):
        with kernel_cores(cores):
            assert len(compiled.even_parts(len(known_words), len(lost_words))) == cores

            def scores() -> torch.Tensor:
                return channel.log_prob(lost, lost_len, known, known_len)

            assert _through_compiled(scores())
            read.append((scores().detach(), _gradients(channel, scores, weights)))
    for scores, grads in read[1:]:
        assert torch.equal(scores, read[0][0])
        assert all(torch.equal(g, g0) for g, g0 in zip(grads, read[0][1], strict=True))


def test_a_kernel_call_splits_only_where_each_part_has_enough_pairs() -> None:
    # A training step's lattice of 20 x 1452 pairs read the same whole or split on 2 cores
    # (docs/speed.md): such calls stay whole, larger ones split.
    from tui_decipher.engine.channels.compiled import PAIRS_A_PART, even_parts
    from tui_decipher.engine.run.device import kernel_cores

    with kernel_cores(2):
        assert even_parts(20, 1452) == [(0, 20)]
        assert even_parts(20, 12_000) == [(0, 10), (10, 20)]
        assert len(even_parts(2 * PAIRS_A_PART, 1)) == 2 and len(even_parts(2 * PAIRS_A_PART - 1, 1)) == 1
    with kernel_cores(1):
        assert even_parts(20, 12_000) == [(0, 20)]


@pytest.mark.parametrize("kind", ["pieces", "edit"])
def test_known_words_in_rising_length_skip_the_cells_past_their_ends_and_read_the_same(kind, monkeypatch) -> None:
    # Where the known words come in rising length (a training step's length buckets), an all-pair
    # kernel computes letter m's cells only for the words of m letters or more: scores and gradients
    # are those of computing every cell, bit for bit, on one thread or split over three.
    from tui_decipher.engine.channels import compiled, edit_scores, pieces_scores
    from tui_decipher.engine.run.device import kernel_cores

    monkeypatch.setattr(compiled, "PAIRS_A_PART", 16)
    lost_words, known_words = syllabary_corpus(40, 10, seed=8)
    known_words = sorted(known_words, key=len)
    lost_charset, known_charset = Charset.from_words(lost_words), Charset.from_words(known_words)
    channel = _channel(kind, lost_charset, known_charset, pinned=False)
    _as_type(channel, torch.float32)
    lost, lost_len = encode_padded(lost_words, lost_charset, 0)
    known, known_len = encode_padded(known_words, known_charset, channel.none)
    active = compiled.first_active(known_len.numpy(), int(known_len.max()))
    assert active[-1] > 0  # the last letters are only the longest words
    weights = torch.rand(len(lost_words), len(known_words), generator=torch.Generator().manual_seed(4))

    def scores() -> torch.Tensor:
        return channel.log_prob(lost, lost_len, known, known_len)

    def read() -> tuple[torch.Tensor, list]:
        assert _through_compiled(scores())
        return scores().detach(), _gradients(channel, scores, weights)

    skipping = []
    for cores in (1, 3):
        with kernel_cores(cores):
            skipping.append(read())
    module = pieces_scores if kind == "pieces" else edit_scores
    monkeypatch.setattr(module, "first_active", lambda lengths, longest: np.zeros(longest + 1, np.int64))
    with kernel_cores(1):
        every_cell = read()
    for got in skipping:
        assert torch.equal(got[0], every_cell[0])
        assert all(torch.equal(g, e) for g, e in zip(got[1], every_cell[1], strict=True))


def test_first_active_is_where_each_length_begins_and_zero_where_lengths_do_not_rise() -> None:
    from tui_decipher.engine.channels.compiled import first_active

    assert first_active(np.array([1, 2, 2, 4]), 4).tolist() == [0, 0, 1, 3, 3]
    assert first_active(np.array([2, 1, 4]), 4).tolist() == [0, 0, 0, 0, 0]
