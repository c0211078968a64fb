"""The syllable search (engine/channels/syllables.py): the known alphabet's vowels, a known word's
syllable readings, the annealed sign map on a generated syllabary (its key read by the test only),
and the pieces channel started from a map."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections import Counter

import pytest
import torch

from tui_decipher.engine.channels.scoring import channel_log_probs
from tui_decipher.engine.channels.spelling import FINAL, spelled_readings
from tui_decipher.engine.channels.syllable_seed import seed_channel
from tui_decipher.engine.channels.syllable_starts import search_starts
from tui_decipher.engine.channels.syllables import (
    COGNATE_PRIOR,
    MAX_READINGS,
    SyllableModel,
    digraph_tails,
    planted_gain,
    readings,
    search_syllables,
    syllable_units,
)
from tui_decipher.engine.channels.trainer import new_channel
from tui_decipher.engine.corpora.charset import Charset
from tui_decipher.engine.corpora.corpus import graphemes, read_cog
from tui_decipher.engine.corpora.generators import GeneratorSpec, syllabary_key, write_generated
from tui_decipher.engine.corpora.vowels import known_vowels
from tui_decipher.engine.methods.auto.scripts import ScriptProfile


def _words(*texts: str):
    return [graphemes(t) for t in texts]


def test_sukhotin_finds_the_vowels_of_a_known_alphabet() -> None:
    known = _words("kato", "meli", "sunu", "pana", "tiko", "lome", "ruka", "nesi", "domu", "bale")
    assert known_vowels(known) == frozenset("aeiou")


def test_a_known_word_reads_as_one_unit_per_vowel_with_any_consonant_of_its_cluster() -> None:
    vowels = frozenset("aeiou")
    # "metha-s": th is a cluster (either letter may be the onset), the final s a coda never written.
    assert readings(graphemes("methas"), vowels) == [[("m", "e")], [("t", "a"), ("h", "a")]]
    assert readings(graphemes("anti"), vowels) == [[("", "a")], [("n", "i"), ("t", "i")]]


def test_a_letter_that_only_follows_consonants_is_a_digraphs_tail_and_no_syllables_onset(tmp_path) -> None:
    # h only ever follows k, p or t (kh, ph, th: aspirates written with two letters); s, n and t also
    # follow consonants (ns, st) but start words or follow vowels too, so they are onsets of their own.
    rng = random.Random(0)
    onsets = ["k", "p", "t", "m", "n", "s", "l", "r", "kh", "ph", "th", ""]
    texts = ["".join(rng.choice(onsets) + rng.choice("aeiou") for _ in range(rng.randint(2, 3))) + rng.choice("sn ")
             for _ in range(40)]  # fmt: skip
    known, vowels = _words(*(t.strip() for t in texts)), frozenset("aeiou")
    assert digraph_tails(known, vowels) == frozenset("h")
    # Seen once, h could be an ordinary consonant that happened not to open a syllable there.
    few = [w for w in known if "h" not in w][:8] + [w for w in known if w.count("h") == 1][:1]
    assert sum(w.count("h") for w in few) == 1 and digraph_tails(few, vowels) == frozenset()
    # An alphabet whose h also starts words ("hora") has no tail.
    assert digraph_tails([*known, graphemes("hora")], vowels) == frozenset()
    # The search reads a generated syllabary's Greek-like known words so: no unit of h is searched,
    # and "kha" is the syllable (k, a).
    corpus = _syllabary(tmp_path, 5, 120, 0.6)
    assert any("h" in w for w in corpus.known_words)
    found = search_syllables(corpus.lost_words, corpus.known_words, seed=1, moves=0)
    assert found is not None and found.tails == frozenset("h")
    assert not any(consonant == "h" for consonant, _ in found.sign_of)


@pytest.mark.parametrize("gaps", [True, False])
def test_a_channel_started_from_a_map_writes_a_digraphs_tail_only_inside_its_consonant(gaps) -> None:
    # The map's tail h never starts a piece of a channel with gapped pieces: "kha" is written by the
    # sign of ka (a gapped piece) or not at all, never as k dropped and the pair (h, a). A channel
    # without gapped pieces has no other way to write it, and keeps every action at h.
    from tui_decipher.engine.channels.pieces import DROP, GAP
    from tui_decipher.engine.channels.syllables import SyllableMap

    known = _words("kato", "khalo", "pheno", "anthos", "ksenos", "asti", "meta", "toso", "pito", "lume", "sinu", "kume")
    lost = [tuple("KT"), tuple("KL")]
    lost_charset, known_charset = Charset.from_words(lost), Charset.from_words(known)
    found = SyllableMap(tuple("aeiou"), {("k", "a"): "K", ("t", "o"): "T", ("l", "o"): "L"}, -10.0, -20.0, 2,
                        {("k", "a"): 0.5, ("t", "o"): 0.25, ("l", "o"): 0.25}, tails=frozenset("h"))  # fmt: skip
    channel = new_channel("pieces", lost_charset, known_charset, torch.Generator().manual_seed(0), gaps=gaps)
    seed_channel(channel, found, lost_charset, known_charset)
    h, k = known_charset.index["h"], known_charset.index["k"]
    actions = channel.log_actions().exp().detach()  # (K+1, 4)
    assert float(actions[h, DROP]) == pytest.approx(1.0) if gaps else float(actions[h, DROP]) < 0.5
    assert (float(actions[k, GAP]) > 0.1) == gaps
    pairs = [graphemes("khalo"), graphemes("halo")]
    # The same start from a map without tails: "halo" writes KL through the pair (h, a) there too,
    # and loses that way to K where h is a tail (a channel without gapped pieces keeps it).
    untailed = new_channel("pieces", lost_charset, known_charset, torch.Generator().manual_seed(0), gaps=gaps)
    seed_channel(untailed, dataclasses.replace(found, tails=frozenset()), lost_charset, known_charset)
    log_p, log_p_untailed = (channel_log_probs(c, lost, pairs, lost_charset, known_charset)
                             for c in (channel, untailed))  # fmt: skip
    assert (float(log_p[1, 1]) < float(log_p_untailed[1, 1]) - 0.1) == gaps
    assert float(log_p[1, 0]) > -8.0  # "khalo" still writes KL (its gapped piece kha -> K)
    # Training leaves the tail's actions where they are: the words' likelihood has no gradient there.
    pad = channel.none  # a known word's padding
    known_ids = torch.tensor([[known_charset.index[c] for c in w] + [pad] * (5 - len(w)) for w in pairs])  # (2, 5)
    lost_ids = torch.tensor([[lost_charset.index[c] for c in w] for w in lost])  # (2, 2)
    loss = -channel.log_prob(lost_ids, torch.tensor([2, 2]), known_ids, torch.tensor([5, 4])).sum()
    loss.backward()
    assert channel.action.grad is not None and channel.action.grad[k].abs().max() > 1e-4
    assert (channel.action.grad[h, 1:].abs().max() < 1e-6) == gaps


def test_a_known_word_reads_with_its_clusters_in_full_or_as_one_sign_and_its_final_consonant_or_not() -> None:
    # "ptolis": the cluster pt before o written in full (po-to) or as one sign (po or to, half each),
    # the final s written (its FINAL unit) or not; each reading counts the choices it makes.
    out = {(r.units, r.base, r.full, r.single, r.finals, r.dropped)
           for r in spelled_readings(graphemes("ptolis"), frozenset("aeiou"), MAX_READINGS)}  # fmt: skip
    po, to, li, s = ("p", "o"), ("t", "o"), ("l", "i"), ("s", FINAL)
    assert out == {
        ((po, to, li, s), 1.0, 1, 0, 1, 0), ((po, to, li), 1.0, 1, 0, 0, 1),
        ((po, li, s), 0.5, 0, 1, 1, 0), ((po, li), 0.5, 0, 1, 0, 1),
        ((to, li, s), 0.5, 0, 1, 1, 0), ((to, li), 0.5, 0, 1, 0, 1),
    }  # fmt: skip
    assert spelled_readings(graphemes("str"), frozenset("aeiou"), MAX_READINGS) == []  # no vowel, no reading


def test_every_consonant_of_a_word_final_cluster_has_a_final_unit(monkeypatch) -> None:
    """A reading writes each consonant of a word-final cluster with a final's sign ("kast": s and t),
    so each has a FINAL unit, even one that ends no word itself. A real Greek list (Cypriot against
    Greek) crashed here: KeyError ('σ', '#'), its readings' unit that no unit list held."""
    from tui_decipher.engine.channels import syllables
    from tui_decipher.engine.channels.spelling import Spelling

    known = [graphemes(w) for w in ("kast", "pata", "lomak", "sinu", "tamest")]
    _, units = syllable_units(known, finals=True, vowels=frozenset("aeiou"))
    assert [u for u in units if u[1] == FINAL] == [("k", FINAL), ("s", FINAL), ("t", FINAL)]
    assert [u for u in syllable_units(known, vowels=frozenset("aeiou"))[1] if u[1] == FINAL] == []
    # A spelling that writes finals (fitted from the lost words' lengths): the model builds, where
    # "-st" ends words and s ends none.
    monkeypatch.setattr(syllables, "fit_spelling", lambda lengths, lost: Spelling(0.5, 1.0))
    words = "kast pata lomak sinu tamest peki rato mune kolit tapu nesa limo sopak karent duma"
    lost = [graphemes(w) for w in ("ABC", "DE", "FGH", "AB", "CDEF")]
    model = SyllableModel.build(lost, [graphemes(w) for w in words.split()])
    assert model.readings.vowels == frozenset("aeiou") and ("s", FINAL) in model.readings.unit_id


