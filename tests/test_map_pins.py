"""A syllable map two search starts agreed on under a scholar's values: auto's first probe is trained
pinned to it as well as free to leave it, held-out words choose, and a pinned probe pins the fit and
every refinement."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from tests.syllable_support import starts_made
from tui_decipher.engine.channels.spelling import FINAL, Spelling
from tui_decipher.engine.channels.syllables import SyllableMap
from tui_decipher.engine.constraints.review import ReviewConstraints
from tui_decipher.engine.constraints.sign_values import SignValue, SignValues
from tui_decipher.engine.corpora.corpus import read_cog
from tui_decipher.engine.corpora.generators import GeneratorSpec, syllabary_key_text, write_generated
from tui_decipher.engine.methods import describe_refinement, refine_decipherment, run_decipherment
from tui_decipher.engine.methods.auto import probe as auto_probe
from tui_decipher.engine.methods.auto import syllable_search
from tui_decipher.engine.methods.auto.training import map_values
from tui_decipher.engine.methods.channel_results import load_channel
from tui_decipher.engine.methods.refinement import _refined_problem
from tui_decipher.engine.run.checkpoint import CHECKPOINT_NAME, load_checkpoint
from tui_decipher.engine.run.config import DecipherConfig
from tui_decipher.engine.run.events import ChannelStep


def test_a_map_reads_as_the_sign_values_of_the_units_the_known_words_hold() -> None:
    found = SyllableMap(
        vowels=("a", "o"),
        sign_of={("", "a"): "A", ("k", "o"): "K", ("t", "a"): "T", ("p", "o"): "P", ("s", FINAL): "S"},
        log_likelihood=-10.0, background=-20.0, n_lost=5,
        weight={("", "a"): 0.2, ("k", "o"): 0.5, ("t", "a"): 0.2, ("p", "o"): 0.0, ("s", FINAL): 0.1},
    )  # fmt: skip
    # A bare vowel as itself, a syllable as its two letters, a word-final consonant as the consonant;
    # "po", which no known word holds, was never moved from its random sign: left out.
    assert found.values() == [("A", ("a",)), ("K", ("k", "o")), ("T", ("t", "a")), ("S", ("s",))]
    assert map_values(found).by_symbol() == {"A": ["a"], "K": ["ko"], "T": ["ta"], "S": ["s"]}
    # Where the spelling writes clusters in full (each consonant with a sign), a held syllable's
    # sign also writes its consonant alone; where it writes one sign a cluster, it does not.
    cypriot = dataclasses.replace(found, spelling=Spelling(clusters=0.6, finals=1.0))
    assert map_values(cypriot).by_symbol() == {"A": ["a"], "K": ["ko", "k"], "T": ["ta", "t"], "S": ["s"]}
    linear_b = dataclasses.replace(found, spelling=Spelling(clusters=0.004, finals=0.0))
    assert map_values(linear_b).by_symbol() == map_values(found).by_symbol()


def _agreed_maps(real_starts, taken):
    """The syllable search's starts, each start's map replaced by the first one's, said to explain
    the lost words a nat a word beyond their signs' frequencies: two starts agree, the map is used.
    `taken` gets the maps the search found."""

    def made(found):
        return dataclasses.replace(taken[0], log_likelihood=taken[0].background + taken[0].n_lost)

    return starts_made(real_starts, made, taken)


def _agreed_under_values(tmp_path, monkeypatch):
    """A generated 120-word syllabary given a scholar's values (its key's first four), whose syllable
    search is made to agree on a map (`_agreed_maps`): (the written corpus, the run's settings, the
    maps the search found)."""
    taken: list[SyllableMap] = []
    monkeypatch.setattr(syllable_search, "search_starts", _agreed_maps(syllable_search.search_starts, taken))
    monkeypatch.setattr(syllable_search, "planted_gain", lambda *args, **kwargs: 10.0)  # the starts are not chance
    written = write_generated(tmp_path / "syl.cog", GeneratorSpec(kind="syllabary", seed=2, lost_words=120))
    (tmp_path / "signs.tsv").write_text("\n".join(syllabary_key_text(written).splitlines()[:5]) + "\n", "utf-8")
    cfg = DecipherConfig(corpus=str(written.path), device="cpu", seed=1, auto_steps=60,
                         known_signs=str(tmp_path / "signs.tsv"))  # fmt: skip
    return written, cfg, taken


@pytest.mark.parametrize("pinned_kept", [True, False])
def test_the_first_probe_is_tried_pinned_to_an_agreed_map_and_free_and_a_pinned_one_pins_the_fit_and_refinements(
    tmp_path, single_thread, monkeypatch, pinned_kept
) -> None:
    written, cfg, taken = _agreed_under_values(tmp_path, monkeypatch)
    corpus = read_cog(written.path)
    # Which candidate's held-out words won is forced here (`kept_probe`'s own rule has its test): the
    # held probe is the first candidate, the free one the second.
    monkeypatch.setattr(auto_probe, "kept_probe", lambda wins: 0 if pinned_kept else 1)
    result = run_decipherment(corpus, cfg, checkpoint=tmp_path / CHECKPOINT_NAME)
    d = result.decisions
    assert d["syllables"]["used"]
    lexicon = [p for p in d["probes"] if p["objective"] == "lexicon"]
    assert [p["held_to_map"] for p in lexicon] == [True, False]
    assert [p["kept"] for p in lexicon] == [pinned_kept, not pinned_kept]
    kept_phrase = "pinned to the syllable map" if pinned_kept else "free to leave the syllable map"
    other_phrase = "free to leave the syllable map" if pinned_kept else "pinned to the syllable map"
    assert f"probe: lexicon objective {kept_phrase} (its held-out words beat decoys" in d["line"]
    assert f"the lexicon probe {other_phrase}'s" in d["line"]
    # D is read on the held-out words of all three splits the kept candidate trained on (pooled_demand.py).
    assert d["demand"]["n_lost"] == 3 * lexicon[0]["held_out"] and ", over 3 splits" in d["demand"]["why"]
    checkpoint = load_checkpoint(tmp_path)
    values = map_values(taken[0])
    if not pinned_kept:
        assert "held_map" not in checkpoint.state
        return
    # The run's checkpoint keeps the map's values; a refinement's problem reads them back and its
    # channel is held to them (each held sign's other readings start below its value).
    assert SignValues.from_state(checkpoint.state["held_map"]).by_symbol() == values.by_symbol()
    problem = _refined_problem(corpus, checkpoint, ReviewConstraints(), lambda e: None, threading.Event(), None)
    assert problem.map_pins is not None and problem.map_pins.by_symbol() == values.by_symbol()
    channel = load_channel(problem, checkpoint.state["channel"])
    held_ids = {problem.lost_charset.index[v.lost] for v in values.values}
    assert channel.pinned_one is not None
    assert {int(s) for s in (channel.pinned_one < 0).any(0).nonzero().flatten()} == held_ids
    # A scholar's value for a held sign takes the map's place for that sign alone.
    sign, letters = values.values[0].lost, values.values[-1].known
    pinned = SignValues((SignValue(sign, letters),))
    problem = _refined_problem(corpus, checkpoint, ReviewConstraints(), lambda e: None, threading.Event(), pinned)
    s = problem.lost_charset.index[sign]
    given = [ids for symbol, ids in problem.pinned_signs if symbol == s]
    value = tuple(problem.known_charset.index[a] for a in letters)
    assert value in given and all(ids in (value, value[:1]) for ids in given)  # the value, or its consonant alone
    # A refinement keeps holding the channel: its checkpoint keeps the map's values.
    refine_decipherment(corpus, checkpoint, ReviewConstraints(), 1, checkpoint=tmp_path / "r.pt")
    after = load_checkpoint(tmp_path / "r.pt")
    assert SignValues.from_state(after.state["held_map"]).by_symbol() == values.by_symbol()
    # One that brings a new value fits the run again under it: the held signs could not make way.
    lost, known = syllabary_key_text(written).splitlines()[6].split("\t")
    new = SignValues((SignValue(lost, tuple(known)),))
    calibrations: list[int] = []  # a kept D is not read again: no calibrated copy is trained to read it
    real_calibrated = auto_probe.calibrated
    monkeypatch.setattr(auto_probe, "calibrated", lambda *a, **k: calibrations.append(1) or real_calibrated(*a, **k))
    refit = refine_decipherment(corpus, checkpoint, ReviewConstraints(), 1, signs=new)
    assert calibrations == []
    run_d = d["demand"]["demand"]  # the run found its map: the refit keeps its D
    assert refit.decisions["refinement"] == {"refit": 5, "map_found": True, "kept_demand": run_d}
    assert refit.decisions["demand"]["demand"] == run_d and "the run's, kept" in refit.decisions["demand"]["why"]
    assert f"D = {run_d} kept from the run" in describe_refinement(refit.decisions)


def test_a_refit_that_keeps_the_runs_d_keeps_its_range_and_its_pairs_past_d(tmp_path, single_thread, monkeypatch):
    written, cfg, _ = _agreed_under_values(tmp_path, monkeypatch)
    corpus = read_cog(written.path)
    # The run's D read as 60 of 120, its evidence allowing up to 108 (made so: these 60 steps read
    # every word as a cognate); the refit keeps that D and reads no D of its own.
    real = auto_probe.recalibrated
    monkeypatch.setattr(auto_probe, "recalibrated", lambda *a: dataclasses.replace(
        real(*a), share=0.5, demand=60, share_low=0.3, share_high=0.9))  # fmt: skip
    run = run_decipherment(corpus, cfg, checkpoint=tmp_path / CHECKPOINT_NAME)
    assert (run.demand, run.decisions["demand"]["demand_high"]) == (60, 108) and run.beyond
    lost, known = syllabary_key_text(written).splitlines()[6].split("\t")
    refit = refine_decipherment(corpus, load_checkpoint(tmp_path), ReviewConstraints(), 1,
                                signs=SignValues((SignValue(lost, tuple(known)),)))  # fmt: skip
    assert refit.decisions["refinement"]["kept_demand"] == refit.demand == 60
    assert 0 < len(refit.beyond) <= 108 - 60 and not {p.lost for p in refit.beyond} & {p.lost for p in refit.proposals}
    # Pairs accepted past D raise the refit's D as a refinement's do: every one of the run's pairs past
    # D accepted, those the refit's own flow at D leaves out are added, and all are proposed.
    past = tuple(sorted((p.lost, p.known) for p in run.beyond))
    judged = refine_decipherment(corpus, load_checkpoint(tmp_path), ReviewConstraints(past), 1,
                                 signs=SignValues((SignValue(lost, tuple(known)),)))  # fmt: skip
    grown = judged.decisions["refinement"]["demand"]
    assert grown["before"] == 60 < grown["after"] == judged.demand == len(judged.proposals)
    assert set(past) <= {(p.lost, p.known) for p in judged.proposals}
    line = describe_refinement(judged.decisions) or ""
    assert line.endswith(f"kept from the run; D 60 -> {judged.demand}: pairs accepted past D")


def test_without_a_scholars_values_the_first_probe_is_not_tried_pinned(tmp_path, single_thread, monkeypatch) -> None:
    taken: list[SyllableMap] = []
    monkeypatch.setattr(syllable_search, "search_starts", _agreed_maps(syllable_search.search_starts, taken))
    monkeypatch.setattr(syllable_search, "planted_gain", lambda *args, **kwargs: 10.0)
    path = str(write_generated(tmp_path / "syl.cog", GeneratorSpec(kind="syllabary", seed=2, lost_words=120)).path)
    cfg = DecipherConfig(corpus=path, device="cpu", seed=1, auto_steps=60)
    d = run_decipherment(read_cog(path), cfg, checkpoint=tmp_path / CHECKPOINT_NAME).decisions
    assert d["syllables"]["used"] and all("held_to_map" not in p for p in d["probes"])
    assert "pinned to the syllable map" not in d["line"] and "held_map" not in load_checkpoint(tmp_path).state


def test_the_other_splits_hold_out_disjoint_parts_of_the_words_the_probes_own_split_trains_on() -> None:
    from tui_decipher.engine.methods.auto.pinned_folds import COMPARED_FOLDS, fold_rows
    from tui_decipher.engine.methods.auto.probe_words import probe_split

    _, held = probe_split(200, 7, 0.8)
    folds = fold_rows(200, 7, 0.8)
    assert len(folds) == COMPARED_FOLDS - 1
    seen = set(held.tolist())
    for fold_train, fold_held in folds:
        assert len(fold_held) == len(held) and len(fold_train) == 200 - len(held)
        assert set(fold_train.tolist()) | set(fold_held.tolist()) == set(range(200))
        assert not seen & set(fold_held.tolist())  # disjoint from the probes' own and each other's
        seen |= set(fold_held.tolist())
    # Fewer where the probes' training words hold fewer disjoint parts: a half held out leaves one,
    # three fifths none.
    assert len(fold_rows(200, 7, 0.5)) == 1 and fold_rows(200, 7, 0.4) == []


@pytest.mark.parametrize("free_wins_more", [True, False])
def test_pinned_and_free_are_kept_by_their_wins_over_every_split(
    tmp_path, single_thread, monkeypatch, free_wins_more
) -> None:
    written, cfg, _ = _agreed_under_values(tmp_path, monkeypatch)
    # The other splits' wins, made up: far more than one split's 24 held-out words can make up.
    other = {True: [0.0, 0.0], False: [30.0, 30.0]} if free_wins_more else {True: [30.0, 30.0], False: [0.0, 0.0]}
    real_folds = auto_probe.fold_probes
    # The lexicon probes are the candidates compared here: the transport one, which a lexicon probe
    # whose D estimate doubts its objective also tries (`doubted`), is left out.
    monkeypatch.setattr(auto_probe, "doubted", lambda probe, estimate: False)
    monkeypatch.setattr(
        auto_probe, "fold_probes",
        lambda problem, probe, found, pinned, *args: [
            dataclasses.replace(fold, wins=wins)
            for fold, wins in zip(real_folds(problem, probe, found, pinned, *args), other[pinned], strict=True)
        ],
    )  # fmt: skip
    events: list[object] = []
    d = run_decipherment(read_cog(written.path), cfg, events.append).decisions
    lexicon = [p for p in d["probes"] if p["objective"] == "lexicon"]
    assert [p["fold_wins"] for p in lexicon] == [other[True], other[False]]
    # Each other split's probe trains as its own curve, not as the probe's.
    labels = {e.label for e in events if isinstance(e, ChannelStep)}
    assert {"lexicon", "probe split 2 lexicon", "probe split 3 lexicon"} <= labels
    assert [p["kept"] for p in lexicon] == ([False, True] if free_wins_more else [True, False])
    won = "free to leave the syllable map" if free_wins_more else "pinned to the syllable map"
    assert f"over 3 splits of the lost words the probe {won}'s held-out words beat decoys" in d["line"]


def test_a_probe_stage_stored_before_the_rename_reads_its_map_pins() -> None:
    """A partial checkpoint written before `_Probed.held` became `map_pins` stores the kept probe's
    map values under `held`: read back, they are its map pins, so a resumed run stays pinned."""
    from tui_decipher.engine.methods.auto import STAGE_CLASSES
    from tui_decipher.engine.run.state_data import from_data, to_data

    values = SignValues((SignValue("x", ("k", "a")), SignValue("y", ("t", "a"))), "the syllable map")
    probed = auto_probe._Probed(None, None, [], "why", 7, [], [], values)  # type: ignore[arg-type]
    data = to_data({"probe": probed}, STAGE_CLASSES)
    stored = data["probe"]["attributes"]
    stored["held"] = stored.pop("map_pins")  # as the code before the rename wrote it
    read = from_data(data, STAGE_CLASSES)["probe"]
    assert read.map_pins is not None and read.map_pins.by_symbol() == values.by_symbol()
    assert "held" not in vars(read) and read.steps == 7
    # One stored before map pins existed at all reads as free.
    del stored["held"]
    assert from_data(data, STAGE_CLASSES)["probe"].map_pins is None
    assert from_data(to_data({"probe": probed}, STAGE_CLASSES), STAGE_CLASSES)["probe"].map_pins == values
