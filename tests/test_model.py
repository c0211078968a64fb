"""Tests for the character seq2seq (tui_decipher.engine.neural.model) and all-pairs scoring (scoring.py)."""

from __future__ import annotations

import types

import pytest
import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from tui_decipher.engine.corpora.charset import EOW_ID, PAD_ID, SOW_ID, UNK_ID, Charset
from tui_decipher.engine.corpora.corpus import graphemes
from tui_decipher.engine.neural.model import DecipherModel, build_model, norm_controlled_residual
from tui_decipher.engine.neural.scoring import KnownIndex, LostBatch, score_all_pairs

CPU = torch.device("cpu")


pytestmark = pytest.mark.usefixtures("single_thread")


LOST_WORDS = [graphemes(t) for t in ["abc", "d", "bead", "cc", "eabdc", "ba"]]
KNOWN_WORDS = [graphemes(t) for t in ["xy", "zzwq", "w", "qxyzw", "yq", "xzq", "wwy"]]
LOST_CS = Charset.from_words(LOST_WORDS)
KNOWN_CS = Charset.from_words(KNOWN_WORDS)


def tiny_model(seed: int = 7, residual: bool = True, norm_ratio: float = 0.2) -> DecipherModel:
    torch.manual_seed(seed)
    model = DecipherModel(
        len(LOST_CS),
        len(KNOWN_CS),
        n_universal=8,
        embed_dim=16,
        hidden_dim=16,
        dropout=0.0,
        residual=residual,
        norm_ratio=norm_ratio,
    )
    return model.eval()


def lost_batch(words=LOST_WORDS) -> LostBatch:
    return LostBatch.encode(words, LOST_CS, CPU)


# --------------------------------------------------------------------------- all-pairs scoring


def explicit_log_prob(log_probs: torch.Tensor, known_ids: list[list[int]]) -> torch.Tensor:
    """log P(y_j | x_i) = sum_{t=0}^{|y_j|} log p_t(y_j[t]) (last symbol EOW), by plain loops."""
    n = log_probs.shape[0]
    out = torch.zeros(n, len(known_ids), dtype=torch.float64)
    for i in range(n):
        for j, ids in enumerate(known_ids):
            total = 0.0
            for t, c in enumerate(ids):
                total += float(log_probs[i, t, c])
            out[i, j] = total
    return out


def test_known_index_matches_explicit_sum() -> None:
    model = tiny_model()
    known = KnownIndex(KNOWN_WORDS, KNOWN_CS, CPU)
    assert known.steps == 6  # longest known word (5) + EOW
    known_ids = [[*KNOWN_CS.encode(w), EOW_ID] for w in KNOWN_WORDS]
    assert known.ids == known_ids
    lost = lost_batch()
    with torch.no_grad():
        dec = model(lost.ids, lost.lengths, known.steps + 2)  # more steps than needed is fine
    table = known.log_prob(dec.log_probs)
    assert table.shape == (len(LOST_WORDS), len(KNOWN_WORDS))
    expected = explicit_log_prob(dec.log_probs, known_ids)
    torch.testing.assert_close(table.double(), expected, atol=1e-4, rtol=0)
    # The EOW term matters: dropping it changes the score.
    no_eow = explicit_log_prob(dec.log_probs, [ids[:-1] for ids in known_ids])
    assert (table.double() - no_eow).abs().min() > 1e-3

    columns = torch.tensor([4, 0, 6])
    sub = known.log_prob(dec.log_probs, columns=columns)
    torch.testing.assert_close(sub, table[:, columns], atol=0, rtol=0)
    torch.testing.assert_close(
        sub.double(), explicit_log_prob(dec.log_probs, [known_ids[j] for j in columns]), atol=1e-4, rtol=0
    )


def test_known_word_with_unseen_symbol_scores_unk() -> None:
    known = KnownIndex([graphemes("x?")], KNOWN_CS, CPU)
    assert known.ids == [[KNOWN_CS.index["x"], UNK_ID, EOW_ID]]
    model = tiny_model()
    with torch.no_grad():
        dec = model(lost_batch().ids, lost_batch().lengths, known.steps)
    assert (known.log_prob(dec.log_probs) < -1000).all()  # UNK is never emitted


def test_score_all_pairs_chunking_and_mode() -> None:
    model = tiny_model().train()
    lost = lost_batch()
    known = KnownIndex(KNOWN_WORDS, KNOWN_CS, CPU)
    small = score_all_pairs(model, lost, known, chunk=2)
    assert model.training  # training mode restored
    big = score_all_pairs(model, lost, known, chunk=100)
    assert small.log_prob.shape == (len(LOST_WORDS), len(KNOWN_WORDS))
    assert small.step_log_probs.shape == (len(LOST_WORDS), known.steps, len(KNOWN_CS))
    torch.testing.assert_close(small.log_prob, big.log_prob, atol=1e-5, rtol=0)
    torch.testing.assert_close(small.step_log_probs, big.step_log_probs, atol=1e-5, rtol=0)
    with torch.no_grad():
        dec = model.eval()(lost.ids, lost.lengths, known.steps)
    torch.testing.assert_close(big.log_prob, known.log_prob(dec.log_probs), atol=1e-5, rtol=0)


