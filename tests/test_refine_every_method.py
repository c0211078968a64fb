"""Judgments for every method: the channel and auto runs refine from their saved channel, known
pairs constrain a run from its start, and `--refine RUN --out DIR` branches into a new run.

The corpora are generated ones whose answers are known; gold plays the reviewer here (tests only)
and scores, and is never seen by the engine (checked by running with the gold removed)."""

from __future__ import annotations

import dataclasses
import random
import threading
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from tui_decipher.bench.reviewer_simulation import accuracy_on
from tui_decipher.cli import app as cli_app
from tui_decipher.engine.channels.transport import transport_plan
from tui_decipher.engine.constraints.review import ReviewConstraints
from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
from tui_decipher.engine.corpora.registry import load_corpus
from tui_decipher.engine.methods import channel_results as channel_module
from tui_decipher.engine.methods import describe_refinement, refine_decipherment, run_decipherment
from tui_decipher.engine.methods.base import Proposal
from tui_decipher.engine.run.checkpoint import CHECKPOINT_NAME, load_checkpoint, save_checkpoint
from tui_decipher.engine.run.config import DecipherConfig, preset
from tui_decipher.session.run_views import run_fields
from tui_decipher.store import ACCEPTED, REJECTED, Store, default_path

CHANNEL = dict(method="channel", channel_steps=300, channel_objective="transport", channel_kind="pieces")


def _syllabary(tmp_path) -> str:
    """A Linear B-like syllabary (codas unwritten, l/r merged, 60% cognates) that the pieces channel
    alone reads at a few percent in 300 steps: the case where secure readings must help."""
    path = tmp_path / "syllabary.cog"
    write_generated(path, GeneratorSpec(kind="syllabary", seed=1, lost_words=200))
    return str(path)


def _gold_pairs(corpus, k: int, seed: int = 0) -> tuple[tuple[int, int], ...]:
    """k correct pairs, as a scholar's secure readings (drawn from gold: tests only)."""
    gold = sorted((i, min(js)) for i, js in corpus.gold.items() if js)
    return tuple(sorted(random.Random(seed).sample(gold, k)))


def _others(corpus, given) -> set[int]:
    return {i for i, js in corpus.gold.items() if js} - {i for i, _ in given}


# --- the constraints on a channel's training ------------------------------------------------------


def test_the_overruled_share_counts_unjudged_words_the_flow_reads_against_the_channel() -> None:
    """Lost word 1's best known word is word 0, but the one-to-one flow gives word 0 to lost word 0
    (cheaper as a whole) and word 1 to lost word 1: one word of n overruled, none once it is judged."""
    import threading

    from tui_decipher.engine.methods.refinement import overruled_share
    from tui_decipher.engine.run.demand import decide_demand
    from tui_decipher.engine.run.problem import Problem

    cfg = preset("demo").replace(device="cpu", capacity=1)
    corpus = load_corpus(cfg).corpus
    n = len(corpus.lost_words)
    cost = np.full((n, len(corpus.known_words)), 10.0)
    cost[np.arange(n), np.arange(n)] = 0.0  # each lost word reads as "its" known word ...
    cost[1, 0] = -1.0  # ... but lost word 1 reads best as known word 0
    prepared = Problem.prepare(corpus, cfg, lambda _e: None, threading.Event())
    problem = dataclasses.replace(prepared, demand=decide_demand(n, 1.0))
    assert overruled_share(problem, cost) == pytest.approx(1 / n)
    judged = dataclasses.replace(problem, review=ReviewConstraints(rejected=((1, 0),)))
    assert overruled_share(judged, cost) == 0.0
    cost[1, 0] = 1.0  # now its own best: the flow overrules nothing
    assert overruled_share(problem, cost) == 0.0


def test_a_refinements_weight_reads_as_one_line() -> None:
    assert describe_refinement({}) is None and describe_refinement({"line": "auto: ..."}) is None
    line = describe_refinement({"refinement": {"overruled": 0.383, "sure_share": 0.383}})
    assert line is not None and "weighed 38% of each step" in line and "overruled 38% of the channel's" in line


