"""Checkpoints and `decipher run --resume`: a run killed with SIGKILL mid-run, resumed, ends exactly
where an uninterrupted run with the same seed ends."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tui_decipher.cli import app
from tui_decipher.engine.run.checkpoint import CHECKPOINT_NAME, CheckpointError, load_checkpoint
from tui_decipher.store import INTERRUPTED, Store, default_path

RUN = ["run", "--quiet", "--preset", "demo", "--epochs", "30", "--rounds", "3", "--set", "embed_dim=16",
       "--set", "hidden_dim=16", "--set", "n_universal=8"]  # fmt: skip


def _env(data: Path) -> dict[str, str]:
    # One intra-op thread in both processes: float reductions then agree bit for bit across processes.
    return {**os.environ, "DECIPHER_DATA_DIR": str(data), "OMP_NUM_THREADS": "1"}


def _cli(*args: str, data: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui_decipher.cli", *args], env=_env(data),
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def _start(*args: str, data: Path) -> subprocess.Popen:
    """`decipher ARGS` started in a process of its own (stderr kept for a failure's message)."""
    return subprocess.Popen([sys.executable, "-m", "tui_decipher.cli", *args], env=_env(data),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip


def _kill_once_saved(proc: subprocess.Popen, out: Path) -> None:
    """SIGKILL the run once its first checkpoint is in `out`."""
    deadline = time.monotonic() + 240
    while not (out / CHECKPOINT_NAME).exists():
        assert proc.poll() is None, "the run ended before saving a checkpoint"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL


@pytest.mark.slow
def test_sigkill_then_resume_matches_an_uninterrupted_run(tmp_path):
    data = tmp_path / "data"
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    done = _start(*RUN, "--out", str(whole), data=data)  # beside the killed run: one thread each
    _kill_once_saved(_start(*RUN, "--out", str(killed), data=data), killed)
    assert done.wait(timeout=300) == 0, done.stderr.read() if done.stderr else ""
    saved = load_checkpoint(killed)
    assert saved.round < 3  # really interrupted before the end
    assert not (killed / "proposals.tsv").exists()
    with Store(default_path(data)) as store:
        interrupted = [r for r in store.runs() if r.run_dir == str(killed.resolve())]
        assert [r.status for r in interrupted] == [INTERRUPTED]

    resumed = _cli("run", "--quiet", "--resume", str(killed), data=data)
    assert resumed.returncode == 0, resumed.stderr
    assert f"round {saved.round}" in resumed.stderr
    assert (killed / "proposals.tsv").read_text() == (whole / "proposals.tsv").read_text()
    assert (killed / "char_map.tsv").read_text() == (whole / "char_map.tsv").read_text()
    a = json.loads((whole / "summary.json").read_text())
    b = json.loads((killed / "summary.json").read_text())
    assert (a["accuracy"], a["accuracy_model"], a["objective"]) == (b["accuracy"], b["accuracy_model"], b["objective"])
    assert [r["loss"] for r in a["rounds"]] == [r["loss"] for r in b["rounds"]]
    with Store(default_path(data)) as store:
        row = store.run(interrupted[0].id)  # the same stored run, now finished
        assert row.status == "finished" and row.accuracy == a["accuracy"]
        assert [r.round for r in store.rounds(row.id)] == [1, 2, 3]


def test_resume_errors_are_one_line(tmp_path, data_dir):
    runner = CliRunner()
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["run", "--resume", str(empty)])
    assert result.exit_code == 2 and "no checkpoint" in result.output
    (empty / CHECKPOINT_NAME).write_bytes(b"garbage" * 10)
    result = runner.invoke(app, ["run", "--resume", str(empty)])
    assert result.exit_code == 2 and "not a readable checkpoint" in result.output
    result = runner.invoke(app, ["run", "--resume", "42"])
    assert result.exit_code == 2 and "no run #42" in result.output
    result = runner.invoke(app, ["run", "--resume", str(empty), "--epochs", "5"])
    assert result.exit_code == 2 and "takes its settings from the checkpoint" in result.output
    with pytest.raises(CheckpointError):
        load_checkpoint(tmp_path / "nowhere")


def test_resume_from_every_round_and_restart_reaches_the_same_result(tmp_path, single_thread):
    import shutil

    from tui_decipher.engine.corpora.registry import load_corpus
    from tui_decipher.engine.methods import run_decipherment
    from tui_decipher.engine.run.config import build_config
    from tui_decipher.engine.run.events import RoundEnd

    cfg, _ = build_config("demo", None, {"epochs": 6, "rounds": 2, "restarts": 2, "embed_dim": 16,
                                         "hidden_dim": 16, "n_universal": 8})  # fmt: skip
    corpus = load_corpus(cfg).corpus
    copies: list[Path] = []

    def keep_copy(event):
        if isinstance(event, RoundEnd):
            copies.append(tmp_path / f"r{event.restart}-{event.round}.pt")
            shutil.copy(tmp_path / "ck.pt", copies[-1])

    whole = run_decipherment(corpus, cfg, keep_copy, checkpoint=tmp_path / "ck.pt")

    def outcome(r):
        return ([(p.lost, p.known, p.score) for p in r.proposals], r.accuracy, r.restart, r.restart_objectives)

    assert len(copies) == 4
    for copy in copies[:-1]:
        assert outcome(run_decipherment(corpus, cfg, resume=load_checkpoint(copy))) == outcome(whole), copy.name
    with pytest.raises(CheckpointError, match=r"other settings.*seed"):
        run_decipherment(corpus, cfg.replace(seed=cfg.seed + 1), resume=load_checkpoint(copies[0]))


@pytest.mark.slow
def test_ctrl_c_cancels_keeps_the_checkpoint_and_exits_130(tmp_path):
    data, out = tmp_path / "data", tmp_path / "run"
    # The child gets SIGINT's default action back: a test run started in the background by a
    # non-interactive shell inherits SIGINT ignored, and Python would then never see the Ctrl-C.
    proc = subprocess.Popen([sys.executable, "-m", "tui_decipher.cli", *RUN, "--epochs", "60", "--out", str(out)],
                            env=_env(data), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    deadline = time.monotonic() + 240
    while not (out / CHECKPOINT_NAME).exists():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "cancelling" in stderr
    assert load_checkpoint(out).round >= 1
    assert (out / "proposals.tsv").exists()  # the completed rounds' results were written
    with Store(default_path(data)) as store:
        assert [r.status for r in store.runs()] == ["cancelled"]
    resumed = _cli("run", "--quiet", "--resume", str(out), data=data)
    assert resumed.returncode == 0, resumed.stderr
    with Store(default_path(data)) as store:
        assert [r.status for r in store.runs()] == ["finished"]


def test_resume_records_a_round_that_was_checkpointed_but_not_stored(tmp_path, single_thread):
    """Killed between checkpointing round 1 and recording it: resuming must not leave round 1 out
    of the store (stop 11's CI caught exactly that race in the SIGKILL test above)."""
    import threading

    from tui_decipher.engine.corpora.registry import load_corpus
    from tui_decipher.engine.methods import run_decipherment
    from tui_decipher.engine.run.config import build_config
    from tui_decipher.engine.run.events import RoundEnd
    from tui_decipher.store import RunRecorder

    cfg, _ = build_config("demo", None, {"epochs": 4, "rounds": 3, "embed_dim": 16, "hidden_dim": 16,
                                         "n_universal": 8})  # fmt: skip
    corpus = load_corpus(cfg).corpus
    db = tmp_path / "runs.sqlite3"
    with Store(db) as store:
        run_id = store.create_run(corpus, "demo.cog", "demo", cfg.to_dict(), cfg.rounds, str(tmp_path))
    recorder = RunRecorder(db, run_id)
    cancel = threading.Event()
    seen: list[RoundEnd] = []

    def killed_before_recording(event):
        if isinstance(event, RoundEnd):
            seen.append(event)
            cancel.set()  # stop in round 2; round 1 is checkpointed but never reaches the recorder
            return
        recorder(event)

    run_decipherment(corpus, cfg, killed_before_recording, cancel, checkpoint=tmp_path / "ck.pt")
    recorder.close()
    checkpoint = load_checkpoint(tmp_path / "ck.pt")
    assert checkpoint.round == 1
    with Store(db) as store:
        assert store.rounds(run_id) == []

    resumed = RunRecorder(db, run_id)
    resumed.catch_up(checkpoint)
    resumed.catch_up(checkpoint)  # idempotent
    resumed.close()
    with Store(db) as store:
        rows = store.rounds(run_id)
    assert [(r.restart, r.round) for r in rows] == [(0, 1)]
    assert (rows[0].demand, rows[0].cost_kind, rows[0].flow) == (seen[0].demand, seen[0].cost_kind, seen[0].flow)
    assert rows[0].accuracy == seen[0].accuracy and rows[0].loss == seen[0].loss


# --- auto resumes from its last completed stage ------------------------------------------------

AUTO_RUN = ["run", "--quiet", "--set", "auto_steps=150", "--seed", "4"]


@pytest.mark.slow
def test_auto_killed_with_sigkill_resumes_to_what_the_uninterrupted_run_reads(tmp_path):
    """The default method, as `decipher run` runs it: killed (SIGKILL) once its first stage is
    saved, `--resume` reads back the saved stages and ends exactly where the whole run ends."""
    data = tmp_path / "data"
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    done = _start(*AUTO_RUN, "--out", str(whole), data=data)  # beside the killed run: one thread each
    _kill_once_saved(_start(*AUTO_RUN, "--out", str(killed), data=data), killed)
    assert done.wait(timeout=300) == 0, done.stderr.read() if done.stderr else ""
    saved = load_checkpoint(killed)
    assert saved.state["partial"] and "fit" not in saved.state["stage_names"]  # really interrupted before the end
    resumed = _cli("run", "--quiet", "--resume", str(killed), data=data)
    assert resumed.returncode == 0, resumed.stderr
    assert (killed / "proposals.tsv").read_text() == (whole / "proposals.tsv").read_text()
    a, b = (json.loads((f / "summary.json").read_text()) for f in (whole, killed))
    for key in ("accuracy", "proposal_scores", "decisions"):
        assert a[key] == b[key], key
    assert not load_checkpoint(killed).state.get("partial")  # the finished run's checkpoint replaced it
    with Store(default_path(data)) as store:
        assert [r.status for r in store.runs()] == ["finished", "finished"]


@pytest.mark.parametrize("kind", ["syllabary", "shared-alphabet"])
def test_auto_resumed_after_any_stage_reaches_the_uninterrupted_result(kind, tmp_path, monkeypatch, single_thread):
    """Cancelled right after each of its stages is saved (a syllabary's syllable search, each
    channel its probes train and the probe; one alphabet's probe and its fit, before its reverse
    channel), auto resumed from the checkpoint reaches the proposals of the run never stopped."""
    import threading

    from tui_decipher.engine.corpora.corpus import read_cog
    from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
    from tui_decipher.engine.methods import run_decipherment, stages
    from tui_decipher.engine.run.config import DecipherConfig

    corpus = read_cog(write_generated(tmp_path / "c.cog", GeneratorSpec(kind, seed=9, lost_words=60)).path)
    cfg = DecipherConfig(method="auto", device="cpu", seed=2, auto_steps=80)

    def outcome(result):
        return [(p.lost, p.known, p.score, p.cost) for p in result.proposals], result.decisions

    whole = run_decipherment(corpus, cfg, checkpoint=tmp_path / "whole.pt")
    assert not load_checkpoint(tmp_path / "whole.pt").state.get("partial")  # a finished run's checkpoint
    save = stages.StageMemo._save
    seen: list[str] = []
    for stop_after in range(1, 12):
        cancel = threading.Event()

        def saving(memo, stop_after=stop_after, cancel=cancel):
            save(memo)
            if len(memo.stages) == stop_after:
                cancel.set()

        monkeypatch.setattr(stages.StageMemo, "_save", saving)
        path = tmp_path / f"stop-{stop_after}.pt"
        first = run_decipherment(corpus, cfg, cancel=cancel, checkpoint=path)
        monkeypatch.setattr(stages.StageMemo, "_save", save)
        if first.status == "finished":  # stopped after its last stage: nothing left that a stop interrupts
            break
        saved = load_checkpoint(path)
        seen.append(saved.state["stage_names"][-1])
        resumed = run_decipherment(corpus, cfg, checkpoint=path, resume=saved)
        assert resumed.status == "finished"
        assert outcome(resumed) == outcome(whole), f"resumed after {seen[-1]}"
    for top in {"syllabary": ["syllables", "probe 1", "probe 2 search start 1", "probe"],
                "shared-alphabet": ["probe", "fit"]}[kind]:  # fmt: skip
        assert top in seen, seen


def test_auto_killed_while_its_fit_trains_resumes_from_the_saved_step(tmp_path, single_thread):
    """Inside a stage that trains a channel, its state (parameters, optimiser, random stream, the
    plan's warm start) is saved every SAVE_EVERY steps: stopped there, the resumed run continues
    from that step, not from the stage's start, and ends with the uninterrupted run's proposals."""
    import threading

    from tui_decipher.engine.channels.trainer import SAVE_EVERY
    from tui_decipher.engine.corpora.corpus import read_cog
    from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
    from tui_decipher.engine.methods import run_decipherment
    from tui_decipher.engine.methods.auto import STAGE_CLASSES
    from tui_decipher.engine.methods.stages import unpacked
    from tui_decipher.engine.run.config import DecipherConfig
    from tui_decipher.engine.run.events import ChannelStep, Decided

    corpus = read_cog(write_generated(tmp_path / "c.cog", GeneratorSpec("shared-alphabet", seed=9, lost_words=60)).path)
    cfg = DecipherConfig(method="auto", device="cpu", seed=2, auto_steps=600)

    def fit_steps(events: list) -> list[int]:  # the fit's steps: its channel's, after D is decided
        after = next(k for k, e in enumerate(events) if isinstance(e, Decided) and e.what == "demand")
        return [e.step for e in events[after:] if isinstance(e, ChannelStep) and e.label == "transport"]

    seen: list = []
    whole = run_decipherment(corpus, cfg, seen.append)
    cancel = threading.Event()
    path = tmp_path / "ck.pt"

    def stop_in_the_fit(event):  # a few steps after the fit's first save
        if isinstance(event, ChannelStep) and event.label == "transport" and path.exists():
            training = load_checkpoint(path).state.get("training")
            if training and "fit" in unpacked(training, STAGE_CLASSES):
                cancel.set()

    first = run_decipherment(corpus, cfg, stop_in_the_fit, cancel, checkpoint=path)
    assert first.status == "cancelled"
    saved = load_checkpoint(path)
    state = unpacked(saved.state["training"], STAGE_CLASSES)["fit"]
    assert state.step % SAVE_EVERY == 0 and state.step > 0 and "fit" not in saved.state["stage_names"]
    again: list = []
    resumed = run_decipherment(corpus, cfg, again.append, checkpoint=path, resume=saved)
    assert resumed.status == "finished"
    assert [(p.lost, p.known, p.score, p.cost) for p in resumed.proposals] == [
        (p.lost, p.known, p.score, p.cost) for p in whole.proposals
    ]
    assert resumed.decisions == whole.decisions
    assert fit_steps(again) == fit_steps(seen)[state.step :]  # from the saved step on, none trained twice


@pytest.fixture(scope="module")
def uninterrupted_channel_run():
    """The channel method on the demo (two channels of 120 steps), run once, uninterrupted: what
    each stopped and resumed run below must reach."""
    import torch

    from tui_decipher.engine.corpora.registry import load_corpus
    from tui_decipher.engine.methods import run_decipherment
    from tui_decipher.engine.run.config import preset

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        cfg = preset("demo").replace(method="channel", channel_steps=120, channel_restarts=2, device="cpu")
        corpus = load_corpus(cfg).corpus
        yield cfg, corpus, run_decipherment(corpus, cfg)
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize("by_time", [False, True], ids=["every 50 steps", "every 30 seconds"])
def test_the_channel_method_resumes_from_its_saved_training_state(
    by_time, uninterrupted_channel_run, tmp_path, monkeypatch, single_thread
):
    """The channel method saves each trained channel, and its training every SAVE_EVERY steps (or
    sooner, every SAVE_SECONDS, at a step where the plan is drawn afresh: here every step allowed):
    stopped mid-training (its second channel of two), it resumes to the uninterrupted proposals."""
    import threading

    from tui_decipher.engine.channels import trainer

    if by_time:
        monkeypatch.setattr(trainer, "SAVE_SECONDS", 0.0)

    from tui_decipher.engine.methods import run_decipherment
    from tui_decipher.engine.methods.auto import STAGE_CLASSES
    from tui_decipher.engine.methods.stages import unpacked
    from tui_decipher.engine.run.events import ChannelStep

    cfg, corpus, whole = uninterrupted_channel_run
    path, cancel = tmp_path / "ck.pt", threading.Event()

    def stop_in_the_second_channel(event):
        if isinstance(event, ChannelStep) and event.step > 120 + (7 if by_time else 50) and path.exists():
            cancel.set()

    first = run_decipherment(corpus, cfg, stop_in_the_second_channel, cancel, checkpoint=path)
    assert first.status == "cancelled"
    saved = load_checkpoint(path)
    assert saved.method == "channel" and saved.state["stage_names"] == ["restart 0 channel 0"]
    assert unpacked(saved.state["training"], STAGE_CLASSES)["restart 0 channel 1"].step == (5 if by_time else 50)
    resumed = run_decipherment(corpus, cfg, checkpoint=path, resume=saved)
    assert [(p.lost, p.known, p.score, p.cost) for p in resumed.proposals] == [
        (p.lost, p.known, p.score, p.cost) for p in whole.proposals
    ]
    assert not load_checkpoint(path).state.get("partial") and "channel" in load_checkpoint(path).state


def test_auto_stopped_during_the_syllable_search_keeps_the_starts_it_found(tmp_path, single_thread):
    """Each finished start of the syllable search is saved: stopped after the first, the resumed
    run searches only the starts still to come and reaches the uninterrupted run's proposals."""
    import threading

    from tui_decipher.engine.corpora.corpus import read_cog
    from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
    from tui_decipher.engine.methods import run_decipherment
    from tui_decipher.engine.methods.auto import STAGE_CLASSES
    from tui_decipher.engine.methods.stages import unpacked
    from tui_decipher.engine.run.config import DecipherConfig
    from tui_decipher.engine.run.events import Decided

    corpus = read_cog(write_generated(tmp_path / "c.cog", GeneratorSpec("syllabary", seed=9, lost_words=60)).path)
    cfg = DecipherConfig(method="auto", device="cpu", seed=2, auto_steps=300, threads=1)
    whole = run_decipherment(corpus, cfg)
    path, cancel = tmp_path / "ck.pt", threading.Event()

    def stop_after_a_start(_event):
        if path.exists() and "syllables" in unpacked(load_checkpoint(path).state["training"], STAGE_CLASSES):
            cancel.set()

    first = run_decipherment(corpus, cfg, stop_after_a_start, cancel, checkpoint=path)
    assert first.status == "cancelled"
    saved = load_checkpoint(path)
    found = unpacked(saved.state["training"], STAGE_CLASSES)["syllables"]
    assert saved.state["stage_names"] == [] and 1 <= len(found) < len(whole.decisions["syllables"]["starts"])
    events: list = []
    resumed = run_decipherment(corpus, cfg, events.append, checkpoint=path, resume=saved)
    assert [(p.lost, p.known, p.score, p.cost) for p in resumed.proposals] == [
        (p.lost, p.known, p.score, p.cost) for p in whole.proposals
    ]
    assert resumed.decisions == whole.decisions
    assert any(isinstance(e, Decided) and e.what == "syllables" for e in events)


def test_a_partial_auto_checkpoint_written_before_auto_became_a_package_resumes(tmp_path, single_thread):
    """tests/data/partial_auto_4eb2c7f.pt: auto stopped after its probe by the code of commit
    4eb2c7f (tui_decipher/engine/demand.py, one methods/auto.py module; /tmp script: the corpus
    below, seed 2, auto_steps 120, cancelled at the `demand` decision). Its stages name classes
    where they lived then; resumed today, the probe is read back, not trained again."""
    import shutil

    from tui_decipher.engine.corpora.corpus import read_cog
    from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
    from tui_decipher.engine.methods import run_decipherment
    from tui_decipher.engine.methods.auto import STAGE_CLASSES
    from tui_decipher.engine.methods.stages import unpacked
    from tui_decipher.engine.run.config import DecipherConfig
    from tui_decipher.engine.run.events import ChannelStep

    path = tmp_path / "ck.pt"
    shutil.copy(Path(__file__).parent / "data" / "partial_auto_4eb2c7f.pt", path)
    saved = load_checkpoint(path)
    stages = unpacked(saved.state["stages"], STAGE_CLASSES)
    assert saved.state["stage_names"] == ["probe 1", "probe"] and type(stages["probe"]).__name__ == "_Probed"
    corpus = read_cog(write_generated(tmp_path / "c.cog", GeneratorSpec("shared-alphabet", seed=9, lost_words=60)).path)
    cfg = DecipherConfig(method="auto", device="cpu", seed=2, auto_steps=120, auto_read_again=False)  # as saved then
    assert saved.settings() == cfg
    steps: list[ChannelStep] = []
    resumed = run_decipherment(corpus, cfg, lambda e: steps.append(e) if isinstance(e, ChannelStep) else None,
                               checkpoint=path, resume=saved)  # fmt: skip
    assert resumed.status == "finished" and resumed.proposals
    # D is the old probe's: its held-out evidence, read back (it had no null words then).
    assert resumed.decisions["demand"]["wins"] == stages["probe"].estimate.held.wins
    assert resumed.decisions["demand"]["n_null"] == 0
    # The probe was not trained again: every step reported comes after its steps.
    assert steps and min(e.step for e in steps) > stages["probe"].steps