def test_padding_does_not_change_a_word() -> None:
    """A word decoded alone and inside a padded batch gets the same distributions."""
    model = tiny_model()
    batch = lost_batch()
    with torch.no_grad():
        together = model(batch.ids, batch.lengths, 5)
        for i, word in enumerate(LOST_WORDS):
            alone_batch = lost_batch([word])
            alone = model(alone_batch.ids, alone_batch.lengths, 5)
            torch.testing.assert_close(alone.log_probs[0], together.log_probs[i], atol=1e-5, rtol=0)
            width = alone_batch.ids.shape[1]
            torch.testing.assert_close(alone.attention[0], together.attention[i, :, :width], atol=1e-5, rtol=0)


# --------------------------------------------------------------------------- output distributions


@pytest.mark.parametrize("residual", [True, False])
def test_output_distributions(residual: bool) -> None:
    model = tiny_model(residual=residual)
    lost = lost_batch()
    with torch.no_grad():
        dec = model(lost.ids, lost.lengths, 7)
    assert dec.log_probs.shape == (len(LOST_WORDS), 7, len(KNOWN_CS))
    probs = dec.log_probs.exp()
    torch.testing.assert_close(probs.sum(-1), torch.ones(len(LOST_WORDS), 7), atol=1e-5, rtol=0)
    never = probs[..., [PAD_ID, SOW_ID, UNK_ID]]
    assert never.max() < 1e-12
    assert (probs[..., EOW_ID] > 0).all()
    real = probs[..., 4:]
    assert (real > 1e-4).all()  # an untrained model spreads mass over the real symbols
    assert torch.equal(dec.lost_lengths, lost.lengths)


# --------------------------------------------------------------------------- norm control


def test_norm_controlled_residual_function() -> None:
    gen = torch.Generator().manual_seed(0)
    c = torch.randn(50, 16, generator=gen)
    scales = torch.logspace(-3, 3, 50)[:, None]
    h = torch.randn(50, 16, generator=gen) * scales  # from far smaller to far larger than c
    for r in (0.0, 0.2, 1.0, 3.0):
        out = norm_controlled_residual(c, h, r)
        delta = out - c
        delta_norm = delta.norm(dim=-1)
        assert (delta_norm <= r * c.norm(dim=-1) + 1e-5).all()
        # delta = g * h with g = min(r |c| / |h|, 1): never amplified, never turned around.
        g = (delta * h).sum(-1) / (h * h).sum(-1)
        expected_g = torch.clamp(r * c.norm(dim=-1) / h.norm(dim=-1), max=1.0)
        torch.testing.assert_close(g, expected_g, atol=1e-5, rtol=1e-4)
        torch.testing.assert_close(delta, g[:, None] * h, atol=1e-5, rtol=1e-4)
    # Small h passes unchanged (g = 1); large h is cut to exactly r |c|.
    small = norm_controlled_residual(c[:1], 1e-3 * c[:1], 0.2)
    torch.testing.assert_close(small, c[:1] * 1.001)
    big = norm_controlled_residual(c[:1], 1e3 * c[:1], 0.2)
    torch.testing.assert_close(big, c[:1] * 1.2)
    # Degenerate rows: h = 0 leaves c; c = 0 gives 0 (g = 0), not NaN.
    torch.testing.assert_close(norm_controlled_residual(c[:2], torch.zeros(2, 16), 0.2), c[:2])
    zero = norm_controlled_residual(torch.zeros(2, 16), h[:2], 0.2)
    assert torch.equal(zero, torch.zeros(2, 16))
    # Any leading shape: rows are independent.
    batched = norm_controlled_residual(c.view(5, 10, 16), h.view(5, 10, 16), 0.2)
    torch.testing.assert_close(batched.view(50, 16), norm_controlled_residual(c, h, 0.2))


