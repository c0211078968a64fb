"""The character channel behind `init_flow = "channel"`: its probabilities, what it learns, and
how the EM loop uses it."""

from __future__ import annotations

import dataclasses
import math
import random
import threading
from pathlib import Path

import pytest
import torch

from tui_decipher.engine.channels.lattice import NEG
from tui_decipher.engine.channels.pieces import DROP, GAP, ONE, TWO, CharacterChannel
from tui_decipher.engine.channels.scoring import channel_log_probs
from tui_decipher.engine.channels.step_scores import PlanSupport, plan_support
from tui_decipher.engine.channels.trainer import fit_channel
from tui_decipher.engine.channels.training import ChannelTraining, Saving, TrainingState, losses_settled, settled
from tui_decipher.engine.channels.transport import (
    _kernel_sweeps,
    _log_sweeps,
    _masses,
    listed_transport_plan,
    no_cognate_scores,
    transport_plan,
)
from tui_decipher.engine.corpora.charset import Charset
from tui_decipher.engine.corpora.corpus import Corpus
from tui_decipher.engine.evaluation.transfer import evaluate_on_corpus
from tui_decipher.engine.methods import neural_em, run_decipherment
from tui_decipher.engine.methods.channel_results import ChannelFitted
from tui_decipher.engine.run.adam import Adam
from tui_decipher.engine.run.config import ConfigError, preset
from tui_decipher.engine.run.events import ChannelStep, EpochEnd, RunStarted
from tui_decipher.tui.live import LiveRun

DATA = Path(__file__).parent / "data"


def syllabary_corpus(n_words: int = 150, n_unpaired: int = 60, seed: int = 0) -> tuple[list, list]:
    """A toy syllabic script: each known word is 2-4 CV or V syllables (Zipf-distributed), and
    sometimes a final "s" that the script does not write; each lost word writes one syllable per
    sign. Lost word i is the writing of known word i; the last `n_unpaired` known words have none."""
    rng = random.Random(seed)
    syllables = [c + v for c in "ptkmn" for v in "aio"] + list("aio")
    weights = [1.0 / (rank + 1) for rank in range(len(syllables))]
    sign = {s: chr(0x10000 + k) for k, s in enumerate(syllables)}
    lost: list[tuple[str, ...]] = []
    known: list[tuple[str, ...]] = []
    seen: set[str] = set()
    while len(known) < n_words + n_unpaired:
        word = rng.choices(syllables, weights, k=rng.randint(2, 4))
        paired = len(lost) < n_words
        text = "".join(word) + ("s" if paired and rng.random() < 0.4 else "")
        if text in seen:
            continue
        seen.add(text)
        known.append(tuple(text))
        if paired:
            lost.append(tuple(sign[s] for s in word))
    return lost, known


def _brute_force_log_prob(channel: CharacterChannel, x: list[int], y: list[int]) -> float:
    """log P(x | y) by enumerating every way of cutting y into dropped letters and pieces."""
    action = torch.log_softmax(channel.action, -1)

    def emit(a: int, b: int, symbol: int) -> float:
        return torch.log_softmax(channel.first[a] + channel.second[b], -1)[symbol].item()

    def walk(m: int, k: int) -> float:
        if m == len(y):
            return 0.0 if k == len(x) else -math.inf
        paths = [action[y[m], DROP].item() + walk(m + 1, k)]
        if k < len(x):
            paths.append(action[y[m], ONE].item() + emit(y[m], channel.none, x[k]) + walk(m + 1, k + 1))
            if m + 1 < len(y):
                paths.append(action[y[m], TWO].item() + emit(y[m], y[m + 1], x[k]) + walk(m + 2, k + 1))
            if m + 2 < len(y):  # a gapped piece: y[m + 1] unwritten, the symbol y[m], y[m + 2]'s
                paths.append(action[y[m], GAP].item() + emit(y[m], y[m + 2], x[k]) + walk(m + 3, k + 1))
        return (
            math.log(sum(math.exp(p) for p in paths if p > -math.inf))
            if any(p > -math.inf for p in paths)
            else -math.inf
        )

    return walk(0, 0)


