"""Typed checkpoints: version 2 round-trips, and a version 1 file written by the code before the
method redesign (tests/data/v1_checkpoint.pt, made by main at 1ae0a30 on tests/data/v1_run.cog:
2 rounds x 5 epochs, cancelled after round 1) is migrated on load, resumed and refined."""

from __future__ import annotations

import io
from dataclasses import asdict
from pathlib import Path

import torch

from tui_decipher.engine.constraints.review import ReviewConstraints
from tui_decipher.engine.corpora.corpus import read_cog
from tui_decipher.engine.methods import refine_decipherment, run_decipherment
from tui_decipher.engine.run.checkpoint import (
    CHECKPOINT_NAME,
    CHECKPOINT_VERSION,
    Checkpoint,
    load_checkpoint,
    save_checkpoint,
)

DATA = Path(__file__).parent / "data"


def _v1_corpus():
    return read_cog(DATA / "v1_run.cog")


def test_a_version_1_checkpoint_is_migrated_to_the_neural_method_state() -> None:
    raw = torch.load(DATA / "v1_checkpoint.pt", map_location="cpu", weights_only=False)
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
    assert torch.load(tmp_path / "ck.pt", weights_only=False)["version"] == CHECKPOINT_VERSION == 2
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
    payload = {"version": CHECKPOINT_VERSION, **asdict(saved)}
    payload["state"]["review"] = constraints  # as a method's state holds its objects (a channel, a stage)
    buffer = io.BytesIO()  # torch's plain (not zip) format, text pickle: module names are plain lines
    torch.save(payload, buffer, pickle_protocol=0, _use_new_zipfile_serialization=False)
    new_name, old_name = b"tui_decipher.engine.constraints.review", b"tui_decipher.engine.review"
    assert b"c" + new_name + b"\nReviewConstraints" in buffer.getvalue()
    (tmp_path / CHECKPOINT_NAME).write_bytes(buffer.getvalue().replace(new_name, old_name))
    loaded = load_checkpoint(tmp_path)
    assert loaded.state["review"] == constraints
