"""Reviewer-guided refinement: judgments as flow constraints, `run --refine`, and the TUI's Refine."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from tui_decipher.cli import app as cli_app
from tui_decipher.engine.constraints.review import ReviewConstraints
from tui_decipher.engine.corpora.registry import load_corpus
from tui_decipher.engine.flow import top_k_edges
from tui_decipher.engine.methods import refine_decipherment, run_decipherment
from tui_decipher.engine.run.checkpoint import CHECKPOINT_NAME, CheckpointError, load_checkpoint
from tui_decipher.engine.run.config import preset
from tui_decipher.store import ACCEPTED, REJECTED, Store, default_path

TINY = dict(embed_dim=16, hidden_dim=16, n_universal=8, epochs=8, rounds=2)
TINY_FLAGS = ["--preset", "demo", "--rounds", "2", "--epochs", "8", "--set", "embed_dim=16", "--set", "hidden_dim=16",
              "--set", "n_universal=8"]  # fmt: skip


# --- the constraints themselves -------------------------------------------------------------


def test_from_decisions_splits_and_sorts():
    review = ReviewConstraints.from_judgments({(3, 1): ACCEPTED, (0, 2): REJECTED, (1, 0): ACCEPTED})
    assert review.accepted == ((1, 0), (3, 1)) and review.rejected == ((0, 2),)
    assert len(review) == 3 and review.judged_lost() == {0, 1, 3}


def test_check_refuses_pairs_outside_the_corpus_and_contradictions():
    with pytest.raises(ValueError, match="outside the corpus"):
        ReviewConstraints(accepted=((5, 0),)).check(5, 5)
    with pytest.raises(ValueError, match="both accepted and rejected"):
        ReviewConstraints(accepted=((1, 1),), rejected=((1, 1),)).check(5, 5)
    ReviewConstraints(accepted=((4, 4),), rejected=((0, 0),)).check(5, 5)


def test_rejected_pairs_leave_the_graph_and_the_next_candidate_takes_their_place():
    cost = np.array([[0.1, 0.2, 0.3], [0.5, 0.4, 0.6]])
    masked = ReviewConstraints(rejected=((0, 0),)).mask_rejected(cost)
    assert cost[0, 0] == 0.1  # the caller's matrix is untouched
    edges = top_k_edges(masked, 1)
    assert list(zip(edges.lost.tolist(), edges.known.tolist(), strict=True)) == [(0, 1), (1, 1)]


def test_forced_edges_respect_one_match_per_lost_word_capacity_and_demand():
    cost = np.array([[0.1, 0.9, 0.9], [0.2, 0.9, 0.9], [0.9, 0.3, 0.9], [0.9, 0.9, 0.05]])
    review = ReviewConstraints(accepted=((0, 0), (0, 1), (1, 0), (2, 1), (3, 2)))
    forced = review.forced_edges(cost, demand=10, capacity=1)
    pairs = set(zip(forced.lost.tolist(), forced.known.tolist(), strict=True))
    # Cheapest first: (3,2), (0,0); (1,0) would be a 2nd match for known 0; (0,1) a 2nd for lost 0.
    assert pairs == {(3, 2), (0, 0), (2, 1)}
    assert len(review.forced_edges(cost, demand=2, capacity=1)) == 2
    assert len(review.forced_edges(cost, demand=10, capacity=2)) == 4  # (1,0) fits now


def test_constraints_land_on_the_right_rows_of_a_subset():
    review = ReviewConstraints(accepted=((4, 2),), rejected=((7, 0),))
    rows = np.array([7, 4])
    cost = np.ones((2, 3))
    assert np.isinf(review.mask_rejected(cost, rows)[0, 0])
    forced = review.forced_edges(cost, 2, 1, rows)
    assert forced.lost.tolist() == [1] and forced.known.tolist() == [2]


def test_the_m_step_flow_follows_the_judgments():
    flow = torch.full((3, 4), 0.25)
    out = ReviewConstraints(accepted=((0, 2),), rejected=((1, 1),)).apply_to_flow(flow)
    assert out[0].tolist() == [0.0, 0.0, 1.0, 0.0]  # an accepted lost word trains on its pair only
    assert out[1, 1] == 0.0 and out[1, 0] == 0.25
    assert torch.equal(out[2], flow[2]) and flow[0, 0] == 0.25  # the input is not modified


# --- the engine -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: threads only add overhead
    cfg = preset("demo").replace(**TINY)
    corpus = load_corpus(cfg).corpus
    folder = tmp_path_factory.mktemp("run")
    result = run_decipherment(corpus, cfg, checkpoint=folder / CHECKPOINT_NAME)
    yield corpus, result, load_checkpoint(folder)
    torch.set_num_threads(threads)


def _review_of(result) -> ReviewConstraints:
    """A reviewer who accepts the 5 most confident proposals and rejects the next 5 (no gold)."""
    pairs = [(p.lost, p.known) for p in result.proposals]
    return ReviewConstraints(tuple(pairs[:5]), tuple(pairs[5:10]))


@pytest.mark.slow
def test_refinement_keeps_accepted_pairs_drops_rejected_and_continues_the_rounds(tiny_run, tmp_path):
    corpus, result, payload = tiny_run
    review = _review_of(result)
    refined = refine_decipherment(corpus, payload, review, 2, checkpoint=tmp_path / CHECKPOINT_NAME)
    assert refined.status == "finished" and refined.refined == 1
    assert [m.round for m in refined.rounds] == [1, 2, 3, 4]
    pairs = {(p.lost, p.known) for p in refined.proposals}
    assert set(review.accepted) <= pairs
    assert not pairs & set(review.rejected)
    # The evaluation flow honours them too: each accepted lost word predicts its pair.
    for i, j in review.accepted:
        if corpus.gold.get(i):
            assert refined.predictions[i] == j
    for i, j in review.rejected:
        assert refined.predictions[i] != j
    saved = load_checkpoint(tmp_path)
    assert saved.refined == 1 and saved.round == 4
    again = refine_decipherment(corpus, saved, review, 1)
    assert again.refined == 2 and [m.round for m in again.rounds][-1] == 5


@pytest.mark.slow
def test_refinement_never_reads_gold(tiny_run):
    corpus, result, payload = tiny_run
    review = _review_of(result)
    with_gold = refine_decipherment(corpus, payload, review, 1)
    blind = refine_decipherment(dataclasses.replace(corpus, gold={}), payload, review, 1)
    assert [(p.lost, p.known, p.score) for p in blind.proposals] == [
        (p.lost, p.known, p.score) for p in with_gold.proposals
    ]
    assert blind.accuracy is None and with_gold.accuracy is not None


@pytest.mark.slow
def test_a_neural_refinements_draw_is_its_own_reproducible_stream(tiny_run):
    """Draw 0 is the refinement the run always had; another draw trains on other batches and
    dropout (the bench averages draws), and repeats exactly."""
    corpus, result, payload = tiny_run
    review = _review_of(result)

    def losses(draw: int | None) -> list[float]:
        kw = {} if draw is None else {"draw": draw}
        return [m.loss for m in refine_decipherment(corpus, payload, review, 1, **kw).rounds]

    own, first, other = losses(None), losses(0), losses(1)
    assert own == first and own[:-1] == other[:-1]  # the run's own rounds are the checkpoint's
    assert other[-1] != own[-1] and losses(1) == other
    with pytest.raises(ValueError, match="draw = -1"):
        refine_decipherment(corpus, payload, review, 1, draw=-1)


@pytest.mark.slow
def test_a_refined_checkpoint_is_not_resumed(tiny_run, tmp_path):
    corpus, result, payload = tiny_run
    refine_decipherment(corpus, payload, _review_of(result), 1, checkpoint=tmp_path / CHECKPOINT_NAME)
    with pytest.raises(CheckpointError, match="refine"):
        run_decipherment(corpus, result.config, resume=load_checkpoint(tmp_path))


@pytest.mark.slow
def test_a_neural_refinement_continues_from_the_runs_model(tiny_run, monkeypatch):
    """The paper resets the parameters before every M-step; a refinement must not, since a fresh
    M-step on a judged flow can miss the map the run had found (docs/experiments.md)."""
    from tui_decipher.engine.methods.neural_em import rounds

    corpus, result, payload = tiny_run
    assert payload.settings().reset_each_round  # the run itself reset every round
    at_start: list[dict[str, torch.Tensor]] = []
    m_step = rounds.m_step

    def spy(ctx, model, *args, **kwargs):
        at_start.append({k: v.detach().clone() for k, v in model.state_dict().items()})
        return m_step(ctx, model, *args, **kwargs)

    monkeypatch.setattr(rounds, "m_step", spy)
    refine_decipherment(corpus, payload, _review_of(result), 2)
    snaps = [s for s in (payload.state["best"], payload.state["current"]) if s is not None]
    kept = min(snaps, key=lambda s: s["objective"])["weights"]  # the restart a refinement continues
    assert len(at_start) == 2
    assert all(torch.equal(at_start[0][k].cpu(), kept[k]) for k in kept)
    assert any(not torch.equal(at_start[1][k].cpu(), kept[k]) for k in kept)  # round 2 goes on from round 1


def test_refinement_refuses_another_corpus(tiny_run):
    corpus, _, payload = tiny_run
    other = dataclasses.replace(corpus, name="other")
    with pytest.raises(CheckpointError, match="another corpus"):
        refine_decipherment(other, payload, ReviewConstraints(), 1)


# --- the CLI ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_refine_updates_the_stored_run_in_place(data_dir, single_thread):
    runner = CliRunner()
    first = runner.invoke(cli_app, ["run", "--quiet", *TINY_FLAGS])
    assert first.exit_code == 0, first.output
    with Store(default_path(data_dir)) as store:
        (run,) = store.runs()
        rows = store.proposals(run.id)
        accepted = [(r.lost_index, r.known_index) for r in rows[:4]]
        rejected = [(r.lost_index, r.known_index) for r in rows[4:8]]
        for pair in accepted:
            store.set_judgment(run.id, *pair, ACCEPTED)
        for pair in rejected:
            store.set_judgment(run.id, *pair, REJECTED)
        before = store.judgments(run.id)
    refined = runner.invoke(cli_app, ["run", "--quiet", "--refine", str(run.id), "--refine-rounds", "1"])
    assert refined.exit_code == 0, refined.output
    assert "refining run #1 for 1 round(s) with 4 accepted and 4 rejected" in refined.output
    with Store(default_path(data_dir)) as store:
        assert len(store.runs()) == 1  # the same run, refined in place
        after = store.run(run.id)
        assert after.status == "finished" and after.rounds_planned == 3
        assert [r.round for r in store.rounds(run.id)] == [1, 2, 3]
        pairs = {(r.lost_index, r.known_index) for r in store.proposals(run.id)}
        assert set(accepted) <= pairs and not pairs & set(rejected)
        assert store.judgments(run.id) == before  # decisions kept
    assert load_checkpoint(after.run_dir).refined == 1


@pytest.mark.slow
def test_a_cancelled_refinement_leaves_the_run_finished(data_dir, single_thread):
    """Stopped after its first round, a refinement keeps that round and leaves a finished run, which
    is refined again, not offered for --resume; the caller still learns it was cancelled."""
    import threading

    from tui_decipher.engine.run.events import RoundEnd
    from tui_decipher.session.run_session import RunSession

    assert CliRunner().invoke(cli_app, ["run", "--quiet", *TINY_FLAGS]).exit_code == 0
    db = default_path(data_dir)
    session = RunSession.refine(db, "1", rounds=3)
    session.open()
    cancel = threading.Event()
    result = session.execute(lambda event: isinstance(event, RoundEnd) and cancel.set(), cancel)
    assert result.status == "cancelled"
    with Store(db) as store:
        run = store.run(1)
        assert run.status == "finished" and [r.round for r in store.rounds(1)] == [1, 2, 3]
    assert load_checkpoint(run.run_dir).refined == 1 and load_checkpoint(run.run_dir).round == 3
    assert json.loads((Path(run.run_dir) / "summary.json").read_text())["status"] == "finished"
    again = RunSession.refine(db, "1", rounds=1)  # and it refines again
    again.open()
    assert again.execute(lambda _event: None, threading.Event()).status == "finished"


def test_cli_refine_errors_are_one_line(data_dir, tmp_path):
    runner = CliRunner()
    unknown = runner.invoke(cli_app, ["run", "--refine", "42"])
    assert unknown.exit_code == 2 and "no run #42" in unknown.output
    assert len(unknown.output.strip().splitlines()) == 1
    mixed = runner.invoke(cli_app, ["run", "--refine", "1", "--seed", "3"])
    assert mixed.exit_code == 2 and "--refine takes its settings from the checkpoint; drop --seed" in mixed.output
    both = runner.invoke(cli_app, ["run", "--refine", "1", "--resume", "1"])
    assert both.exit_code == 2 and "cannot be combined" in both.output
    folder = runner.invoke(cli_app, ["run", "--refine", str(tmp_path)])
    assert folder.exit_code == 2 and len(folder.output.strip().splitlines()) == 1


# --- the benchmark's simulated reviewer -------------------------------------------------------


def test_simulated_reviewer_accepts_top_correct_and_rejects_top_wrong_unjudged_pairs():
    from types import SimpleNamespace

    from tui_decipher.bench.reviewer_simulation import accuracy_on, simulate_review
    from tui_decipher.engine.corpora.corpus import Corpus
    from tui_decipher.engine.methods import Proposal

    words = tuple((c,) for c in "abcdef")
    corpus = Corpus("t", "l", "k", words, words, gold={i: frozenset({i}) for i in range(5)} | {5: frozenset()})
    ranked = [(0, 0), (1, 2), (2, 2), (3, 1), (4, 4), (5, 5)]  # best first; lost 5 has no gold
    result = SimpleNamespace(proposals=[Proposal(i, j, 1.0 - n / 10, 0.0, None) for n, (i, j) in enumerate(ranked)])
    first = simulate_review(result, corpus, {}, n_accept=1, n_reject=1)
    assert first == {(0, 0): ACCEPTED, (1, 2): REJECTED}
    second = simulate_review(result, corpus, first, n_accept=1, n_reject=2)
    assert second == {(2, 2): ACCEPTED, (3, 1): REJECTED}  # judged pairs skipped; (4, 4) is correct, (5, 5) unknown
    predictions = np.array([0, 2, 2, 3, 0, -1])
    assert accuracy_on(predictions, corpus, {0, 1, 2, 3}) == 0.75


@pytest.mark.slow
def test_refine_benchmark_measures_unjudged_words_only(single_thread):
    from tui_decipher import bench
    from tui_decipher.bench.reviewer_simulation import run_refine_benchmark

    # a smaller model than the preset's, still enough to find correct pairs to accept
    cfg = preset("demo").replace(epochs=40, rounds=2, embed_dim=32, hidden_dim=32, n_universal=16)
    corpus = load_corpus(cfg).corpus
    out = run_refine_benchmark(corpus, cfg, iterations=2, refine_rounds=1, n_accept=3, n_reject=3)
    assert [s["iteration"] for s in out.iterations] == [1, 2]
    assert 0 < out.n_accepted <= 6 and 0 < out.n_rejected <= 6
    judged_words = out.n_accepted + out.n_rejected  # each judged pair is a distinct lost word here or fewer
    assert out.n_unjudged >= corpus.n_gold_lost - judged_words
    for value in (out.accuracy_unrefined, out.accuracy_refined, out.accuracy_control):
        assert 0.0 <= value <= 1.0
    setting = bench.SETTINGS["ugaritic-refine"]
    assert [r.key for r in setting.rows] == ["unrefined", "refined", "control"] and setting.group == "refine"
    assert setting.configs(1234, False)[0] == preset("ugaritic")
