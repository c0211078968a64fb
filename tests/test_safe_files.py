"""Nothing a file can do: no file a command reads runs code from it, and a refused command leaves
the store and the run folders byte for byte as they were.

A colleague's run folder is read as data (engine/run/checkpoint.py, engine/run/state_data.py).
Each payload below is a pickle whose loading would run something: `os.system`, `builtins.exec`,
and a class of the project itself whose constructor writes to disk (`Store` makes a database).
Planted in a checkpoint (whole, in a version 2 file's pickled stages, in version 3's data) or in
any other file a command reads, it must be refused in one line and leave no trace.
"""

from __future__ import annotations

import builtins
import io
import os
import pickle
import shutil
import sqlite3
from dataclasses import asdict, replace
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

from tui_decipher.cli import app
from tui_decipher.engine.run.checkpoint import CHECKPOINT_NAME, load_checkpoint, save_checkpoint
from tui_decipher.store import Store

runner = CliRunner()
CORPUS = Path(__file__).parent / "data" / "v1_run.cog"  # 18 lost x 27 known words
CHANNEL = ["--method", "channel", "--set", "channel_steps=20", "--set", "channel_restarts=1", "--quiet"]
NEURAL = ["--method", "neural", "--epochs", "1", "--rounds", "1", "--set", "embed_dim=8", "--set", "hidden_dim=8",
          "--set", "n_universal=4", "--quiet"]  # fmt: skip


class _System:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker / 'pwned'}",))


class _Exec:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (builtins.exec, (f"open({str(self.marker / 'pwned')!r}, 'w').close()",))


class _ProjectStore:
    """A class from the project itself: constructing a Store makes its folder and database."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Store, (str(self.marker / "store" / "x.sqlite3"),))


PAYLOADS = {"os.system": _System, "builtins.exec": _Exec, "project Store": _ProjectStore}


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A data folder with two finished runs of the tiny corpus: #1 channel, #2 neural."""
    data = tmp_path_factory.mktemp("template")
    for n, args in ((1, CHANNEL), (2, NEURAL)):
        result = runner.invoke(app, ["run", "--corpus", str(CORPUS), *args, "--out", str(data / f"r{n}"),
                                     "--data-dir", str(data)])  # fmt: skip
        assert result.exit_code == 0, result.output
    return data


@pytest.fixture
def data(template, tmp_path) -> Path:
    """A copy of the template's data folder, its store pointing at the copy's run folders."""
    copy = tmp_path / "data"
    shutil.copytree(template, copy)
    conn = sqlite3.connect(copy / "decipher.sqlite3")
    conn.execute("UPDATE runs SET run_dir = replace(run_dir, ?, ?)", (str(template), str(copy)))
    conn.commit()
    conn.close()  # the last connection: its WAL is folded into the file, as a command leaves it
    return copy


@pytest.fixture
def marker(tmp_path) -> Path:
    folder = tmp_path / "marker"
    folder.mkdir()
    return folder


def _cli(*args: str, data: Path):
    """`decipher ARGS` on the data folder (`corpus` reads no store: it takes no --data-dir)."""
    return runner.invoke(app, [*args] if args[0] == "corpus" else [*args, "--data-dir", str(data)])


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _one_line_error(result, *fragments: str) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, result.output
    for fragment in fragments:
        assert fragment in errors[0], errors[0]
    return errors[0]


def _torch_bytes(obj) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def _planted(how: str, payload, run: Path) -> bytes:
    """A checkpoint file holding `payload`: `whole` as the issue found it (a version 1 dict), a
    raw pickle, or the finished run's own checkpoint as a partial one whose stages (version 2's
    pickle, version 3's data bytes) or known pairs hold it."""
    if how == "whole":
        return _torch_bytes({"version": 1, "x": payload})
    if how == "raw pickle":
        return pickle.dumps({"version": 2, "x": payload})
    own = load_checkpoint(run)
    partial = {"partial": True, "stages": b"", "stage_names": ["restart 0 channel 0"], "training": b"", "review": None}
    if how == "v2 stages":
        partial["stages"] = _torch_bytes({"restart 0 channel 0": payload})
        return _torch_bytes({"version": 2, **asdict(replace(own, state=partial))})
    if how == "v3 stages":
        partial["stages"] = _torch_bytes({"stages": {"restart 0 channel 0": payload}})
    elif how == "v3 training":
        partial["stages"] = _torch_bytes({"stages": {}})
        partial["training"] = _torch_bytes({"stages": {"restart 0 channel 0": payload}})
    else:
        raise AssertionError(how)
    path = run / "v3.pt"
    save_checkpoint(path, replace(own, state=partial))
    blob = path.read_bytes()
    path.unlink()
    return blob


HOWS = ["whole", "raw pickle", "v2 stages", "v3 stages", "v3 training"]