def test_judgments_mask_a_channels_log_probs_on_the_right_rows() -> None:
    review = ReviewConstraints(accepted=((2, 1),), rejected=((0, 0),))
    log_p = torch.zeros(4, 3)
    out = review.mask_log_probs(log_p, floor=-9.0)
    assert out[2].tolist() == [-9.0, 0.0, -9.0]  # an accepted word is explained by its pair only
    assert out[0].tolist() == [-9.0, 0.0, 0.0] and out[1].tolist() == [0.0, 0.0, 0.0]
    assert log_p.eq(0).all()  # the input is untouched
    batch = review.mask_log_probs(torch.zeros(3, 3), np.array([2, 5, 2]), floor=-9.0)  # word 2 drawn twice
    assert batch[0].tolist() == batch[2].tolist() == [-9.0, 0.0, -9.0] and batch[1].eq(0).all()


def test_a_forced_row_sends_its_whole_unit_to_known_words() -> None:
    log_p = torch.log(torch.tensor([[0.2, 0.1], [0.3, 0.3], [0.1, 0.2]]))
    free, _ = transport_plan(log_p, demand=1, capacity=1)
    forced, _ = transport_plan(log_p, demand=1, capacity=1, forced_rows=torch.tensor([0]))
    assert free[0].sum() < 0.9  # "no cognate" takes part of every word's unit
    assert forced[0].sum() == pytest.approx(1.0, abs=0.02)  # (Sinkhorn, 50 sweeps)
    assert forced[1:].sum() < 0.05  # and D = 1 leaves nothing for the others


def test_the_neural_em_keeps_known_pairs_from_its_first_flow(tmp_path, single_thread) -> None:
    cfg = preset("demo").replace(embed_dim=16, hidden_dim=16, n_universal=8, epochs=5, rounds=2, device="cpu")
    corpus = load_corpus(cfg).corpus
    given = _gold_pairs(corpus, 3)
    result = run_decipherment(corpus, cfg, checkpoint=tmp_path / CHECKPOINT_NAME, review=ReviewConstraints(given))
    assert set(given) <= {(p.lost, p.known) for p in result.proposals}
    saved = load_checkpoint(tmp_path)
    assert [tuple(pair) for pair in saved.state["review"]["accepted"]] == list(given)  # a resume keeps them