def test_channel_probability_is_the_sum_over_every_segmentation() -> None:
    channel = CharacterChannel(6, 5, torch.Generator().manual_seed(0))
    with torch.no_grad():
        channel.action.normal_(0.0, 1.0, generator=torch.Generator().manual_seed(1))
    lost_words = [[4, 5], [5], [4, 4, 5]]
    known_words = [[0, 1, 2], [3, 3], [0, 1, 2, 3], [2]]
    lost = torch.full((3, 3), 0, dtype=torch.long)
    known = torch.full((4, 4), channel.none, dtype=torch.long)
    for i, w in enumerate(lost_words):
        lost[i, : len(w)] = torch.tensor(w)
    for j, w in enumerate(known_words):
        known[j, : len(w)] = torch.tensor(w)
    got = channel.log_prob(lost, torch.tensor([2, 1, 3]), known, torch.tensor([3, 2, 4, 1]))
    assert got.shape == (3, 4)
    for i, x in enumerate(lost_words):
        for j, y in enumerate(known_words):
            expected = _brute_force_log_prob(channel, x, y)
            if expected == -math.inf:  # more lost symbols than known letters: impossible
                assert got[i, j].item() < -1000, (x, y)
            else:
                assert got[i, j].item() == pytest.approx(expected, abs=1e-4), (x, y)


def test_scores_without_a_gradient_are_the_compiled_lattices_and_read_neg_where_it_does() -> None:
    # All-pair scoring needs no gradient and runs the compiled lattice (pieces_scores.py): the same
    # sums as the tensors' lattice (which a gradient runs through), to float rounding, and NEG for
    # the same pairs (no path, or a final cell below float32's normal range).
    channel = CharacterChannel(7, 6, torch.Generator().manual_seed(4), 0.7)
    with torch.no_grad():
        channel.action[:, DROP] = -40.0  # a dropped letter costs 40 nats: long known words read NEG
    rng = random.Random(5)
    lost_words = [[rng.randrange(7) for _ in range(rng.randint(1, 7))] for _ in range(40)]
    known_words = [[rng.randrange(6) for _ in range(rng.randint(0, 9))] for _ in range(30)]
    lost = torch.zeros(40, 7, dtype=torch.long)
    known = torch.full((30, 9), channel.none, dtype=torch.long)
    for i, w in enumerate(lost_words):
        lost[i, : len(w)] = torch.tensor(w, dtype=torch.long)
    for j, w in enumerate(known_words):
        known[j, : len(w)] = torch.tensor(w, dtype=torch.long)
    lost_len = torch.tensor([len(w) for w in lost_words])
    known_len = torch.tensor([len(w) for w in known_words])
    tensors = channel.log_prob(lost, lost_len, known, known_len)  # parameters require a gradient
    assert tensors.requires_grad
    with torch.no_grad():
        compiled = channel.log_prob(lost, lost_len, known, known_len)
    impossible = tensors.detach() <= NEG / 2
    assert impossible.any() and (~impossible).sum() > 200
    assert torch.equal(impossible, compiled <= NEG / 2)
    assert torch.allclose(compiled[~impossible], tensors.detach()[~impossible], rtol=1e-5, atol=1e-4)
    i, j = next((i, j) for i in range(40) for j in range(30) if not impossible[i, j])
    assert compiled[i, j].item() == pytest.approx(_brute_force_log_prob(channel, lost_words[i], known_words[j]),
                                                  abs=1e-4)  # fmt: skip


def test_channel_scores_in_blocks_as_it_scores_the_whole_table() -> None:
    lost, known = syllabary_corpus(40, 10)
    lost_charset, known_charset = Charset.from_words(lost), Charset.from_words(known)
    channel = CharacterChannel(len(lost_charset), len(known_charset), torch.Generator().manual_seed(3), 0.5)
    whole = channel_log_probs(channel, lost, known, lost_charset, known_charset, max_pairs=10**9)
    blocks = channel_log_probs(channel, lost, known, lost_charset, known_charset, max_pairs=7)  # 40 x 1 blocks
    assert whole.shape == (40, 50) and torch.isfinite(whole).all()
    assert torch.allclose(whole, blocks, atol=1e-5)  # words sorted by length land back in their rows
    for i, j in ((0, 0), (3, 17), (39, 49)):
        x, y = lost_charset.encode(lost[i]), known_charset.encode(known[j])
        assert whole[i, j].item() == pytest.approx(_brute_force_log_prob(channel, x, y), abs=1e-4)