def capture_steps(model: DecipherModel, steps: int):
    """Decode with hooks recording h_rnn's pre-activation and the decoder's input at each step."""
    pre, dec_inputs = [], []
    hooks = [
        model.combine.register_forward_hook(lambda m, args, out: pre.append(out.detach())),
        model.decoder.register_forward_hook(lambda m, args, out: dec_inputs.append(args[0].detach())),
    ]
    lost = lost_batch()
    try:
        with torch.no_grad():
            dec = model(lost.ids, lost.lengths, steps)
    finally:
        for hook in hooks:
            hook.remove()
    d = model.universal.shape[1]
    h_rnn = [F.leaky_relu(p) for p in pre]  # (n, d) per step
    # The decoder's input at step t+1 is [h~_t; e_t]: h~_t is the step-t output before the logits.
    outs = [x[:, :d] for x in dec_inputs[1:]]
    with torch.no_grad():
        c_t = dec.attention @ model.lost_embeddings()[lost.ids]  # (n, T, d)
    return dec, h_rnn, outs, c_t


@pytest.mark.parametrize("ratio", [0.2, 0.05])
def test_forward_applies_norm_control_every_step(ratio: float) -> None:
    model = tiny_model(norm_ratio=ratio)
    steps = 6
    dec, h_rnn, outs, c_t = capture_steps(model, steps)
    assert len(h_rnn) == steps and len(outs) == steps - 1
    for t, out in enumerate(outs):
        c = c_t[:, t]
        rescaled = out - c
        assert (rescaled.norm(dim=-1) <= ratio * c.norm(dim=-1) + 1e-5).all()
        torch.testing.assert_close(out, norm_controlled_residual(c, h_rnn[t], ratio), atol=1e-5, rtol=1e-4)
        # The output layer is tied to E_y: the logged distribution is softmax(h~_t E_y^T).
        logits = out @ model.known_embeddings().T + model.output_mask
        torch.testing.assert_close(dec.log_probs[:, t], torch.log_softmax(logits, -1), atol=1e-4, rtol=0)
    # With an untrained model h_rnn is larger than r |c|, so the gate really is active.
    gate_active = [(h.norm(dim=-1) > ratio * c_t[:, t].norm(dim=-1)).any() for t, h in enumerate(h_rnn)]
    assert any(gate_active)


def test_forward_without_residual_uses_h_rnn() -> None:
    model = tiny_model(residual=False)
    _, h_rnn, outs, _ = capture_steps(model, 5)
    for t, out in enumerate(outs):
        torch.testing.assert_close(out, h_rnn[t], atol=0, rtol=0)


def reference_forward(model: DecipherModel, lost_ids: torch.Tensor, lost_lengths: torch.Tensor, steps: int):
    """The step loop written out independently (with the original inline norm-control code)."""
    e_x, e_y = model.lost_embeddings(), model.known_embeddings()
    n, length = lost_ids.shape
    src = e_x[lost_ids]
    packed = pack_padded_sequence(src, lost_lengths, batch_first=True, enforce_sorted=False)
    enc_packed, (h_n, c_n) = model.encoder(packed)
    enc, _ = pad_packed_sequence(enc_packed, batch_first=True, total_length=length)
    h, c = h_n.sum(0), c_n.sum(0)
    pad = torch.arange(length)[None, :] >= lost_lengths[:, None]
    prev_out, prev_emb = src.new_zeros(n, e_y.shape[1]), e_y[SOW_ID].expand(n, -1)
    log_probs = []
    for _ in range(steps):
        h, c = model.decoder(torch.cat([prev_out, prev_emb], -1), (h, c))
        scores = torch.bmm(enc, model.attn(h).unsqueeze(-1)).squeeze(-1)
        alpha = torch.softmax(scores.masked_fill(pad, float("-inf")), -1)
        ctx = torch.bmm(alpha.unsqueeze(1), enc).squeeze(1)
        h_rnn = F.leaky_relu(model.combine(torch.cat([ctx, h], -1)))
        if model.residual:
            c_t = torch.bmm(alpha.unsqueeze(1), src).squeeze(1)
            ratio = model.norm_ratio * c_t.norm(dim=-1) / h_rnn.norm(dim=-1).clamp_min(1e-8)
            out = c_t + ratio.clamp(max=1.0).unsqueeze(-1) * h_rnn
        else:
            out = h_rnn
        logp = torch.log_softmax(out @ e_y.T + model.output_mask, -1)
        log_probs.append(logp)
        prev_out, prev_emb = out, logp.exp() @ e_y
    return torch.stack(log_probs, 1)


@pytest.mark.parametrize("residual", [True, False])
def test_forward_matches_reference_loop(residual: bool) -> None:
    model = tiny_model(seed=3, residual=residual)
    lost = lost_batch()
    with torch.no_grad():
        got = model(lost.ids, lost.lengths, 6).log_probs
        want = reference_forward(model, lost.ids, lost.lengths, 6)
    torch.testing.assert_close(got, want, atol=1e-6, rtol=0)


# --------------------------------------------------------------------------- attention