@pytest.fixture(scope="module")
def syllabary_run(syllabary_channel_run):
    """The shared syllabary's channel run (conftest), this module's tests on one thread."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    run = syllabary_channel_run
    assert run.cfg == DecipherConfig(corpus=run.cfg.corpus, device="cpu", **CHANNEL)
    yield run.corpus, run.cfg, run.result, run.checkpoint
    torch.set_num_threads(threads)


def test_a_channel_run_saves_its_channel_for_refinement(syllabary_run) -> None:
    _corpus, cfg, result, checkpoint = syllabary_run
    assert checkpoint.method == "channel" and checkpoint.round == 0 and checkpoint.refined == 0
    assert "channel" in checkpoint.state and checkpoint.state["n_cognates"] == result.demand
    assert checkpoint.settings() == cfg


def test_refining_a_channel_run_with_secure_pairs_beats_the_control(syllabary_run, tmp_path) -> None:
    corpus, _cfg, result, checkpoint = syllabary_run
    given = _gold_pairs(corpus, 20)
    others = _others(corpus, given)
    wrong = tuple((p.lost, p.known) for p in result.proposals if not p.gold)[:20]
    review = ReviewConstraints(given, wrong)
    refined = refine_decipherment(corpus, checkpoint, review, 3, checkpoint=tmp_path / CHECKPOINT_NAME)
    control = refine_decipherment(corpus, checkpoint, ReviewConstraints(), 3)
    before = accuracy_on(result.predictions, corpus, others)
    after = accuracy_on(refined.predictions, corpus, others)
    same_steps = accuracy_on(control.predictions, corpus, others)
    # Measured when written: 4% before, 3% for the control, 43% refined (20 secure pairs pin the signs they spell).
    assert after >= same_steps + 0.25 and after >= before + 0.25
    assert refined.refined == 1 and control.refined == 1
    # The flow overrules a weak map's readings often, so the secure pairs weigh in (gold-free).
    weight = refined.decisions["refinement"]
    assert weight["overruled"] > 0.1 and weight["sure_share"] == min(0.5, weight["overruled"])
    assert "refinement" not in control.decisions  # no accepted pairs: nothing to weigh
    pairs = {(p.lost, p.known) for p in refined.proposals}
    assert set(given) <= pairs and not pairs & set(wrong)
    assert load_checkpoint(tmp_path).refined == 1  # saved: it can be refined again


def test_refining_a_channel_run_never_reads_gold(syllabary_run) -> None:
    corpus, _cfg, _result, checkpoint = syllabary_run
    review = ReviewConstraints(_gold_pairs(corpus, 5), ((0, 1),))
    seen = refine_decipherment(corpus, checkpoint, review, 1)
    blind = refine_decipherment(dataclasses.replace(corpus, gold={}), checkpoint, review, 1)
    assert [(p.lost, p.known, p.score, p.cost) for p in seen.proposals] == [
        (p.lost, p.known, p.score, p.cost) for p in blind.proposals
    ]
    assert seen.char_map == blind.char_map and blind.accuracy is None and seen.accuracy is not None


def test_the_benchmarks_control_is_the_refinements_call_for_call(tmp_path, single_thread) -> None:
    """With no judgments the simulated reviewer's refinements and the control must be one and the
    same training (a refinement starts a fresh optimiser: one long call would differ). A small
    alphabet suffices: nothing here asks the channel to read well."""
    from tui_decipher.bench.reviewer_simulation import run_refine_benchmark

    path = tmp_path / "tiny.cog"
    write_generated(path, GeneratorSpec(kind="shared-alphabet", seed=3, lost_words=60))
    cfg = DecipherConfig(corpus=str(path), device="cpu", **{**CHANNEL, "channel_steps": 60})
    corpus = load_corpus(cfg).corpus
    out = run_refine_benchmark(corpus, cfg, iterations=2, refine_rounds=1, n_accept=0, n_reject=0, draws=2)
    assert out.n_accepted == out.n_rejected == 0 and len(out.iterations) == 4
    assert [(s["draw"], s["iteration"]) for s in out.iterations] == [(0, 1), (0, 2), (1, 1), (1, 2)]
    assert [d["draw"] for d in out.draws] == [0, 1]
    for draw in out.draws:
        assert draw["refined"] == draw["control"]  # each draw's control is its own refinements
    assert (
        out.accuracy_refined
        == out.accuracy_control
        == pytest.approx((out.draws[0]["refined"] + out.draws[1]["refined"]) / 2)
    )


def test_a_channel_refinements_draw_is_its_own_reproducible_stream(syllabary_run) -> None:
    corpus, _cfg, _result, checkpoint = syllabary_run

    def costs(draw: int) -> list[float]:
        return [p.cost for p in refine_decipherment(corpus, checkpoint, ReviewConstraints(), 1, draw=draw).proposals]

    first = costs(0)
    assert costs(1) != first and costs(0) == first


def test_known_pairs_from_the_start_read_what_the_channel_alone_cannot(syllabary_run) -> None:
    corpus, cfg, result, _checkpoint = syllabary_run
    given = _gold_pairs(corpus, 20)
    others = _others(corpus, given)
    helped = run_decipherment(corpus, cfg, review=ReviewConstraints(given))
    # Measured when written: 4% without them, 63% with 20 known pairs.
    assert accuracy_on(helped.predictions, corpus, others) >= accuracy_on(result.predictions, corpus, others) + 0.3
    assert set(given) <= {(p.lost, p.known) for p in helped.proposals}


def test_the_oracle_ceiling_scores_each_gold_pair_once_given_the_others(syllabary_run) -> None:
    """`decipher bench --only ceiling-...`: half of gold's pairs given from the start, each half in
    turn; every gold word is scored once, and on this syllabary the given pairs must teach the rest."""
    from tui_decipher.bench.reviewer_simulation import run_ceiling_benchmark

    corpus, cfg, result, _checkpoint = syllabary_run
    n_pairs = sum(1 for js in corpus.gold.values() if js)
    out = run_ceiling_benchmark(corpus, cfg, folds=2, seed=7)
    assert out.n_other == n_pairs == sum(f["scored"] for f in out.folds)
    assert [f["given"] + f["scored"] for f in out.folds] == [n_pairs, n_pairs]
    # the run without pairs is the fixture's own run: same config, same seed
    assert out.accuracy_without == pytest.approx(accuracy_on(result.predictions, corpus, _others(corpus, ())))
    assert out.accuracy_with >= out.accuracy_without + 0.3 and out.changed > 0


def test_an_auto_run_refines_with_its_own_decisions(tmp_path, single_thread) -> None:
    path = tmp_path / "shared.cog"
    write_generated(path, GeneratorSpec(kind="shared-alphabet", seed=3, lost_words=80, cognate_share=0.7))
    # 100 steps: at 40 the probe and its cross channel are too rough to tell D from every lost word.
    cfg = DecipherConfig(corpus=str(path), device="cpu", auto_steps=100)
    corpus = load_corpus(cfg).corpus
    result = run_decipherment(corpus, cfg, checkpoint=tmp_path / CHECKPOINT_NAME)
    checkpoint = load_checkpoint(tmp_path)
    assert checkpoint.method == "auto" and checkpoint.state["decisions"] == result.decisions
    wrong = next(p for p in result.proposals if p.known != result.proposals[0].known)
    review = ReviewConstraints(
        ((wrong.lost, result.proposals[0].known),), ((result.proposals[1].lost, result.proposals[1].known),)
    )
    refined = refine_decipherment(corpus, checkpoint, review, 1)
    weight = refined.decisions.pop("refinement")  # the accepted pairs' weight, beside auto's decisions
    assert 0.0 <= weight["sure_share"] <= 0.5
    assert refined.decisions == result.decisions and refined.config.channel_kind == result.config.channel_kind
    pairs = {(p.lost, p.known) for p in refined.proposals}
    assert (wrong.lost, result.proposals[0].known) in pairs  # the reviewer's pair, though the model chose otherwise
    assert (result.proposals[1].lost, result.proposals[1].known) not in pairs
    # The most the evidence allowed is kept with the run: the refinement reads the pairs past D again.
    high = result.decisions["demand"]["demand_high"]
    assert checkpoint.state["demand_high"] == high > result.demand and result.beyond and refined.beyond
    assert not {p.lost for p in refined.beyond} & {p.lost for p in refined.proposals}
    assert len(refined.beyond) <= high - refined.demand
    # A pair accepted past D adds to D: it joins the proposals without pushing one out.
    past = result.beyond[0]
    judged = ReviewConstraints(((past.lost, past.known),))
    grown = refine_decipherment(corpus, checkpoint, judged, 1, checkpoint=tmp_path / "grown" / CHECKPOINT_NAME)
    assert grown.demand == len(grown.proposals) == result.demand + 1
    assert (past.lost, past.known) in {(p.lost, p.known) for p in grown.proposals}
    assert grown.decisions["refinement"]["demand"] == {"before": result.demand, "after": result.demand + 1}
    line = describe_refinement(grown.decisions) or ""
    assert line.endswith(f"; D {result.demand} -> {result.demand + 1}: pairs accepted past D")
    assert "demand" not in weight  # pairs accepted among the proposals leave D as it was
    # The raised D is the run's D plus the pair: refined again with the same judgments it is counted
    # from the run's D, not raised twice; a refinement cancelled before it trains keeps the run's D.
    again_start = load_checkpoint(tmp_path / "grown")
    assert again_start.state["demand_base"] == result.demand
    again = refine_decipherment(corpus, again_start, judged, 1)
    assert result.demand <= again.demand <= result.demand + 1
    stopped = threading.Event()
    stopped.set()
    cancelled = refine_decipherment(corpus, checkpoint, judged, 1, cancel=stopped)
    assert cancelled.status == "cancelled" and cancelled.demand == len(cancelled.proposals) == result.demand


def test_the_pairs_past_d_leave_each_known_word_at_most_c_readings(monkeypatch) -> None:
    """With C = 2, pairs past D that the wider flow puts on one known word stop at its C readings,
    the proposals' counted."""
    wider = [Proposal(lost, 0, 0.5, 1.0, None) for lost in (0, 2, 3)] + [Proposal(4, 1, 0.4, 1.2, None)]
    monkeypatch.setattr(
        channel_module, "flow_proposals", lambda problem, cost, demand, top_known=None, column_shift=None: wider
    )
    problem = SimpleNamespace(demand=SimpleNamespace(high=4, value=1), n_lost=5, cfg=SimpleNamespace(capacity=2))
    past = channel_module.beyond_pairs(problem, np.zeros((5, 2)), [Proposal(0, 0, 0.9, 0.5, None)])
    assert [(p.lost, p.known) for p in past] == [(2, 0), (4, 1)]  # known word 0: the proposal's and one more