def test_channel_learns_a_syllabic_map_without_gold() -> None:
    lost, known = syllabary_corpus()
    lost_charset, known_charset = Charset.from_words(lost), Charset.from_words(known)

    def matched(steps: int) -> float:
        fit = fit_channel(lost, known, lost_charset, known_charset, ChannelTraining(steps, 0.05, 64, seed=3))
        assert fit is not None and fit.cost.shape == (len(lost), len(known))
        return sum(int(fit.cost[i].argmin()) == i for i in range(len(lost))) / len(lost)

    assert matched(1) < 0.2  # an untrained channel is no better than chance
    assert matched(150) >= 0.8  # trained on the lexicon objective alone, it finds the map


def test_transport_plan_sends_d_units_within_capacity() -> None:
    # 6 lost x 10 known words: lost 0-2 are clearly written by known 0-2, lost 3-5 by nothing in
    # particular, and known 3 is an "easy" word that every lost word likes more than the rest.
    log_p = torch.full((6, 10), -20.0)
    log_p[:, 3] = -17.0
    for i in range(3):
        log_p[i, i] = -5.0
    plan, potentials = transport_plan(log_p, demand=3, capacity=1, iters=500)
    assert plan.shape == (6, 10)
    assert torch.all(plan.sum(1) <= 1 + 1e-4) and torch.all(plan.sum(0) <= 1 + 1e-4)
    assert plan.sum().item() == pytest.approx(3.0, abs=1e-3)  # D units reach known words
    for i in range(3):
        assert plan[i, i] / plan[i].sum() > 0.99  # a clear pair's share is its partner's
    # The posterior gives the easy word 2.1 units of the unpaired words alone (e^3 / (e^3 + 9)
    # each); the plan lets it take C = 1 at most, from every word.
    assert torch.softmax(log_p[3:], 1)[:, 3].sum() > 2.0
    assert plan[:, 3].sum() <= 1 + 1e-4
    # A warm start from the potentials gives the same plan in fewer sweeps.
    again, _ = transport_plan(log_p, demand=3, capacity=1, iters=5, potentials=potentials)
    assert torch.allclose(again, plan, atol=1e-4)
    wider, _ = transport_plan(log_p, demand=3, capacity=3, iters=500)
    assert torch.all(wider.sum(0) <= 3 + 1e-4) and wider.sum().item() == pytest.approx(3.0, abs=1e-3)


def test_kernel_sweeps_give_the_log_space_potentials() -> None:
    # A plan's sweeps run through the kernel exp(scores - row max) as matrix-vector products; they
    # must give the potentials the log-space sweeps give, impossible pairs (NEG) and a reviewer's
    # forced rows included, and hand back (None) where the potentials lie too far apart for it.
    generator = torch.Generator().manual_seed(7)
    log_p = -3.0 - 40.0 * torch.rand(40, 60, generator=generator)
    log_p[0] = NEG  # a word no known word can write
    log_p[:, 5] = NEG  # a known word no lost word comes from
    for d, c in ((13, 1), (40, 1), (20, 3)):
        for rule in ("average", "chance"):
            plan, (u, v) = transport_plan(log_p, d, c, iters=300, forced_rows=torch.tensor([1, 2]), no_cognate=rule)
            scores = torch.zeros(41, 61)
            scores[:40, :60] = log_p
            scores[:40, 60] = no_cognate_scores(log_p, 60, rule)
            scores[40, 60] = NEG
            scores[[1, 2], 60] = NEG
            rows, cols = _masses(40, 60, d, c, torch.device("cpu"))
            lu, lv = _log_sweeps(scores, rows, cols, torch.zeros(41), torch.zeros(61), 300)
            assert torch.allclose(v, lv, atol=1e-3) and torch.allclose(u, lu, atol=1e-3)
            assert float(plan.sum()) == pytest.approx(d, abs=1e-2)
    far = torch.zeros(61)
    far[60] = 5000.0  # "no cognate" 5000 nats above the known words: the slack row's sum underflows
    assert _kernel_sweeps(scores, rows, cols, far, 10) is None


