"""Tests for the monotonic alignment regularizers (tui_decipher.engine.neural.regularizers)."""

from __future__ import annotations

import pytest
import torch

from tui_decipher.engine.neural.regularizers import (
    expected_positions,
    omega_alphabetic,
    omega_syllabic,
    regularizer,
)

pytestmark = pytest.mark.usefixtures("single_thread")


def one_hot_attention(positions: list[int], width: int) -> torch.Tensor:
    """(1, T, width) attention putting all weight on positions[t] at step t."""
    att = torch.zeros(1, len(positions), width, dtype=torch.float64)
    for t, k in enumerate(positions):
        att[0, t, k] = 1.0
    return att


def lengths(*values: int) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.long)


def reference_omega(attention: torch.Tensor, lost_lengths: torch.Tensor, lag: int) -> torch.Tensor:
    """sum_t w_t (p_t - p_{t-lag} - 1)^2, w_t = clamp(len(x) - 1 - p_{t-lag}, 0, 1), by plain loops."""
    out = []
    for i in range(attention.shape[0]):
        n_chars = int(lost_lengths[i]) - 1  # lost_lengths count the EOW
        p = [-1.0] * lag  # p_0 (and p_{-1}) = -1
        for t in range(attention.shape[1]):
            p.append(sum(k * float(attention[i, t, k]) for k in range(attention.shape[2])))
        total = 0.0
        for t in range(lag, len(p)):
            w = min(max(n_chars - 1 - p[t - lag], 0.0), 1.0)
            total += w * (p[t] - p[t - lag] - 1.0) ** 2
        out.append(total)
    return torch.tensor(out, dtype=torch.float64)


def test_expected_positions() -> None:
    att = torch.tensor([[[0.5, 0.5, 0.0], [0.0, 0.25, 0.75]]])
    torch.testing.assert_close(expected_positions(att), torch.tensor([[0.5, 1.75]]))


def test_diagonal_costs_nothing() -> None:
    # 4 characters + EOW; the decoder reads them in order, then emits EOW while on the EOW slot.
    att = one_hot_attention([0, 1, 2, 3, 4, 4], width=5)
    assert float(omega_alphabetic(att, lengths(5))) == 0.0
    # The same alignment violates Omega_2, which wants two steps per position.
    assert float(omega_syllabic(att, lengths(5))) > 0.0


def test_stretched_diagonal_costs_nothing_under_omega_2() -> None:
    # Each sign attended twice in a row (one syllable -> two letters).
    att = one_hot_attention([0, 0, 1, 1, 2, 2, 3], width=4)
    assert float(omega_syllabic(att, lengths(4))) == 0.0
    # Omega_1: step 2 stays on 0 (cost 1), step 3 catches up (cost 0), step 4 stays (cost 1), ...
    # until the alignment reaches the last character (position 2).
    assert float(omega_alphabetic(att, lengths(4))) == 2.0


def test_hand_computed_example() -> None:
    # 2 lost characters + EOW: len(x) = 2, lost_lengths = 3.
    att = torch.tensor(
        [
            [
                [0.5, 0.5, 0.0],  # p_1 = 0.5
                [0.5, 0.5, 0.0],  # p_2 = 0.5
                [0.0, 0.0, 1.0],  # p_3 = 2.0
            ]
        ],
        dtype=torch.float64,
    )
    # Omega_1, p_0 = -1:
    #   t=1: w = clamp(2-1-(-1)) = 1,   (0.5 + 1 - 1)^2 = 0.25 -> 0.25
    #   t=2: w = clamp(2-1-0.5) = 0.5,  (0.5 - 0.5 - 1)^2 = 1  -> 0.5
    #   t=3: w = clamp(2-1-0.5) = 0.5,  (2 - 0.5 - 1)^2 = 0.25 -> 0.125
    assert float(omega_alphabetic(att, lengths(3))) == pytest.approx(0.875, abs=1e-12)
    # Omega_2, p_0 = p_{-1} = -1:
    #   t=1: w = 1,                      (0.5 + 1 - 1)^2 = 0.25 -> 0.25
    #   t=2: w = 1,                      (0.5 + 1 - 1)^2 = 0.25 -> 0.25
    #   t=3: w = clamp(2-1-p_1) = 0.5,   (2 - 0.5 - 1)^2 = 0.25 -> 0.125
    assert float(omega_syllabic(att, lengths(3))) == pytest.approx(0.625, abs=1e-12)