def test_attention_rows_sum_to_one_and_skip_padding() -> None:
    model = tiny_model()
    lost = lost_batch()
    with torch.no_grad():
        dec = model(lost.ids, lost.lengths, 6)
    n, width = lost.ids.shape
    assert dec.attention.shape == (n, 6, width)
    torch.testing.assert_close(dec.attention.sum(-1), torch.ones(n, 6), atol=1e-6, rtol=0)
    pad = torch.arange(width)[None, :] >= lost.lengths[:, None]  # (n, L)
    assert pad.any()  # the batch really has padding
    assert torch.equal(
        dec.attention.masked_select(pad[:, None, :].expand_as(dec.attention)), torch.zeros(int(pad.sum()) * 6)
    )
    assert (dec.attention.masked_select(~pad[:, None, :].expand_as(dec.attention)) > 0).all()


# --------------------------------------------------------------------------- init and determinism


def test_same_seed_same_output_and_different_seed_differs() -> None:
    lost = lost_batch()
    with torch.no_grad():
        a = tiny_model(seed=11)(lost.ids, lost.lengths, 5)
        b = tiny_model(seed=11)(lost.ids, lost.lengths, 5)
        c = tiny_model(seed=12)(lost.ids, lost.lengths, 5)
    assert torch.equal(a.log_probs, b.log_probs)
    assert torch.equal(a.attention, b.attention)
    assert not torch.allclose(a.log_probs, c.log_probs)


def test_reset_parameters_reinitialises() -> None:
    model = tiny_model(seed=5)
    h = model.hidden_dim
    for name, p in model.named_parameters():
        if name.startswith(("encoder", "decoder")) and "bias" in name:
            assert torch.equal(p[h : 2 * h], torch.ones(h)), name  # forget gate
            assert not p[:h].any() and not p[2 * h :].any(), name
    # A reset overwrites every parameter: a perturbed model and a fresh one reset from the same RNG
    # state end up identical.
    with torch.no_grad():
        for p in model.parameters():
            p.add_(1.0)
    fresh = tiny_model(seed=6)
    torch.manual_seed(99)
    model.reset_parameters()
    torch.manual_seed(99)
    fresh.reset_parameters()
    for (name, x), y in zip(model.named_parameters(), fresh.parameters(), strict=True):
        assert torch.equal(x, y), name


def test_gradients_reach_every_parameter() -> None:
    model = tiny_model().train()
    lost = lost_batch()
    known = KnownIndex(KNOWN_WORDS, KNOWN_CS, CPU)
    dec = model(lost.ids, lost.lengths, known.steps)
    loss = -known.log_prob(dec.log_probs).logsumexp(0).mean()
    loss.backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all(), name
        assert p.grad.abs().sum() > 0, name


def test_build_model_from_config() -> None:
    cfg = types.SimpleNamespace(
        n_universal=6,
        embed_dim=12,
        hidden_dim=10,
        dropout=0.1,
        residual=False,
        norm_ratio=0.5,
        tie_shared_symbols=False,
    )
    model = build_model(9, 11, cfg)
    assert model.universal.shape == (6, 12)
    assert model.lost_embeddings().shape == (9, 12)
    assert model.known_embeddings().shape == (11, 12)
    assert model.hidden_dim == 10 and model.drop.p == 0.1
    assert model.residual is False and model.norm_ratio == 0.5


def test_shared_symbols_are_tied_at_initialisation_only_when_asked() -> None:
    from tui_decipher.engine.corpora.charset import EOW_ID, Charset, shared_symbols
    from tui_decipher.engine.neural.model import build_model
    from tui_decipher.engine.run.config import DecipherConfig

    lost, known = Charset("abcx"), Charset("bcdy")
    pairs = shared_symbols(lost, known)
    assert pairs == ((EOW_ID, EOW_ID), (lost.index["b"], known.index["b"]), (lost.index["c"], known.index["c"]))
    assert shared_symbols(Charset("ab"), Charset("xy")) == ((EOW_ID, EOW_ID),)
    cfg = DecipherConfig(embed_dim=8, hidden_dim=8, n_universal=4)
    torch.manual_seed(0)
    untied = build_model(len(lost), len(known), cfg, pairs)
    torch.manual_seed(0)
    tied = build_model(len(lost), len(known), cfg.replace(tie_shared_symbols=True), pairs)
    for i, j in pairs:
        assert torch.equal(tied.lost_embeddings()[i], tied.known_embeddings()[j])
        assert not torch.equal(untied.lost_embeddings()[i], untied.known_embeddings()[j])
    # Unshared symbols keep their own initialisation; the periodic reset ties again.
    a, d = lost.index["a"], known.index["d"]
    assert not torch.equal(tied.lost_embeddings()[a], tied.known_embeddings()[d])
    with torch.no_grad():
        tied.known_weight.normal_()
    tied.reset_parameters()
    i, j = pairs[1]
    assert torch.equal(tied.lost_embeddings()[i], tied.known_embeddings()[j])