def test_no_cognate_at_chance_level_keeps_words_without_a_cognate_out_of_the_plan() -> None:
    # Lost 0-1 are written by known 0-1 (-1 nats, every other word -10); lost 2-3 have no cognate:
    # two known words each fit them by chance (-5 and -5.2). D = 2, the words with a cognate.
    log_p = torch.full((4, 6), -10.0)
    log_p[0, 0] = log_p[1, 1] = -1.0
    log_p[2, 2] = log_p[3, 3] = -5.0
    log_p[2, 4] = log_p[3, 5] = -5.2
    assert no_cognate_scores(log_p, 6, "chance").tolist() == pytest.approx([-10.0, -10.0, -5.2, -5.2])
    # "No cognate" at a word's average known word: every best pair beats it, and the words without
    # a cognate, with two fair candidates each, send more of their units to known words than the
    # words with one do.
    average, _ = transport_plan(log_p, demand=2, capacity=1, iters=500)
    assert float(average[2:].sum()) > float(average[:2].sum())
    # At chance level (the second-best known word) the cognates carry the plan.
    chance, _ = transport_plan(log_p, demand=2, capacity=1, iters=500, no_cognate="chance")
    assert float(chance[:2].sum(1).min()) > 0.9 and float(chance[2:].sum()) < 0.2
    assert float(chance.sum()) == pytest.approx(2.0, abs=1e-3)  # still D units
    # The listed plan scores "no cognate" alike (every known word listed: the same plan).
    cols = torch.arange(6).expand(4, 6)
    listed, _ = listed_transport_plan(log_p, cols, 6, 2, 1, iters=500, no_cognate="chance")
    assert torch.allclose(listed, chance, atol=1e-4)


def test_plan_support_keeps_each_words_heaviest_pairs_within_the_tolerance() -> None:
    weights = torch.tensor([
        [0.0005, 0.9, 0.0004, 0.05, 0.0],  # keeps 0.9 and 0.05: 0.0009 left out
        [0.2, 0.2, 0.2, 0.2, 0.2],  # a diffuse plan keeps every pair
        [0.0, 0.0, 0.0, 0.0, 0.0],  # a word the plan sends nowhere keeps one pair, of weight 0
    ])  # fmt: skip
    row, col, weight = plan_support(weights, tolerance=1e-3)
    kept = {(int(r), int(c)): float(w) for r, c, w in zip(row, col, weight, strict=True)}
    assert {k for k in kept if k[0] == 0} == {(0, 1), (0, 3)}
    assert {k for k in kept if k[0] == 1} == {(1, j) for j in range(5)}
    assert len([k for k in kept if k[0] == 2]) == 1 and kept[next(k for k in kept if k[0] == 2)] == 0.0
    for (r, c), w in kept.items():
        assert w == pytest.approx(float(weights[r, c]))
    for r in range(3):  # what each word leaves out is within the tolerance
        assert float(weights[r].sum()) - sum(w for (i, _), w in kept.items() if i == r) <= 1e-3 + 1e-7


def test_a_plans_support_sorted_once_gives_each_batch_its_own_support() -> None:
    # A plan serves several steps: its support is sorted once (`PlanSupport`) and each batch's read
    # from it, repeated words included, as `plan_support` of the batch's rows gives it.
    g = torch.Generator().manual_seed(4)
    plan = torch.rand(12, 30, generator=g) ** 8  # mostly narrow rows
    plan[3] = 1.0 / 30  # a diffuse row keeps every pair
    plan[5] = 0.0  # a word sent nowhere keeps one pair
    plan = plan / plan.sum(1, keepdim=True).clamp_min(1e-9)
    support = PlanSupport(plan)
    for idx in (torch.tensor([0, 3, 3, 11, 5, 7]), torch.randint(0, 12, (20,), generator=g), torch.tensor([5])):
        for got, expected in zip(support.of(idx), plan_support(plan[idx]), strict=True):
            assert torch.equal(got, expected)


def test_transport_objective_finds_the_map_where_half_the_lost_words_have_no_cognate() -> None:
    # Known words 0-59 are written by lost words 0-59; lost words 60-119 write words that are not
    # in the known list (the linear-b-names situation: no name to explain them).
    written, words = syllabary_corpus(120, 0, seed=5)
    lost, known = written, words[:60]
    lost_charset, known_charset = Charset.from_words(lost), Charset.from_words(known)
    fit = fit_channel(
        lost, known, lost_charset, known_charset,
        ChannelTraining(150, 0.05, 64, seed=3, objective="transport", demand=60, capacity=1),
    )  # fmt: skip
    assert fit is not None and fit.cost.shape == (120, 60)
    assert sum(int(fit.cost[i].argmin()) == i for i in range(60)) / 60 >= 0.8


