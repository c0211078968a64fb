"""Typed checkpoints: version 3 (data) round-trips; a version 1 file written by the code before the
method redesign (tests/data/v1_checkpoint.pt, made by main at 1ae0a30 on tests/data/v1_run.cog:
2 rounds x 5 epochs, cancelled after round 1) is migrated on load, resumed and refined; version 2
files written by main at 484b4f0 (pickled stages) resume and refine to the proposals that code did."""

from __future__ import annotations

import io
import json
import shutil
import threading
import zipfile
from dataclasses import asdict
from pathlib import Path

import pytest
import torch
from torch._weights_only_unpickler import get_globals_in_pkl

from tui_decipher.engine.constraints.review import ReviewConstraints
from tui_decipher.engine.corpora.corpus import read_cog
from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
from tui_decipher.engine.methods import refine_decipherment, run_decipherment
from tui_decipher.engine.methods.auto import STAGE_CLASSES
from tui_decipher.engine.methods.stages import StageMemo, unpacked
from tui_decipher.engine.run.checkpoint import (
    CHECKPOINT_NAME,
    CHECKPOINT_VERSION,
    Checkpoint,
    load_checkpoint,
    save_checkpoint,
)
from tui_decipher.engine.run.events import ignore
from tui_decipher.engine.run.problem import Problem

DATA = Path(__file__).parent / "data"


def _v1_corpus():
    return read_cog(DATA / "v1_run.cog")


def test_a_version_1_checkpoint_is_migrated_to_the_neural_method_state() -> None:
    raw = torch.load(DATA / "v1_checkpoint.pt", map_location="cpu", weights_only=True)
    assert raw["version"] == 1 and "current" in raw  # really the old flat format
    checkpoint = load_checkpoint(DATA / "v1_checkpoint.pt")
    assert checkpoint.method == "neural" and (checkpoint.restart, checkpoint.round) == (0, 1)
    assert checkpoint.corpus == "v1_run" and checkpoint.shape == (18, 27)
    assert [m["round"] for m in checkpoint.rounds] == [1]
    assert set(checkpoint.state) == {"flow", "sample_gen", "current", "best", "restart_objectives"}
    assert torch.equal(checkpoint.state["flow"], raw["flow"])
    assert checkpoint.settings().rounds == 2 and checkpoint.seconds == raw["seconds"]


def test_a_version_1_checkpoint_resumes_to_the_end_of_its_run(tmp_path) -> None:
    checkpoint = load_checkpoint(DATA / "v1_checkpoint.pt")
    corpus = _v1_corpus()
    result = run_decipherment(corpus, checkpoint.settings(), checkpoint=tmp_path / "ck.pt", resume=checkpoint)
    assert result.status == "finished" and [m.round for m in result.rounds] == [1, 2]
    assert result.rounds[0].loss == checkpoint.rounds[0]["loss"]  # round 1 is the old code's, kept
    assert result.proposals and result.fitted is not None
    rewritten = load_checkpoint(tmp_path / "ck.pt")  # the continued run saves the new format
    assert torch.load(tmp_path / "ck.pt", weights_only=True)["version"] == CHECKPOINT_VERSION == 3
    assert rewritten.round == 2 and rewritten.method == "neural"


def test_a_version_1_checkpoint_can_be_refined(tmp_path) -> None:
    checkpoint = load_checkpoint(DATA / "v1_checkpoint.pt")
    result = refine_decipherment(_v1_corpus(), checkpoint, ReviewConstraints(((0, 0),), ()), 1)
    assert result.status == "finished" and result.refined == 1
    assert [m.round for m in result.rounds] == [1, 2]
    assert any((p.lost, p.known) == (0, 0) for p in result.proposals)  # the accepted pair is in the flow


def test_a_checkpoint_round_trips_through_its_file(tmp_path) -> None:
    saved = Checkpoint(
        method="channel", config={"seed": 3}, corpus="c", shape=(2, 3), restart=0, round=1,
        rounds=[{"round": 1}], seconds=1.5, phases={"train": 1.0}, refined=0, state={"x": torch.ones(2)},
    )  # fmt: skip
    save_checkpoint(tmp_path / CHECKPOINT_NAME, saved)
    loaded = load_checkpoint(tmp_path)
    assert loaded.method == "channel" and loaded.shape == (2, 3) and loaded.rounds == [{"round": 1}]
    assert torch.equal(loaded.state["x"], torch.ones(2)) and loaded.phases == {"train": 1.0}


def test_a_checkpoint_naming_a_class_at_its_old_module_reads_it_where_it_lives_now(tmp_path) -> None:
    """Checkpoints written before the engine's root modules moved into packages name classes by
    their old modules (`tui_decipher.engine.review`, `.corpora` ...): they still load."""
    constraints = ReviewConstraints(accepted=((1, 2),), rejected=((3, 4),))
    saved = Checkpoint(
        method="channel", config={"seed": 3}, corpus="c", shape=(2, 3), restart=0, round=1,
        rounds=[], seconds=0.0, phases={}, refined=0, state={},
    )  # fmt: skip
    payload = {"version": 2, **asdict(saved)}  # version 2: a state holding objects, pickled
    payload["state"]["review"] = constraints  # as a method's state holds its objects (a channel, a stage)
    buffer = io.BytesIO()  # torch's plain (not zip) format, protocol 2: module names are plain lines
    torch.save(payload, buffer, pickle_protocol=2, _use_new_zipfile_serialization=False)
    new_name, old_name = b"tui_decipher.engine.constraints.review", b"tui_decipher.engine.review"
    assert b"c" + new_name + b"\nReviewConstraints" in buffer.getvalue()
    (tmp_path / CHECKPOINT_NAME).write_bytes(buffer.getvalue().replace(new_name, old_name))
    loaded = load_checkpoint(tmp_path)
    assert loaded.state["review"] == constraints


