"""torch's CPU threads: a run's `threads` setting, and the count a live screen leaves itself."""

from __future__ import annotations

import threading

import pytest
import torch

from tui_decipher.engine.run import device
from tui_decipher.engine.run.device import make_repeatable, screen_threads, use_threads


@pytest.fixture
def restore_threads():
    old = torch.get_num_threads()
    yield old
    torch.set_num_threads(old)


@pytest.mark.parametrize(("cores", "expected"), [(1, 1), (2, 1), (16, 15)])
def test_a_screen_leaves_itself_one_core(monkeypatch, cores, expected):
    monkeypatch.setattr(device, "usable_cores", lambda: cores)
    assert screen_threads() == expected


def test_use_threads_sets_the_count_and_zero_leaves_it(restore_threads):
    other = 1 if restore_threads != 1 else 2
    use_threads(0)
    assert torch.get_num_threads() == restore_threads
    use_threads(other)
    assert torch.get_num_threads() == other
    use_threads(0)
    assert torch.get_num_threads() == other


def test_a_worker_thread_computes_with_the_count_it_set(restore_threads):
    """The TUI sets the count in its engine worker: torch must see it there."""
    other = 1 if restore_threads != 1 else 2
    seen: list[int] = []

    def work() -> None:
        use_threads(other)
        seen.append(torch.get_num_threads())

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    assert seen == [other]


# --- runs side by side share the cores (session/cores.py) ----------------------------------------------


def test_a_run_takes_the_cores_other_live_runs_leave_free(tmp_path, monkeypatch):
    import os
    import subprocess
    import sys

    from tui_decipher.session import cores

    monkeypatch.setattr(cores, "usable_cores", lambda: 4)
    registry = tmp_path / "registry"
    with cores.shared_cores(0, 4, registry) as alone:
        assert (alone.threads, alone.others) == (4, 0) and alone.line() is None
        assert (registry / f"{os.getpid()}.threads").read_text() == "4"
    assert not (registry / f"{os.getpid()}.threads").exists()  # given back
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (registry / f"{other.pid}.threads").write_text("3")  # a live run of another process
        (registry / "999999999.threads").write_text("4")  # a dead one's entry: ignored and removed
        with cores.shared_cores(0, 4, registry) as shared:
            assert (shared.threads, shared.others) == (1, 3)
            assert shared.line() == "computing with 1 thread(s): other runs use 3 of this machine's 4 core(s)"
        assert not (registry / "999999999.threads").exists()
        with cores.shared_cores(2, 4, registry) as named:  # a count the settings name is kept
            assert named.threads == 2
        (registry / f"{other.pid}.threads").write_text("8")
        with cores.shared_cores(0, 4, registry) as crowded:  # never fewer than one
            assert crowded.threads == 1
        with cores.shared_cores(0, 1, registry) as screen:  # nor more than the front end's own count
            (registry / f"{other.pid}.threads").write_text("0")
            assert screen.threads == 1
    finally:
        other.kill()
        other.wait()


def test_a_cli_run_beside_another_says_how_many_threads_it_takes(tmp_path, monkeypatch, restore_threads):
    import subprocess
    import sys

    from typer.testing import CliRunner

    from tui_decipher.cli import app
    from tui_decipher.session import cores

    registry = tmp_path / "registry"
    registry.mkdir()
    monkeypatch.setattr(cores, "REGISTRY", registry)
    monkeypatch.setattr(cores, "usable_cores", lambda: 2)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (registry / f"{other.pid}.threads").write_text("1")
        out = tmp_path / "run"
        result = CliRunner().invoke(app, ["run", "--method", "channel", "--set", "channel_steps=5", "--quiet",
                                          "--out", str(out), "--data-dir", str(tmp_path / "data")])  # fmt: skip
    finally:
        other.kill()
        other.wait()
    assert result.exit_code == 0, result.output
    assert "computing with 1 thread(s): other runs use 1 of this machine's 2 core(s)" in result.output
    import json

    assert json.loads((out / "summary.json").read_text(encoding="utf-8"))["threads"] == 1


def test_a_cpu_run_computes_with_deterministic_kernels_warning_only() -> None:
    # make_repeatable sets torch's flag itself (torch.use_deterministic_algorithms would also import
    # inductor's config, a second of every run's start): the flag must be set all the same.
    before = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    try:
        torch.use_deterministic_algorithms(False)
        make_repeatable(torch.device("cpu"))
        assert torch.are_deterministic_algorithms_enabled()
        assert torch.is_deterministic_algorithms_warn_only_enabled()
        torch.use_deterministic_algorithms(False)
        make_repeatable(torch.device("cuda"))  # only the CPU's are turned on
        assert not torch.are_deterministic_algorithms_enabled()
    finally:
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])
