"""The boundary review (session/boundary.py, `decipher review boundary`): unjudged pairs drawn evenly
across the ranks the evidence allows D to be, written as a review file that import reads back."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tui_decipher.cli import app
from tui_decipher.session.boundary import boundary_pairs, demand_range
from tui_decipher.store import ACCEPTED, OPEN, REJECTED, ProposalRow, Store, default_path

runner = CliRunner()
CORPUS = Path(__file__).parent / "data" / "v1_run.cog"


def _ranked(n: int, judged: tuple[int, ...] = ()) -> list[ProposalRow]:
    return [ProposalRow(k, k, k, f"l{k}", f"k{k}", 0.5, 1.0, None, ACCEPTED if k in judged else OPEN)
            for k in range(1, n + 1)]  # fmt: skip


def test_the_pairs_asked_for_spread_across_the_range_and_skip_judged_ones() -> None:
    ranked = _ranked(100, judged=(40,))
    asked = boundary_pairs(ranked, 21, 60, 5)
    assert [p.rank for p in asked] == [21, 31, 41, 50, 60]  # 40 is judged: the 39 open ranks, evenly
    assert [p.rank for p in boundary_pairs(ranked, 95, 100, 20)] == [95, 96, 97, 98, 99, 100]  # fewer than asked
    assert [p.rank for p in boundary_pairs(ranked, 10, 20, 1)] == [15]
    assert boundary_pairs(_ranked(5, judged=(1, 2, 3, 4, 5)), 1, 5) == []


def test_the_range_is_auto_s_or_the_whole_ranking() -> None:
    assert demand_range({"demand": {"demand_low": 8, "demand_high": 127}}, 126) == (8, 126)
    assert demand_range({}, 18) == (1, 18)  # a channel or neural run reads no range


def test_a_boundary_file_is_judged_and_imported_back(tmp_path) -> None:
    data = tmp_path / "data"
    ran = runner.invoke(app, ["run", "--quiet", "--corpus", str(CORPUS), "--method", "channel", "--set",
                              "channel_steps=10", "--data-dir", str(data)])  # fmt: skip
    assert ran.exit_code == 0, ran.output
    out = tmp_path / "boundary.tsv"
    asked = runner.invoke(app, ["review", "boundary", "1", "-n", "5", "-o", str(out), "--data-dir", str(data)])
    assert asked.exit_code == 0 and "5 pair(s) to judge" in asked.output, asked.output
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "lost\tknown\tdecision" and len(lines) == 6 and all(line.endswith("\t") for line in lines[1:])
    lines[1] += "accepted"
    lines[2] += "rejected"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    imported = runner.invoke(app, ["review", "import", "1", str(out), "--data-dir", str(data)])
    assert imported.exit_code == 0 and "imported 2 decisions" in imported.output, imported.output
    with Store(default_path(data)) as store:
        assert sorted(store.judgments(1).values()) == [ACCEPTED, REJECTED]  # the empty lines stay unjudged
    again = runner.invoke(app, ["review", "boundary", "1", "-n", "20", "--data-dir", str(data)])
    assert again.exit_code == 0
    words = {tuple(line.split("\t")[:2]) for line in lines[1:3]}
    assert not words & {
        tuple(line.split("\t")[:2]) for line in again.stdout.splitlines()[1:]
    }  # judged: not asked again