# Checkpoints written by main at 484b4f0, before checkpoints became data (tests/data/
# checkpoints_484b4f0.py wrote them, and the proposals that code reached from them).
OLD = json.loads((DATA / "checkpoints_484b4f0.json").read_text(encoding="utf-8"))


def _rows(proposals) -> list[list]:
    return [[p.lost, p.known, p.score, p.cost] for p in proposals]


def _same_rows(proposals, expected: list[list]) -> bool:
    """The same pairs in the same order, their scores and costs equal to float32's precision: the
    code that wrote them ran on another CPU, whose vector units round sums in another order."""
    got = _rows(proposals)
    return [r[:2] for r in got] == [r[:2] for r in expected] and all(
        r[2:] == pytest.approx(e[2:], rel=1e-5, abs=1e-6) for r, e in zip(got, expected, strict=True)
    )


def _pairs(saved: dict) -> ReviewConstraints:
    return ReviewConstraints(*(tuple(tuple(pair) for pair in saved[k]) for k in ("accepted", "rejected")))


@pytest.fixture
def old_corpus(tmp_path):
    spec = OLD["corpus"]
    generated = GeneratorSpec(spec["kind"], seed=spec["seed"], lost_words=spec["lost_words"])
    return read_cog(write_generated(tmp_path / "c.cog", generated).path)


@pytest.mark.parametrize(("name", "expected"), [("partial_auto_484b4f0", "resumed"),
                                                ("partial_auto_known_pairs_484b4f0", "known_pairs_whole")])  # fmt: skip
def test_a_partial_checkpoint_of_484b4f0_resumes_to_the_proposals_of_its_run(name, expected, old_corpus, tmp_path,
                                                                             single_thread):  # fmt: skip
    """Its stages were pickled: read through the weights-only reader, they resume to the proposals
    that code reached. The one with known pairs resumes too (that code read them back as a dict
    and failed): to the uninterrupted run's proposals."""
    path = tmp_path / CHECKPOINT_NAME
    shutil.copy(DATA / f"{name}.pt", path)
    saved = load_checkpoint(path)
    assert saved.state["partial"] and saved.state["stage_names"][:2] == ["syllables", "probe 1"]
    # Its settings as a resumed session reads them (`Checkpoint.settings`): a field added since at the
    # value that behaves as that code did (SETTINGS_SINCE), so the run resumes as it was decided.
    assert "auto_read_again" not in OLD["config"] and not saved.settings().auto_read_again
    resumed = run_decipherment(old_corpus, saved.settings(), checkpoint=path, resume=saved)
    assert _same_rows(resumed.proposals, OLD[expected])
    assert torch.load(path, weights_only=True)["version"] == CHECKPOINT_VERSION  # rewritten as data


def test_a_finished_checkpoint_of_484b4f0_refines_to_the_proposals_it_did(old_corpus, single_thread) -> None:
    saved = load_checkpoint(DATA / "finished_auto_484b4f0.pt")
    refined = refine_decipherment(old_corpus, saved, _pairs(OLD["refine_review"]), 1)
    assert _same_rows(refined.proposals, OLD["refined"])


def test_a_neural_checkpoint_of_484b4f0_resumes_to_the_proposals_of_its_run(tmp_path, single_thread) -> None:
    path = tmp_path / CHECKPOINT_NAME
    shutil.copy(DATA / "neural_484b4f0.pt", path)
    saved = load_checkpoint(path)
    resumed = run_decipherment(_v1_corpus(), saved.settings(), checkpoint=path, resume=saved)
    assert _same_rows(resumed.proposals, OLD["neural_resumed"])


def _globals(blob: bytes) -> set[str]:
    """The names a torch.save file's pickle asks for (its data.pkl, read statically)."""
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        pickled = next(n for n in z.namelist() if n.endswith("data.pkl"))
        return set(get_globals_in_pkl(io.BytesIO(z.read(pickled))))


def test_a_checkpoint_is_data_its_stages_too(tmp_path, old_corpus, single_thread) -> None:
    """Resumed, the partial checkpoint is rewritten as version 3: its pickle, and its stages',
    name nothing but torch's tensor rebuilding (no class, of the project or NumPy, at all)."""
    path = tmp_path / CHECKPOINT_NAME
    shutil.copy(DATA / "partial_auto_484b4f0.pt", path)
    old = load_checkpoint(path)
    assert any(name.startswith("tui_decipher.") for name in _globals(old.state["stages"]))  # version 2 pickled them
    memo = StageMemo.resuming(old, "auto", STAGE_CLASSES)
    problem = Problem.prepare(old_corpus, old.settings(), ignore, threading.Event())
    memo.bind(path, old.settings(), problem)
    memo.run("another stage", lambda: memo.stages["probe 1"])
    saved = load_checkpoint(path)
    blobs = [path.read_bytes(), saved.state["stages"], saved.state["training"]]
    allowed = {"collections.OrderedDict", "_codecs.encode"}
    for blob in blobs:
        assert all(name.startswith("torch.") or name in allowed for name in _globals(blob)), _globals(blob)
    stages = unpacked(saved.state["stages"], STAGE_CLASSES)
    assert list(stages) == [*old.state["stage_names"], "another stage"]
    assert stages["another stage"] is stages["probe 1"]  # an object met twice is stored once
    assert type(stages["syllables"]).__name__ == "_Syllables"
