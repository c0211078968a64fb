"""`decipher run` with the default method and the user's default threads (the syllable search's
worker processes included) on word lists of every kind and size: each finishes with finite output
or is refused in one line that says why (tui_decipher/bench/fuzz_cases.py makes the cases). The step budget
is cut (`auto_steps`) for CI; the bench's `fuzz-user` runs the full schedule and larger sizes."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from tui_decipher.bench.fuzz_cases import CASES, REFUSED, fuzz_case
from tui_decipher.cli import app
from tui_decipher.store import Store, default_path

runner = CliRunner()


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name", CASES)
def test_auto_finishes_with_finite_output_or_refuses_in_one_line(name, seed, tmp_path) -> None:
    path = fuzz_case(tmp_path, name)
    out, data = tmp_path / "run", tmp_path / "data"
    args = ["run", "--corpus", str(path), "--seed", str(seed), "--set", "auto_steps=40", "--quiet", "--out", str(out)]
    result = runner.invoke(app, [*args, "--data-dir", str(data)], env={"COLUMNS": "200"})
    if name in REFUSED:
        assert result.exit_code == 2, result.output
        errors = [line for line in result.output.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and REFUSED[name] in errors[0], result.output
        assert "Traceback" not in result.output and not out.exists()  # refused before anything was recorded
        return
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["status"] == "finished" and summary["n_proposals"] >= 1
    rows = [line.split("\t") for line in (out / "proposals.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    assert len(rows) == summary["n_proposals"]
    assert all(math.isfinite(float(r[2])) and 0.0 <= float(r[2]) <= 1.0 and math.isfinite(float(r[3])) for r in rows)
    scored = summary["proposal_scores"]
    assert scored["n_proposals"] == len(rows) and 0.0 <= scored["f1"] <= 1.0
    with Store(default_path(data)) as store:
        (run,) = store.runs()
        assert run.status == "finished"
        assert all(math.isfinite(loss) for _, loss in store.channel_losses(run.id))


def test_the_syllable_search_in_worker_processes_records_its_progress_into_the_store(tmp_path) -> None:
    """A generated syllabary takes auto's syllable search, which starts worker processes where the
    run has cores (the user's default threads): its steps are recorded, every one a measurement."""
    path = fuzz_case(tmp_path, "syllabary-50")
    data = tmp_path / "data"
    result = runner.invoke(app, ["run", "--corpus", str(path), "--seed", "1", "--set", "auto_steps=40", "--quiet",
                                 "--out", str(tmp_path / "run"), "--data-dir", str(data)])  # fmt: skip
    assert result.exit_code == 0, result.output
    with Store(default_path(data)) as store:
        (run,) = store.runs()
        labels = [label for label, _ in store.channel_losses(run.id)]
        assert "signs searched as syllables" in run.decisions["line"]
        assert "syllables" in labels and all(math.isfinite(x) for _, x in store.channel_losses(run.id))