def _syllabary(tmp_path, seed: int, lost_words: int, cognate_share: float, kind: str = "syllabary"):
    path = tmp_path / (f"syl{seed}.cog" if kind == "syllabary" else f"{kind}{seed}.cog")
    spec = GeneratorSpec(kind=kind, seed=seed, lost_words=lost_words, cognate_share=cognate_share)
    write_generated(path, spec)
    return read_cog(path)


def test_a_syllabary_against_an_alphabet_reads_as_one_and_a_cipher_does_not(tmp_path) -> None:
    syllabary = _syllabary(tmp_path, 3, 200, 0.6)
    assert ScriptProfile.of(syllabary.lost_words, syllabary.known_words).syllabary
    path = tmp_path / "cipher.cog"
    write_generated(path, GeneratorSpec(kind="substitution", seed=3, lost_words=200))
    cipher = read_cog(path)
    assert not ScriptProfile.of(cipher.lost_words, cipher.known_words).syllabary


def test_the_search_finds_a_generated_syllabarys_map_and_starts_the_channel_from_it(tmp_path) -> None:
    corpus = _syllabary(tmp_path, 3, 300, 1.0)
    key = syllabary_key(3)  # the test's oracle: the engine never reads it
    signs = sorted({s for w in corpus.lost_words for s in w})
    # Two starts at once, each in a thread: the maps one start at a time finds from these seeds.
    found, other = search_starts(corpus.lost_words, corpus.known_words, [1, 3], 300_000, workers=2)
    assert found is not None and found.vowels == tuple("aeiou")
    right = [s for s in signs if found.sign_of.get((key[s][:-1], key[s][-1])) == s]
    assert len(right) >= 0.9 * len(signs)
    assert found.gain > 2.0  # nats a word beyond the signs' own frequencies
    # The same words under a map that has not been searched explain far less.
    unsearched = search_syllables(corpus.lost_words, corpus.known_words, seed=1, moves=0)
    assert unsearched is not None and unsearched.gain < found.gain - 1.0
    # Another start finds the same map; a chance map shares little of it.
    assert other is not None and found.agreement(other) >= 0.9
    assert found.agreement(unsearched) < 0.1
    # A map to start from is where the search starts: with no moves it is the map returned.
    again = search_syllables(corpus.lost_words, corpus.known_words, seed=2, moves=0, start=found.sign_of)
    assert again is not None and again.sign_of == found.sign_of
    assert abs(again.log_likelihood - found.log_likelihood) < 1e-6

    # A pieces channel started from the map already writes most lost words from their cognates,
    # before any training; a random start writes almost none.
    lost_charset, known_charset = Charset.from_words(corpus.lost_words), Charset.from_words(corpus.known_words)

    def best_is_cognate(channel) -> float:
        log_p = channel_log_probs(channel, corpus.lost_words, corpus.known_words, lost_charset, known_charset)
        best = log_p.argmax(1).tolist()
        return sum(best[i] in known for i, known in corpus.gold.items()) / len(corpus.gold)

    channel = new_channel("pieces", lost_charset, known_charset, torch.Generator().manual_seed(0))
    assert best_is_cognate(channel) < 0.05
    seed_channel(channel, found, lost_charset, known_charset)
    assert best_is_cognate(channel) >= 0.6