def test_fit_channel_stops_when_asked() -> None:
    lost, known = syllabary_corpus(20, 5)
    calls: list[int] = []
    fit = fit_channel(
        lost, known, Charset.from_words(lost), Charset.from_words(known), ChannelTraining(50, 0.05, 8, seed=0),
        on_step=lambda step, loss: calls.append(step), should_stop=lambda: len(calls) >= 2,
    )  # fmt: skip
    assert fit is None and calls == [1, 2]


def test_settled_compares_the_plans_objective_across_settle_steps() -> None:
    rising = [(1 + 5 * k, -5.0 + 0.1 * k) for k in range(11)]  # 0.1 nats a plan: 1.0 over 50 steps
    assert not settled(rising, 0.5) and settled(rising, 1.5)
    assert not settled(rising[:10], 1.5)  # not yet 50 steps of plans to compare
    assert not settled(rising, 0.0)  # 0: never settles
    flat = rising + [(56 + 5 * k, -4.0) for k in range(10)]
    assert settled(flat, 0.05)


def test_the_lexicons_losses_settle_by_the_means_of_two_windows_of_settle_steps() -> None:
    # (step, -loss): losses falling 0.01 nats a step, then flat but noisy (+-0.5 a step).
    falling = [(k + 1, -10.0 + 0.01 * k) for k in range(100)]
    assert not losses_settled(falling[:99], 1e9)  # not yet two windows of 50 steps to compare
    assert losses_settled(falling, 0.6) and not losses_settled(falling, 0.4)  # the means are 0.5 apart
    assert not losses_settled(falling, 0.0)  # 0: never settles
    noisy = falling + [(101 + k, -9.0 + (0.5 if k % 2 else -0.5)) for k in range(100)]
    assert losses_settled(noisy, 0.05)  # one step's noise is ten times the tolerance; the means are flat


def test_a_lexicon_training_stops_once_its_losses_settle_and_resumes_to_the_same_channel() -> None:
    """The lexicon objective has no plan: with `settle`, it stops where its batch losses' means
    have settled; a training resumed from a save stops where the uninterrupted one stops, with
    the same channel (the losses so far are part of the saved state)."""
    lost, known = syllabary_corpus(60, 20, seed=2)
    charsets = Charset.from_words(lost), Charset.from_words(known)
    training = ChannelTraining(400, 0.05, 16, seed=1, objective="lexicon", settle=1e9)
    steps: list[int] = []
    fit = fit_channel(lost, known, *charsets, training, on_step=lambda step, loss: steps.append(step))
    assert fit is not None and steps == list(range(1, 101))  # two windows of 50 steps: compared after 100
    moderate = dataclasses.replace(training, settle=0.05)
    saved: list[TrainingState] = []
    steps.clear()
    whole = fit_channel(
        lost, known, *charsets, moderate, saving=Saving(saved.append), on_step=lambda s, _l: steps.append(s)
    )
    stopped_at = steps[-1]
    assert whole is not None and 100 < stopped_at < 400 and saved  # it settled, after a save
    resumed = fit_channel(lost, known, *charsets, moderate, saving=Saving(lambda _s: None, resume_from=saved[-1]),
                          on_step=lambda s, _l: steps.append(s))  # fmt: skip
    assert resumed is not None and steps[-1] == stopped_at
    assert all(torch.equal(v, resumed.channel.state_dict()[k]) for k, v in whole.channel.state_dict().items())
    # Without `settle` it trains every step.
    steps.clear()
    never = dataclasses.replace(training, settle=0.0)
    fit_channel(lost, known, *charsets, never, on_step=lambda s, _l: steps.append(s))
    assert steps[-1] == 400


def test_a_settling_training_stops_early_and_resumes_to_the_same_channel() -> None:
    """With `settle`, training stops where the plan's objective has settled (a huge tolerance: at
    the first step where 50 steps of plans can be compared); a training resumed from its last save
    stops where the uninterrupted one stops, with the same channel (the plans' objectives are part
    of the saved state)."""
    lost, known = syllabary_corpus(60, 20, seed=2)
    charsets = Charset.from_words(lost), Charset.from_words(known)
    training = ChannelTraining(300, 0.05, 16, seed=1, objective="transport", demand=60, settle=1e9)
    steps: list[int] = []
    fit = fit_channel(lost, known, *charsets, training, on_step=lambda step, loss: steps.append(step))
    assert fit is not None and steps == list(range(1, 52))  # plans at steps 1 and 51: compared after 51
    moderate = dataclasses.replace(training, settle=0.3)  # it rises 0.4 nats from step 126 to 176
    saved: list[TrainingState] = []
    whole = fit_channel(
        lost, known, *charsets, moderate, saving=Saving(saved.append), on_step=lambda s, _l: steps.append(s)
    )
    stopped_at = steps[-1]
    assert whole is not None and 101 < stopped_at < 300 and len(saved) >= 2  # it settled, after saving twice
    resumed = fit_channel(lost, known, *charsets, moderate, saving=Saving(lambda _s: None, resume_from=saved[-1]),
                          on_step=lambda s, _l: steps.append(s))  # fmt: skip
    assert resumed is not None and steps[-1] == stopped_at
    assert all(torch.equal(v, resumed.channel.state_dict()[k]) for k, v in whole.channel.state_dict().items())