def test_unweighted_early_steps_match_formula() -> None:
    # A skip on the first step of a long word: p_1 = 2, p_0 = -1 -> (2 + 1 - 1)^2 = 4, weight 1.
    att = one_hot_attention([2], width=6)
    assert float(omega_alphabetic(att, lengths(6))) == 4.0
    # Repeating position 0 twice under Omega_2: p_3 - p_1 - 1 = -1 -> cost 1 (weight 1).
    att = one_hot_attention([0, 0, 0], width=6)
    assert float(omega_syllabic(att, lengths(6))) == 1.0


def test_steps_after_last_character_are_free() -> None:
    # 3 characters + EOW. Once p reaches the last character (2), whatever the decoder does while
    # staying at or past it costs nothing, however long it lingers.
    base = one_hot_attention([0, 1, 2], width=4)
    gen = torch.Generator().manual_seed(0)
    tail = torch.zeros(1, 8, 4, dtype=torch.float64)
    tail[0, :, 2:] = torch.softmax(torch.randn(8, 2, generator=gen, dtype=torch.float64), -1)
    att = torch.cat([base, tail], dim=1)
    assert float(omega_alphabetic(att, lengths(4))) == 0.0
    # An alignment that has not reached the end keeps paying.
    stuck = one_hot_attention([0, 1, 1, 1], width=4)
    assert float(omega_alphabetic(stuck, lengths(4))) == 2.0


def test_padded_batch_matches_reference_and_single_words() -> None:
    gen = torch.Generator().manual_seed(1)
    lost_lengths = lengths(5, 2, 7, 4)
    n, steps, width = 4, 9, 7
    logits = torch.randn(n, steps, width, generator=gen, dtype=torch.float64)
    pad = torch.arange(width)[None, :] >= lost_lengths[:, None]
    att = torch.softmax(logits.masked_fill(pad[:, None, :], float("-inf")), -1)
    for fn, lag in ((omega_alphabetic, 1), (omega_syllabic, 2)):
        got = fn(att, lost_lengths)
        assert got.shape == (n,)
        torch.testing.assert_close(got, reference_omega(att, lost_lengths, lag), atol=1e-10, rtol=0)
        for i in range(n):
            k = int(lost_lengths[i])
            alone = fn(att[i : i + 1, :, :k], lost_lengths[i : i + 1])
            torch.testing.assert_close(alone[0], got[i], atol=1e-12, rtol=0)


def test_regularizer_dispatch() -> None:
    att = one_hot_attention([1, 1, 0], width=4)
    ll = lengths(4)
    assert torch.equal(regularizer("alphabetic", att, ll), omega_alphabetic(att, ll))
    assert torch.equal(regularizer("syllabic", att, ll), omega_syllabic(att, ll))
    assert float(omega_alphabetic(att, ll)) > 0
    none = regularizer("none", att.repeat(3, 1, 1), ll.repeat(3))
    assert torch.equal(none, torch.zeros(3, dtype=att.dtype))
    with pytest.raises(ValueError, match="unknown regularizer"):
        regularizer("cubic", att, ll)


@pytest.mark.parametrize("fn", [omega_alphabetic, omega_syllabic])
def test_gradients_flow(fn) -> None:
    gen = torch.Generator().manual_seed(2)
    logits = torch.randn(3, 5, 6, generator=gen, requires_grad=True)
    att = torch.softmax(logits, -1)
    value = fn(att, lengths(6, 6, 6)).sum()
    value.backward()
    assert logits.grad is not None and torch.isfinite(logits.grad).all()
    assert logits.grad.abs().sum() > 0
    # A small step against the gradient lowers the penalty.
    with torch.no_grad():
        lower = fn(torch.softmax(logits - 0.01 * logits.grad, -1), lengths(6, 6, 6)).sum()
    assert lower < value