def _direct_log_likelihood(lost_words, known_words, sign_of, vowels, spelling=None) -> float:
    """sum_i log P(x_i) of the module's model, written out word by word (the test's reference):
    with no `spelling`, the open syllables of `readings`; with one, every reading of
    channels/spelling.py weighted t^full (1-t)^single f^finals (1-f)^dropped. A letter that never
    starts a word nor follows a vowel (the h of kh) is read as part of the consonant before it."""
    opens = {y[0] for y in known_words} | {b for y in known_words for a, b in itertools.pairwise(y) if a in vowels}
    known_words = [tuple(c for c in y if c in vowels or c in opens) for y in known_words]
    written: Counter = Counter()
    for y in known_words:
        if spelling is None:
            options = readings(y, vowels)
            n = math.prod(len(o) for o in options)
            if not options or n > MAX_READINGS:
                continue
            for reading in itertools.product(*options):
                written[tuple(sign_of[u] for u in reading)] += 1 / (n * len(known_words))
            continue
        t, f = spelling.clusters, spelling.finals
        for r in spelled_readings(y, vowels, MAX_READINGS):
            p = r.base * t**r.full * (1 - t) ** r.single * f**r.finals * (1 - f) ** r.dropped
            if p > 0:
                written[tuple(sign_of[u] for u in r.units)] += p / len(known_words)
    signs = Counter(s for x in lost_words for s in x)
    total = sum(signs.values())
    lengths = Counter(len(x) for x in lost_words)
    out = 0.0
    for x in lost_words:
        background = lengths[len(x)] / len(lost_words) * math.prod(signs[s] / total for s in x)
        out += math.log(COGNATE_PRIOR * written[tuple(x)] + (1 - COGNATE_PRIOR) * background)
    return out


