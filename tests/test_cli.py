"""`decipher` through typer's CliRunner: errors, outputs, presets, corpus commands."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import torch
from rich.progress import Progress
from typer.testing import CliRunner

from tui_decipher.cli import app
from tui_decipher.cli.app import TimeLeftColumn
from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated

runner = CliRunner()
TINY = ["--preset", "demo", "--set", "embed_dim=16", "--set", "hidden_dim=16", "--set", "n_universal=8"]


def _run(*args: str):
    return runner.invoke(app, list(args))


def test_a_run_into_a_file_logs_progress_lines(tmp_path, monkeypatch):
    """Off a terminal (CliRunner's output is not one) the bars are off, and a plain line says where
    the run is, at most every LOG_EVERY seconds: here every event, with LOG_EVERY = 0."""
    from tui_decipher.cli import reporter as run_command

    monkeypatch.setattr(run_command, "LOG_EVERY", 0.0)
    result = _run("run", "--epochs", "3", "--rounds", "1", *TINY, "--out", str(tmp_path / "r"),
                  "--data-dir", str(tmp_path / "data"))  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if " M-step " in line]
    assert lines[:3] == [f"restart 1 round 1 M-step {n}/3: " + lines[n - 1].split(": ", 1)[1] for n in (1, 2, 3)]
    assert all(line.endswith("s") and "loss " in line for line in lines)
    channel = _run("run", "--method", "channel", "--set", "channel_steps=4", "--out", str(tmp_path / "c"),
                   "--data-dir", str(tmp_path / "data"))  # fmt: skip
    assert channel.exit_code == 0, channel.output
    assert "channel step 4/4: lexicon loss " in channel.output
    quiet = _run("run", "--quiet", "--method", "channel", "--set", "channel_steps=4", "--out", str(tmp_path / "q"),
                 "--data-dir", str(tmp_path / "data"))  # fmt: skip
    assert quiet.exit_code == 0 and "channel step" not in quiet.output
    # --quiet prints the summary only: none of the run's event lines that the plain run printed
    assert "channel done" in channel.output and "channel done" not in quiet.output
    assert "Decipherment run" in quiet.output


def test_help_lists_subcommands():
    result = _run("--help")
    assert result.exit_code == 0
    for name in ("run", "corpus", "presets"):
        assert name in result.output


def test_bad_corpus_file_is_one_line_error_with_file_and_line(tmp_path):
    bad = tmp_path / "bad.cog"
    bad.write_text("aa\tbb\nxy\tzw\nab\tcd\tef\n", encoding="utf-8")
    result = _run("run", "--corpus", str(bad), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1
    assert f"{bad}:3:" in lines[0] and "3 column(s)" in lines[0]
    assert not (tmp_path / "out").exists()


def test_invalid_utf8_names_line(tmp_path):
    bad = tmp_path / "latin1.cog"
    bad.write_bytes("a\tb\nxy\tzw\ncaf\xe9\tzz\n".encode("latin-1"))
    result = _run("run", "--corpus", str(bad))
    assert result.exit_code == 2
    assert f"{bad}:3:" in result.output and "UTF-8" in result.output


def test_unknown_corpus_name_and_bad_setting():
    result = _run("run", "--corpus", "no-such-corpus")
    assert result.exit_code == 2 and "no-such-corpus" in result.output
    result = _run("run", "--set", "flow_decay=3")
    assert result.exit_code == 2 and "flow_decay" in result.output and "0.0..1.0" in result.output
    result = _run("run", "--set", "epochs=ten")
    assert result.exit_code == 2 and "epochs" in result.output


def test_unknown_language_code(tmp_path):
    cog = tmp_path / "two.cog"
    cog.write_text("aa\tbb\nab\tba\nbb\taa\n", encoding="utf-8")
    result = _run("run", "--corpus", str(cog), "--lost", "zz")
    assert result.exit_code == 2 and "'zz'" in result.output and ":1:" in result.output


def test_run_demo_writes_the_three_files(tmp_path):
    out = tmp_path / "run"
    result = _run("run", "--rounds", "2", "--epochs", "3", "--seed", "5", "--out", str(out), "--quiet", *TINY)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["corpus"] == "demo" and summary["preset"] == "demo" and summary["seed"] == 5
    assert summary["lost_language"] == "ves" and summary["known_language"] == "kal"
    assert summary["config"]["embed_dim"] == 16 and summary["config"]["rounds"] == 2
    assert 0.0 <= summary["accuracy"] <= 1.0 and 0.0 <= summary["accuracy_model"] <= 1.0
    assert summary["n_evaluated"] == 200 and len(summary["rounds"]) == 2
    assert summary["status"] == "finished" and summary["seconds"] > 0
    rows = (out / "proposals.tsv").read_text(encoding="utf-8").splitlines()
    assert rows[0].split("\t") == ["lost", "known", "score", "cost", "gold", "alignment", "alignment_p"]
    assert len(rows) - 1 == summary["n_proposals"] > 0
    assert all(r.split("\t")[4] in ("0", "1") for r in rows[1:])
    for r in rows[1:]:  # each pair's reading spells its two words, one probability a segment
        lost, known, *_, alignment, probs = r.split("\t")
        left, right = alignment.split(" / ")
        assert left.replace(" ", "").replace("-", "") == lost and right.replace(" ", "").replace("-", "") == known
        assert len(probs.split()) == len(left.split()) and all(0 <= float(p) <= 1 for p in probs.split())
    char_rows = (out / "char_map.tsv").read_text(encoding="utf-8").splitlines()
    assert char_rows[0].startswith("lost\tknown1\tp1")
    assert len(char_rows) - 1 == 21  # every Old Veshic letter


def test_run_threads_sets_the_cpu_threads_and_summary_records_them(tmp_path):
    """--threads is the config's `threads`: the run computes with that many torch threads and says
    so (a seed repeats exactly only at the same count)."""
    before = torch.get_num_threads()
    threads = 1 if before != 1 else 2  # not the count the process already has
    out = tmp_path / "run"
    try:
        result = _run("run", "--rounds", "1", "--epochs", "2", "--threads", str(threads), "--out", str(out),
                      "--device", "cpu", *TINY)  # fmt: skip
    finally:
        torch.set_num_threads(before)  # the run set the process's count: give the other tests theirs back
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["config"]["threads"] == threads and summary["threads"] == threads
    assert f"cpu, {threads} thread" in result.output
    bad = _run("run", "--threads", "-1", *TINY)
    assert bad.exit_code == 2 and "threads = -1 is out of range (allowed 0..1024)" in bad.output


def test_run_method_channel_deciphers_without_the_neural_model(tmp_path):
    out = tmp_path / "run"
    result = _run("run", "--method", "channel", "--set", "channel_steps=5", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "character channel alone (5 steps" in result.output and "channel done: 5 steps" in result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["config"]["method"] == "channel" and summary["rounds"] == []
    assert summary["n_proposals"] > 0 and 0.0 <= summary["accuracy"] <= 1.0
    assert len((out / "char_map.tsv").read_text(encoding="utf-8").splitlines()) - 1 == 21
    edit = _run("run", "--method", "channel", "--set", "channel_kind=edit", "--set", "channel_steps=5",
                "--out", str(tmp_path / "edit"))  # fmt: skip
    assert edit.exit_code == 0, edit.output
    assert "edit channel alone (5 steps" in edit.output
    edit_summary = json.loads((tmp_path / "edit" / "summary.json").read_text(encoding="utf-8"))
    assert edit_summary["config"]["channel_kind"] == "edit" and 0.0 <= edit_summary["accuracy"] <= 1.0
    bad = _run("run", "--method", "magic", "--out", str(tmp_path / "bad"))
    assert bad.exit_code == 2 and "method" in bad.output and "channel" in bad.output


def test_word_lists_have_no_gold(tmp_path):
    lost = tmp_path / "lost.txt"
    known = tmp_path / "known.txt"
    lost.write_text("abc\nbca\ncab\nbb\n", encoding="utf-8")
    known.write_text("xyz\nyzx\nzxy\nyy\nxx\n", encoding="utf-8")
    out = tmp_path / "run"
    result = _run(
        "run", "--lost-words", str(lost), "--known-words", str(known), "--rounds", "1", "--epochs", "2",
        "--out", str(out), "--quiet", *TINY,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["accuracy"] is None and summary["n_evaluated"] == 0
    header = (out / "proposals.tsv").read_text(encoding="utf-8").splitlines()[0]
    assert header.split("\t") == ["lost", "known", "score", "cost", "alignment", "alignment_p"]


def test_an_auto_run_writes_the_pairs_past_its_d_beside_its_proposals(tmp_path, single_thread):
    path = tmp_path / "shared.cog"
    write_generated(path, GeneratorSpec(kind="shared-alphabet", seed=3, lost_words=80, cognate_share=0.7))
    out = tmp_path / "run"
    # 100 steps: at 40 the probe and its cross channel are too rough to tell D from every lost word.
    result = _run("run", "--corpus", str(path), "--set", "auto_steps=100", "--out", str(out))
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    beyond = (out / "beyond_d.tsv").read_text(encoding="utf-8").splitlines()
    proposals = (out / "proposals.tsv").read_text(encoding="utf-8").splitlines()
    assert beyond[0] == proposals[0] and len(beyond) - 1 == summary["n_beyond"] > 0
    assert summary["n_proposals"] == len(proposals) - 1 == summary["proposal_scores"]["n_proposals"]
    assert not {line.split("\t")[0] for line in beyond[1:]} & {line.split("\t")[0] for line in proposals[1:]}
    assert f"and {summary['n_beyond']} more past D" in " ".join(result.output.split())
    # A run written into the folder after it, without a D range, leaves no stale pairs past D.
    again = _run("run", "--corpus", str(path), "--method", "channel", "--set", "channel_steps=5", "--out", str(out))
    assert again.exit_code == 0, again.output
    assert not (out / "beyond_d.tsv").exists()


def test_presets_list_lists_them_as_the_bare_command_does():
    bare, listed = _run("presets"), _run("presets", "list")
    assert bare.exit_code == 0 and listed.exit_code == 0, listed.output
    assert listed.output == bare.output and "paper-linear-b" in listed.output
    unknown = _run("presets", "lsit")
    assert unknown.exit_code != 0 and "unknown preset 'lsit'" in unknown.output


def test_presets_toml_round_trips_through_config(tmp_path):
    result = _run("presets", "ugaritic")
    assert result.exit_code == 0
    data = tomllib.loads(result.output)
    assert data["preset"] == "paper-ugaritic" and data["flow"]["capacity"] == 3 and data["flow"]["flow_decay"] == 0.25
    assert data["method"] == "neural"
    assert set(data) == {"preset", "method", "auto_steps", "auto_demand", "auto_read_again", "corpus", "flow", "neural",
                         "channel", "run"}  # fmt: skip
    data["corpus"]["corpus"] = "demo"
    data["neural"].update(rounds=1, epochs=2, first_epochs=2, embed_dim=16, hidden_dim=16, n_universal=8)
    lines = [f"{k} = {json.dumps(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for section, table in ((k, v) for k, v in data.items() if isinstance(v, dict)):
        lines += [f"[{section}]"] + [f"{k} = {json.dumps(v)}" for k, v in table.items()]
    cfg_file = tmp_path / "my.toml"
    cfg_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    result = _run("run", "--config", str(cfg_file), "--out", str(out), "--quiet", "--lost", "ves", "--known", "kal")
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["preset"] == "paper-ugaritic" and summary["config"]["capacity"] == 3
    assert summary["config"]["epochs"] == 2 and summary["corpus"] == "demo"


def test_corpus_show_and_list():
    result = _run("corpus", "show", "demo")
    assert result.exit_code == 0
    assert "lost words: 240" in result.output and "known words: 360" in result.output
    result = _run("corpus", "list")
    assert result.exit_code == 0 and "ugaritic-small" in result.output and "demo" in result.output


def test_registry_finds_shared_corpora(shared_corpora):
    result = _run("corpus", "show", "ugaritic-small")
    assert result.exit_code == 0, result.output
    assert "lost words: 735" in result.output and "known words: 4103" in result.output
    result = _run("corpus", "show", "ugaritic-noiseless")
    assert "lost words: 2182" in result.output and "known words: 2767" in result.output


def test_no_engine_module_imports_a_ui_library():
    """Every module under tui_decipher/engine, imported in a fresh process: no Textual, Rich or Typer."""
    code = (
        "import pkgutil, importlib, sys, tui_decipher.engine as e\n"
        "names = [m.name for m in pkgutil.walk_packages(e.__path__, 'tui_decipher.engine.')]\n"
        "[importlib.import_module(n) for n in names]\n"
        "print(len(names), sorted(m for m in ('textual', 'rich', 'typer') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    count, loaded = out.stdout.split(" ", 1)
    assert int(count) >= 20 and loaded.strip() == "[]"


@pytest.mark.parametrize("module", ["tui_decipher.engine.methods", "tui_decipher.session.run_session",
                                    "tui_decipher.cli", "tui_decipher.store"])  # fmt: skip
def test_engine_and_cli_never_import_textual(module):
    code = f"import sys, {module}; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _loaded_after(args: list[str] | None, modules: tuple[str, ...], data_dir: Path | None = None) -> list[str]:
    """Which of `modules` a fresh process has imported after `import tui_decipher.cli` and, where
    `args` are given, `decipher ARGS` (with `data_dir` as its data dir)."""
    code = "import sys, tui_decipher.cli\n"
    if args is not None:
        env = {"DECIPHER_DATA_DIR": str(data_dir)} if data_dir else {}
        code += (
            "from typer.testing import CliRunner\n"
            f"result = CliRunner().invoke(tui_decipher.cli.app, {args!r}, env={env!r})\n"
            "assert result.exit_code == 0, result.output\n"
        )
    code += f"print(','.join(m for m in {modules!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return [m for m in out.stdout.strip().split(",") if m]


@pytest.mark.parametrize(
    ("args", "imports_bench"),
    [(None, False), (["run", "--help"], False), (["presets"], False), (["bench", "--help"], True)],
)
def test_only_the_bench_command_imports_the_bench(args, imports_bench):
    # `decipher` imports the bench package in its `bench` command alone (its --help lists the settings).
    assert bool(_loaded_after(args, ("tui_decipher.bench",))) == imports_bench


_LIGHT_COMMANDS = [None, ["--help"], ["run", "--help"], ["runs", "list"], ["corpus", "list"], ["presets"]]


@pytest.mark.parametrize("args", [*_LIGHT_COMMANDS, ["review", "--help"]])
def test_commands_that_run_nothing_never_import_torch(args, tmp_path):
    # Importing torch (with OR-Tools and numba) took 2.5 of `decipher --help`'s 3 seconds: only the
    # commands that run, score or read a checkpoint import the engine's methods.
    assert _loaded_after(args, ("torch", "ortools", "numba", "scipy"), tmp_path) == []


def test_run_help_names_every_method_with_its_own_summary():
    from tui_decipher.engine.methods import METHODS
    from tui_decipher.engine.run.method_summaries import SUMMARIES

    # The summaries `decipher run --help` reads without the methods are the methods' own, in order.
    assert list(SUMMARIES) == list(METHODS)
    assert all(METHODS[name].summary == summary for name, summary in SUMMARIES.items())
    result = _run("run", "--help")
    assert result.exit_code == 0 and all(name in result.output for name in METHODS)


def test_tui_commands_have_help_with_data_dir_and_corpus():
    from tui_decipher.cli import tui_app_cli

    for result in (runner.invoke(tui_app_cli, ["--help"]), _run("tui", "--help")):
        assert result.exit_code == 0
        assert "--data-dir" in result.output and "--corpus" in result.output


@pytest.mark.parametrize("command", [["run", "--epochs", "1", "--rounds", "1"], ["tui"]])
def test_a_corrupted_run_database_is_one_line_error_and_left_untouched(tmp_path, command):
    data = tmp_path / "data"
    data.mkdir()
    db = data / "decipher.sqlite3"
    db.write_bytes(b"this is not a database, just some bytes\n" * 50)
    before = db.read_bytes()
    result = _run(*command, "--data-dir", str(data))
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "not an SQLite database" in lines[0] and str(db) in lines[0].replace("\n", "")
    assert db.read_bytes() == before
    assert not (data / "runs").exists()


def test_profile_prints_where_the_time_went_by_phase(tmp_path):
    out = tmp_path / "run"
    result = _run("run", "--method", "channel", "--set", "channel_steps=10", "--seed", "2", "--out", str(out),
                  "--quiet", "--profile")  # fmt: skip
    assert result.exit_code == 0, result.output
    text = result.output
    assert "Where the time went" in text and "training: channel steps" in text and "min-cost flows" in text
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    phases = summary["phase_seconds"]
    assert {"train", "flow", "align"} <= set(phases)
    from tui_decipher.session.run_views import time_profile

    rows = time_profile(phases, summary["seconds"])
    assert [r[0] for r in rows[:-1]] == sorted(phases, key=lambda p: -phases[p]) and rows[-1][0] == "other"
    assert sum(r[1] for r in rows) == pytest.approx(summary["seconds"])
    peak = summary["peak_memory"]  # the process's peak (this test process's), and where it was reached
    assert peak["bytes"] > 50 * 2**20 and (peak["phase"] is None or peak["phase"] in phases)
    assert "Peak memory" in text and " GB, reached " in text


def test_the_peak_memory_goes_to_the_innermost_phase_that_raised_it() -> None:
    from collections import defaultdict

    from tui_decipher.engine.run.memory import PeakMemory
    from tui_decipher.engine.run.problem import Timer
    from tui_decipher.session.run_views import peak_line

    readings = iter([100, 100, 300, 300, 300, 500, 500, 500])
    peak = PeakMemory(read=lambda: next(readings))  # reads 100 at the start
    phases: dict[str, float] = defaultdict(float)
    with Timer(phases, "train", peak):
        with Timer(phases, "score", peak):
            pass  # ends reading 100: no rise
        with Timer(phases, "flow", peak):
            pass  # ends reading 300: the peak rose inside "flow"
        # "train" ends reading 300: the same peak, so "flow" keeps it
    assert (peak.bytes, peak.phase) == (300, "flow")
    with Timer(phases, "eval", peak):
        pass  # ends reading 300
    assert peak.phase == "flow"
    with Timer(phases, "align", peak):
        pass  # ends reading 500
    assert (peak.bytes, peak.phase) == (500, "align")
    assert peak_line(3 * 2**30, "score") == ("Peak memory 3.00 GB, reached during 'score' (scoring every (lost, "
                                             "known) pair)")  # fmt: skip
    assert "before the run's first phase" in peak_line(2**30, None)
    unknown = PeakMemory(read=lambda: None)  # an OS that does not say
    with Timer(phases, "train", unknown):
        pass
    assert unknown.bytes is None and unknown.phase is None


def test_a_phase_timed_inside_another_counts_in_one_phase_only() -> None:
    """A check scored during training counts as "score", not also as "train": the phases then add
    up to the run's time. Another phases dict (another run in the thread) is left alone."""
    import time
    from collections import defaultdict

    from tui_decipher.engine.run.problem import Timer

    phases: dict[str, float] = defaultdict(float)
    other: dict[str, float] = defaultdict(float)
    t0 = time.perf_counter()
    with Timer(phases, "train"):
        time.sleep(0.02)
        with Timer(phases, "score"):
            time.sleep(0.05)
            with Timer(other, "flow"):
                time.sleep(0.01)
    wall = time.perf_counter() - t0
    assert phases["score"] >= 0.06 and other["flow"] >= 0.01
    assert 0.02 <= phases["train"] < phases["score"]  # the 60 ms inside "score" left out of "train"
    assert phases["train"] + phases["score"] == pytest.approx(wall, abs=0.005)


def test_the_time_left_of_a_step_budget_reads_as_at_most() -> None:
    """A progress task whose steps are a budget the run may stop short of (`at_most`, auto's) shows
    its time left as "<=" that; another shows it plain."""
    now = [0.0]
    progress = Progress(TimeLeftColumn(), auto_refresh=False, get_time=lambda: now[0])
    budget = progress.add_task("channel", total=100, at_most=True)
    plain = progress.add_task("channel", total=100)
    for task in (budget, plain):
        progress.start_task(task)
    for step in (10, 20):
        now[0] += 1.0
        for task in (budget, plain):
            progress.update(task, completed=step)
    column = TimeLeftColumn()
    shown = {task.id: column.render(task).plain for task in progress.tasks}
    assert shown[budget].startswith("<=") and shown[budget][2:] == shown[plain]
    assert shown[plain].count(":") == 2  # h:mm:ss, Rich's own
    # Done, it is no budget any more: "0:00:00" as Rich says it.
    progress.update(budget, completed=100)
    assert not column.render(progress.tasks[budget]).plain.startswith("<=")
