"""Shared fixtures: where the third-party corpora live, and a skip when they are absent."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_CORPORA = REPO_ROOT.parent / "shared" / "corpora"


@pytest.fixture
def shared_corpora() -> Path:
    """The folder of real corpora beside the repo; skips the test when it is absent."""
    if not SHARED_CORPORA.is_dir():
        pytest.skip(f"real corpora not found at {SHARED_CORPORA} (../shared/corpora beside the repo)")
    return SHARED_CORPORA


@pytest.fixture
def single_thread():
    """Tiny tensors: intra-op threads only add overhead (hundreds of ms per decode on a busy box)."""
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch) -> Path:
    """Every test gets its own data folder (run database, run files): never the user's real one."""
    path = tmp_path / "data"
    monkeypatch.setenv("DECIPHER_DATA_DIR", str(path))
    return path
