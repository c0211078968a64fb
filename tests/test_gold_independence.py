"""Gold is for evaluation only: every method, run on a corpus and on the same corpus with its gold
removed, gives the same proposals, losses and objective (only the accuracy figures differ).

A leak of gold into training or the flow (even one that keeps the flow's total mass) changes what
a method learns or proposes, so these comparisons fail on it."""

from __future__ import annotations

import dataclasses

import pytest

from tui_decipher.engine.config import DecipherConfig, preset
from tui_decipher.engine.methods import METHODS, run_decipherment
from tui_decipher.engine.registry import load_corpus

SETTINGS = {
    # The paper's EM, with a channel-seeded round 1 and the expected edit distance in round 2.
    "neural": dict(embed_dim=16, hidden_dim=16, n_universal=8, rounds=2, epochs=15, warmup_rounds=1,
                   init_flow="channel", channel_steps=10),
    # The channel alone, on the transport plan (which reads D and C, never gold).
    "channel": dict(channel_steps=15, channel_objective="transport", channel_kind="edit"),
    # Auto decides the channel, D and C itself; a short step budget, for speed.
    "auto": dict(auto_steps=20),
}  # fmt: skip


def _outcome(result) -> tuple:
    proposals = [(p.lost, p.known, p.score, p.cost, p.alternatives) for p in result.proposals]
    rounds = [(m.loss, m.nll, m.reg, m.flow_cost, m.flow, m.kept_previous) for m in result.rounds]
    return proposals, rounds, result.objective, result.restart_objectives, result.char_map, result.decisions


@pytest.mark.parametrize("method", sorted(METHODS))
def test_removing_gold_changes_nothing_but_the_accuracy(method, single_thread) -> None:
    assert set(SETTINGS) == set(METHODS)  # a new method must be added here
    cfg: DecipherConfig = preset("demo").replace(method=method, device="cpu", **SETTINGS[method])
    corpus = load_corpus(cfg).corpus
    blind = dataclasses.replace(corpus, gold={})
    assert corpus.has_gold and not blind.has_gold
    seen = run_decipherment(corpus, cfg)
    unseen = run_decipherment(blind, cfg)
    assert seen.accuracy is not None and unseen.accuracy is None
    assert all(p.gold is not None for p in seen.proposals) and all(p.gold is None for p in unseen.proposals)
    assert _outcome(seen) == _outcome(unseen)
    assert len(seen.proposals) >= 40  # enough pairs for the comparison to mean something