@pytest.mark.parametrize("payload", list(PAYLOADS))
@pytest.mark.parametrize("how", HOWS)
def test_a_planted_checkpoint_runs_nothing_on_resume_or_refine_of_a_folder(data, marker, tmp_path, how, payload):
    """The issue's case: a folder someone sent, resumed or refined into a branch."""
    folder = tmp_path / "sent"
    folder.mkdir()
    (folder / "summary.json").write_text("{}", encoding="utf-8")
    (folder / CHECKPOINT_NAME).write_bytes(_planted(how, PAYLOADS[payload](marker), data / "r1"))
    before = _files(data)
    for args in (["run", "--resume", str(folder)], ["run", "--refine", str(folder), "--out", str(tmp_path / "b")]):
        result = _cli(*args, data=data)
        assert list(marker.iterdir()) == [], f"{args}: the payload ran"
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        assert sum(line.startswith("error:") for line in result.output.splitlines()) == 1, result.output
    assert _files(data) == before
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("payload", list(PAYLOADS))
@pytest.mark.parametrize("how", ["whole", "v2 stages", "v3 stages"])
def test_a_planted_checkpoint_in_a_stored_run_runs_nothing_on_any_command(data, marker, tmp_path, how, payload):
    """The stored run #1's checkpoint replaced: every command that may read it refuses it or
    does without it; none runs the payload, and the store is as it was."""
    (data / "r1" / CHECKPOINT_NAME).write_bytes(_planted(how, PAYLOADS[payload](marker), data / "r1"))
    signs = tmp_path / "signs.tsv"
    signs.write_text("lost\tknown\nα\ta\n", encoding="utf-8")
    before = _files(data)
    commands = [
        ["run", "--resume", "1"],
        ["run", "--refine", "1"],
        ["run", "--refine", "1", "--out", str(tmp_path / "branch")],
        ["run", "--refine", "1", "--known-signs", str(signs)],
        ["runs", "show", "1"],
        ["runs", "list"],
        ["export", "1", "--out", str(tmp_path / "out.tsv")],
        ["review", "export", "1", str(tmp_path / "review.tsv")],
    ]
    for args in commands:
        result = _cli(*args, data=data)
        assert list(marker.iterdir()) == [], f"{args}: the payload ran"
        assert "Traceback" not in result.output, (args, result.output)
        if args[0] == "run":  # refused: a planted file whole by name; stages by what the run is
            _one_line_error(result, *([str(data / "r1" / CHECKPOINT_NAME)] if how == "whole" else []))
    assert {k: v for k, v in _files(data).items() if k.startswith("decipher")} == {
        k: v for k, v in before.items() if k.startswith("decipher")
    }


def test_the_pinned_values_check_of_the_refine_dialog_reads_a_planted_checkpoint_as_none(data, marker):
    """The TUI's Refine dialog asks whether pins would fit the run again (`pins_refit`): a planted
    checkpoint there is an unreadable one, holding no values."""
    from tui_decipher.session.run_session import pins_refit

    (data / "r1" / CHECKPOINT_NAME).write_bytes(_planted("whole", _System(marker), data / "r1"))
    decisions = {"syllables": {"found": True}}
    assert pins_refit(data / "r1", decisions, [("α", "a")]) in (True, False)
    assert list(marker.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["run", "--corpus", "{file}", *CHANNEL], "words.cog"),
        (["run", "--corpus", str(CORPUS), "--known-pairs", "{file}", *CHANNEL], "pairs.tsv"),
        (["run", "--corpus", str(CORPUS), "--known-signs", "{file}", *CHANNEL], "signs.tsv"),
        (["run", "--config", "{file}", "--corpus", str(CORPUS)], "config.toml"),
        (["review", "import", "1", "{file}"], "review.tsv"),
        (["corpus", "show", "{file}"], "words.cog"),
    ],
    ids=["corpus", "known pairs", "known signs", "config", "review import", "corpus show"],
)
def test_a_pickle_in_any_file_a_command_reads_is_a_one_line_error(data, marker, tmp_path, args, name):
    """Text files are read as text: a pickle planted there is bad input, named, and runs nothing."""
    planted = tmp_path / name
    planted.write_bytes(pickle.dumps(_System(marker)))
    before = _files(data)
    result = _cli(*[a.replace("{file}", str(planted)) for a in args], data=data)
    assert list(marker.iterdir()) == []
    assert result.exit_code != 0 and "Traceback" not in result.output, result.output
    assert str(planted) in result.output
    assert _files(data) == before


@pytest.mark.parametrize("name", ["summary.json", "proposals.tsv", "char_map.tsv", "beyond_d.tsv", "run.log"])
def test_a_pickle_in_a_run_folders_other_files_changes_nothing(data, marker, name):
    """The run files beside the checkpoint are written, never read back by a command: garbled,
    the run still shows, exports and refines."""
    (data / "r1" / name).write_bytes(pickle.dumps(_System(marker)))
    for args in (["runs", "show", "1"], ["export", "1", "--out", str(data / "out.tsv")]):
        result = _cli(*args, data=data)
        assert result.exit_code == 0, result.output
    assert list(marker.iterdir()) == []


