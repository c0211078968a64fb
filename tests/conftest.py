"""Shared fixtures: where the third-party corpora live (and a skip when they are absent), one
thread for tiny tensors, a data folder per test, and runs that several test modules read."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import torch

from tui_decipher.engine.corpora.corpus import Corpus
from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
from tui_decipher.engine.corpora.registry import load_corpus
from tui_decipher.engine.methods import DecipherResult, run_decipherment
from tui_decipher.engine.run.checkpoint import CHECKPOINT_NAME, Checkpoint, load_checkpoint
from tui_decipher.engine.run.config import DecipherConfig

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_CORPORA = REPO_ROOT.parent / "shared" / "corpora"


def pytest_configure(config) -> None:
    """Under pytest-xdist (`-n 2`), each worker computes with one torch thread, as do the runs it
    starts in processes of their own, so that two workers fill two cores without fighting over
    them; and each has its own temp folder (the registry of live runs, which would otherwise show
    one worker's runs as sharing the other's machine, and the bench's generated corpora)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        return
    torch.set_num_threads(1)
    os.environ["OMP_NUM_THREADS"] = "1"
    own_temp = Path(tempfile.mkdtemp(prefix=f"tui-decipher-tests-{worker}-"))
    os.environ["TMPDIR"] = str(own_temp)
    tempfile.tempdir = None  # read TMPDIR again
    from tui_decipher.session import cores

    cores.REGISTRY = own_temp / cores.REGISTRY.name


def pytest_unconfigure(config) -> None:
    """A worker's own temp folder goes with it."""
    own_temp = Path(tempfile.gettempdir())
    if os.environ.get("PYTEST_XDIST_WORKER") and own_temp.name.startswith("tui-decipher-tests-"):
        shutil.rmtree(own_temp, ignore_errors=True)


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


@dataclass(frozen=True)
class SyllabaryRun:
    written: Any  # write_generated's answer: the syllabary's key among it
    corpus: Corpus
    cfg: DecipherConfig
    result: DecipherResult
    checkpoint: Checkpoint


@pytest.fixture(scope="session")
def syllabary_channel_run(tmp_path_factory) -> SyllabaryRun:
    """A generated Linear B-like syllabary (200 lost words, codas unwritten, l/r merged, 60% with a
    cognate) that the pieces channel alone reads at a few percent in 300 steps, and that run with
    its checkpoint, on one thread: trained once for the tests that ask what judgments or sign values
    add to it (test_refine_every_method, test_sign_values)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        folder = tmp_path_factory.mktemp("syllabary")
        path = folder / "syllabary.cog"
        written = write_generated(path, GeneratorSpec(kind="syllabary", seed=1, lost_words=200))
        cfg = DecipherConfig(
            corpus=str(path), device="cpu", method="channel", channel_steps=300,
            channel_objective="transport", channel_kind="pieces",
        )  # fmt: skip
        corpus = load_corpus(cfg).corpus
        result = run_decipherment(corpus, cfg, checkpoint=folder / CHECKPOINT_NAME)
        return SyllabaryRun(written, corpus, cfg, result, load_checkpoint(folder))
    finally:
        torch.set_num_threads(threads)