def _assert_proposals_blended(corpus, result, state) -> None:
    """Each proposal's cost is (1 - share) of the saved channel's -log P beside share of its saved
    blend channel's, recomputed from the checkpoint `state`."""
    import threading

    from tui_decipher.engine.channels.scoring import channel_log_probs
    from tui_decipher.engine.methods.channel_results import ChannelBlend, load_channel
    from tui_decipher.engine.run.problem import Problem

    problem = Problem.prepare(corpus, result.config, lambda e: None, threading.Event())
    blend = ChannelBlend.from_state(state["blend"], problem)
    channel = load_channel(problem, state["channel"])
    args = (corpus.lost_words, corpus.known_words, problem.lost_charset, problem.known_charset)
    own = channel_log_probs(channel, *args)
    if blend.reverse:  # trained to write the known words from the lost ones: (n_known, n_lost), read across
        other = channel_log_probs(blend.channel, corpus.known_words, corpus.lost_words, problem.known_charset,
                                  problem.lost_charset).T  # fmt: skip
    else:
        other = channel_log_probs(blend.channel, *args)
    cost = -((1 - blend.share) * own + blend.share * other).numpy()
    got = np.array([p.cost for p in result.proposals])
    assert np.allclose(got, cost[[p.lost for p in result.proposals], [p.known for p in result.proposals]],
                       rtol=1e-4, atol=1e-3)  # fmt: skip