def _channel_context(**changes) -> tuple[neural_em.EMContext, list[object]]:
    # A 3-step channel from a wide start (scale 0.5): its costs differ enough between known words
    # that every lost word's top 5 reach a full one-to-one matching (a near-symmetric start ties).
    lost, known = syllabary_corpus(30, 10)
    corpus = Corpus("syllabary", "l", "k", tuple(lost), tuple(known), {i: frozenset({i}) for i in range(30)})
    fields = dict(channel_steps=3, channel_batch=16, channel_init_scale=0.5) | changes
    cfg = preset("demo").replace(
        embed_dim=8, hidden_dim=8, n_universal=4, device="cpu", capacity=1, top_k=5, cognate_fraction=1.0,
        init_flow="channel", flow_decay=0.5, **fields,
    )  # fmt: skip
    events: list[object] = []
    return neural_em.prepare(corpus, cfg, events.append, threading.Event()), events


def test_channel_initial_flow_is_a_decayed_matching(single_thread) -> None:
    ctx, events = _channel_context()
    flow = neural_em.initial_flow(ctx)
    steps = [e for e in events if isinstance(e, ChannelStep)]
    assert [e.step for e in steps] == [1, 2, 3] and all(e.steps == 3 for e in steps)
    uniform = 30 / (30 * 40)
    assert flow.sum().item() == pytest.approx(30.0)  # the decay keeps the total mass N
    matched = flow > 0.5 * uniform + 1e-6
    assert matched.sum().item() == 30  # D = N = 30 pairs, one-to-one (C = 1)
    assert (matched.sum(1) == 1).all() and (matched.sum(0) <= 1).all()
    # The same seed trains the same channel: the flow is repeatable.
    again, _ = _channel_context()
    assert torch.equal(neural_em.initial_flow(again), flow)


def test_cancelling_during_the_channel_ends_the_run_cleanly(single_thread) -> None:
    ctx, _ = _channel_context(rounds=1, epochs=1)
    cancel = threading.Event()

    def on_event(event: object) -> None:
        if isinstance(event, ChannelStep) and event.step == 2:
            cancel.set()

    result = run_decipherment(ctx.corpus, ctx.cfg, on_event, cancel)
    assert result.status == "cancelled" and result.rounds == []


def test_channel_fields_are_validated() -> None:
    with pytest.raises(ConfigError, match="channel_steps"):
        preset("linear-b").replace(channel_steps=0)
    with pytest.raises(ConfigError, match="channel_lr"):
        preset("linear-b").replace(channel_lr=0.0)
    with pytest.raises(ConfigError, match="channel_objective"):
        preset("linear-b").replace(channel_objective="posterior")


def test_live_run_shows_the_channel_then_the_rounds() -> None:
    live = LiveRun()
    assert "channel: training for round 1's flow (3 steps)" in live.apply(ChannelStep(0, 1, 3, 9.0, 0.1))
    assert live.in_channel and live.channel_step == 1
    assert live.apply(ChannelStep(0, 2, 3, 8.0, 0.2)) is None
    done = "restart 1 channel done: 3 steps, lexicon loss 7.500, 0.3s (round 1's flow)"
    assert live.apply(ChannelStep(0, 3, 3, 7.5, 0.3)) == done
    # A channel trained on the transport plan names that objective, not the lexicon's.
    assert "transport loss 4.000" in live.apply(ChannelStep(0, 3, 3, 4.0, 0.4, "transport"))
    assert not live.in_channel