@pytest.mark.parametrize("kind", ["syllabary", "dead-vowel"])
def test_the_searched_maps_likelihood_is_the_models_written_out(tmp_path, kind) -> None:
    # The search keeps its likelihood up to date move by move; after many moves it must equal the
    # model's likelihood computed afresh for the map it returns, on words of every length (a lost
    # word repeated, one longer than any reading, known words with clusters and codas), under the
    # spelling it read from the words (Linear B-like: codas unwritten, the open syllables of
    # `readings`; Cypriot-like: every consonant written).
    corpus = _syllabary(tmp_path, 5, 120, 0.6, kind)
    lost = [*corpus.lost_words, corpus.lost_words[0], corpus.lost_words[0] * 4]
    for seed, moves in ((1, 0), (2, 3000), (3, 20_000)):
        found = search_syllables(lost, corpus.known_words, seed=seed, moves=moves)
        assert found is not None
        vowels = frozenset(found.vowels)
        direct = _direct_log_likelihood(lost, corpus.known_words, found.sign_of, vowels, found.spelling)
        assert abs(found.log_likelihood - direct) < 1e-6 * abs(direct)
        if kind == "syllabary":  # the spelling read is the open syllables' (the model before spellings)
            open_syllables = _direct_log_likelihood(lost, corpus.known_words, found.sign_of, vowels)
            assert abs(found.log_likelihood - open_syllables) < 1e-6 * abs(open_syllables)


@pytest.mark.parametrize("kind, writes", [("syllabary", False), ("dead-vowel", True)])
def test_the_spelling_is_read_from_the_lost_words_lengths(tmp_path, kind, writes) -> None:
    # A Linear B-like script's words are as long as their cognates' vowels; a Cypriot-like one's as
    # their vowels and consonants no vowel follows. The search reads which from the lengths alone
    # and searches final consonants' signs only where the script writes them.
    corpus = _syllabary(tmp_path, 4, 300, 0.6, kind)
    found = search_syllables(corpus.lost_words, corpus.known_words, seed=1, moves=0)
    assert found is not None
    assert (found.spelling.clusters > 0.5) == writes and found.spelling.finals == float(writes)
    assert any(vowel == FINAL for _, vowel in found.sign_of) == writes


