"""Tests for the expected edit distance flow cost (tui_decipher.engine.neural.edit_distance)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from rapidfuzz.distance import Indel

from tui_decipher.engine.corpora.charset import EOW_ID, PAD_ID, SOW_ID, UNK_ID
from tui_decipher.engine.neural.edit_distance import expected_edit_distance, ids_to_text, sample_strings

N_CHARS = 10  # 4 specials + 6 real symbols
A, B, C, D, X, Y = 4, 5, 6, 7, 8, 9
IMPOSSIBLE = -1e4  # the model's masked log-probability


pytestmark = pytest.mark.usefixtures("single_thread")


def deterministic_steps(paths: list[list[int]], steps: int) -> torch.Tensor:
    """(n, steps, C) log-probs putting probability 1 on paths[i][t] (EOW after the path)."""
    lp = torch.full((len(paths), steps, N_CHARS), IMPOSSIBLE)
    for i, path in enumerate(paths):
        full = (path + [EOW_ID] * steps)[:steps]
        for t, c in enumerate(full):
            lp[i, t, c] = 0.0
    return lp


def word_log_prob(step_log_probs: torch.Tensor, words: list[list[int]]) -> torch.Tensor:
    """log P(y_j | x_i) = sum_t log p_t(y_j[t]) over the word and its EOW: (n, n_known)."""
    n = step_log_probs.shape[0]
    out = torch.zeros(n, len(words))
    for i in range(n):
        for j, w in enumerate(words):
            out[i, j] = sum(float(step_log_probs[i, t, c]) for t, c in enumerate([*w, EOW_ID]))
    return out


def texts(words: list[list[int]]) -> list[str]:
    return [ids_to_text(w) for w in words]


# ------------------------------------------------------------------------------ ids_to_text


def test_ids_to_text_one_code_point_per_symbol() -> None:
    ids = [A, B, EOW_ID, PAD_ID, 123, A]
    text = ids_to_text(ids)
    assert len(text) == len(ids)
    assert [ord(ch) - 0x100 for ch in text] == ids
    assert ids_to_text(torch.tensor([A, B])) == ids_to_text([A, B])
    assert ids_to_text([]) == ""
    # Distances on the strings are distances on the id sequences.
    u, v = [A, B, C, D], [B, A, D, X, C]
    assert Indel.distance(ids_to_text(u), ids_to_text(v)) == Indel.distance(u, v) == 5


# ------------------------------------------------------------------------------ sampling


def test_deterministic_model_samples_one_string() -> None:
    lp = deterministic_steps([[A, B, C], [D], []], steps=5)
    gen = torch.Generator().manual_seed(0)
    sampled, sample_lp = sample_strings(lp, n_samples=10, sharpen=10.0, generator=gen)
    assert sampled == [[ids_to_text([A, B, C])], [ids_to_text([D])], [""]]
    assert sample_lp.shape == (3, 10)
    assert torch.equal(sample_lp[:, 0], torch.zeros(3))
    assert torch.isneginf(sample_lp[:, 1:]).all()


def test_sample_without_eow_uses_all_steps() -> None:
    lp = torch.full((1, 3, N_CHARS), IMPOSSIBLE)
    lp[0, :, A] = math.log(0.5)
    lp[0, :, B] = math.log(0.5)
    gen = torch.Generator().manual_seed(1)
    sampled, sample_lp = sample_strings(lp, n_samples=16, sharpen=1.0, generator=gen)
    assert len(sampled[0]) > 1
    assert all(len(t) == 3 for t in sampled[0])  # never ended: every step is a symbol
    k = len(sampled[0])
    torch.testing.assert_close(sample_lp[0, :k], torch.full((k,), 3 * math.log(0.5)))


def test_two_strings_and_their_unsharpened_log_probs() -> None:
    # Step 0: A; step 1: EOW or B (0.5 each); step 2: EOW.
    lp = torch.full((1, 3, N_CHARS), IMPOSSIBLE)
    lp[0, 0, A] = 0.0
    lp[0, 1, EOW_ID] = math.log(0.5)
    lp[0, 1, B] = math.log(0.5)
    lp[0, 2, EOW_ID] = 0.0
    gen = torch.Generator().manual_seed(3)
    sampled, sample_lp = sample_strings(lp, n_samples=10, sharpen=10.0, generator=gen)
    assert set(sampled[0]) == {ids_to_text([A]), ids_to_text([A, B])}
    torch.testing.assert_close(sample_lp[0, :2], torch.full((2,), math.log(0.5)))
    assert torch.isneginf(sample_lp[0, 2:]).all()


def test_sharpened_scoring_gives_the_probabilities_samples_were_drawn_with() -> None:
    # Step 1 is 0.8 B / 0.2 EOW. Sharpened by 2: B 0.64 / 0.68 = 0.941, EOW 0.059.
    lp = torch.full((1, 3, N_CHARS), IMPOSSIBLE)
    lp[0, 0, A] = 0.0
    lp[0, 1, B] = math.log(0.8)
    lp[0, 1, EOW_ID] = math.log(0.2)
    lp[0, 2, EOW_ID] = 0.0
    gen = torch.Generator().manual_seed(5)
    sampled, model_lp = sample_strings(lp, n_samples=40, sharpen=2.0, generator=gen)
    gen = torch.Generator().manual_seed(5)
    same, sharp_lp = sample_strings(lp, n_samples=40, sharpen=2.0, generator=gen, score_sharpened=True)
    assert same == sampled and set(sampled[0]) == {ids_to_text([A]), ids_to_text([A, B])}
    expect_model = {ids_to_text([A]): math.log(0.2), ids_to_text([A, B]): math.log(0.8)}
    expect_sharp = {ids_to_text([A]): math.log(0.04 / 0.68), ids_to_text([A, B]): math.log(0.64 / 0.68)}
    for k, text in enumerate(sampled[0]):
        assert float(model_lp[0, k]) == pytest.approx(expect_model[text], abs=1e-5)
        assert float(sharp_lp[0, k]) == pytest.approx(expect_sharp[text], abs=1e-5)


def test_sharpening_concentrates_samples() -> None:
    lp = torch.full((1, 2, N_CHARS), IMPOSSIBLE)
    lp[0, 0, A] = math.log(0.6)
    lp[0, 0, B] = math.log(0.4)
    lp[0, 1, EOW_ID] = 0.0
    gen = torch.Generator().manual_seed(4)
    many, _ = sample_strings(lp.expand(400, -1, -1), n_samples=1, sharpen=10.0, generator=gen)
    draws = [strings[0] for strings in many]
    share_a = draws.count(ids_to_text([A])) / len(draws)
    # softmax(10 log p) gives A probability 0.6^10 / (0.6^10 + 0.4^10) ~ 0.983, not 0.6.
    assert share_a > 0.95
    sampled, sample_lp = sample_strings(lp, n_samples=2000, sharpen=1.0, generator=gen)
    assert set(sampled[0]) == {ids_to_text([A]), ids_to_text([B])}
    got = dict(zip(sampled[0], sample_lp[0].tolist(), strict=False))
    assert got[ids_to_text([A])] == pytest.approx(math.log(0.6), abs=1e-6)  # model, not sharpened
    assert got[ids_to_text([B])] == pytest.approx(math.log(0.4), abs=1e-6)


def test_sample_log_probs_match_the_model_on_random_distributions() -> None:
    gen = torch.Generator().manual_seed(5)
    logits = torch.randn(4, 6, N_CHARS, generator=gen)
    logits[..., [PAD_ID, SOW_ID, UNK_ID]] = IMPOSSIBLE
    lp = torch.log_softmax(logits, -1)
    sampled, sample_lp = sample_strings(lp, n_samples=12, sharpen=2.0, generator=gen)
    for i, strings in enumerate(sampled):
        assert len(set(strings)) == len(strings)  # distinct
        assert torch.isfinite(sample_lp[i, : len(strings)]).all()
        assert torch.isneginf(sample_lp[i, len(strings) :]).all()
        for k, text in enumerate(strings):
            ids = [ord(ch) - 0x100 for ch in text]
            assert EOW_ID not in ids
            scored = ids + ([EOW_ID] if len(ids) < 6 else [])
            want = sum(float(lp[i, t, c]) for t, c in enumerate(scored))
            assert float(sample_lp[i, k]) == pytest.approx(want, abs=1e-4)


# ------------------------------------------------------------------------------ expected edit distance


def test_deterministic_model_gives_plain_normalised_indel() -> None:
    lp = deterministic_steps([[A, B, C]], steps=6)
    sampled, sample_lp = sample_strings(lp, 10, 10.0, generator=torch.Generator().manual_seed(0))
    known = [[A, B, C], [A, B, D], [A, B], [X, A, B, C], [C, B, A], [X, Y]]
    log_prob = word_log_prob(lp, known)
    assert float(log_prob[0, 0]) == 0.0 and (log_prob[0, 1:] <= IMPOSSIBLE).all()
    d = expected_edit_distance(log_prob, sampled, sample_lp, texts(known))
    assert d.shape == (1, len(known)) and d.dtype == torch.float32
    # Indel (insert/delete 1, substitute 2) / (min(len) + 1), computed by hand:
    expected = [
        0.0,  # abc = abc
        2 / 4,  # abc -> abd: delete c, insert d
        1 / 3,  # abc -> ab: delete c; min length 2
        1 / 4,  # abc -> xabc: insert x
        4 / 4,  # abc -> cba: longest common subsequence 1, so 2 deletions + 2 insertions
        5 / 3,  # abc -> xy: nothing in common, 3 + 2; min length 2
    ]
    torch.testing.assert_close(d[0], torch.tensor(expected), atol=1e-6, rtol=0)
    for j, w in enumerate(known):
        plain = Indel.distance(texts([[A, B, C]])[0], ids_to_text(w)) / (min(3, len(w)) + 1)
        assert float(d[0, j]) == pytest.approx(plain, abs=1e-6)


def test_weighted_candidates_by_hand() -> None:
    # Lost word 0 sampled "abc" (p = 0.6) and "ab" (p = 0.2); S = 3, so one slot is padding.
    sample_texts = [["abc", "ab"]]
    sample_lp = torch.tensor([[math.log(0.6), math.log(0.2), float("-inf")]])
    known = ["abc", "abd", "xyz", "ab"]
    log_prob = torch.tensor([[math.log(0.6), math.log(0.2), math.log(0.4), math.log(0.9)]])
    d = expected_edit_distance(log_prob, sample_texts, sample_lp, known)
    expected = [
        # y = abc was sampled: candidates {abc, ab}, weights 0.75 / 0.25; d(ab, abc) = 1 / 3.
        0.25 * (1 / 3),
        # y = abd joins with its own 0.2: weights 0.6, 0.2, 0.2 over abc, ab, abd.
        0.6 * (2 / 4) + 0.2 * (1 / 3) + 0.2 * 0.0,
        # y = xyz joins with 0.4: weights 0.5, 1/6, 1/3; d(abc, xyz) = 6/4, d(ab, xyz) = 5/3.
        0.5 * (6 / 4) + (1 / 6) * (5 / 3),
        # y = ab was sampled, so its log_prob (0.9) is NOT added again: weights 0.75, 0.25.
        0.75 * (1 / 3) + 0.25 * 0.0,
    ]
    torch.testing.assert_close(d[0], torch.tensor(expected, dtype=torch.float32), atol=1e-6, rtol=0)


def test_columns_and_chunking_agree_with_full_result() -> None:
    gen = torch.Generator().manual_seed(6)
    logits = torch.randn(7, 6, N_CHARS, generator=gen)
    logits[..., [PAD_ID, SOW_ID, UNK_ID]] = IMPOSSIBLE
    logits[:, 3:, EOW_ID] += 3.0  # most samples end after 3-5 symbols
    lp = torch.log_softmax(logits, -1)
    known = [[A, B], [C], [A, C, D, X], [Y, Y, A], [B, A, C, D, X], [D, D], [X, A, B]]
    log_prob = word_log_prob(lp, known)
    sampled, sample_lp = sample_strings(lp, n_samples=8, sharpen=3.0, generator=gen)
    # Make one known word a sample of lost word 0, so the "already sampled" path is exercised.
    known.append([ord(ch) - 0x100 for ch in sampled[0][0]])
    log_prob = word_log_prob(lp, known)
    full = expected_edit_distance(log_prob, sampled, sample_lp, texts(known))
    assert full.shape == (7, len(known))
    assert (full >= 0).all() and torch.isfinite(full).all()
    columns = np.array([5, 0, 7, 2])
    sub = expected_edit_distance(log_prob, sampled, sample_lp, texts(known), columns=columns)
    torch.testing.assert_close(sub, full[:, torch.as_tensor(columns)], atol=1e-6, rtol=0)
    for chunk in (1, 8 * len(known) * 2, 8 * len(known) * 3 + 1):
        chunked = expected_edit_distance(log_prob, sampled, sample_lp, texts(known), chunk_elements=chunk)
        torch.testing.assert_close(chunked, full, atol=1e-6, rtol=0)
    # The brute-force definition, candidate by candidate.
    for i in range(7):
        for j, word in enumerate(known):
            target = ids_to_text(word)
            cands = {t: float(sample_lp[i, k]) for k, t in enumerate(sampled[i])}
            cands.setdefault(target, float(log_prob[i, j]))
            z = torch.logsumexp(torch.tensor(list(cands.values()), dtype=torch.float64), 0)
            want = sum(
                math.exp(lpk - float(z)) * Indel.distance(t, target) / (min(len(t), len(target)) + 1)
                for t, lpk in cands.items()
            )
            assert float(full[i, j]) == pytest.approx(want, abs=1e-5), (i, j)