def test_method_channel_deciphers_with_the_channel_alone(single_thread) -> None:
    ctx, _ = _channel_context(channel_steps=150, channel_batch=64, channel_init_scale=0.02)
    cfg = ctx.cfg.replace(method="channel", init_flow="uniform")  # the method needs no init_flow
    events: list[object] = []
    result = run_decipherment(ctx.corpus, cfg, events.append)
    (started,) = [e for e in events if isinstance(e, RunStarted)]
    assert started.method == "channel" and started.rounds == 0
    assert [e.step for e in events if isinstance(e, ChannelStep)] == list(range(1, 151))
    assert not any(isinstance(e, EpochEnd) for e in events)  # no neural model is trained
    assert result.status == "finished" and result.rounds == [] and isinstance(result.fitted, ChannelFitted)
    assert result.accuracy >= 0.8 and result.accuracy_model >= 0.8  # the toy syllabary is found
    assert len(set(result.predictions.tolist())) == 30  # the evaluation flow is one-to-one (C = 1)
    assert len(result.proposals) == 30 and len({p.known for p in result.proposals}) == 30
    assert result.objective == result.restart_objectives[0] > 0  # the lexicon loss
    best = max(result.proposals, key=lambda p: p.score)
    assert result.proposals[0] is best and 0 < best.score <= 1 and best.attention == []
    assert [s for _, s in best.alternatives] == sorted((s for _, s in best.alternatives), reverse=True)
    # The character map reads each sign as the syllable it writes (sign k = the k-th syllable).
    syllables = [c + v for c in "ptkmn" for v in "aio"] + list("aio")
    read = {sign: tops[0][0] for sign, tops in result.char_map.items()}
    right = sum(read[chr(0x10000 + k)] == syl for k, syl in enumerate(syllables) if chr(0x10000 + k) in read)
    assert right >= 0.8 * len(read) and len(read) >= 10
    assert all(abs(sum(p for _, p in tops) - 1) < 0.5 for tops in result.char_map.values())
    assert result.phase_seconds["train"] > 0 and result.seconds > 0


def test_cancelling_a_channel_only_run_keeps_nothing_but_the_status(single_thread) -> None:
    ctx, _ = _channel_context(channel_steps=50)
    cancel = threading.Event()

    def on_event(event: object) -> None:
        if isinstance(event, ChannelStep) and event.step == 2:
            cancel.set()

    result = run_decipherment(ctx.corpus, ctx.cfg.replace(method="channel"), on_event, cancel)
    assert result.status == "cancelled" and result.proposals == [] and result.accuracy is None


def test_a_channel_run_reads_another_corpus_of_the_same_scripts(single_thread) -> None:
    ctx, _ = _channel_context(channel_steps=150, channel_batch=64, channel_init_scale=0.02)
    result = run_decipherment(ctx.corpus, ctx.cfg.replace(method="channel"))
    assert isinstance(result.fitted, ChannelFitted)
    # Read back on its own corpus, the evaluation is the run's own.
    same = evaluate_on_corpus(result, ctx.corpus, ctx.corpus)
    assert (same.accuracy, same.accuracy_model) == (result.accuracy, result.accuracy_model)
    assert same.cost_kind == "channel" and same.n_evaluated == 30 and same.phase_seconds["score"] > 0
    # A bigger list of the same scripts (more syllabic words, unseen by the channel) with a lost
    # word holding a sign the training lists never had: scored, not crashed, and still read.
    lost, known = syllabary_corpus(60, 10, seed=5)
    lost = [*lost, (chr(0x10400), lost[0][0])]
    known = [*known, ("q", "a")]
    gold = {i: frozenset({i}) for i in range(60)} | {60: frozenset({len(known) - 1})}
    bigger = Corpus("bigger", "l", "k", tuple(lost), tuple(known), gold)
    ev = evaluate_on_corpus(result, ctx.corpus, bigger)
    assert chr(0x10400) in ev.unseen_lost_symbols and ev.unseen_known_symbols == ["q"]
    assert ev.n_evaluated == 61 and ev.n_known == len(known)
    assert ev.accuracy >= 0.8 and ev.accuracy_model >= 0.7  # the map, learned on 30 words, reads 60 more
    with pytest.raises(ValueError, match="not the corpus"):
        evaluate_on_corpus(result, bigger, ctx.corpus)