def test_auto_on_two_scripts_blends_its_probe_into_the_final_costs_and_a_refinement_keeps_it(
    tmp_path, single_thread
) -> None:
    """On the pieces path the kept probe weighs a quarter of the final costs (auto.Schedule.probe_share):
    saved with the run, left as it is by a refinement, which trains the fit only."""
    path = tmp_path / "cipher.cog"
    write_generated(path, GeneratorSpec(kind="substitution", seed=5, lost_words=80))
    # The pieces path: a cipher not read again as one alphabet (reading.py), where the probe's blend is.
    cfg = DecipherConfig(corpus=str(path), device="cpu", auto_steps=60, auto_read_again=False)
    corpus = load_corpus(cfg).corpus
    result = run_decipherment(corpus, cfg, checkpoint=tmp_path / CHECKPOINT_NAME)
    assert result.decisions["channel_kind"] == "pieces" and result.decisions["probe_share"] == 0.25
    assert not result.config.channel_gaps  # an alphabet (a cipher): no gapped pieces
    assert "the probe weighs 25% of the final costs" in result.decisions["line"]
    checkpoint = load_checkpoint(tmp_path)
    blend = checkpoint.state["blend"]
    assert blend["share"] == 0.25
    assert any(not torch.equal(v, blend["channel"][k]) for k, v in checkpoint.state["channel"].items())
    _assert_proposals_blended(corpus, result, checkpoint.state)
    # A refinement (no judgments: the control) trains the fit; the probe's channel is saved unchanged.
    refined = refine_decipherment(corpus, checkpoint, ReviewConstraints(), 1, checkpoint=tmp_path / "r.pt")
    after = load_checkpoint(tmp_path / "r.pt")
    assert all(torch.equal(v, blend["channel"][k]) for k, v in after.state["blend"]["channel"].items())
    assert any(not torch.equal(v, checkpoint.state["channel"][k]) for k, v in after.state["channel"].items())
    _assert_proposals_blended(corpus, refined, after.state)