def test_a_pickle_as_the_store_is_a_one_line_error(data, marker):
    (data / "decipher.sqlite3").write_bytes(pickle.dumps(_System(marker)))
    for args in (["runs", "list"], ["run", "--resume", "1"], ["runs", "show", "1"]):
        result = _cli(*args, data=data)
        _one_line_error(result, "decipher.sqlite3")
    assert list(marker.iterdir()) == []


@pytest.mark.parametrize(
    "content", [b"", b"keymap = 3\n", b'[keymap]\n"review.accept" = ["y"]\n'], ids=["pickle", "not a table", "a list"]
)
async def test_a_bad_keymap_is_reported_and_the_app_opens_with_its_own_keys(data, marker, content):
    """keymap.toml in the data folder: read as TOML; a pickle there, or a keymap of the wrong
    shape, is a warning naming the file, and the app runs with its own keys."""
    from tui_decipher.tui.app import DecipherApp

    (data / "keymap.toml").write_bytes(content or pickle.dumps(_System(marker)))
    app_ = DecipherApp(data)
    async with app_.run_test() as pilot:
        await pilot.pause()
        assert app_.current_mode == "runs"
        warnings = [n.message for n in app_._notifications]
        assert any("keymap.toml" in w and "ignored" in w for w in warnings), warnings
    assert list(marker.iterdir()) == []


# Refusals: every check that can refuse runs before anything is written.


def _refused(data: Path, *args: str, fragment: str) -> None:
    before = _files(data)
    result = _cli(*args, data=data)
    _one_line_error(result, fragment)
    assert _files(data) == before, f"{args}: the store or a run folder changed"


def test_resuming_a_finished_run_says_what_to_do_and_changes_nothing(data):
    _refused(data, "run", "--resume", "1", fragment="refine it (decipher run --refine 1)")
    _refused(data, "run", "--resume", str(data / "r1"), fragment="refine it")
    _refused(data, "run", "--resume", "2", fragment="refine it (decipher run --refine 2)")
    assert "finished" in _cli("runs", "list", data=data).output


def test_resuming_a_finished_run_folder_not_in_the_store_changes_nothing(data, tmp_path):
    folder = tmp_path / "sent"
    shutil.copytree(data / "r1", folder)
    _refused(data, "run", "--resume", str(folder), fragment="finished: refine it (--refine)")


def test_refining_a_run_without_a_trained_channel_changes_nothing(data):
    own = load_checkpoint(data / "r1")
    save_checkpoint(data / "r1" / CHECKPOINT_NAME, replace(own, state={"n_cognates": 5}))
    _refused(data, "run", "--refine", "1", fragment="no trained channel to refine")
    partial = {"partial": True, "stages": b"", "stage_names": [], "training": b"", "review": None}
    save_checkpoint(data / "r1" / CHECKPOINT_NAME, replace(own, state=partial))
    _refused(data, "run", "--refine", "1", fragment="resume it (--resume) first")


def test_refining_a_neural_run_with_pinned_signs_changes_nothing(data, tmp_path):
    signs = tmp_path / "signs.tsv"
    signs.write_text("lost\tknown\nα\ta\n", encoding="utf-8")
    _refused(data, "run", "--refine", "2", "--known-signs", str(signs), fragment="cannot be refined with pinned sign")


def test_a_missing_checkpoint_changes_nothing(data):
    (data / "r1" / CHECKPOINT_NAME).unlink()
    (data / "r2" / CHECKPOINT_NAME).unlink()
    _refused(data, "run", "--refine", "1", fragment="no checkpoint")
    _refused(data, "run", "--refine", "2", fragment="no checkpoint")


def test_a_checkpoint_that_does_not_fit_changes_nothing(data):
    own = load_checkpoint(data / "r1")
    save_checkpoint(data / "r1" / CHECKPOINT_NAME, replace(own, shape=(5, 5)))
    _refused(data, "run", "--refine", "1", fragment="another corpus")
    save_checkpoint(data / "r1" / CHECKPOINT_NAME, replace(own, config={**own.config, "seed": -3}))
    _refused(data, "run", "--refine", "1", fragment="seed")
    save_checkpoint(data / "r1" / CHECKPOINT_NAME, replace(own, method="no such method"))
    _refused(data, "run", "--refine", "1", fragment="no method of this version")


def test_a_branch_into_a_folder_in_use_changes_nothing(data):
    _refused(data, "run", "--refine", "1", "--out", str(data / "r2"), fragment="not an empty folder")


def test_a_device_this_machine_lacks_is_a_clear_no(data):
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    _refused(data, "run", "--corpus", str(CORPUS), *CHANNEL, "--device", "cuda", fragment="no CUDA GPU")
    _refused(data, "run", "--corpus", str(CORPUS), *CHANNEL, "--device", "cuda:1", fragment="no CUDA GPU")
