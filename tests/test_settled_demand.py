"""D settled by the decipherer's judgments (session/settled_demand.py): estimated from the judged pairs of
a run's ranking and its own evidence, and the proposals recut there, in the store and the run folder,
without training; `decipher review import` settles it unless --keep-d."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tui_decipher.bench.experiments import row_from_run
from tui_decipher.bench.report.markdown import boundary_lines
from tui_decipher.bench.reviewer_simulation import boundary_figures
from tui_decipher.cli import app
from tui_decipher.engine.corpora.corpus import Corpus, read_cog
from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
from tui_decipher.engine.methods import DecipherResult, Proposal
from tui_decipher.engine.run.config import ConfigSources, DecipherConfig
from tui_decipher.session.results import write_run_files
from tui_decipher.session.settled_demand import settle_demand, settle_run
from tui_decipher.store import ACCEPTED, FINISHED, OPEN, REJECTED, UNSURE, RunRecorder, Store, StoreError, default_path

runner = CliRunner()
CORPUS = Path(__file__).parent / "data" / "v1_run.cog"


def _judged(n: int, truth: int, ranks: range) -> list[str]:
    """n ranked pairs, those at `ranks` judged: correct down to rank `truth`, wrong below it."""
    statuses = [OPEN] * n
    for r in ranks:
        statuses[r - 1] = ACCEPTED if r <= truth else REJECTED
    return statuses


def test_without_a_judgment_the_run_keeps_its_d() -> None:
    settled = settle_demand([OPEN] * 100, 30, 10, 90)
    assert (settled.demand, settled.judged, settled.changed) == (30, 0, False)
    assert settle_demand([UNSURE] * 100, 30, 10, 90).demand == 30  # unsure says nothing of where they end
    assert "no pair of the ranking judged" in settled.line()


@pytest.mark.parametrize("truth", [20, 45, 60, 80])
def test_judgments_across_the_range_move_d_to_where_the_correct_pairs_end(truth: int) -> None:
    settled = settle_demand(_judged(100, truth, range(10, 91, 4)), 30, 10, 90)  # 21 judged, evenly
    assert abs(settled.demand - truth) <= 4, settled
    assert settled.low <= truth <= settled.high and settled.judged == 21
    assert settled.line().startswith(f"D 30 -> {settled.demand} (21 judged") or settled.demand == 30


def test_the_run_s_evidence_holds_d_where_judgments_say_little() -> None:
    # Two pairs judged right at the top say the ranking is good there, nothing of where it ends.
    settled = settle_demand(_judged(100, 100, range(1, 3)), 30, 10, 90)
    assert 25 <= settled.demand <= 40, settled
    # A run whose range is tight (a sure D) moves less than one whose range is wide.
    tight = settle_demand(_judged(100, 80, range(70, 91, 5)), 30, 28, 32).demand
    wide = settle_demand(_judged(100, 80, range(70, 91, 5)), 30, 5, 95).demand
    assert 30 <= tight < wide


def _corpus(tmp_path: Path) -> Corpus:
    path = tmp_path / "tiny.cog"
    path.write_text("xl\tyk\n" + "".join(f"a{k}\tb{k}\n" for k in range(10)), encoding="utf-8")
    return read_cog(path)


def _recorded_run(tmp_path: Path) -> tuple[Path, int, Path]:
    """A finished run of 4 proposals and 6 pairs past D (gold: the first 7 ranks right), with its folder."""
    corpus = _corpus(tmp_path)
    cfg = DecipherConfig(corpus=str(tmp_path / "tiny.cog"))
    pairs = [Proposal(k, k, 0.9 - 0.05 * k, 1.0 + k, k < 7) for k in range(10)]
    result = DecipherResult(config=cfg, corpus_name="tiny", lost_code="xl", known_code="yk", demand=4,
                            status=FINISHED, device="cpu", proposals=pairs[:4], beyond=pairs[4:], accuracy=0.7,
                            accuracy_model=0.7, n_evaluated=10, seconds=1.0,
                            decisions={"demand": {"demand": 4, "demand_low": 2, "demand_high": 10}})  # fmt: skip
    db = default_path(tmp_path / "data")
    folder = tmp_path / "run"
    with Store(db) as store:
        run_id = store.create_run(corpus, corpus_path=str(tmp_path / "tiny.cog"), preset=None,
                                  config=cfg.to_dict(), rounds_planned=0)  # fmt: skip
        store.set_run_dir(run_id, str(folder))
    recorder = RunRecorder(db, run_id)
    recorder.finish(result, corpus)
    recorder.close()
    write_run_files(folder, result, corpus, ConfigSources(), str(tmp_path / "tiny.cog"))
    return db, run_id, folder


def test_a_recut_moves_the_cut_in_the_store_and_the_run_folder_keeping_ranks_and_decisions(tmp_path) -> None:
    db, run_id, folder = _recorded_run(tmp_path)
    with Store(db) as store:
        # The pairs past D judged right down to rank 7, wrong from 8: D moves from 4 towards 7.
        store.set_judgments(run_id, [(k, k, ACCEPTED if k < 7 else REJECTED) for k in range(3, 10)])
        settled = settle_run(store, store.run(run_id))
        assert settled.before == 4 and 6 <= settled.demand <= 8, settled
        proposals, beyond = store.proposals(run_id), store.beyond_pairs(run_id)
        assert [r.rank for r in proposals + beyond] == list(range(1, 11))  # ranks kept, the cut moved
        assert len(proposals) == settled.demand and not any(r.beyond for r in proposals)
        assert store.judgments(run_id)[(8, 8)] == REJECTED and beyond[-1].status == REJECTED
        run = store.run(run_id)
        assert run.n_cognates == settled.demand and run.n_proposals == settled.demand
        assert run.decisions["settled"]["before"] == 4 and run.decisions["demand"]["demand_high"] == 10
        # The folder follows: the same ranking split at the new D, its scores at that D.
        lines = (folder / "proposals.tsv").read_text(encoding="utf-8").splitlines()
        past = (folder / "beyond_d.tsv").read_text(encoding="utf-8").splitlines()
        assert len(lines) - 1 == settled.demand and len(lines) + len(past) - 2 == 10
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
        assert summary["n_proposals"] == settled.demand and summary["decisions"]["settled"]["demand"] == settled.demand
        assert summary["proposal_scores"]["n_correct"] == min(7, settled.demand)
        # The judgments cleared: the run's own D again, from its recorded `before`.
        store.set_judgments(run_id, [(k, k, OPEN) for k in range(3, 10)])
        again = settle_run(store, store.run(run_id))
        assert again.demand == 4 and len(store.proposals(run_id)) == 4


def test_only_a_finished_run_is_recut(tmp_path) -> None:
    db, run_id, _ = _recorded_run(tmp_path)
    with Store(db) as store:
        store.mark_running(run_id)
        with pytest.raises(StoreError, match="only a finished run"):
            settle_run(store, store.run(run_id))


def test_review_import_settles_an_auto_run_s_d_and_keep_d_leaves_it(tmp_path) -> None:
    data, corpus = tmp_path / "data", tmp_path / "tiny.cog"
    write_generated(corpus, GeneratorSpec(kind="shared-alphabet", seed=3, lost_words=40))
    ran = runner.invoke(app, ["run", "--quiet", "--corpus", str(corpus), "--set", "auto_steps=30", "--seed", "1",
                              "--data-dir", str(data)])  # fmt: skip
    assert ran.exit_code == 0, ran.output
    with Store(default_path(data)) as store:
        ranked = store.proposals(1)
    d = len(ranked)
    # The lower half of the proposals judged wrong: D moves down to where the right ones end.
    judged = "".join(f"{r.lost}\t{r.known}\t{'accepted' if r.rank <= d // 2 else 'rejected'}\n" for r in ranked)
    file = tmp_path / "judged.tsv"
    file.write_text("lost\tknown\tdecision\n" + judged, encoding="utf-8")
    kept = runner.invoke(app, ["review", "import", "1", str(file), "--keep-d", "--data-dir", str(data)])
    assert kept.exit_code == 0 and " -> " not in kept.output, kept.output
    with Store(default_path(data)) as store:
        assert len(store.proposals(1)) == d
    settled = runner.invoke(app, ["review", "import", "1", str(file), "--data-dir", str(data)])
    assert settled.exit_code == 0 and f"D {d} -> " in settled.output, settled.output
    with Store(default_path(data)) as store:
        recut = len(store.proposals(1))
        assert abs(recut - d // 2) <= 3 and store.run(1).decisions["settled"]["judged"] == d


def test_a_run_given_its_d_keeps_it_under_judgments(tmp_path) -> None:
    data = tmp_path / "data"
    ran = runner.invoke(app, ["run", "--quiet", "--corpus", str(CORPUS), "--method", "channel", "--set",
                              "channel_steps=10", "--data-dir", str(data)])  # fmt: skip
    assert ran.exit_code == 0, ran.output
    with Store(default_path(data)) as store:
        ranked, d = store.proposals(1), store.run(1).n_cognates
    file = tmp_path / "judged.tsv"
    file.write_text("lost\tknown\tdecision\n" + "".join(f"{r.lost}\t{r.known}\trejected\n" for r in ranked),
                    encoding="utf-8")  # fmt: skip
    imported = runner.invoke(app, ["review", "import", "1", str(file), "--data-dir", str(data)])
    assert imported.exit_code == 0 and "D " not in imported.output and d >= len(ranked), imported.output
    with Store(default_path(data)) as store:
        assert len(store.proposals(1)) == len(ranked) and "settled" not in store.run(1).decisions


def test_the_bench_answers_the_boundary_review_from_gold_and_reports_it() -> None:
    # 100 lost words: 40 proposals, 60 pairs past D; gold: the first 70 ranks right. D = 40 (range 10-100).
    pairs = [Proposal(k, k, 0.9 - 0.005 * k, 1.0 + k, k < 70) for k in range(100)]
    cfg = DecipherConfig(corpus="tiny")
    result = DecipherResult(config=cfg, corpus_name="tiny", lost_code="xl", known_code="yk", demand=40,
                            status=FINISHED, device="cpu", proposals=pairs[:40], beyond=pairs[40:], accuracy=0.7,
                            n_evaluated=70, decisions={"demand": {"demand": 40, "demand_low": 10,
                                                                  "demand_high": 100}})  # fmt: skip
    figures = boundary_figures(result)
    assert figures is not None and figures["f1"] == pytest.approx(2 * 40 / 110)  # 40 right of 40, 70 gold
    assert figures["f1_at_gold"] == pytest.approx(1.0) and figures["n_gold"] == 70
    assert abs(figures["demand_judged_20"] - 70) <= 5 and figures["f1_judged_20"] > figures["f1"]
    # A given D is the decipherer's: no boundary figures.
    given = dataclasses.replace(result, config=cfg.replace(auto_demand=40))
    assert boundary_figures(given) is None
    # The report's table, from a job's row.
    row = row_from_run("tiny", result)
    assert row.extra["boundary"] == figures
    lines = boundary_lines([_summary_row(row)])
    assert lines[0].startswith("## D the decipherer settles")
    assert any("| 72.7 |" in line and "| 0.57 |" in line for line in lines)


def _summary_row(row):
    from tui_decipher.bench.report.summary import Stat, SummaryRow, _boundary_stats

    empty = Stat(None, None, 0, [])
    return SummaryRow("dev", "dev-auto", row.key, "tiny", "decipher", None, "ok", "", empty, empty, 70, empty, {},
                      None, [1], boundary=_boundary_stats([row.extra["boundary"]]))  # fmt: skip


def test_a_poor_ranking_is_read_as_poor_not_as_a_boundary_near_the_top():
    # One judged pair in three correct down to rank 40 (where D is), none past it: the top's precision
    # is about 0.3. A grid of top precisions that stopped at a coin's explained the rejections by a
    # boundary before D (32); it now stays near D.
    statuses = [OPEN] * 100
    for k in range(20):
        rank = 5 + round(k * 95 / 19)
        statuses[rank - 1] = ACCEPTED if rank <= 40 and k % 3 == 0 else REJECTED
    settled = settle_demand(statuses, 38, 5, 100)
    assert settled.judged == 20 and settled.accepted == 3
    assert 35 <= settled.demand <= 40