def test_auto_on_one_alphabet_blends_a_reverse_channel_and_a_refinement_keeps_it(tmp_path, single_thread) -> None:
    """On the edit path a channel trained the other way (known words written from the lost ones)
    weighs n_lost / (n_lost + n_known) of the final costs (auto.reverse_share): saved with the run
    as a reverse blend, left as it is by a refinement."""
    path = tmp_path / "shared.cog"
    write_generated(path, GeneratorSpec(kind="shared-alphabet", seed=3, lost_words=60))
    cfg = DecipherConfig(corpus=str(path), device="cpu", auto_steps=30)
    corpus = load_corpus(cfg).corpus
    result = run_decipherment(corpus, cfg, checkpoint=tmp_path / CHECKPOINT_NAME)
    n_lost, n_known = len(corpus.lost_words), len(corpus.known_words)
    assert n_known > n_lost  # the generator's known list is larger: the shares differ from a half
    share = n_lost / (n_lost + n_known)
    assert result.decisions["channel_kind"] == "edit" and result.decisions["probe_share"] == 0.0
    assert result.decisions["reverse_share"] == pytest.approx(share)
    assert f"the reverse channel weighs {100 * share:.0f}% of the final costs" in result.decisions["line"]
    checkpoint = load_checkpoint(tmp_path)
    blend = checkpoint.state["blend"]
    assert blend["reverse"] is True and blend["share"] == pytest.approx(share)
    assert result.fitted.blend is not None and result.fitted.blend.reverse
    _assert_proposals_blended(corpus, result, checkpoint.state)
    refined = refine_decipherment(corpus, checkpoint, ReviewConstraints(), 1, checkpoint=tmp_path / "r.pt")
    after = load_checkpoint(tmp_path / "r.pt")
    assert after.state["blend"]["reverse"] is True
    assert all(torch.equal(v, blend["channel"][k]) for k, v in after.state["blend"]["channel"].items())
    _assert_proposals_blended(corpus, refined, after.state)


def test_a_blend_saved_before_reverse_channels_is_read_as_the_probe(tmp_path, single_thread) -> None:
    """Checkpoints written before reverse blends existed hold {"channel", "share"} only: they load as
    the probe's blend (scored in the run's own direction), and a refinement of one runs."""
    path = tmp_path / "cipher.cog"
    write_generated(path, GeneratorSpec(kind="substitution", seed=5, lost_words=80))
    # The pieces path: a cipher not read again as one alphabet (reading.py), where the probe's blend is.
    cfg = DecipherConfig(corpus=str(path), device="cpu", auto_steps=60, auto_read_again=False)
    corpus = load_corpus(cfg).corpus
    run_decipherment(corpus, cfg, checkpoint=tmp_path / CHECKPOINT_NAME)
    checkpoint = load_checkpoint(tmp_path)
    del checkpoint.state["blend"]["reverse"]  # as the code before this field saved it
    save_checkpoint(tmp_path / "old.pt", checkpoint)
    old = load_checkpoint(tmp_path / "old.pt")
    assert set(old.state["blend"]) == {"channel", "share"}
    refined = refine_decipherment(corpus, old, ReviewConstraints(), 1, checkpoint=tmp_path / "r.pt")
    after = load_checkpoint(tmp_path / "r.pt")
    assert refined.fitted.blend is not None and refined.fitted.blend.reverse is False
    assert after.state["blend"]["share"] == 0.25  # a refinement saves the blend as the run had it
    _assert_proposals_blended(corpus, refined, after.state)


# --- the CLI: refine any method, in place or as a branch -------------------------------------------


def _cli(*args: str):
    return CliRunner().invoke(cli_app, list(args))


