"""`decipher run --json`: the run's summary as one JSON document on stdout, for scripts."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from tui_decipher.cli import app

CHEAP = ["--method", "neural", "--epochs", "1", "--rounds", "1", "--set", "embed_dim=16", "--set", "hidden_dim=16"]


def test_json_prints_the_summary_and_nothing_else_on_stdout(tmp_path) -> None:
    out = tmp_path / "run"
    args = ["run", *CHEAP, "--seed", "3", "--out", str(out), "--data-dir", str(tmp_path / "data"), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)  # the whole of stdout is one document: no table, no progress
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert printed == {"run_id": 1, "run_dir": str(out), **summary}
    assert printed["status"] == "finished" and printed["seed"] == 3 and printed["corpus"] == "demo"


def test_json_refuses_the_profile_table_in_one_line(tmp_path) -> None:
    result = CliRunner().invoke(app, ["run", "--json", "--profile", "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 2
    assert "--json and --profile cannot be combined" in result.output
    assert not (tmp_path / "data").exists()  # refused before anything is written
