"""SVG snapshots of the key screens at 80x24, over a fixed stored run (no training, fixed clock).

Regenerate after an intended change with `pytest tests/test_snapshots.py --snapshot-update`
and look at the SVGs before committing them. Textual is pinned in constraints.txt: upgrades
change the rendering.
"""

from __future__ import annotations

import time

import pytest
from tui_support import SYLLABLE_READINGS, seed_store, store_readings

from tui_decipher.engine.run.checkpoint import CHECKPOINT_NAME
from tui_decipher.store import Store, default_path
from tui_decipher.tui.app import DecipherApp


@pytest.fixture
def stored_app(data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("TZ", "UTC")  # the Runs table shows local start times
    time.tzset()
    seed_store(data_dir, tmp_path)
    yield DecipherApp(data_dir)
    monkeypatch.undo()
    time.tzset()


def test_runs_screen(snap_compare, stored_app):
    assert snap_compare(stored_app, terminal_size=(80, 24))


def test_review_screen_after_some_decisions(snap_compare, stored_app):
    assert snap_compare(stored_app, terminal_size=(80, 24), press=["3", "a", "r", "down"])


def test_review_screen_on_a_pair_past_d(snap_compare, data_dir, tmp_path, monkeypatch):
    """A run whose last two pairs lie past its D (dimmed, after the proposals), the cursor on the first."""
    seed_store(data_dir, tmp_path, beyond=2)
    assert snap_compare(DecipherApp(data_dir), terminal_size=(80, 24), press=["3", *["down"] * 6])


def test_key_screen(snap_compare, stored_app):
    assert snap_compare(stored_app, terminal_size=(80, 24), press=["4"])


def test_progress_screen_of_a_stored_run(snap_compare, stored_app):
    assert snap_compare(stored_app, terminal_size=(80, 24), press=["2"])


def test_refine_dialog(snap_compare, data_dir, tmp_path, monkeypatch):
    run_id = seed_store(data_dir, tmp_path)
    monkeypatch.chdir(tmp_path)  # a relative run folder, so the offered branch folder is the same everywhere
    folder = tmp_path / "runs" / "20260921-141300-fixed-demo"
    folder.mkdir(parents=True)
    (folder / CHECKPOINT_NAME).write_bytes(b"")  # only its presence counts: nothing is started
    with Store(default_path(data_dir)) as store:
        store.set_run_dir(run_id, "runs/20260921-141300-fixed-demo")
    assert snap_compare(DecipherApp(data_dir), terminal_size=(80, 24), press=["3", "a", "r", "R"])


def test_key_screen_as_a_syllable_grid(snap_compare, data_dir, tmp_path, monkeypatch):
    """A syllabary's key (the fixed run's, rewritten as syllables) as the grid, the cursor on a cell
    whose sign the side panel explains."""
    run_id = seed_store(data_dir, tmp_path)
    store_readings(data_dir, run_id, SYLLABLE_READINGS)
    assert snap_compare(DecipherApp(data_dir), terminal_size=(80, 24), press=["4", "g", "down", "right", "right"])
