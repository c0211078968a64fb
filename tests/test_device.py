"""The channels on a GPU: a channel trains and scores on the run's device (cuda when present) and
gives the CPU's figures there. These tests need a CUDA device, which CI does not have: they skip
here and run on a GPU machine (`pytest tests/test_device.py`). The CPU's side of every path is
covered by the other channel tests."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_edit_channel import _matching_accuracy, sound_change_corpus

from tui_decipher.engine.channels.scoring import channel_log_probs, pair_log_probs
from tui_decipher.engine.channels.trainer import fit_channel, new_channel
from tui_decipher.engine.channels.training import ChannelTraining
from tui_decipher.engine.constraints.review import ReviewConstraints
from tui_decipher.engine.corpora.charset import Charset
from tui_decipher.engine.corpora.corpus import read_cog
from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
from tui_decipher.engine.methods import run_decipherment
from tui_decipher.engine.run.config import DecipherConfig

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device on this machine (CI has none): run on a GPU machine"
)


def _words(n: int = 150, extra: int = 60) -> tuple[list, list, Charset, Charset]:
    lost, known = sound_change_corpus(n + extra, seed=4)
    lost = lost[:n]
    return lost, known, Charset.from_words(lost), Charset.from_words(known)


@pytest.mark.parametrize("kind", ["pieces", "edit"])
@pytest.mark.parametrize("objective", ["lexicon", "transport"])
@pytest.mark.parametrize("shortlist", [False, True])
def test_a_channel_fits_alike_on_cuda_and_on_the_cpu(kind: str, objective: str, shortlist: bool) -> None:
    lost, known, lost_cs, known_cs = _words()
    # Judgments take the masked paths of both objectives (a rejected and an accepted pair).
    review = ReviewConstraints(accepted=((0, 0),), rejected=((1, 2),))

    def fit(device: str):
        training = ChannelTraining(40, 0.05, 32, 3, objective=objective, demand=120, kind=kind, copy_bias=3.0,
                                   shortlist=shortlist)  # fmt: skip
        return fit_channel(lost, known, lost_cs, known_cs, training, review=review, device=device)

    cpu, gpu = fit("cpu"), fit("cuda")
    assert next(gpu.channel.parameters()).device.type == "cuda"
    assert isinstance(gpu.cost, np.ndarray) and gpu.cost.shape == cpu.cost.shape == (len(lost), len(known))
    # The same seed draws the same start and batches on both; only float rounding differs.
    finite = cpu.cost < 1e3  # pairs the judgments left possible
    assert np.array_equal(finite, gpu.cost < 1e3)
    assert abs(gpu.loss - cpu.loss) < max(1e-2, 1e-3 * abs(cpu.loss))
    if kind == "pieces" and shortlist and objective == "transport":
        # A pieces channel starts at random, so its first lists are decided by near-ties, which
        # rounding breaks differently on each device; the plans then part a little (H200: a median
        # gap of 0.04 nats on costs of about 10, some pairs further).
        assert np.median(np.abs(gpu.cost - cpu.cost)[finite]) < 0.1
    else:
        assert np.allclose(gpu.cost, cpu.cost, rtol=1e-3, atol=1e-2)
        assert _matching_accuracy(gpu.cost) == pytest.approx(_matching_accuracy(cpu.cost), abs=0.02)


@pytest.mark.parametrize("kind", ["pieces", "edit"])
def test_a_cuda_channel_scores_samples_and_reads_its_map_on_the_cpu(kind: str) -> None:
    lost, known, lost_cs, known_cs = _words(40, 10)
    channels = [
        new_channel(kind, lost_cs, known_cs, torch.Generator().manual_seed(5), copy_bias=3.0, device=device)
        for device in ("cpu", "cuda")
    ]
    tables = [channel_log_probs(c, lost, known, lost_cs, known_cs) for c in channels]
    assert tables[1].device.type == "cpu"
    assert torch.allclose(tables[0], tables[1], rtol=1e-4, atol=1e-3)
    idx = np.arange(len(lost))
    pairs = [pair_log_probs(c, lost, known, idx, idx, lost_cs, known_cs) for c in channels]
    assert pairs[1].device.type == "cpu" and torch.allclose(pairs[0], pairs[1], rtol=1e-4, atol=1e-3)
    samples = [c.sample(known_cs.encode(known[0]), torch.Generator().manual_seed(1)) for c in channels]
    assert samples[0] == samples[1]  # drawn on the CPU from the same probabilities
    maps = [c.character_map(known, lost_cs, known_cs) for c in channels]
    assert maps[0].keys() == maps[1].keys()
    assert all([r for r, _ in maps[0][s][:1]] == [r for r, _ in maps[1][s][:1]] for s in maps[0])


def test_auto_runs_on_cuda_and_reads_as_on_the_cpu(tmp_path) -> None:
    path = write_generated(tmp_path / "s.cog", GeneratorSpec(kind="substitution", seed=5, lost_words=100)).path
    results = [
        run_decipherment(read_cog(path), DecipherConfig(corpus=str(path), device=device, seed=1))
        for device in ("cpu", "cuda")
    ]
    cpu, gpu = results
    assert gpu.device.startswith("cuda") and cpu.device == "cpu"
    assert gpu.decisions["channel_kind"] == cpu.decisions["channel_kind"]
    assert gpu.accuracy == pytest.approx(cpu.accuracy, abs=0.05)
    assert gpu.accuracy >= 0.9