def test_a_dead_vowel_syllabarys_map_completes_from_its_syllables_and_starts_the_channel(tmp_path) -> None:
    # Started from the key's syllables (a bilingual's worth), the annealing finds the signs of the
    # final consonants (a dead vowel's, which the model is never told) and explains the words far
    # better than the signs' own frequencies; the pieces channel started from it writes most lost
    # words from their cognates before any training.
    corpus = _syllabary(tmp_path, 3, 300, 1.0, "dead-vowel")
    key = syllabary_key(3, "dead-vowel")  # the test's oracle: the engine never reads it
    start = {(syllable[:-1], syllable[-1]): sign for sign, syllable in key.items()}
    found = search_syllables(corpus.lost_words, corpus.known_words, seed=1, moves=30_000, start=start, hot=0.02)
    assert found is not None and found.gain > 3.0
    finals = {consonant: sign for (consonant, vowel), sign in found.sign_of.items() if vowel == FINAL}
    dead = [v for v in "aeiou" if sum(key.get(sign) == c + v for c, sign in finals.items()) >= len(finals) - 1]
    assert len(dead) == 1  # one vowel writes (nearly) every final consonant: the script's dead vowel
    lost_charset, known_charset = Charset.from_words(corpus.lost_words), Charset.from_words(corpus.known_words)
    channel = new_channel("pieces", lost_charset, known_charset, torch.Generator().manual_seed(0))
    seed_channel(channel, found, lost_charset, known_charset)
    log_p = channel_log_probs(channel, corpus.lost_words, corpus.known_words, lost_charset, known_charset)
    best = log_p.argmax(1).tolist()
    assert sum(best[i] in known for i, known in corpus.gold.items()) / len(corpus.gold) >= 0.6


def test_a_search_from_a_map_that_writes_no_lost_word_finds_one_that_does() -> None:
    # Ten signs in five two-sign words, two known words of two syllables: a random start writes none
    # of the lost words (the search must still keep count from nothing), and the search ends
    # writing the repeated one, its likelihood the model's.
    lost = _words("ab", "ab", "ab", "cd", "ef", "gh", "ij")
    known = _words("kati", "pemo")
    unsearched = search_syllables(lost, known, seed=4, moves=0)
    assert unsearched is not None and abs(unsearched.gain - math.log(0.5)) < 1e-9  # writes none
    found = search_syllables(lost, known, seed=4, moves=3000)
    assert found is not None and found.gain > 0.5
    assert found.sign_of["k", "a"] + found.sign_of["t", "i"] == "ab"
    direct = _direct_log_likelihood(lost, known, found.sign_of, frozenset(found.vowels))
    assert abs(found.log_likelihood - direct) < 1e-9 * abs(direct)


def test_a_search_where_no_reading_writes_a_lost_word_explains_them_by_their_signs_alone() -> None:
    # Known words of one syllable cannot write lost words of three signs, under any map: the search
    # still runs and the words are its background.
    lost = _words("abc", "bca", "cab", "abc")
    found = search_syllables(lost, _words("ka", "ti", "po", "me", "su"), seed=1, moves=500)
    assert found is not None and abs(found.log_likelihood - (found.background + 4 * math.log(0.5))) < 1e-9


def test_a_planted_map_explains_a_syllabarys_words_about_as_its_true_map_does(tmp_path) -> None:
    # planted_gain stands in for a true map's gain, which a user's lists cannot show: on generated
    # syllabaries whose key is known (read by the test only) the two agree within the draws' spread,
    # at a size where chance maps reach them (200 words) and one where they do not (600).
    for seed, n in ((5, 200), (6, 600)):
        corpus = _syllabary(tmp_path, seed, n, 0.5)
        key = syllabary_key(seed)
        true_map = {(key[s][:-1], key[s][-1]): s for s in {s for w in corpus.lost_words for s in w} if s in key}
        true_map |= {("l", v): s for (c, v), s in list(true_map.items()) if c == "r"}  # l writes as r
        truth = search_syllables(corpus.lost_words, corpus.known_words, seed=1, moves=0, start=true_map)
        assert truth is not None
        planted = planted_gain(corpus.lost_words, corpus.known_words, seed=1)
        assert planted > 0.3 and abs(planted - truth.gain) < 0.35
        assert planted_gain(corpus.lost_words, corpus.known_words, seed=1) == planted  # seeded
    # Nothing to plant where there are no lost words.
    assert planted_gain([], _words("kati", "pemo"), seed=1) == 0.0


