"""torch's CPU threads: a run's `threads` setting, and the count a live screen leaves itself."""

from __future__ import annotations

import threading

import pytest
import torch

from tui_decipher.engine import device
from tui_decipher.engine.device import screen_threads, use_threads


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
