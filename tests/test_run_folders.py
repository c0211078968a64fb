"""Fresh folders for runs, branches and benches (session/results.py): never one that exists."""

from __future__ import annotations

from pathlib import Path

from tui_decipher.bench.runner import default_out_dir
from tui_decipher.session.results import branch_run_dir, new_run_dir, unused_path


def test_a_taken_name_gets_the_next_free_number(tmp_path: Path) -> None:
    base = tmp_path / "20261204-010203-demo-custom"
    assert unused_path(base) == base
    base.mkdir()
    assert unused_path(base) == tmp_path / "20261204-010203-demo-custom-2"
    (tmp_path / "20261204-010203-demo-custom-2").mkdir()
    assert unused_path(base) == tmp_path / "20261204-010203-demo-custom-3"


def test_runs_branches_and_benches_never_reuse_a_folder(tmp_path: Path) -> None:
    first = new_run_dir("my corpus/x", None, tmp_path)
    assert first.parent == tmp_path / "runs" and first.name.endswith("-my-corpus-x-custom")
    first.mkdir(parents=True)
    second = new_run_dir("my corpus/x", None, tmp_path)
    assert second != first and not second.exists()
    branch = branch_run_dir(first)
    assert branch.name == f"{first.name}-branch-1"
    bench = default_out_dir(tmp_path, quick=True)
    assert bench.parent == tmp_path / "bench" and bench.name.endswith("-quick")
    bench.mkdir(parents=True)
    assert default_out_dir(tmp_path, quick=True) != bench
