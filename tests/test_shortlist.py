"""Shortlists (engine/channels/shortlist.py): on long word lists a channel trains through each lost
word's best known words; the listed plan is the full plan where every word is listed, the lists are
the channel's own best, judgments hold on them, and a shortlisted fit learns what a full one does."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_edit_channel import _matching_accuracy, sound_change_corpus

from tui_decipher.engine.channels import shortlist as shortlist_module
from tui_decipher.engine.channels import trainer
from tui_decipher.engine.channels.scoring import channel_log_probs, encode_both
from tui_decipher.engine.channels.shortlist import draw_shortlist, lists, shortlisted
from tui_decipher.engine.channels.trainer import fit_channel, new_channel
from tui_decipher.engine.channels.training import ChannelTraining
from tui_decipher.engine.channels.transport import listed_transport_plan, transport_plan
from tui_decipher.engine.constraints.review import ReviewConstraints
from tui_decipher.engine.corpora.charset import Charset


def test_the_listed_plan_with_every_known_word_listed_is_the_full_plan() -> None:
    generator = torch.Generator().manual_seed(3)
    n_lost, n_known = 12, 9
    log_p = -3 * torch.rand(n_lost, n_known, generator=generator) - 1  # (n_lost, n_known)
    forced = torch.tensor([2, 7])
    full, (u, v) = transport_plan(log_p, demand=8, capacity=1, iters=80, forced_rows=forced)
    # Each row lists every known word, in its own order.
    cols = torch.stack([torch.randperm(n_known, generator=generator) for _ in range(n_lost)])  # (n_lost, n_known)
    listed, (lu, lv) = listed_transport_plan(log_p.gather(1, cols), cols, n_known, 8, 1, iters=80, forced_rows=forced)
    assert torch.allclose(listed, full.gather(1, cols), atol=1e-5)
    assert torch.allclose(lu, u, atol=1e-4) and torch.allclose(lv, v, atol=1e-4)
    assert abs(float(listed.sum()) - 8) < 1e-3  # D units reach known words
    assert float(listed[forced].sum(1).min()) > 0.999  # a forced word sends its whole unit


def test_a_listed_plan_keeps_the_marginals_on_short_lists() -> None:
    generator = torch.Generator().manual_seed(4)
    n_lost, n_known, m = 30, 50, 4
    cols = torch.stack([torch.randperm(n_known, generator=generator)[:m] for _ in range(n_lost)])  # (n_lost, m)
    log_p = -3 * torch.rand(n_lost, m, generator=generator) - 1
    plan, _ = listed_transport_plan(log_p, cols, n_known, demand=20, capacity=1, iters=200)
    per_known = torch.zeros(n_known).index_add_(0, cols.reshape(-1), plan.reshape(-1))
    assert float(per_known.max()) <= 1 + 1e-3  # no known word over its capacity
    assert float(plan.sum(1).max()) <= 1 + 1e-4  # no lost word sends more than its unit
    assert abs(float(plan.sum()) - 20) < 0.05  # D units reach known words


def _words(n: int = 120, extra: int = 80) -> tuple[list, list, Charset, Charset]:
    """A sound-change corpus whose known list also holds `extra` words no lost word writes."""
    lost, known = sound_change_corpus(n + extra, seed=2)
    lost, known = lost[:n], known
    return lost, known, Charset.from_words(lost), Charset.from_words(known)


def test_a_shortlist_is_each_lost_words_best_known_words_and_accepted_ones_come_first() -> None:
    lost, known, lost_cs, known_cs = _words(40, 60)
    channel = new_channel("edit", lost_cs, known_cs, torch.Generator().manual_seed(0), copy_bias=3.0)
    encoded = encode_both(channel, lost, known, lost_cs, known_cs)
    cols = draw_shortlist(channel, *encoded, size=6)  # (40, 6)
    every = channel_log_probs(channel, lost, known, lost_cs, known_cs)  # (40, 100)
    best = every.topk(6, 1)
    assert torch.allclose(every.gather(1, cols), best.values)
    far = int(every[5].argmin())  # a known word no list would hold
    review = ReviewConstraints(accepted=((5, far),), rejected=())
    judged = draw_shortlist(channel, *encoded, size=6, review=review)
    assert int(judged[5, 0]) == far and len(set(judged[5].tolist())) == 6
    assert torch.equal(judged[6:], cols[6:])


def test_judgments_on_listed_pairs_mask_as_on_every_pair() -> None:
    generator = torch.Generator().manual_seed(5)
    every = -torch.rand(6, 10, generator=generator)  # (6, 10)
    cols = torch.stack([torch.randperm(10, generator=generator)[:4] for _ in range(6)])  # (6, 4)
    review = ReviewConstraints(accepted=((1, int(cols[1, 2])),), rejected=((3, int(cols[3, 0])), (4, 9)))
    masked = review.mask_log_probs(every)
    listed = review.mask_listed(every.gather(1, cols), cols)
    assert torch.equal(listed, masked.gather(1, cols))
    assert float(listed[1, 2]) > -1 and float(listed[1].max(0).values) == float(listed[1, 2])


def test_long_lists_are_shortlisted_and_the_registered_corpora_are_not() -> None:
    assert shortlisted(7235, 39451) and shortlisted(3617, 39451)  # the full Ugaritic list, auto's probe
    assert not shortlisted(2182, 2767) and not shortlisted(735, 4103)  # ugaritic-noiseless, ugaritic-small
    assert not shortlisted(10**6, 100)  # a known list shorter than a shortlist lists every word anyway


def test_a_channel_with_a_copy_prior_lists_from_a_million_pairs_and_others_only_on_long_lists() -> None:
    _, _, lost_cs, known_cs = _words()
    copying = new_channel("edit", lost_cs, known_cs, torch.Generator().manual_seed(0), copy_bias=3.0)
    plain = new_channel("edit", lost_cs, known_cs, torch.Generator().manual_seed(0), copy_bias=0.0)
    pieces = new_channel("pieces", lost_cs, known_cs, torch.Generator().manual_seed(0))
    assert copying.lists_from_start and not plain.lists_from_start and not pieces.lists_from_start
    # ugaritic-noiseless (2182 x 2767) and a 4000 x 4000 pair list with the copy prior, not without it
    assert lists(copying, 2182, 2767) and lists(copying, 4000, 4000)
    assert not lists(plain, 2182, 2767) and not lists(pieces, 4000, 4000)
    assert not lists(copying, 584, 584)  # Romance: its plans over every pair are cheap
    assert not lists(copying, 10**5, 100)  # a known list shorter than a shortlist lists every word anyway
    assert lists(pieces, 7235, 39451)  # a long list: every channel


@pytest.mark.parametrize("objective", ["transport", "lexicon"])
def test_a_shortlisted_fit_learns_the_sound_changes_as_a_full_one_does(monkeypatch, objective) -> None:
    lost, known, lost_cs, known_cs = _words()
    monkeypatch.setattr(shortlist_module, "SHORTLIST_SIZE", 8)  # 8 of 200 known words per lost word
    monkeypatch.setattr(trainer, "REFRESH_EVERY", 20)
    drawn: list[torch.Tensor] = []
    real_draw = trainer.draw_shortlist

    def spy(*args, **kwargs):
        drawn.append(real_draw(*args, **kwargs))
        return drawn[-1]

    monkeypatch.setattr(trainer, "draw_shortlist", spy)

    def fit(shortlist: bool) -> np.ndarray:
        training = ChannelTraining(60, 0.05, 64, seed=5, objective=objective, demand=len(lost), kind="edit",
                                   copy_bias=3.0, shortlist=shortlist)  # fmt: skip
        result = fit_channel(lost, known, lost_cs, known_cs, training)
        assert result is not None
        return result.cost[:, : len(lost)]  # the lost words' own known words and no extras: a square matching

    full = fit(False)
    assert not drawn
    listed = fit(True)
    assert len(drawn) == 3 and drawn[0].shape == (len(lost), 8)  # steps 1, 21, 41
    untrained = new_channel("edit", lost_cs, known_cs, torch.Generator().manual_seed(0), copy_bias=3.0)
    before = -channel_log_probs(untrained, lost, known, lost_cs, known_cs).numpy()[:, : len(lost)]
    assert _matching_accuracy(listed) >= 0.95 > _matching_accuracy(before)
    assert _matching_accuracy(listed) >= _matching_accuracy(full) - 0.02
