"""`method = "auto"`: its decisions from the word lists (script, demand D, capacity C), the decoy
lexicon behind the D estimate, and whole runs on small generated corpora of each kind."""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from tests.syllable_support import starts_made
from tui_decipher.cli import app
from tui_decipher.engine.corpora.corpus import graphemes, read_cog
from tui_decipher.engine.corpora.generators import GeneratorSpec, syllabary_key_text, write_generated
from tui_decipher.engine.methods import run_decipherment
from tui_decipher.engine.methods.auto import decoys, fitting
from tui_decipher.engine.methods.auto.calibration import calibrates, calibration_demand, recalibrated
from tui_decipher.engine.methods.auto.capacity import least_capacity
from tui_decipher.engine.methods.auto.decisions import choose_channel
from tui_decipher.engine.methods.auto.decoys import (
    DECOY_LEXICONS,
    chance_at_distances,
    decoy_lexicon,
    decoy_lexicons,
    lexicon_count,
    nearest_distances,
    null_words,
    trigram_enough,
)
from tui_decipher.engine.methods.auto.demand import (
    MIN_SHARE,
    UNSEPARATED_SHARE,
    DemandEstimate,
    estimate_demand,
    paired_z,
    share_range,
    win_count,
    word_wins,
)
from tui_decipher.engine.methods.auto.fit_check import DRIFT_Z, FitCheck, identity_reads
from tui_decipher.engine.methods.auto.probe import LEXICON_TRUSTED_SHARE, doubted, kept_probe
from tui_decipher.engine.methods.auto.probe_words import probe_split
from tui_decipher.engine.methods.auto.schedule import SCHEDULES, Probe
from tui_decipher.engine.methods.auto.scripts import ScriptProfile
from tui_decipher.engine.methods.auto.syllable_search import kept_syllable_map
from tui_decipher.engine.methods.auto.training import reverse_share, reverse_steps
from tui_decipher.engine.run.config import DecipherConfig
from tui_decipher.engine.run.events import ChannelStep, Decided
from tui_decipher.engine.run.seeds import derive

# --- the script --------------------------------------------------------------------------------


def _words(*texts: str):
    return [graphemes(t) for t in texts]


def test_lists_in_one_alphabet_get_the_edit_channel() -> None:
    profile = ScriptProfile.of(_words("mlk", "bt", "ab"), _words("melek", "bayit", "ab", "zz"))
    assert profile.shared_share == 1.0 and profile.one_alphabet
    assert choose_channel(profile)[0] == "edit"


def test_different_scripts_get_the_pieces_channel() -> None:
    profile = ScriptProfile.of(_words("𐀀𐀁", "𐀂𐀃𐀀"), _words("αβ", "γδα"))
    assert profile.shared_symbols == 0 and not profile.one_alphabet
    kind, why = choose_channel(profile)
    assert kind == "pieces" and "two scripts" in why
    assert profile.lost_length == 2.5 and profile.known_length == 2.5


def test_a_few_shared_symbols_do_not_make_one_alphabet() -> None:
    # Digits or a shared word divider are not a shared script: the share is of symbol tokens.
    profile = ScriptProfile.of(_words("𐀀𐀁1", "𐀂𐀃𐀀𐀄"), _words("ab1", "cd"))
    assert profile.shared_symbols == 1 and profile.shared_share == pytest.approx(1 / 7)
    assert choose_channel(profile)[0] == "pieces"


# --- capacity and the probe's split --------------------------------------------------------------


def test_capacity_is_one_unless_the_demand_exceeds_the_known_list() -> None:
    assert least_capacity(80, 100) == 1
    assert least_capacity(100, 100) == 1
    assert least_capacity(250, 100) == 3


def test_probe_split_is_seeded_disjoint_and_bounded() -> None:
    train, held = probe_split(11, seed=3)
    assert len(train) == 5 and len(held) == 6 and not set(train) & set(held)
    again = probe_split(11, seed=3)
    assert (again[0] == train).all() and (again[1] == held).all()
    assert not (probe_split(11, seed=4)[0] == train).all()
    _, held = probe_split(5000, seed=1)
    assert len(held) == 1000
    train, held = probe_split(10, seed=3, train_share=0.8)  # the pieces channel's probe
    assert len(train) == 8 and len(held) == 2 and not set(train) & set(held)


# --- the probe's candidates ------------------------------------------------------------------------