def test_starts_in_threads_find_the_maps_of_one_start_at_a_time(tmp_path) -> None:
    """Starts annealed at once, each in a thread, are the starts one thread anneals in turn: the
    same maps in the seeds' order, progress that only grows, reported from the caller's thread,
    and closing the iterator early stops what is still running (no thread is left behind). Every
    loss reported is a measurement, never NaN (which once reached the run's store and killed the
    run)."""
    import threading

    corpus = _syllabary(tmp_path, 5, 150, 0.6)
    seeds, moves = [11, 12, 13], 20_000
    alone = list(search_starts(corpus.lost_words, corpus.known_words, seeds, moves, workers=1))
    reported: list[int] = []
    losses: list[float] = []
    callers: set[str] = set()

    def on_progress(done: int, loss: float) -> None:
        reported.append(done)
        losses.append(loss)
        callers.add(threading.current_thread().name)

    starts = search_starts(corpus.lost_words, corpus.known_words, seeds, moves, workers=2, on_progress=on_progress)
    together = list(starts)
    assert losses and all(math.isfinite(x) for x in losses)
    assert callers == {threading.current_thread().name}
    assert [m.sign_of for m in together] == [m.sign_of for m in alone]
    assert [m.log_likelihood for m in together] == [m.log_likelihood for m in alone]
    assert reported == sorted(reported) and reported[-1] == len(seeds) * moves
    before = {t.name for t in threading.enumerate()}
    first = search_starts(corpus.lost_words, corpus.known_words, seeds, 2_000_000, workers=2)
    assert next(first) is not None  # the second and third starts are running now
    first.close()  # they are stopped, and their threads end
    assert not {t.name for t in threading.enumerate()} - before


def test_the_compiled_moves_are_the_interpreted_moves(tmp_path) -> None:
    """The compiled block of moves (channels/annealing_moves.py) does what the same code does run
    by the interpreter, and the log-likelihood it carries along is the one the map it leaves has."""
    import random

    import numpy as np

    from tui_decipher.engine.channels.annealing import Annealing
    from tui_decipher.engine.channels.annealing_moves import anneal_moves, string_table
    from tui_decipher.engine.channels.syllables import SyllableModel

    corpus = _syllabary(tmp_path, 5, 150, 0.6)
    model = SyllableModel.build(corpus.lost_words, corpus.known_words)
    readings, strings = model.readings, model.strings
    units = np.arange(len(readings.units), dtype=np.int64)
    rng = np.random.default_rng(5)
    n = 3000
    first = rng.integers(len(units), size=n)
    second = rng.integers(len(units) - 1, size=n)
    second += second >= first
    draws = (rng.random(n) >= 0.5, first, second, rng.integers(len(model.signs), size=n) + 1, rng.random(n),
             np.geomspace(5.0, 0.5, n))  # fmt: skip
    start = model.random_map(random.Random(3), {})
    ends = []
    for run in (anneal_moves, anneal_moves.py_func):
        search = Annealing(model, start.copy())
        search.score = run(search.signs_of, search.key_code, search.written, search.current, search.score,
                           readings.keys, readings.keys_start, readings.keys_flat, model.place, strings.codes_at,
                           string_table(strings.codes_at), readings.mass, strings.count, strings.bg_mass, model.prior,
                           units, *draws)  # fmt: skip
        again = Annealing(model, search.signs_of.copy())  # the map it left, scored from scratch
        assert search.score == pytest.approx(again.score, abs=1e-6)
        assert np.array_equal(search.key_code, again.key_code)
        ends.append((search.signs_of.copy(), search.score))
    assert not np.array_equal(ends[0][0], start)  # moves were taken
    assert np.array_equal(ends[0][0], ends[1][0]) and ends[0][1] == pytest.approx(ends[1][1], abs=1e-6)


def test_a_search_stopped_by_its_caller_yields_none(tmp_path) -> None:
    corpus = _syllabary(tmp_path, 5, 150, 0.6)
    for workers in (1, 2):
        found = list(search_starts(corpus.lost_words, corpus.known_words, [1, 2], 50_000, workers=workers,
                                   should_stop=lambda: True))  # fmt: skip
        assert found == [None]


def test_a_map_pickled_before_spellings_reads_as_the_open_syllables_it_assumed(tmp_path) -> None:
    # A stopped run's stage holds its syllable maps pickled; one written before maps had a spelling
    # has no such attribute, and resumes as the open syllables that code modelled.
    import pickle

    from tui_decipher.engine.channels.spelling import OPEN_SYLLABLES

    corpus = _syllabary(tmp_path, 5, 60, 0.6)
    found = search_syllables(corpus.lost_words, corpus.known_words, seed=1, moves=0)
    assert found is not None
    del found.__dict__["spelling"]  # as the old class wrote it
    del found.__dict__["tails"]  # (nor had it digraph tails)
    old = pickle.loads(pickle.dumps(found))
    assert old.spelling == OPEN_SYLLABLES and "final consonants unwritten" in old.spelling.describe()
    assert old.tails == frozenset()
    assert old.as_dict()["spelling"] == {"clusters_written": 0.0, "finals_written": 0.0}