def test_refine_out_branches_into_a_new_run_and_leaves_the_run_untouched(tmp_path, data_dir) -> None:
    path = tmp_path / "shared.cog"
    write_generated(path, GeneratorSpec(kind="shared-alphabet", seed=3, lost_words=60))
    first = _cli("run", "--corpus", str(path), "--method", "channel", "--set", "channel_steps=20", "--set",
                 "channel_kind=edit", "--out", str(tmp_path / "run1"), "--quiet")  # fmt: skip
    assert first.exit_code == 0, first.output
    db = default_path(data_dir)
    with Store(db) as store:
        (run,) = store.runs()
        proposals = store.proposals(run.id)
        store.set_judgment(run.id, proposals[0].lost_index, proposals[0].known_index, ACCEPTED)
        store.set_judgment(run.id, proposals[1].lost_index, proposals[1].known_index, REJECTED)
    checkpoint_bytes = (tmp_path / "run1" / CHECKPOINT_NAME).read_bytes()
    summary = (tmp_path / "run1" / "summary.json").read_text()

    branch = _cli("run", "--refine", str(run.id), "--refine-rounds", "1", "--out", str(tmp_path / "branch"), "--quiet")
    assert branch.exit_code == 0, branch.output
    assert f"refining run #{run.id} into run #{run.id + 1}" in branch.output
    assert (tmp_path / "run1" / CHECKPOINT_NAME).read_bytes() == checkpoint_bytes
    assert (tmp_path / "run1" / "summary.json").read_text() == summary
    assert load_checkpoint(tmp_path / "branch").refined == 1
    with Store(db) as store:
        new = store.run(run.id + 1)
        assert new.status == "finished" and new.run_dir == str((tmp_path / "branch").resolve())
        assert "refinement" in new.decisions  # the accepted pair's weight, stored with the run
        assert dict(run_fields(new, None))["refinement"].startswith("accepted pairs weighed")
        assert store.judgments(new.id) == store.judgments(run.id)  # the branch carries the judgments on
        assert [p.lost_index for p in store.proposals(run.id)] == [p.lost_index for p in proposals]
        refined_pairs = {(p.lost_index, p.known_index) for p in store.proposals(new.id)}
    assert (proposals[0].lost_index, proposals[0].known_index) in refined_pairs
    assert (proposals[1].lost_index, proposals[1].known_index) not in refined_pairs

    again = _cli("run", "--refine", str(run.id), "--out", str(tmp_path / "branch"), "--quiet")
    assert again.exit_code == 2 and "not an empty folder" in again.output

    in_place = _cli("run", "--refine", str(tmp_path / "run1"), "--refine-rounds", "1", "--quiet")
    assert in_place.exit_code == 0, in_place.output
    assert load_checkpoint(tmp_path / "run1").refined == 1


def test_known_pairs_start_a_run_and_become_its_decisions(tmp_path, data_dir) -> None:
    path = tmp_path / "shared.cog"
    write_generated(path, GeneratorSpec(kind="shared-alphabet", seed=3, lost_words=60))
    corpus = load_corpus(DecipherConfig(corpus=str(path))).corpus
    text = lambda words, i: "".join(words[i])  # noqa: E731
    (i, j), (k, m) = _gold_pairs(corpus, 2)
    pairs = tmp_path / "known.tsv"
    pairs.write_text(
        "lost\tknown\tdecision\n"
        f"{text(corpus.lost_words, i)}\t{text(corpus.known_words, j)}\taccepted\n"
        f"{text(corpus.lost_words, k)}\t{text(corpus.known_words, m)}\tunsure\n"
        f"{text(corpus.lost_words, k)}\t{text(corpus.known_words, j)}\trejected\n",
        encoding="utf-8",
    )
    run = _cli("run", "--corpus", str(path), "--method", "channel", "--set", "channel_steps=20", "--set",
               "channel_kind=edit", "--known-pairs", str(pairs), "--quiet")  # fmt: skip
    assert run.exit_code == 0, run.output
    assert "starting from 1 known pair(s) and 1 excluded pair(s)" in run.output
    with Store(default_path(data_dir)) as store:
        (row,) = store.runs()
        assert store.judgments(row.id) == {(i, j): ACCEPTED, (k, m): "unsure", (k, j): REJECTED}
        assert row.config["known_pairs"] == str(pairs)
        assert (i, j) in {(p.lost_index, p.known_index) for p in store.proposals(row.id)}

    bad = tmp_path / "bad.tsv"
    bad.write_text("lost\tknown\tdecision\nnot-a-word\tx\taccepted\n", encoding="utf-8")
    refused = _cli("run", "--corpus", str(path), "--method", "channel", "--known-pairs", str(bad), "--quiet")
    assert refused.exit_code == 2 and f"{bad}:2: unknown lost word 'not-a-word'" in refused.output
    with Store(default_path(data_dir)) as store:
        assert len(store.runs()) == 1  # nothing was recorded for the refused run
