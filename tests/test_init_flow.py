"""The flow round 1 trains on: uniform (paper) or the edit-distance matching (`init_flow`)."""

from __future__ import annotations

import threading

import pytest
import torch

from tui_decipher.engine.corpora.corpus import Corpus, graphemes
from tui_decipher.engine.methods import neural_em, run_decipherment
from tui_decipher.engine.methods.neural_em import rounds
from tui_decipher.engine.run.config import ConfigError, preset

LOST = ["abc", "dd", "xyz", "mnop"]
KNOWN = ["xyz", "qqqq", "abd", "dd", "zzzzzz"]


def _context(lost: list[str] = LOST, **changes) -> neural_em.EMContext:
    corpus = Corpus(
        "hand", "l", "k", tuple(graphemes(w) for w in lost), tuple(graphemes(w) for w in KNOWN),
        {i: frozenset() for i in range(len(lost))},
    )  # fmt: skip
    cfg = preset("demo").replace(embed_dim=8, hidden_dim=8, n_universal=4, device="cpu", capacity=1, top_k=5, **changes)
    return neural_em.prepare(corpus, cfg, lambda e: None, threading.Event())


def test_uniform_initial_flow_is_the_papers() -> None:
    ctx = _context(cognate_fraction=0.75)  # N = 3
    flow = neural_em.initial_flow(ctx)
    assert flow.shape == (4, 5)
    assert torch.allclose(flow, torch.full((4, 5), 3 / 20))


def test_edit_distance_initial_flow_matches_the_closest_words() -> None:
    ctx = _context(cognate_fraction=0.75, init_flow="edit-distance", flow_decay=0.25)  # N = 3
    flow = neural_em.initial_flow(ctx)
    uniform = 3 / 20
    # The three cheapest one-to-one pairs: xyz-xyz (0), dd-dd (0), abc-abd (1/3); "mnop" has no
    # cheap partner left and the demand D = N = 3 is met without it.
    matched = {(0, 2), (1, 3), (2, 0)}
    for i in range(4):
        for j in range(5):
            expected = 0.25 * uniform + (0.75 if (i, j) in matched else 0.0)
            assert flow[i, j].item() == pytest.approx(expected), (i, j)
    assert flow.sum().item() == pytest.approx(3.0)  # decay keeps the total mass N


def test_edit_distance_start_stays_uniform_without_shared_symbols() -> None:
    # No symbol in common with KNOWN: every distance is 1 and a matching would be arbitrary.
    ctx = _context(["ABC", "DD", "XYZ", "MNOP"], cognate_fraction=0.75, init_flow="edit-distance")
    assert torch.allclose(neural_em.initial_flow(ctx), torch.full((4, 5), 3 / 20))


def test_init_flow_is_validated() -> None:
    with pytest.raises(ConfigError, match="init_flow"):
        preset("demo").replace(init_flow="hungarian")


def test_a_run_trains_round_one_on_the_edit_distance_flow(monkeypatch, single_thread) -> None:
    ctx = _context(cognate_fraction=0.75, init_flow="edit-distance", rounds=1, epochs=1)
    seen: list[torch.Tensor] = []
    real = rounds.m_step

    def spy(ctx, model, flow, restart, round_, *rest):
        seen.append(flow.clone())
        return real(ctx, model, flow, restart, round_, *rest)

    monkeypatch.setattr(rounds, "m_step", spy)
    run_decipherment(ctx.corpus, ctx.cfg)
    assert len(seen) == 1 and torch.equal(seen[0], neural_em.initial_flow(ctx))
    assert seen[0][1, 3].item() > seen[0][1, 0].item()  # dd -> dd, not the uniform flow
