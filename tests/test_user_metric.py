"""The user's metric: a run's proposals at its own D, judged against gold (precision, recall, F1,
calibration), beside the paper's protocol, in summary.json, the CLI summary and `decipher runs`."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tui_decipher.cli import app
from tui_decipher.engine.evaluation.metrics import calibration_curve, calibration_error, proposal_scores

runner = CliRunner()


def test_precision_recall_f1_by_hand():
    scored = proposal_scores([True, True, False, True, False], n_gold=6)
    assert scored.n_proposals == 5 and scored.n_correct == 3
    assert scored.precision == pytest.approx(3 / 5) and scored.recall == pytest.approx(3 / 6)
    assert scored.f1 == pytest.approx(2 * 0.6 * 0.5 / 1.1)
    assert "precision 60.0%, recall 50.0%, F1 54.5 (5 proposals for 6 lost words" in scored.line()


def test_a_lost_word_proposed_twice_counts_once_toward_recall():
    scored = proposal_scores([True, True], n_gold=2, lost=[4, 4])
    assert scored.n_correct == 1 and scored.recall == pytest.approx(0.5) and scored.precision == pytest.approx(0.5)


def test_no_proposals_and_no_gold_read_as_none_not_zero_division():
    assert proposal_scores([], n_gold=5).precision is None
    assert proposal_scores([], n_gold=5).recall == 0.0
    assert proposal_scores([True], n_gold=0).recall is None and proposal_scores([True], n_gold=0).f1 is None


def test_calibration_error_is_zero_when_scores_are_the_chance_of_being_right():
    # Bin 0.25: one in four right; bin 0.75: three in four right: perfectly calibrated.
    scores = [0.25] * 4 + [0.75] * 4
    correct = [True, False, False, False, True, True, True, False]
    assert calibration_error(scores, correct) == pytest.approx(0.0)
    assert calibration_curve(scores, correct) == [(0.25, 0.25, 4), (0.75, 0.75, 4)]
    # Overconfident: scores of 0.95, half right: the error is the gap.
    assert calibration_error([0.95] * 4, [True, False, True, False]) == pytest.approx(0.45)


def test_a_run_reports_the_users_metric_beside_the_protocol(tmp_path):
    out, data = tmp_path / "run", tmp_path / "data"
    args = ["run", "--method", "channel", "--set", "channel_steps=30", "--seed", "3", "--out", str(out), "--quiet"]
    result = runner.invoke(app, [*args, "--data-dir", str(data)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    scored = summary["proposal_scores"]
    rows = (out / "proposals.tsv").read_text(encoding="utf-8").splitlines()[1:]
    correct = sum(r.split("\t")[4] == "1" for r in rows)
    assert scored["n_proposals"] == len(rows) == summary["n_proposals"] and scored["n_correct"] == correct
    assert scored["n_gold"] == summary["n_evaluated"] == 200
    assert scored["precision"] == pytest.approx(correct / len(rows), abs=1e-4)
    assert scored["recall"] == pytest.approx(correct / 200, abs=1e-4)
    assert 0.0 <= scored["calibration_error"] <= 1.0
    curve = summary["calibration"]  # (mean score, share correct, proposals) a score bin
    assert sum(n for _, _, n in curve) == len(rows)
    assert sum(n * share for _, share, n in curve) == pytest.approx(correct, abs=1e-2)
    assert sum(n * abs(share - mean) for mean, share, n in curve) / len(rows) == pytest.approx(
        scored["calibration_error"], abs=1e-3
    )
    assert "proposals vs gold" in result.output and "paper's protocol" in result.output
    shown = runner.invoke(app, ["runs", "show", str(out), "--data-dir", str(data)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert f"recall {100 * correct / 200:.1f}%" in shown.output and "paper's protocol" in shown.output
    listed = runner.invoke(app, ["runs", "list", "--data-dir", str(data)], env={"COLUMNS": "200"})
    assert f"{100 * scored['f1']:.1f}" in listed.output