def test_a_compiled_channel_scores_every_known_word_in_one_rising_call_and_the_tensors_in_four_buckets() -> None:
    # The compiled lattices skip each known word's cells past its end, so one bucket in rising
    # length pads nothing; the tensors' lattices (float64 here, cuda in runs) pad each bucket.
    from tui_decipher.engine.channels.trainer import _Fit

    lost, known = syllabary_corpus(40, 10, seed=2)
    lost_charset, known_charset = Charset.from_words(lost), Charset.from_words(known)
    training = ChannelTraining(5, 0.05, 8, seed=0)
    channel = CharacterChannel(len(lost_charset), len(known_charset), torch.Generator().manual_seed(1))
    fit = _Fit(channel, lost, known, lost_charset, known_charset, training, None, None)
    assert len(fit.buckets) == 1
    lengths = fit.known_len[fit.buckets[0]]
    assert (lengths[1:] >= lengths[:-1]).all() and len(fit.buckets[0]) == len(known)
    fit = _Fit(channel.double(), lost, known, lost_charset, known_charset, training, None, None)
    assert len(fit.buckets) == 4


def test_a_channel_saved_before_gapped_pieces_scores_and_trains_as_it_did() -> None:
    # tests/data/pieces_channel_before_gaps.pt was written by main at 47fc931 (three actions a
    # letter): a pieces channel trained 3 steps, its optimiser's state, and the scores it gave. It
    # loads with the gapped piece at NO_GAP: the same scores, and its training goes on from the
    # saved optimiser (the new action's moving averages start at zero).
    saved = torch.load(DATA / "pieces_channel_before_gaps.pt", weights_only=False)
    assert saved["channel"]["action"].shape[-1] == 3  # the old format indeed
    channel = CharacterChannel(9, 7, torch.Generator().manual_seed(0), 0.5)
    channel.load_state_dict(saved["channel"])
    assert channel.action.shape[-1] == 4
    assert torch.exp(channel.log_actions()[:, GAP]).max() == 0.0
    words = (saved["lost"], saved["lost_len"], saved["known"], saved["known_len"])
    with torch.no_grad():
        assert torch.allclose(channel.log_prob(*words), saved["scores"], atol=1e-5)
    optimiser = Adam(channel.parameters(), lr=0.05)
    optimiser.load_state_dict(saved["optimiser"])
    loss = -channel.log_prob(*words).diagonal().sum()
    channel.zero_grad()
    loss.backward()
    optimiser.step()
    assert torch.isfinite(channel.action).all()
    with torch.no_grad():
        assert not torch.allclose(channel.log_prob(*words), saved["scores"], atol=1e-3)  # it trained on
    # A channel unpickled from then (a stopped run's stage) has three actions itself: its own state,
    # as a resumed training saves and loads it, loads as it is, and it scores as the old code did.
    unpickled = CharacterChannel(9, 7, torch.Generator().manual_seed(0), 0.5)
    unpickled.action = torch.nn.Parameter(saved["channel"]["action"].clone())
    unpickled.load_state_dict(saved["channel"])
    unpickled.load_state_dict(unpickled.state_dict())
    assert unpickled.action.shape[-1] == 3 and not unpickled.gapped()
    with torch.no_grad():
        assert torch.allclose(unpickled.log_prob(*words), saved["scores"], atol=1e-5)


def test_a_gapped_piece_reads_as_its_pair_in_the_character_map() -> None:
    # Known words spell a sound with two letters ("kh"); the script writes the sign of "ka" for
    # "kha". No known word holds "ka" as two letters, so without gapped pieces the map could not
    # read the sign as "ka"; a gapped piece k(h)a writes it as the pair k, a does, and the map
    # reads it so. A channel built without gaps has none: its gapped pieces' probability is 0.
    lost, known = Charset("XYZ"), Charset("kha")
    words = [tuple("kha"), tuple("khakha"), tuple("a")]
    channel = CharacterChannel.build(lost, known, torch.Generator().manual_seed(0), 0.01, 0.0, gaps=True)
    k, a, x = known.index["k"], known.index["a"], lost.index["X"]
    with torch.no_grad():
        channel.action[k] = torch.tensor([0.0, 0.0, 0.0, 6.0])  # k starts gapped pieces
        channel.first[k, x] += 8.0
        channel.second[a, x] += 8.0  # the pair k, a writes X
    readings = dict(channel.character_map(words, lost, known)["X"])
    assert max(readings, key=readings.__getitem__) == "ka"
    assert channel.gapped() and readings["ka"] > 0.5
    plain = CharacterChannel.build(lost, known, torch.Generator().manual_seed(0), 0.01, 0.0)
    assert not plain.gapped() and torch.exp(plain.log_actions()[:, GAP]).max() == 0.0