def test_a_users_step_budget_keeps_the_schedules_proportions() -> None:
    pieces = SCHEDULES["pieces"]
    short = pieces.scaled(pieces.budget // 10)
    assert [p.objective for p in short.probes] == [p.objective for p in pieces.probes]
    assert [p.steps for p in short.probes] == [p.steps // 10 for p in pieces.probes]
    search, short_search = pieces.probes[1].search, short.probes[1].search
    assert short_search is not None and search is not None  # the transport probe searches first
    assert (short_search.starts, short_search.steps) == (search.starts, search.steps // 10)
    assert short.fit_steps == pieces.fit_steps // 10 and short.budget == pieces.budget // 10
    assert SCHEDULES["edit"].scaled(1).budget == 5  # every stage (cross, probe, calibration, fit, reverse) takes a step


def test_the_lexicon_probe_is_doubted_only_where_its_evidence_says_few_lost_words_have_a_cognate() -> None:
    lexicon, transport = Probe("lexicon", 300), Probe("transport", 900)
    # 184 held-out words (a fifth of Linear B) winning 54%: at most about 22% have a cognate.
    failed = DemandEstimate(184, 99, 0.09, 83, 184, 170, "")
    assert failed.share_upper() < LEXICON_TRUSTED_SHARE and doubted(lexicon, failed)
    # 20 held-out words winning 17: 70% by the estimate, but 20 words allow far more.
    small = DemandEstimate(20, 17, 0.7, 70, 20, 20, "")
    assert small.share_upper() >= LEXICON_TRUSTED_SHARE and not doubted(lexicon, small)
    # The same win rate on 400 held-out words is evidence enough.
    assert doubted(lexicon, DemandEstimate(400, 340, 0.7, 280, 400, 400, ""))
    assert not doubted(transport, failed)  # the transport objective assumes no share: never doubted


def test_the_probe_whose_held_out_words_beat_decoys_most_is_kept() -> None:
    assert kept_probe([40, 66]) == 1
    assert kept_probe([66, 40]) == 0
    assert kept_probe([50, 50]) == 0  # equals: the first, the cheaper


# --- the decoy lexicon and the D estimate ----------------------------------------------------------


def test_decoys_match_the_known_lengths_and_are_not_known_words(tmp_path) -> None:
    known = list(read_cog(_generated(tmp_path, "shared-alphabet", seed=2, lost_words=150)).known_words)
    decoys = decoy_lexicon(known, seed=1)
    assert [len(d) for d in decoys] == [len(k) for k in known]
    assert not set(decoys) & set(known)  # a decoy that is a known word would tie with its cognates
    # A lexicon too small to have other words of its lengths still gets one decoy per word.
    tiny = _words("pater", "mater", "soror")
    assert [len(d) for d in decoy_lexicon(tiny, seed=1)] == [5, 5, 5]
    assert decoy_lexicon(known, seed=1) == decoys and decoy_lexicon(known, seed=2) != decoys
    # The trigram model only walks seen contexts: a decoy with an unseen trigram is one whose
    # word the trigrams could spell only as real words, drawn from a lower model (a few).
    padded = {("\x02", "\x02", *k, "\x03") for k in known}
    seen = {t[i : i + 3] for t in padded for i in range(len(t) - 2)}
    padded_decoys = [("\x02", "\x02", *d, "\x03") for d in decoys]
    unseen = [t for t in padded_decoys if any(t[i : i + 3] not in seen for i in range(len(t) - 2))]
    assert len(unseen) <= len(known) // 20


def test_a_word_read_against_several_decoy_lexicons_wins_its_share_of_them() -> None:
    real = torch.tensor([[-1.0, -5.0], [-3.0, -9.0], [-2.0, -2.0]])  # best real: -1, -3, -2
    one = torch.tensor([[-2.0, -4.0], [-1.0, -8.0], [-2.0, -7.0]])  # one lexicon: a win, a loss, a tie
    assert word_wins(real, one).tolist() == [1.0, 0.0, 0.5]
    # Three lexicons of two decoys each: (n, n_lexicons, n_decoys).
    three = torch.tensor([[[-2.0, -4.0], [-0.5, -9.0], [-3.0, -3.0]],
                          [[-1.0, -8.0], [-4.0, -5.0], [-6.0, -3.5]],
                          [[-2.0, -7.0], [-1.0, -1.5], [-5.0, -6.0]]])  # fmt: skip
    assert word_wins(real, three).tolist() == pytest.approx([2 / 3, 2 / 3, 0.5])
    # Each lexicon's best alone, as against_decoys keeps it: the same wins.
    assert word_wins(real, three.max(-1, keepdim=True).values).tolist() == pytest.approx([2 / 3, 2 / 3, 0.5])
    assert win_count(real, three) == pytest.approx(2 / 3 + 2 / 3 + 0.5)


def test_decoy_lexicons_are_the_first_lexicon_and_more_of_their_own(tmp_path) -> None:
    known = list(read_cog(_generated(tmp_path, "shared-alphabet", seed=2, lost_words=150)).known_words)
    pooled = decoy_lexicons(known, 7, 3)
    assert len(pooled) == 3 * len(known)
    # The first lexicon is the one a run read when it had one.
    assert pooled[: len(known)] == decoy_lexicon(known, derive(7, "auto decoys"))
    lexicons = [pooled[k * len(known) : (k + 1) * len(known)] for k in range(3)]
    assert lexicons[0] != lexicons[1] != lexicons[2]
    assert all([len(d) for d in lexicon] == [len(k) for k in known] for lexicon in lexicons)
    assert lexicon_count(200, 700) == DECOY_LEXICONS and lexicon_count(7235, 39451) == 1  # the full list: one


def test_a_word_the_trigrams_spell_only_as_itself_gets_a_decoy_from_a_lower_model() -> None:
    # "fondamentale" shares no trigram context with the short words: its trigram path is unique,
    # so its trigram draws of its length spell only itself; the old lexicon kept it as its decoy.
    known = _words("fondamentale", "ab", "ba", "abba", "baab", "aabb")
    for seed in range(5):
        decoys = decoy_lexicon(known, seed=seed)
        assert [len(d) for d in decoys] == [len(k) for k in known]
        assert decoys[0] != known[0] and decoys[0] not in known
        assert set(decoys[0]) <= set("".join(w for k in known for w in k))  # the known words' symbols


def test_demand_is_twice_the_win_share_minus_one() -> None:
    g = torch.Generator().manual_seed(0)
    n, share = 2000, 0.3
    decoy = torch.randn(n, 50, generator=g)
    real = torch.randn(n, 50, generator=g)  # chance matches: a coin flip against the decoys
    real[: int(share * n), 0] += 10.0  # words with a cognate: one known word far above the rest
    est = estimate_demand(real, decoy)
    assert est.share == pytest.approx(share, abs=0.05)
    assert est.demand == round(est.share * n)
    # No word beats the decoys more than chance: the floor, never zero.
    none = estimate_demand(decoy - 1.0, decoy)
    assert none.share == MIN_SHARE and none.demand >= 1


def _scores(n: int, share: float, lose: float, g: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Real and decoy scores (n, 50): a `share` of rows have a cognate, which loses to the best
    decoy a share `lose` of the time (lossy spelling)."""
    decoy = torch.randn(n, 50, generator=g)
    real = torch.randn(n, 50, generator=g)
    cognates = int(share * n)
    real[:cognates, 0] += 10.0
    losers = int(lose * cognates)
    real[:losers] = decoy[:losers].max(1, keepdim=True).values - 1.0  # these cognates lose to a decoy
    return real, decoy


def test_demand_corrected_by_the_rate_at_which_cognates_lose() -> None:
    g = torch.Generator().manual_seed(1)
    real, decoy = _scores(2000, 0.6, 0.3, g)
    raw = estimate_demand(real, decoy)
    assert raw.share == pytest.approx(0.6 * (1 - 2 * 0.3), abs=0.05)  # 2p - 1 falls short
    # The channel's own cognates (every row one) lose as often: r = 0.7, so 2r - 1 = 0.4.
    synth_real, synth_decoy = _scores(1000, 1.0, 0.3, g)
    est = estimate_demand(real, decoy, synth_real, synth_decoy)
    assert est.share == pytest.approx(0.6, abs=0.07) and est.separation == pytest.approx(0.4, abs=0.05)
    assert "(2p - 1) / (2r - 1)" in est.why
    # Own cognates no better than chance: the channel cannot tell, and D is the middle guess.
    blind_real, blind_decoy = _scores(1000, 1.0, 0.5, g)
    blind = estimate_demand(real, decoy, blind_real, blind_decoy)
    assert blind.share == UNSEPARATED_SHARE and "D unknown" in blind.why


def _chance_scores(n: int, share: float, chance: float, g: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Real and decoy scores (n, 50) where a `share` of rows have a cognate (always winning) and the
    rest beat the best decoy a share `chance` of the time, not half (a lossy spelling fits any
    lost-like word to some real known word)."""
    decoy = torch.randn(n, 50, generator=g)
    best = decoy.max(1, keepdim=True).values
    real = best - 1.0 - torch.rand(n, 50, generator=g)  # every real word below the best decoy: a loss
    winners = torch.rand(n, generator=g) < chance
    real[winners, 0] = best[winners, 0] + 0.5  # these words without a cognate win by chance
    real[: int(share * n), 0] = best[: int(share * n), 0] + 10.0  # the cognates win
    return real, decoy


def test_null_words_measure_how_often_words_without_a_cognate_win() -> None:
    g = torch.Generator().manual_seed(3)
    real, decoy = _chance_scores(3000, 0.3, 0.7, g)
    # Taken as a coin flip, chance wins read as cognates: (0.3 + 0.7 * 0.7 - 0.5) / 0.5 = 0.58.
    assert estimate_demand(real, decoy).share == pytest.approx(0.58, abs=0.04)
    # Null words (no row has a cognate) win as often as the real words without one: q = 0.7.
    null_real, null_decoy = _chance_scores(1000, 0.0, 0.7, g)
    own_real, own_decoy = _chance_scores(1000, 1.0, 0.7, g)  # the channel's own cognates: all win
    est = estimate_demand(real, decoy, own_real, own_decoy, null_real, null_decoy)
    assert est.share == pytest.approx(0.3, abs=0.04) and est.chance == pytest.approx(0.7, abs=0.04)
    assert "null words 69%" in est.why and "(p - q) / (r - q)" in est.why
    # The range brackets the estimate, and is narrower on more words.
    assert est.share_low is not None and est.share_high is not None
    assert est.share_low <= est.share <= est.share_high and 0.15 < est.share_high - est.share_low < 0.3
    wide = share_range(est.wins / est.n_lost, 100, est.chance, 100, 1.0)
    assert wide[1] - wide[0] > est.share_high - est.share_low
    # Own cognates that lose a fifth of the time (r = 0.8) raise the estimate; the range still
    # reaches down to the share if every cognate beat the decoys (r = 1): real ones may lose less.
    lossy_real, lossy_decoy = _chance_scores(1000, 0.8, 0.0, g)
    lossy = estimate_demand(real, decoy, lossy_real, lossy_decoy, null_real, null_decoy)
    assert lossy.share > est.share + 0.2 and lossy.share_low is not None and lossy.share_low < est.share + 0.05
    # Null words that lose to the decoys more often than not (trigrams fit trigram decoys): q stays a half.
    low_real, low_decoy = _chance_scores(1000, 0.0, 0.4, g)
    floored = estimate_demand(real, decoy, own_real, own_decoy, low_real, low_decoy)
    assert floored.chance == 0.5 and floored.share == estimate_demand(real, decoy, own_real, own_decoy).share
    # Without null words the old estimate is kept, q taken as a half.
    assert estimate_demand(real, decoy, own_real, own_decoy).chance == 0.5


def test_d_is_read_by_the_calibrated_copy_and_its_range_reaches_the_lower_own_cognate_rate() -> None:
    g = torch.Generator().manual_seed(5)
    real, decoy = _chance_scores(2000, 0.3, 0.5, g)
    null_real, null_decoy = _chance_scores(1000, 0.0, 0.5, g)
    # The probe writes words without a cognate too: its own cognates win 75% of the time, and D
    # reads twice the truth; its calibrated copy's always win, as the real ones do here.
    broad = estimate_demand(real, decoy, *_chance_scores(1000, 0.5, 0.5, g), null_real, null_decoy)
    sharp = estimate_demand(real, decoy, *_chance_scores(1000, 1.0, 0.0, g), null_real, null_decoy)
    assert broad.share > 0.5 and sharp.share == pytest.approx(0.3, abs=0.05)
    # The calibration trains at the lowest share the evidence allows, below the truth.
    assert broad.share_low is not None and broad.share_low < 0.3
    assert calibration_demand(broad, 1000) == round(broad.share_low * 1000)
    # Not through shortlists: the small Ugaritic file's probe (367 x 4103 words) is calibrated,
    # the full list's (3617 x 39451) is not.
    assert calibrates(367, 4103) and not calibrates(3617, 39451)
    both = recalibrated(broad, sharp)
    assert both.share == sharp.share and both.demand == sharp.demand
    assert "calibrated at D = " in both.why and sharp.why in both.why
    # Its range runs from r = 1 to the broad probe's r, the lower one: it holds both readings.
    assert both.share_low is not None and both.share_high is not None
    assert both.share_low <= sharp.share <= both.share_high and both.share_high >= broad.share - 0.05
    assert both.share_high > (sharp.share_high or 0.0) + 0.1


def test_null_words_are_weighed_at_the_held_out_words_distances_from_the_training_words() -> None:
    # Null words near a training word (a near copy) win far more often than those as far from every
    # training word as a held-out word lies: q is their rate where the held-out words are.
    g = torch.Generator().manual_seed(4)
    near_real, near_decoy = _chance_scores(600, 0.0, 0.9, g)  # 600 null words at distance 0.2, winning 90%
    far_real, far_decoy = _chance_scores(400, 0.0, 0.55, g)  # 400 at distance 0.5, winning 55%
    null_real, null_decoy = torch.cat([near_real, far_real]), torch.cat([near_decoy, far_decoy])
    null_distance = np.array([0.2] * 600 + [0.5] * 400)
    real, decoy = _chance_scores(1000, 0.3, 0.55, g)  # held-out words, all far: 30% cognates
    held_distance = np.full(1000, 0.48)
    own_real, own_decoy = _chance_scores(1000, 1.0, 0.0, g)
    plain = estimate_demand(real, decoy, own_real, own_decoy, null_real, null_decoy)
    weighed = estimate_demand(real, decoy, own_real, own_decoy, null_real, null_decoy, null_distance, held_distance)
    assert plain.chance == pytest.approx(0.76, abs=0.04) and plain.share < 0.15  # near copies hide the cognates
    assert weighed.chance == pytest.approx(0.55, abs=0.05) and weighed.share == pytest.approx(0.3, abs=0.05)
    assert "at their distances" in weighed.why and weighed.as_dict()["null_matched"] == pytest.approx(0.55, abs=0.05)
    # A distance with too few null words takes the nearest distance's rate that has enough.
    wins = np.array([1.0] * 30 + [0.0] * 30 + [1.0] * 5)
    distance = np.array([0.1] * 30 + [0.3] * 30 + [0.9] * 5)
    assert chance_at_distances(wins, distance, np.array([0.1, 0.3])) == 0.5
    assert chance_at_distances(wins, distance, np.array([0.9, 0.8])) == 0.0  # 0.9 has 5: the 0.3 step's
    assert chance_at_distances(wins, distance, np.array([0.2])) == 1.0  # equally near 0.1 and 0.3: the lower


def test_d_over_every_split_reads_their_words_together() -> None:
    from tui_decipher.engine.methods.auto.pooled_demand import SplitScores

    g = torch.Generator().manual_seed(5)

    def split(n: int, share: float, with_nulls: bool) -> SplitScores:
        real, decoy = _chance_scores(n, share, 0.5, g)
        own_real, own_decoy = _chance_scores(n, 1.0, 0.0, g)
        null_real, null_decoy = _chance_scores(3 * n, 0.0, 0.5, g) if with_nulls else (None, None)
        return SplitScores(real, decoy, own_real, own_decoy, null_real, null_decoy)

    parts = [split(40, 0.6, True), split(40, 0.6, True), split(40, 0.6, True)]
    joined = SplitScores.joined(parts)
    assert joined.real.shape[0] == 120 and joined.null_real is not None and joined.null_real.shape[0] == 360
    together = joined.estimate()
    assert together.n_lost == 120 and together.n_null == 360 and together.n_synthetic == 120
    assert together.wins == sum(p.estimate().wins for p in parts)
    assert together.share == pytest.approx(0.6, abs=0.15)
    # A split without null words leaves them out of every split's reading (q then read as a half).
    lacking = SplitScores.joined([*parts[:2], split(40, 0.6, False)])
    assert lacking.null_real is None and lacking.estimate().n_null == 0 and lacking.real.shape[0] == 120


def test_nearest_distances_are_edits_over_the_longer_words_length() -> None:
    reference = _words("kalamo", "temaro")
    out = nearest_distances(_words("kalamo", "kalimo", "tema", "xyz"), reference)
    assert out.tolist() == pytest.approx([0.0, 1 / 6, 2 / 6, 1.0])
    assert nearest_distances(_words("ab"), []).tolist() == [1.0]


def test_null_words_are_lost_like_words_no_list_holds() -> None:
    source = _words("kalamo", "kalima", "temaro", "tesako", "maroki", "salomi", "limako", "ratemo")
    avoid = _words("kalamo", "salimo", "temako")
    nulls = null_words(source, 3, seed=3, avoid=avoid)  # trigrams give 3 (bigrams would make up more)
    assert len(nulls) == 3 and not set(nulls) & (set(source) | set(avoid))
    padded = {("\x02", "\x02", *w, "\x03") for w in source}
    seen = {t[i : i + 3] for t in padded for i in range(len(t) - 2)}
    assert all(t[i : i + 3] in seen for w in nulls for t in [("\x02", "\x02", *w, "\x03")] for i in range(len(t) - 2))
    assert null_words(source, 3, seed=3, avoid=avoid) == nulls  # seeded
    # More passes of the model than one give more words than the source has, each once.
    rng = random.Random(1)
    syllables = ["ka", "la", "ma", "te", "ro", "si", "mo", "ki", "nu", "pe"]
    longer = list({tuple("".join(rng.choice(syllables) for _ in range(3))) for _ in range(60)})
    more = null_words(longer, 2 * len(longer), seed=3)
    assert len(more) > len(longer) and len(set(more)) == len(more) and not set(more) & set(longer)
    # A single word's trigrams and bigrams can only spell that word again: its null words come
    # from its symbols' frequencies.
    alone = null_words(_words("kalamo"), 5, seed=3)
    assert len(alone) >= 3 and all(set(w) <= set("kalmo") and w != tuple("kalamo") for w in alone)


def test_null_words_back_off_to_bigrams_where_trigrams_run_out(monkeypatch: pytest.MonkeyPatch) -> None:
    # A syllabary's words are two or three signs long: a trigram model of them can only spell them
    # again, and q would be read off a handful of words (4-10 of 320 generated words).
    rng = random.Random(2)
    signs = [chr(0x10000 + k) for k in range(30)]
    short = list({(rng.choice(signs), rng.choice(signs)) for _ in range(80)})
    monkeypatch.setattr(decoys, "NULL_ORDERS", (2,))
    assert len(null_words(short, 200, seed=3)) < 20
    monkeypatch.undo()
    nulls = null_words(short, 200, seed=3)
    assert len(nulls) == 200 and len(set(nulls)) == 200 and not set(nulls) & set(short)
    assert null_words(short, 200, seed=3) == nulls  # seeded
    # Where trigrams give enough words, every null word is one of theirs.
    source = _words("kalamo", "kalima", "temaro", "tesako", "maroki", "salomi", "limako", "ratemo")
    monkeypatch.setattr(decoys, "NULL_ORDERS", (2,))
    trigram_only = null_words(source, 4, seed=3)
    monkeypatch.undo()
    assert len(trigram_only) == 4 and null_words(source, 4, seed=3) == trigram_only
    # Nor does it back off where the trigrams give `enough` (the held-out words' number), short of n.
    assert (
        null_words(source, 10, seed=3, enough=4) == null_words(source, 4, seed=3)
        and len(null_words(source, 10, seed=3)) == 10
    )


def test_null_words_back_off_where_trigrams_give_fewer_than_their_source_words(monkeypatch: pytest.MonkeyPatch) -> None:
    # 60 words of three or four of 12 signs: a trigram model recombines 50 new words from them, more
    # than the 10 held-out words but fewer than its 60 source words: near copies of its source.
    rng = random.Random(6)
    signs = [chr(0x10000 + k) for k in range(12)]
    source = sorted({tuple(rng.choice(signs) for _ in range(rng.choice((3, 4)))) for _ in range(60)})
    monkeypatch.setattr(decoys, "NULL_ORDERS", (2,))
    trigram_only = null_words(source, 1000, seed=3)
    monkeypatch.undo()
    assert len(source) == 60 and 10 < len(trigram_only) < 60
    assert null_words(source, 1000, seed=3, enough=10) == trigram_only  # the held-out words' number alone
    enough = trigram_enough(len(source), 10, 1000)
    assert enough == 60
    backed_off = null_words(source, 1000, seed=3, enough=enough)
    assert len(backed_off) > 400 and set(trigram_only) < set(backed_off)
    # As many as were asked for at most, and never fewer than the held-out words.
    assert trigram_enough(3617, 1000, 1000) == 1000 and trigram_enough(100, 200, 1000) == 200


def test_word_wins_and_the_paired_test_between_two_channels() -> None:
    real = torch.tensor([[0.0, 5.0], [1.0, 1.0], [-1.0, -2.0], [float("-inf"), float("-inf")]])
    decoy = torch.tensor([[4.0, 3.0], [2.0, 0.0], [-1.0, -3.0], [float("-inf"), float("-inf")]])
    assert word_wins(real, decoy).tolist() == [1.0, 0.0, 0.5, 0.5]  # ties (and -inf against -inf): half
    assert win_count(real, decoy) == 2.0
    # The paired test counts only the words two channels disagree on: 40 of 1000 flips, all one
    # way, is decisive though the win rates differ by 4 points only.
    first = torch.cat([torch.ones(700), torch.zeros(300)]).double()
    second = first.clone()
    second[:40] = 0.0
    assert paired_z(first, second) == pytest.approx(40 / 40**0.5) and paired_z(second, first) < -6
    assert paired_z(first, first) == 0.0
    # As many flips each way: no evidence either way.
    second[700:740] = 1.0
    assert paired_z(first, second) == 0.0


def test_the_fit_is_kept_unless_the_probe_leads_it_clearly() -> None:
    ones, zeros = torch.ones(50).double(), torch.zeros(50).double()
    level = torch.cat([ones, zeros])
    # The fit wins more (it trained on the held-out words): kept.
    assert FitCheck.of(level, torch.cat([ones, ones[:10], zeros[10:]])).kept_fit
    # Three words lost, none gained: z = 1.7, within chance: kept.
    assert FitCheck.of(level, torch.cat([ones[3:], zeros[:3], zeros])).kept_fit
    # Six lost, none gained: z = 2.4, the fit drifted.
    drifted = FitCheck.of(level, torch.cat([ones[6:], zeros[:6], zeros]))
    assert drifted.z >= DRIFT_Z and not drifted.kept_fit
    assert drifted.as_dict()["fit_wins"] == 44 and "the probe's channel kept" in drifted.why


def test_identity_reads_count_words_read_as_their_own_spelling() -> None:
    known = [("a", "b", "y"), ("a", "b", "y", "h"), ("b", "y"), ("k", "l")]
    lost = [("a", "b", "y"), ("b", "y"), ("m", "t"), ("k", "l")]  # "mt" is spelled as no known word
    log_p = torch.full((4, 4), -9.0)
    log_p[0, 1] = -1.0  # "aby" read as "abyh": not its own spelling
    log_p[1, 2] = -1.0  # "by" read as "by"
    log_p[2, 0] = -1.0
    log_p[3, 3] = -1.0  # "kl" read as "kl"
    assert identity_reads(log_p, lost, known).tolist() == [0.0, 1.0, 1.0]
    assert len(identity_reads(log_p, [("m", "t")], known)) == 0  # no shared spelling: no evidence


def test_a_fit_that_reads_shared_spellings_as_other_words_drifted_though_it_beats_the_decoys() -> None:
    ones, level = torch.ones(100).double(), torch.ones(40).double()
    # The decoy wins level, 20 of 40 shared spellings now read as other words: z = 4.5, drifted.
    drifted = FitCheck.of(ones, ones, level, torch.cat([torch.ones(20), torch.zeros(20)]).double())
    d = drifted.as_dict()
    assert (d["n_identical"], d["probe_identical"], d["fit_identical"]) == (40, 40.0, 20.0)
    assert d["identity_z"] == pytest.approx(20 / 20**0.5, abs=0.01) and d["z"] == 0.0
    assert not drifted.kept_fit
    assert "of 40 held-out words spelled as a known word the fit reads 50% as that word, the probe 100%" in drifted.why
    # Three of 40 read otherwise (z = 1.7): within chance, kept; and so where it reads more of them.
    assert FitCheck.of(ones, ones, level, torch.cat([torch.ones(37), torch.zeros(3)]).double()).kept_fit
    assert FitCheck.of(ones, ones, torch.cat([torch.ones(30), torch.zeros(10)]).double(), level).kept_fit
    # No shared spelling (two scripts): the decoys decide alone.
    assert FitCheck.of(ones, ones).as_dict()["n_identical"] == 0 and FitCheck.of(ones, ones).kept_fit


# --- whole runs on generated corpora -------------------------------------------------------------


def _generated(tmp_path, kind: str, seed: int, lost_words: int, **spec):
    path = write_generated(tmp_path / f"{kind}.cog", GeneratorSpec(kind=kind, seed=seed, lost_words=lost_words, **spec))
    return str(path.path)


def _run(path: str):
    cfg = DecipherConfig(corpus=path, device="cpu", seed=1)
    return run_decipherment(read_cog(path), cfg)


def test_auto_reads_a_shared_alphabet_with_the_edit_channel(tmp_path, single_thread) -> None:
    path, events = _generated(tmp_path, "shared-alphabet", seed=5, lost_words=100, cognate_share=0.6), []
    result = run_decipherment(read_cog(path), DecipherConfig(corpus=path, device="cpu", seed=1), events.append)
    # Its reverse channel stops once its plan has settled, and the progress bar is completed. On
    # these 100 words the fit's plan still rises: it trains all its 150 steps.
    (settled,) = [e.line for e in events if isinstance(e, Decided) and e.what == "settled"]
    trained = int(settled.split("settled after ")[1].split(" of ")[0])
    assert settled.startswith("reverse channel: its plan settled after") and 50 < trained < 300
    reverse = [e.step for e in events if isinstance(e, ChannelStep) and e.channel == "reverse"]
    assert len(reverse) == trained + 1 and reverse[-1] == result.config.channel_steps
    d = result.decisions
    assert d["channel_kind"] == "edit" and d["script"]["one_alphabet"]
    assert abs(d["demand"]["demand"] - 60) <= 20  # 60 of the 100 lost words have a cognate
    # The pairs past D up to the most the evidence allows: lost words not proposed, known words the
    # proposals leave free (C = 1), best first, each with its reading; in no figure of the proposals.
    beyond = result.beyond
    assert 0 < len(beyond) <= d["demand"]["demand_high"] - result.demand
    assert not {p.lost for p in beyond} & {p.lost for p in result.proposals}
    assert not {p.known for p in beyond} & {p.known for p in result.proposals}
    assert [p.score for p in beyond] == sorted((p.score for p in beyond), reverse=True)
    assert all(p.alignment for p in beyond)
    assert result.proposal_scores().n_proposals == len(result.proposals)
    assert result.accuracy >= 0.85
    assert result.config.method == "auto" and "auto: edit channel" in d["line"]
    assert result.config.sparsify == "grown-top-k"  # its flows' graph grows (engine/flow.py)
    # The fit on every word beats the decoys at least as often as the probe: it is kept.
    assert d["fit_check"]["kept_fit"] and d["fit_check"]["fit_wins"] >= d["fit_check"]["probe_wins"] - 2
    assert "drifted" not in d["line"]
    # Shared spellings on a shared alphabet: both channels' readings of them are recorded.
    assert d["fit_check"]["n_identical"] > 0 and d["fit_check"]["fit_identical"] <= d["fit_check"]["n_identical"]


def test_a_d_the_decipherer_gives_is_proposed_with_the_evidences_reading_beside_it(tmp_path, single_thread) -> None:
    path = _generated(tmp_path, "shared-alphabet", seed=5, lost_words=100, cognate_share=0.6)
    given = run_decipherment(read_cog(path), DecipherConfig(corpus=path, device="cpu", seed=1, auto_demand=30))
    d = given.decisions["demand"]
    assert given.demand == len(given.proposals) == d["demand"] == 30
    assert d["why"].startswith("as given by auto_demand (30); the evidence alone read ")
    # The evidence's range stays, and with it the pairs past the given D up to its high end.
    assert d["demand_low"] < d["demand_high"] and 0 < len(given.beyond) <= d["demand_high"] - 30
    assert "D = 30 of 100, the evidence allows" in given.decisions["line"]
    # More than every lost word: every lost word.
    every = run_decipherment(read_cog(path), DecipherConfig(corpus=path, device="cpu", seed=1, auto_demand=500,
                                                            auto_steps=40))  # fmt: skip
    assert every.demand == 100 and every.decisions["demand"]["why"].startswith("as given by auto_demand (100)")


def test_the_fit_stops_once_its_plan_has_settled_and_the_reverse_channel_starts_where_it_would_have_ended(
    tmp_path, single_thread, monkeypatch
) -> None:
    """With a tolerance no plan can miss, the fit stops at the first step it can compare (50 steps
    of plans), says so, and the steps after it are counted from where its 150 would have ended."""
    monkeypatch.setattr(fitting, "FIT_SETTLE", 1e9)
    path, events = _generated(tmp_path, "shared-alphabet", seed=5, lost_words=100, cognate_share=0.6), []
    result = run_decipherment(read_cog(path), DecipherConfig(corpus=path, device="cpu", seed=1), events.append)
    fit_line = next(e.line for e in events if isinstance(e, Decided) and e.what == "settled")
    assert fit_line.startswith("the fit channel: its plan settled after 51 of 150 steps")
    fit = [e.step for e in events if isinstance(e, ChannelStep) and e.channel == ""]
    reverse = [e.step for e in events if isinstance(e, ChannelStep) and e.channel == "reverse"]
    ended = reverse[0] - 1  # where the fit's 150 steps end
    assert fit[-2:] == [ended - 150 + 51, ended]  # its 51st step, then the bar completed
    assert result.accuracy >= 0.85


def test_the_reverse_channel_weighs_as_the_lost_lists_share_and_is_left_out_of_shortlisted_lists() -> None:
    edit, pieces = SCHEDULES["edit"], SCHEDULES["pieces"]
    assert reverse_share(584, 584) == 0.5 and reverse_share(735, 4103) == pytest.approx(0.152, abs=1e-3)
    assert reverse_steps(edit, 584, 583) == (edit.reverse_steps, "") and edit.reverse_steps > 0
    assert reverse_steps(pieces, 919, 605) == (0, "")  # two scripts: no reverse channel, nothing to say
    steps, why = reverse_steps(edit, 7235, 39451)  # the full Ugaritic list trains through shortlists
    assert steps == 0 and why.startswith("one direction: 39451 x 7235 words")


def test_a_run_whose_reverse_lists_are_too_long_reads_one_direction(tmp_path, single_thread, monkeypatch) -> None:
    from tui_decipher.engine.methods.auto import training

    monkeypatch.setattr(training, "shortlisted", lambda n_lost, n_known: True)
    steps: list[ChannelStep] = []
    path = _generated(tmp_path, "shared-alphabet", seed=5, lost_words=60)
    cfg = DecipherConfig(corpus=str(path), device="cpu", auto_steps=30)
    corpus = read_cog(path)
    result = run_decipherment(corpus, cfg, on_event=lambda e: steps.append(e) if isinstance(e, ChannelStep) else None)
    d = result.decisions
    assert d["reverse_share"] == 0.0 and d["reverse_why"].startswith("one direction") and d["reverse_why"] in d["line"]
    assert result.fitted.blend is None
    assert steps[-1].step == steps[-1].steps == d["steps"]  # the progress total leaves the reverse steps out


def test_the_reverse_channels_steps_come_last_and_say_whose_they_are(tmp_path, single_thread) -> None:
    # Its losses are on another scale than the fit's (another list written, from another alphabet
    # size): the CLI, the TUI's log and its loss plot tell them apart by `ChannelStep.channel`.
    steps: list[ChannelStep] = []
    path = _generated(tmp_path, "shared-alphabet", seed=5, lost_words=60)
    cfg = DecipherConfig(corpus=str(path), device="cpu", auto_steps=30)
    result = run_decipherment(read_cog(path), cfg,
                              on_event=lambda e: steps.append(e) if isinstance(e, ChannelStep) else None)  # fmt: skip
    assert result.decisions["reverse_share"] > 0
    channels = [e.channel for e in steps]
    first = channels.index("reverse")
    assert set(channels[:first]) == {"cross", "", "calibration"} and set(channels[first:]) == {"reverse"}
    # The cross channel (cross_channel.py) trains first, on the probe's held-out words.
    cross = [k for k, c in enumerate(channels) if c == "cross"]
    assert cross == list(range(len(cross))) and channels[len(cross)] == ""
    # The calibration pass (engine/methods/auto/calibration.py) runs once, between the probe and the fit.
    calibration = [k for k, c in enumerate(channels) if c == "calibration"]
    assert calibration == list(range(calibration[0], calibration[-1] + 1))
    assert channels[calibration[0] - 1] == channels[calibration[-1] + 1] == ""
    assert steps[-1].label == "reverse transport" and steps[first - 1].label == "transport"


def test_a_fit_that_drifted_from_its_probe_gives_way_to_the_probes_channel(
    tmp_path, single_thread, monkeypatch
) -> None:
    # The fit's held-out evidence is set here (FitCheck is tested above); the probe, the fit and
    # the flows run for real.
    import tui_decipher.engine.methods.auto as auto
    from tui_decipher.engine.methods.auto import fitting

    real_probe, real_score, probed, scored = auto.AutoMethod._probe, fitting.score_channel, [], []

    def probe(self, *args, **kwargs):
        probed.append(real_probe(self, *args, **kwargs))
        probed.append({k: v.clone() for k, v in probed[0].channel.state_dict().items()})
        return probed[0]

    def score(channel, *args):
        scored.append(channel)
        return real_score(channel, *args)

    monkeypatch.setattr(auto.AutoMethod, "_probe", probe)
    monkeypatch.setattr(fitting, "score_channel", score)
    monkeypatch.setattr(
        fitting, "_held_evidence",
        lambda problem, channel, p: (torch.zeros_like(p.estimate.wins_each), p.estimate.reads_each),
    )  # fmt: skip
    result = _run(_generated(tmp_path, "shared-alphabet", seed=5, lost_words=100, cognate_share=0.6))
    check = result.decisions["fit_check"]
    assert not check["kept_fit"] and check["fit_wins"] == 0 and check["z"] >= DRIFT_Z
    assert "the probe's channel kept (the fit drifted)" in result.decisions["line"]
    # The probe's own channel, untouched by the fit, gave the run's costs.
    assert scored == [probed[0].channel]
    assert all(torch.equal(v, probed[1][k]) for k, v in probed[0].channel.state_dict().items())
    assert result.accuracy >= 0.8


@pytest.mark.parametrize("drifted", [False, True])
def test_a_fit_through_shortlists_is_checked_at_each_refresh_and_stops_there_once_drifted(
    tmp_path, single_thread, monkeypatch, drifted
) -> None:
    """Where the fit trains through shortlists (the full Ugaritic list), its check against the
    probe runs at each refresh. A check that finds no drift changes nothing the run reads; one that
    finds drift stops the fit there, and the probe's channel is kept as the last check would keep it."""
    import math

    from tui_decipher.engine.methods.auto import fit_check, fitting

    path = _generated(tmp_path, "shared-alphabet", seed=5, lost_words=100, cognate_share=0.6)
    monkeypatch.setattr(fit_check, "DRIFT_Z", -math.inf if drifted else math.inf)  # every check drifted, or none
    plain = _run(path)  # 100 x ~150 words: no shortlists, so no watch
    monkeypatch.setattr(fitting, "shortlisted", lambda n_lost, n_known: True)  # the fit's watch only
    events: list = []
    cfg = DecipherConfig(corpus=path, device="cpu", seed=1)
    watched = run_decipherment(read_cog(path), cfg, events.append)
    # The probe's and the fit's steps (the reverse channel's are its own).
    steps = [e.step for e in events if isinstance(e, ChannelStep) and e.channel == ""]
    check, fit_steps = watched.decisions["fit_check"], SCHEDULES["edit"].fit_steps
    if not drifted:
        assert check["stopped_after"] == 0 and check["kept_fit"]
        assert watched.decisions == plain.decisions
        assert _pairs(watched) == _pairs(plain)
        return
    assert check["stopped_after"] == fitting.REFRESH_EVERY and not check["kept_fit"]
    assert "the fit drifted by its step 50, where it stopped" in watched.decisions["line"]
    # The watch stopped it, not its plan's settling: the log does not say it settled.
    assert not [e for e in events if isinstance(e, Decided) and e.line.startswith("the fit channel")]
    # The fit's steps (its last planned one is reported once, completing the progress bar): the first 50.
    fit_range = range(max(steps) - fit_steps + 1, max(steps) + 1)
    assert [step for step in fit_range if step in steps] == [*fit_range[: fitting.REFRESH_EVERY], fit_range[-1]]
    assert not plain.decisions["fit_check"]["kept_fit"] and plain.decisions["fit_check"]["stopped_after"] == 0
    assert _pairs(watched) == _pairs(plain)


def _pairs(result) -> list[tuple[int, int, float]]:
    return [(p.lost, p.known, p.cost) for p in result.proposals]


def test_auto_reads_a_cipher_with_the_pieces_channel(tmp_path, single_thread) -> None:
    # The pieces path alone: the words not read again as one alphabet (tests/test_sign_reading.py).
    path, events = _generated(tmp_path, "substitution", seed=5, lost_words=100), []
    cfg = DecipherConfig(corpus=path, device="cpu", seed=1, auto_read_again=False)
    result = run_decipherment(read_cog(path), cfg, events.append)
    steps = [(e.step, e.steps) for e in events if isinstance(e, ChannelStep)]
    d = result.decisions
    assert d["channel_kind"] == "pieces" and not d["script"]["one_alphabet"]
    # 90 of the 100 lost words have a cognate in this kind; 20 held-out words pin D only roughly,
    # and the range the line gives holds the truth.
    assert d["demand"]["demand"] >= 60 and d["demand"]["demand_low"] <= 90 <= d["demand"]["demand_high"]
    assert result.accuracy >= 0.9
    # The lexicon probe finds the cognates it assumes, so the transport probe is not trained.
    assert [(p["objective"], p["kept"]) for p in d["probes"]] == [("lexicon", True)]
    assert "probe: lexicon objective" in d["line"]
    # The progress bar counts the steps run, one by one: the untried probe's steps are not in it.
    # The lexicon probe stops once its losses have settled, the fit once its plan has: the bar then
    # goes to where each would have ended.
    probe_settled, fit_settled = [e.line for e in events if isinstance(e, Decided) and e.what == "settled"]
    probe_steps = int(probe_settled.split("settled after ")[1].split(" of ")[0])
    fit_steps = int(fit_settled.split("settled after ")[1].split(" of ")[0])
    assert probe_settled.startswith("the lexicon probe channel: its loss") and 100 <= probe_steps < 300
    assert fit_settled.startswith("the fit channel: its plan") and 50 < fit_steps < 300
    fit_end = d["steps"] - 300 + fit_steps
    assert [s for s, _ in steps] == [*range(1, probe_steps + 1), 300, *range(301, fit_end + 1), d["steps"]]
    assert steps[-1] == (d["steps"], d["steps"])


@pytest.mark.parametrize(("transport_wins", "kept"), [(50, "transport"), (20, "lexicon")])
def test_a_doubted_lexicon_probe_brings_the_transport_probe_and_the_most_held_out_wins_is_kept(
    tmp_path, single_thread, monkeypatch, transport_wins, kept
) -> None:
    # The probes' held-out evidence is set here (the decision functions are tested above); the
    # channels, the fit and the flows run for real on a small cipher.
    from tui_decipher.engine.methods.auto import calibration, probe_search
    from tui_decipher.engine.methods.auto import probe as auto

    real_estimate, calls = auto._estimate, []

    def evidence(problem, channel, held_words, decoys, nulls=None, distances=None, cross=None):
        estimate = real_estimate(problem, channel, held_words, decoys, nulls, distances, cross)
        if len(calls) == 2:  # the kept probe's calibrated copy reads D (calibration.py)
            calls.append(None)
            return estimate
        n = estimate.held.n_lost
        wins = [n // 2, transport_wins * n // 60][len(calls)]  # the lexicon probe: chance
        calls.append(wins)
        each = torch.cat([torch.ones(wins), torch.zeros(n - wins)]).double()
        held = DemandEstimate(n, wins, 0.3, round(0.3 * n), n, n, "set by the test")
        return auto._Estimate(held, problem.n_lost, each, estimate.reads_each)

    trained_on: list[set[int]] = []  # the lost words each probe channel and search start trained on
    real_train = auto._train

    def recorded(problem, lost_words, *args, rows=None, **kwargs):
        trained_on.append(set(range(problem.n_lost)) if rows is None else {int(i) for i in rows})
        return real_train(problem, lost_words, *args, rows=rows, **kwargs)

    monkeypatch.setattr(auto, "_estimate", evidence)
    monkeypatch.setattr(auto, "_train", recorded)
    monkeypatch.setattr(calibration, "_train", recorded)
    monkeypatch.setattr(probe_search, "_train", recorded)
    path = _generated(tmp_path, "substitution", seed=5, lost_words=300)
    steps: list[ChannelStep] = []
    cfg = DecipherConfig(corpus=path, device="cpu", seed=1, auto_steps=60, auto_read_again=False)  # the probes' path
    result = run_decipherment(read_cog(path), cfg,
                              on_event=lambda e: steps.append(e) if isinstance(e, ChannelStep) else None)  # fmt: skip
    probes = result.decisions["probes"]
    # Each search start is its own curve on the progress plot, then the probe's own steps.
    labels = list(dict.fromkeys(e.label for e in steps))
    assert labels == ["lexicon", "search start 1 transport", "search start 2 transport", "transport",
                      "calibration transport"]  # fmt: skip
    assert [p["objective"] for p in probes] == ["lexicon", "transport"] and len(calls) == 3
    assert probes[0]["share_upper"] < LEXICON_TRUSTED_SHARE  # the doubt is why the second probe ran
    assert [p["objective"] for p in probes if p["kept"]] == [kept]
    other = "transport" if kept == "lexicon" else "lexicon"
    searched = ", its map searched from 2 starts on its training words" if kept == "transport" else ""
    assert f"probe: {kept} objective{searched} (its held-out words beat decoys" in result.decisions["line"]
    # The transport probe started from the search start with the lower loss.
    starts = probes[1]["search"]
    assert len(starts) == 2 and [s["kept"] for s in starts].count(True) == 1
    assert min(starts, key=lambda s: s["loss"])["kept"]
    assert f"against the {other} probe's" in result.decisions["line"]
    scaled = SCHEDULES["pieces"].scaled(60)
    assert result.decisions["steps"] == sum(p["steps"] for p in probes) + scaled.calibration_steps + scaled.fit_steps
    # No probe, search start or calibration trained on a held-out word: their decoy wins come from fresh words.
    train_rows, held = probe_split(300, 1, SCHEDULES["pieces"].train_share)
    assert len(trained_on) == 5 and all(rows == set(train_rows.tolist()) for rows in trained_on)
    assert not set(held.tolist()) & set().union(*trained_on)


def test_the_kept_syllable_map_is_the_best_of_those_another_start_reproduced() -> None:
    from tui_decipher.engine.channels.syllables import SyllableMap

    units = [("k", "a"), ("t", "a"), ("", "a")]

    def found(signs: str, log_likelihood: float) -> SyllableMap:
        return SyllableMap(("a",), dict(zip(units, signs, strict=True)), log_likelihood, -100.0, 10,
                           {("k", "a"): 0.5, ("t", "a"): 0.3, ("", "a"): 0.2})  # fmt: skip

    lone, first, again = found("XYZ", -10.0), found("ABC", -50.0), found("ABD", -40.0)  # 80% shared
    assert first.agreement(again) == pytest.approx(0.8) and lone.agreement(first) == 0.0
    assert kept_syllable_map([lone, first, again]) == (2, [False, True, True])
    # Where no two agree, the best of all.
    assert kept_syllable_map([first, lone]) == (1, [False, False])


@pytest.mark.parametrize(("agree", "explains"), [(True, True), (False, True), (True, False)])
def test_a_syllabary_is_searched_as_syllables_first_and_its_map_starts_the_channels_only_where_found(
    tmp_path, single_thread, monkeypatch, agree, explains
) -> None:
    # The search runs for real (few moves within auto_steps = 60); its maps are then made to agree
    # or not (every start the same map, or each start's signs rotated) and to explain the lost
    # words beyond the signs' frequencies or not. Channels start from the map only where both hold.
    from tui_decipher.engine.methods.auto import syllable_search as auto
    from tui_decipher.engine.methods.auto import training

    seeded, calls = [], []

    def made(found):
        base = calls[0] if agree else found
        signs = sorted(set(base.sign_of.values()))
        shift = 0 if agree else len(calls)
        rotated = {u: signs[(signs.index(x) + shift) % len(signs)] for u, x in base.sign_of.items()}
        gain = 1.0 if explains else -0.5
        return dataclasses.replace(base, sign_of=rotated, log_likelihood=base.background + gain * base.n_lost)

    monkeypatch.setattr(auto, "search_starts", starts_made(auto.search_starts, made, calls))
    monkeypatch.setattr(training, "seed_channel", lambda *args, **kwargs: seeded.append(args[1]))
    # A true map would explain far more than any start: the starts are not all chance (that path
    # is the next test's).
    monkeypatch.setattr(auto, "planted_gain", lambda *args, **kwargs: 10.0)
    path = _generated(tmp_path, "syllabary", seed=2, lost_words=200)
    result = run_decipherment(read_cog(path), DecipherConfig(corpus=path, device="cpu", seed=1, auto_steps=60))
    d = result.decisions
    assert d["channel_kind"] == "pieces" and d["script"]["syllabary"]
    starts, search = d["syllables"]["starts"], SCHEDULES["pieces"].syllables
    # More starts only until two agree.
    assert len(starts) == (search.starts if agree else search.max_starts) == len(calls)
    assert [s["agrees"] for s in starts] == [agree] * len(starts)
    assert [s["kept"] for s in starts].count(True) == 1 and max(starts, key=lambda s: s["gain"])["kept"]
    used, single = agree and explains, not agree and explains
    assert d["syllables"]["used"] is used and d["syllables"]["why"] in d["line"]
    # The generated known language spells its aspirates kh, ph, th: the search says how it read them.
    assert d["syllables"]["tails"] == "h" and "h read as part of the consonant before it" in d["syllables"]["why"]
    if single:  # one start's map, not reproduced: the lexicon probe from a random start, then from it
        lexicon = [p for p in d["probes"] if p["objective"] == "lexicon"]
        assert [p["from_single_map"] for p in lexicon] == [False, True]
        kept = next(p for p in d["probes"] if p["kept"])
        # The probe whose held-out words beat the decoys most is kept, and the line says where it started.
        assert kept["wins"] == max(p["wins"] for p in d["probes"])
        started = "from the map one start found" if kept["from_single_map"] else "from a random start"
        assert f"probe: {kept['objective']} objective {started}" in d["line"]
        # The map seeded its probe, and the transport search's starts too where that probe led.
        map_led = lexicon[1]["wins"] > lexicon[0]["wins"]
        searched = sum(len(p.get("search", [])) for p in d["probes"])
        assert len(seeded) == 1 + (searched if map_led else 0)
        assert "one start alone found it" in d["line"]
    else:
        # Every fresh channel (the lexicon probe, the transport search's starts) starts from the map;
        # without a scholar's values none is pinned to it (tests/test_map_pins.py).
        fresh = 1 + sum(len(p.get("search", [])) for p in d["probes"])
        assert len(seeded) == (fresh if used else 0)
        assert all("from_single_map" not in p and "held_to_map" not in p for p in d["probes"])
    assert ("no map found" in d["line"]) is not (used or single)
    # A probe's search from a map (one agreed on, or a single map whose probe led) trains one start,
    # since each would begin there; from random starts, the schedule's.
    lexicon = [p for p in d["probes"] if p["objective"] == "lexicon"]
    from_a_map = used or (single and lexicon[1]["wins"] > lexicon[0]["wins"])
    searches = [p["search"] for p in d["probes"] if "search" in p]
    assert all(len(s) == (1 if from_a_map else SCHEDULES["pieces"].probes[1].search.starts) for s in searches)
    # Its steps are on the progress bar before the probes'.
    scaled = SCHEDULES["pieces"].scaled(60)
    assert d["steps"] == len(starts) * scaled.syllables.steps_each + sum(p["steps"] for p in d["probes"]) + (
        scaled.calibration_steps + scaled.fit_steps
    )


def test_the_syllable_search_takes_the_threads_the_run_computes_with(tmp_path, monkeypatch) -> None:
    """A run whose settings leave threads to the program (0) searches with as many starts at once as
    torch's threads, which the front end sets to the run's share of the cores (beside other runs,
    a core left to a live screen); a run's own `threads` setting, where given, decides."""
    from tui_decipher.engine.methods.auto import syllable_search

    workers: list[int] = []
    real = syllable_search.search_starts

    def recorded(lost_words, known_words, seeds, moves, threads, **kwargs):
        workers.append(threads)
        return real(lost_words, known_words, seeds, moves, threads, **kwargs)

    monkeypatch.setattr(syllable_search, "search_starts", recorded)
    path = _generated(tmp_path, "syllabary", seed=2, lost_words=120)
    before = torch.get_num_threads()
    try:
        for torch_threads, setting in ((1, 0), (2, 0), (1, 2)):
            torch.set_num_threads(torch_threads)
            cfg = DecipherConfig(corpus=path, device="cpu", seed=1, auto_steps=20, threads=setting)
            run_decipherment(read_cog(path), cfg)
    finally:
        torch.set_num_threads(before)
    assert workers == [1, 2, 2]


@pytest.mark.parametrize(
    ("planted", "known_signs", "first", "stops"),
    [(1.2, False, 1.0, True), (1.5, False, 1.0, False), (1.2, True, 1.0, False), (1.2, False, 2.0, False)],
)
def test_the_syllable_search_stops_where_its_starts_explain_the_words_as_well_as_a_true_map_would(
    tmp_path, single_thread, monkeypatch, planted, known_signs, first, stops
) -> None:
    # The first start's map explains `first` nats a word, every other start's 1.0, and none agrees
    # with another (each start's signs rotated); a true map would explain `planted` (`planted_gain`,
    # set here). Where 1.0 reaches CHANCE_SHARE of it and no start stands out, no start can be told
    # from chance: the search stops after its first starts and no map is tried, not even as a
    # single start's. A start that explains twice as much found something: the search goes on. A
    # scholar's sign values pin the map: the rule is not asked there.
    from tui_decipher.engine.methods.auto import syllable_search as auto

    calls, asked = [], []

    def made(found):
        signs = sorted(set(found.sign_of.values()))
        rotated = {u: signs[(signs.index(x) + len(calls)) % len(signs)] for u, x in found.sign_of.items()}
        gain = first if len(calls) == 1 else 1.0
        return dataclasses.replace(found, sign_of=rotated, log_likelihood=found.background + gain * found.n_lost)

    def planted_gain(*args, **kwargs) -> float:
        asked.append(args)
        return planted

    monkeypatch.setattr(auto, "search_starts", starts_made(auto.search_starts, made, calls))
    monkeypatch.setattr(auto, "planted_gain", planted_gain)
    path = _generated(tmp_path, "syllabary", seed=2, lost_words=200)
    cfg = DecipherConfig(corpus=path, device="cpu", seed=1, auto_steps=60)
    if known_signs:
        key = syllabary_key_text(write_generated(tmp_path / "key.cog", GeneratorSpec(kind="syllabary", seed=2,
                                                                                       lost_words=200)))  # fmt: skip
        (tmp_path / "signs.tsv").write_text("\n".join(key.splitlines()[:6]) + "\n", encoding="utf-8")
        cfg = cfg.replace(known_signs=str(tmp_path / "signs.tsv"))
    result = run_decipherment(read_cog(path), cfg)
    d = result.decisions
    assert result.config.channel_gaps  # a syllabary: its pieces channel reads gapped pieces
    search_schedule = SCHEDULES["pieces"].syllables
    assert len(d["syllables"]["starts"]) == (search_schedule.starts if stops else search_schedule.max_starts)
    assert len(asked) == (0 if known_signs else 1)
    assert ("no map can be told from chance" in d["line"]) is stops
    assert ("planted_gain" in d["syllables"]) is stops and not d["syllables"]["used"]
    if stops:
        assert d["syllables"]["planted_gain"] == planted
        assert "of 2 maps (none agree) all explain 1.00-1.00 nats a word, a true map about 1.20" in d["line"]
        assert all("from_single_map" not in p for p in d["probes"])  # no single start's map tried
    else:
        assert "one start alone found it" in d["line"]


def test_starts_are_at_chance_level_where_they_reach_a_true_maps_gain_and_look_alike() -> None:
    from tui_decipher.engine.methods.auto.syllable_search import _chance_level

    # (the first two starts' gains, the planted gain): generated syllabaries, docs/experiments.md.
    assert _chance_level([0.765, 0.771], 0.99)  # 200 words: chance maps reach a true map's level
    assert _chance_level([1.098, 0.897], 0.963)  # 150 words: one a little above it, still alike
    assert not _chance_level([0.368, 0.378], 0.675)  # 400 words: chance maps explain far less
    assert not _chance_level([1.387, 0.651], 0.852)  # 250 words: one start found the map
    assert not _chance_level([-0.159, 2.176], 3.246)  # Linear B: a found map and a chance one


def test_a_map_one_start_alone_found_is_tried_only_where_it_explains_the_words_well() -> None:
    from tui_decipher.engine.channels.syllables import SyllableMap
    from tui_decipher.engine.methods.auto.syllable_search import SINGLE_MAP_GAIN, _Syllables

    def syllables(gain: float, agrees: bool) -> _Syllables:
        found = SyllableMap(("a",), {("k", "a"): "X"}, -100.0 + 10 * gain, -100.0, 10, {("k", "a"): 1.0})
        return _Syllables(found, [{"start": 0, "gain": gain, "agrees": agrees, "kept": True}])

    assert syllables(SINGLE_MAP_GAIN, False).single and not syllables(SINGLE_MAP_GAIN, False).used
    # A map that explains little is not tried (chance maps: up to 0.19 nats a word on 1000 words).
    assert not syllables(0.11, False).single and "no map found" in syllables(0.11, False).why
    # A map two starts agree on is used outright, not tried.
    assert syllables(1.0, True).used and not syllables(1.0, True).single


def test_a_cipher_of_an_alphabet_is_not_searched_as_syllables(tmp_path, single_thread) -> None:
    path = _generated(tmp_path, "substitution", seed=5, lost_words=100)
    result = run_decipherment(read_cog(path), DecipherConfig(corpus=path, device="cpu", seed=1, auto_steps=30))
    assert not result.decisions["script"]["syllabary"] and result.decisions["syllables"] == {}
    assert "syllables" not in result.decisions["line"]


def test_auto_raises_c_where_known_words_have_two_lost_cognates(tmp_path, single_thread) -> None:
    # A quarter of the cognates also appear as a second, inflected lost form: C = 1 would force
    # one of each pair onto a wrong known word.
    result = _run(_generated(tmp_path, "shared-alphabet", seed=7, lost_words=100, cognate_share=0.8, variants=0.3))
    d = result.decisions
    assert d["capacity"] == 2 and d["capacity_evidence"]["shared_share"] >= 0.04
    assert "share a known word" in d["capacity_why"] and result.config.capacity == 2
    assert result.accuracy >= 0.85
    # The same words without the variants read one-to-one.
    plain = _run(_generated(tmp_path, "shared-alphabet", seed=7, lost_words=100, cognate_share=0.8))
    assert plain.decisions["capacity"] == 1 and "one-to-one" in plain.decisions["capacity_why"]


def test_on_a_syllabary_c_is_read_only_from_words_sharing_a_reading_with_a_longer_form_of_themselves(
    tmp_path, single_thread, monkeypatch
) -> None:
    # auto hands the lost words to the capacity estimate on a syllabary (collisions there count
    # only between a word and a longer form of it), not on a cipher of an alphabet.
    from tui_decipher.engine.methods.auto import fitting as auto

    real, handed = auto.estimate_capacity, {}

    def estimate(cost, demand, n_known, forms_of=None):
        handed[kind] = forms_of
        return real(cost, demand, n_known, forms_of)

    monkeypatch.setattr(auto, "estimate_capacity", estimate)
    decided = {}
    for kind in ("syllabary", "substitution"):
        path = _generated(tmp_path, kind, seed=3, lost_words=120)
        table = read_cog(path)
        decided[kind] = run_decipherment(table, DecipherConfig(corpus=path, device="cpu", seed=1, auto_steps=30))
        if kind == "syllabary":
            assert handed[kind] == table.lost_words
    syllabary, cipher = decided["syllabary"], decided["substitution"]
    assert syllabary.decisions["script"]["syllabary"] and not cipher.decisions["script"]["syllabary"]
    assert handed["substitution"] is None and "collisions" not in cipher.decisions["capacity_evidence"]
    assert "longer or shorter form of themselves" in syllabary.decisions["capacity_why"]
    assert syllabary.decisions["capacity_evidence"]["collisions"] >= syllabary.decisions["capacity_evidence"]["shared"]


def test_the_flows_take_the_d_the_capacity_estimate_keeps(tmp_path, single_thread, monkeypatch) -> None:
    # Where one-to-one readings keep D to the known list, the proposals, the saved D and the
    # recorded share follow the kept D, while the decisions keep the estimated one.
    from tui_decipher.engine.methods.auto import fitting as auto
    from tui_decipher.engine.methods.auto.capacity import CapacityEstimate

    kept = CapacityEstimate(30, 0, 1, 1, "one-to-one: ...; D kept to the 50 known words (from 100)", most_demand=50)
    monkeypatch.setattr(auto, "estimate_capacity", lambda *args: kept)
    path = _generated(tmp_path, "substitution", seed=3, lost_words=120)
    result = run_decipherment(read_cog(path), DecipherConfig(corpus=path, device="cpu", seed=1, auto_steps=30))
    assert result.demand == 50 and len(result.proposals) == 50
    assert result.config.capacity == 1 and result.config.cognate_fraction == pytest.approx(50 / 120)
    assert result.decisions["demand"]["demand"] != 50 and result.decisions["capacity_evidence"]["demand"] == 50
    assert "D kept to the 50 known words" in result.decisions["line"]


def test_a_plain_word_list_run_reports_its_decisions(tmp_path) -> None:
    table = read_cog(_generated(tmp_path, "shared-alphabet", seed=6, lost_words=60))
    lost, known = tmp_path / "lost.txt", tmp_path / "known.txt"
    lost.write_text("\n".join("".join(w) for w in table.lost_words) + "\n", encoding="utf-8")
    known.write_text("\n".join("".join(w) for w in table.known_words) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    args = ["run", "--lost-words", str(lost), "--known-words", str(known), "--out", str(out), "--seed", "2"]
    result = CliRunner().invoke(app, [*args, "--data-dir", str(tmp_path / "data"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "auto: edit channel" in result.output  # the summary's method line is the decisions'
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["accuracy"] is None and summary["config"]["method"] == "auto"
    assert summary["decisions"]["channel_kind"] == "edit"
    assert summary["decisions"]["demand"]["demand"] == summary["n_cognates"] == summary["n_proposals"]


def test_auto_warns_where_two_scripts_train_through_shortlists(tmp_path, monkeypatch, single_thread):
    """Shortlists list the known words the channel reads best as it is: on two scripts, before the
    signs are read, they list noise. auto says so in a warning line rather than failing silently."""
    from tui_decipher.engine.channels import shortlist
    from tui_decipher.engine.corpora.corpus import read_cog
    from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
    from tui_decipher.engine.methods import run_decipherment
    from tui_decipher.engine.run.config import DecipherConfig
    from tui_decipher.engine.run.events import Decided

    spec = GeneratorSpec("large-known", seed=5, lost_words=40, known_ratio=20.0)
    corpus = read_cog(write_generated(tmp_path / "c.cog", spec).path)
    cfg = DecipherConfig(method="auto", device="cpu", seed=3, auto_steps=30)
    events: list = []
    run_decipherment(corpus, cfg, events.append)
    assert not [e for e in events if isinstance(e, Decided) and e.what == "warning"]  # 40 x 800: no shortlists
    monkeypatch.setattr(shortlist, "SHORTLIST_ABOVE", 1000)
    monkeypatch.setattr(shortlist, "SHORTLIST_SIZE", 16)
    run_decipherment(corpus, cfg, events.append)
    (warning,) = [e for e in events if isinstance(e, Decided) and e.what == "warning"]
    assert "shortlists" in warning.line and "--known-signs" in warning.line
