"""The edit channel (`channel_kind = "edit"`): its probabilities, its copy prior, what it learns
from two word lists alone, and a run that deciphers with it."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import torch
from scipy.optimize import linear_sum_assignment

from tui_decipher.engine.channels.edit import DROP, INSERT, STOP, WRITE, EditChannel
from tui_decipher.engine.channels.lattice import NEG
from tui_decipher.engine.channels.scoring import channel_log_probs
from tui_decipher.engine.channels.trainer import fit_channel, new_channel
from tui_decipher.engine.channels.training import ChannelTraining
from tui_decipher.engine.corpora.charset import Charset
from tui_decipher.engine.corpora.corpus import Corpus
from tui_decipher.engine.evaluation.transfer import evaluate_on_corpus
from tui_decipher.engine.methods import run_decipherment
from tui_decipher.engine.run.config import ConfigError, DecipherConfig, apply_overrides


def _logsumexp(values: list[float]) -> float:
    finite = [v for v in values if v > -math.inf]
    if not finite:
        return -math.inf
    top = max(finite)
    return top + math.log(sum(math.exp(v - top) for v in finite))


def _brute_force_log_prob(channel: EditChannel, x: list[int], y: list[int]) -> float:
    """log P(x | y) by enumerating every alignment: before each known letter (and the end) insert
    symbols, then write the letter as one symbol or drop it; stop after the end."""
    operation = channel.log_operations()
    write, insert = channel.log_emissions()
    write = write - operation[:, WRITE, None]  # P(symbol | letter) alone: the walk adds the operation
    insert = insert - operation[:, INSERT, None]

    def walk(m: int, k: int) -> float:
        nxt = y[m] if m < len(y) else channel.none
        paths = []
        if k < len(x):
            paths.append(operation[nxt, INSERT].item() + insert[nxt, x[k]].item() + walk(m, k + 1))
        if m < len(y):
            paths.append(operation[nxt, DROP].item() + walk(m + 1, k))
            if k < len(x):
                paths.append(operation[nxt, WRITE].item() + write[nxt, x[k]].item() + walk(m + 1, k + 1))
        elif k == len(x):
            paths.append(operation[nxt, STOP].item())
        return _logsumexp(paths)

    return walk(0, 0)


def _charsets(lost_symbols: str, known_symbols: str) -> tuple[Charset, Charset]:
    return Charset(lost_symbols), Charset(known_symbols)


def test_edit_channel_probability_is_the_sum_over_every_alignment() -> None:
    lost_cs, known_cs = _charsets("abc", "abd")
    channel = EditChannel(lost_cs, known_cs, torch.Generator().manual_seed(0), 0.7, copy_bias=1.5)
    with torch.no_grad():
        channel.operation.normal_(0.0, 1.0, generator=torch.Generator().manual_seed(1))
    lost_words = [("a", "b"), ("c",), ("a", "c", "b", "b"), ("b", "a", "c")]
    known_words = [("a", "b", "d"), ("d", "d"), ("a",), ("b", "a", "d", "a")]
    lost, lost_len = lost_cs.encode_batch(lost_words, add_eow=False)
    known, known_len = known_cs.encode_batch(known_words, add_eow=False)
    known[known == 0] = channel.none  # the known side is padded with the end
    got = channel.log_prob(lost, lost_len, known, known_len)
    assert got.shape == (4, 4)
    for i, x in enumerate(lost_words):
        for j, y in enumerate(known_words):
            expected = _brute_force_log_prob(channel, lost_cs.encode(x), known_cs.encode(y))
            assert got[i, j].item() == pytest.approx(expected, abs=1e-4), (x, y)


def test_scores_without_a_gradient_are_the_compiled_lattices_and_read_neg_where_it_does() -> None:
    # All-pair scoring needs no gradient and runs the compiled lattice (edit_scores.py): the same
    # sums as the tensors' lattice (which a gradient runs through), to float rounding, and NEG for
    # the same pairs (a final cell below float32's normal range).
    lost_cs, known_cs = _charsets("abcde", "abdfg")
    channel = EditChannel(lost_cs, known_cs, torch.Generator().manual_seed(0), 0.7, copy_bias=1.5)
    with torch.no_grad():
        channel.operation[:, INSERT] = -40.0  # an insertion costs 40 nats: long words of few letters read NEG
    rng = random.Random(3)
    lost_words = [tuple(rng.choice("abcde") for _ in range(rng.randint(1, 9))) for _ in range(40)]
    known_words = [tuple(rng.choice("abdfg") for _ in range(rng.randint(0, 8))) for _ in range(30)]
    lost, lost_len = lost_cs.encode_batch(lost_words, add_eow=False)
    known, known_len = known_cs.encode_batch(known_words, add_eow=False)
    known[known == 0] = channel.none
    tensors = channel.log_prob(lost, lost_len, known, known_len)  # parameters require a gradient
    assert tensors.requires_grad
    with torch.no_grad():
        compiled = channel.log_prob(lost, lost_len, known, known_len)
    impossible = tensors.detach() <= NEG / 2
    assert impossible.any() and not impossible.all()
    assert torch.equal(impossible, compiled <= NEG / 2)
    assert torch.allclose(compiled[~impossible], tensors.detach()[~impossible], rtol=1e-5, atol=1e-4)


def test_edit_channel_probabilities_sum_to_one_over_short_lost_words() -> None:
    # A proper channel: for one known word, P(x | y) over every lost word x sums to 1. Words up to
    # 6 symbols over a 2-symbol alphabet hold almost all the mass when insertions are unlikely.
    lost_cs, known_cs = _charsets("ab", "ab")
    channel = EditChannel(lost_cs, known_cs, torch.Generator().manual_seed(2), 0.5, copy_bias=2.0)
    with torch.no_grad():
        channel.operation[:, INSERT] = -4.0
    words = [()]
    every: list[tuple[str, ...]] = []
    for _ in range(6):
        words = [(*w, s) for w in words for s in "ab"]
        every += words
    lost, lost_len = lost_cs.encode_batch(every, add_eow=False)
    known, known_len = known_cs.encode_batch([("a", "b"), ("b",)], add_eow=False)
    known[known == 0] = channel.none
    with torch.no_grad():
        log_p = channel.log_prob(lost, lost_len, known, known_len)  # (126, 2), the empty word left out
        empty = torch.tensor([_brute_force_log_prob(channel, [], known_cs.encode(y)) for y in (("a", "b"), ("b",))])
    total = torch.logsumexp(torch.cat([log_p, empty[None]]), 0).exp()
    assert total.tolist() == pytest.approx([1.0, 1.0], abs=0.02)
    assert (total <= 1.0 + 1e-5).all()


def sound_change_corpus(n_words: int = 120, seed: int = 0) -> tuple[list, list]:
    """Two alphabets that share most letters: each lost word is its known word after regular sound
    changes, everything else copied. Two are chain shifts ("t" -> "d" while "d" -> "ð", "k" -> "g"
    while "g" -> "ɣ"), so the plain edit distance prefers the wrong known word ("dako" is closer to
    "dako" than to "tako", its source); "o" -> "ue" inserts a letter and a final vowel after "n"
    is lost. Lost word i writes known word i."""
    rng = random.Random(seed)
    consonants, vowels = "ptkbdgmns", "aeiou"
    shift = {"t": "d", "d": "ð", "k": "g", "g": "ɣ", "o": "ue"}
    lost: list[tuple[str, ...]] = []
    known: list[tuple[str, ...]] = []
    seen: set[str] = set()
    while len(known) < n_words:
        text = "".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(rng.randint(2, 3)))
        if text in seen:
            continue
        seen.add(text)
        changed = "".join(shift.get(c, c) for c in text)
        if changed[-2] == "n":
            changed = changed[:-1]
        known.append(tuple(text))
        lost.append(tuple(changed))
    return lost, known


def _matching_accuracy(cost: np.ndarray) -> float:
    rows, cols = linear_sum_assignment(cost)
    return float((rows == cols).mean())


def test_copy_prior_starts_near_an_edit_distance_and_training_learns_the_sound_changes() -> None:
    lost, known = sound_change_corpus()
    lost_cs, known_cs = Charset.from_words(lost), Charset.from_words(known)
    untrained = new_channel("edit", lost_cs, known_cs, torch.Generator().manual_seed(0), copy_bias=3.0)
    before = -channel_log_probs(untrained, lost, known, lost_cs, known_cs).numpy()
    training = ChannelTraining(60, 0.05, 64, seed=5, objective="transport", kind="edit", copy_bias=3.0)
    fit = fit_channel(lost, known, lost_cs, known_cs, training)
    assert fit is not None and isinstance(fit.channel, EditChannel)
    acc_before, acc_after = _matching_accuracy(before), _matching_accuracy(fit.cost)
    assert acc_after >= 0.95 > acc_before  # the trained channel explains what plain copying cannot
    read = fit.channel.character_map(known, lost_cs, known_cs)
    assert read["d"][0][0] == "t" and read["g"][0][0] == "k"  # learned substitutions
    assert read["a"][0][0] == "a"  # copies stay copies
    assert read["u"][0][0] in ("∅", "u")  # "u" is inserted before o -> e, or copied from "u"
    assert {name for name, _ in read["u"]} >= {"∅", "u"}


def test_without_a_copy_prior_the_channel_starts_blind() -> None:
    lost, known = sound_change_corpus(40)
    lost_cs, known_cs = Charset.from_words(lost), Charset.from_words(known)
    blind = new_channel("edit", lost_cs, known_cs, torch.Generator().manual_seed(0), init_scale=0.0, copy_bias=0.0)
    cost = -channel_log_probs(blind, lost, known, lost_cs, known_cs)
    # No prior and no training: a lost word's cost depends on the lengths only, not on the letters.
    same_lengths = [j for j in range(40) if len(known[j]) == len(known[0])]
    assert len(same_lengths) > 1
    assert torch.allclose(cost[0, same_lengths], cost[0, same_lengths[0]].expand(len(same_lengths)))


def test_channel_kind_and_copy_bias_are_config_fields() -> None:
    cfg = apply_overrides(DecipherConfig(), {"channel_kind": "edit", "channel_copy_bias": "2.5"})
    assert (cfg.channel_kind, cfg.channel_copy_bias) == ("edit", 2.5)
    with pytest.raises(ConfigError, match="channel_kind"):
        apply_overrides(DecipherConfig(), {"channel_kind": "syllables"})
    with pytest.raises(ConfigError, match="channel_copy_bias"):
        apply_overrides(DecipherConfig(), {"channel_copy_bias": -1})


def test_method_channel_with_the_edit_kind_deciphers_and_reads_another_corpus(single_thread) -> None:
    lost, known = sound_change_corpus(80, seed=3)
    gold = {i: frozenset({i}) for i in range(len(lost))}
    corpus = Corpus("sound-changes", "lost", "known", lost, known, gold)
    cfg = DecipherConfig(
        method="channel", channel_kind="edit", channel_objective="transport", channel_steps=40, channel_batch=40,
        cognate_fraction=1.0, capacity=1, seed=7,
    )  # fmt: skip
    result = run_decipherment(corpus, cfg)
    assert result.status == "finished" and isinstance(result.fitted.channel, EditChannel)
    assert result.accuracy is not None and result.accuracy >= 0.95
    assert result.char_map["d"][0][0] == "t"
    # The trained channel scores a second list of the same two languages (the transfer path).
    more_lost, more_known = sound_change_corpus(100, seed=3)
    other = Corpus("more", "lost", "known", more_lost[80:], more_known[80:], {i: frozenset({i}) for i in range(20)})
    transferred = evaluate_on_corpus(result, corpus, other)
    assert transferred.accuracy is not None and transferred.accuracy >= 0.9
