"""Stages trained side by side (engine/run/side_by_side.py): each in a thread of its own where the run
has the cores, their events passed on from the caller's thread, their results in the jobs' order,
and a probe search's starts reading the same side by side as one after another."""

from __future__ import annotations

import threading
import time

import pytest
import torch

from tui_decipher.engine.channels import compiled
from tui_decipher.engine.corpora.registry import load_corpus
from tui_decipher.engine.run.config import preset
from tui_decipher.engine.run.device import compiled_threads
from tui_decipher.engine.run.events import ChannelStep, Decided
from tui_decipher.engine.run.problem import Problem, RunCancelled
from tui_decipher.engine.run.side_by_side import Job, side_by_side


def _problem(threads: int, events: list | None = None) -> Problem:
    """The demo's problem on the CPU with `threads` cores, its events appended to `events` with the
    thread that reported each."""
    cfg = preset("demo").replace(device="cpu", threads=threads)
    corpus = load_corpus(cfg).corpus
    seen = events if events is not None else []
    return Problem.prepare(corpus, cfg, lambda e: seen.append((threading.get_ident(), e)), threading.Event())


def _steps(name: str, first: int, n: int, result: object, pause: float = 0.0) -> Job:
    """A job that reports `n` channel steps numbered from `first` + 1 and a decision, then returns
    `result` with the cores its kernels were given."""

    def train(own: Problem) -> tuple[object, int, int]:
        for s in range(1, n + 1):
            own.on_event(ChannelStep(0, first + s, 100, float(s), own.elapsed(), "transport", name))
            time.sleep(pause)
        own.on_event(Decided("done", name, own.elapsed()))
        return result, compiled_threads(), threading.get_ident()

    return Job(first, train)


@pytest.fixture
def two_threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_on_one_core_the_jobs_run_in_turn_in_the_callers_thread(two_threads) -> None:
    events: list = []
    problem = _problem(1, events)
    results = side_by_side(problem, [_steps("a", 10, 3, "A"), _steps("b", 13, 2, "B")])
    here = threading.get_ident()
    assert [r[0] for r in results] == ["A", "B"] and {r[2] for r in results} == {here}
    steps = [e.step for _, e in events if isinstance(e, ChannelStep)]
    assert steps == [11, 12, 13, 14, 15]  # as calling the jobs one after another


def test_side_by_side_each_job_has_its_share_and_the_caller_reports_the_runs_progress(two_threads) -> None:
    events: list = []
    problem = _problem(2, events)
    here = threading.get_ident()
    before = dict(problem.phases)
    results = side_by_side(problem, [_steps("a", 10, 20, "A", 0.005), _steps("b", 30, 10, "B", 0.005)])
    assert [r[0] for r in results] == ["A", "B"]
    assert {r[1] for r in results} == {1}  # 2 cores, 2 jobs: one core each for their kernels
    assert len({r[2] for r in results}) == 2 and here not in {r[2] for r in results}
    assert {thread for thread, _ in events} == {here}  # every event passed on from the caller's thread
    steps = [e.step for _, e in events if isinstance(e, ChannelStep)]
    assert steps == sorted(steps) and steps[-1] == 10 + 20 + 10  # the steps both jobs did, from the first's
    assert sorted(e.line for _, e in events if isinstance(e, Decided)) == ["a", "b"]
    assert problem.phases["train"] > before.get("train", 0.0)  # the wait counted as the jobs' phase
    assert compiled_threads() == torch.get_num_threads()  # the caller's own kernels keep every core


def test_a_job_that_fails_stops_the_other_and_its_error_is_raised(two_threads) -> None:
    problem = _problem(2)
    stopped = threading.Event()

    def fails(_own: Problem) -> None:
        raise ValueError("a job's own error")

    def waits(own: Problem) -> None:
        deadline = time.monotonic() + 30
        while not own.cancel.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
        stopped.set()
        raise RunCancelled()

    with pytest.raises(ValueError, match="a job's own error"):
        side_by_side(problem, [Job(0, waits), Job(0, fails)])
    assert stopped.is_set() and not problem.cancel.is_set()  # the run itself was not cancelled


def test_a_cancelled_run_stops_every_job(two_threads) -> None:
    problem = _problem(2)
    ran: list[str] = []

    def waits(own: Problem) -> None:
        problem.cancel.set()  # the user cancels while the jobs train
        while not own.cancel.is_set():
            time.sleep(0.01)
        ran.append("stopped")
        raise RunCancelled()

    with pytest.raises(RunCancelled):
        side_by_side(problem, [Job(0, waits), Job(0, waits)])
    assert ran == ["stopped", "stopped"]


def _toy_problem(n_words: int, seed: int, threads: int) -> Problem:
    """A toy syllabary's problem for the pieces channel on the CPU with `threads` cores."""
    from test_channel import syllabary_corpus

    from tui_decipher.engine.corpora.corpus import Corpus

    lost_words, known_words = syllabary_corpus(n_words, 10, seed=seed)
    corpus = Corpus("toy", "lost", "known", tuple(lost_words), tuple(known_words))
    cfg = preset("demo").replace(device="cpu", channel_kind="pieces", channel_batch=16, threads=threads)
    return Problem.prepare(corpus, cfg, lambda _e: None, threading.Event())


def test_a_probe_searchs_starts_read_the_same_side_by_side_as_in_turn(two_threads, monkeypatch) -> None:
    """The probe search's two starts (auto's transport probe on a syllabary where no map was found)
    trained side by side keep the same start with the same losses and channel, bit for bit, as one
    after the other: each is a function of its seed, and a compiled kernel's gradient adds its lost
    words in one order whatever the threads it is split over (here 2 in turn, 1 side by side)."""
    from tui_decipher.engine.methods.auto.probe_search import searched_channel
    from tui_decipher.engine.methods.auto.schedule import Probe, Search
    from tui_decipher.engine.methods.stages import StageMemo
    from tui_decipher.engine.run import side_by_side as module

    monkeypatch.setattr(compiled, "PAIRS_A_PART", 64)  # small calls split too where a job has 2 cores
    probe, rows = Probe("transport", 20, Search(2, 15)), torch.arange(30).numpy()
    kept = []
    for in_turn in (True, False):
        problem = _toy_problem(40, 3, threads=2)
        with monkeypatch.context() as m:
            if in_turn:
                m.setattr(module, "run_cores", lambda _problem: 1)
            memo = StageMemo("auto")
            memo.bind(None, problem.cfg, problem)
            channel, starts = searched_channel(problem, probe, 0, 5, None, memo, "probe 2 search", rows)
        kept.append((starts, [p.detach().clone() for p in channel.parameters()]))
    (starts_1, params_1), (starts_2, params_2) = kept
    assert starts_1 == starts_2 and len(starts_1) == 2
    assert all(torch.equal(a, b) for a, b in zip(params_1, params_2, strict=True))


def test_a_stopped_run_trains_only_the_starts_it_had_not_completed(two_threads, monkeypatch) -> None:
    """A resumed run reads back the search starts its memo holds and trains the rest."""
    from tui_decipher.engine.methods.auto import probe_search as search
    from tui_decipher.engine.methods.auto.schedule import Probe, Search
    from tui_decipher.engine.methods.stages import StageMemo

    problem = _toy_problem(30, 4, threads=2)
    probe, rows = Probe("transport", 10, Search(2, 8)), torch.arange(20).numpy()
    memo = StageMemo("auto")
    memo.bind(None, problem.cfg, problem)
    _, starts = search.searched_channel(problem, probe, 0, 5, None, memo, "probe 2 search", rows)
    resumed = StageMemo("auto", {"probe 2 search start 1": memo.stages["probe 2 search start 1"]})
    resumed.bind(None, problem.cfg, problem)
    trained: list[str] = []
    real_train = search._train

    def counting(*args, **kwargs):
        trained.append(kwargs["channel"])
        return real_train(*args, **kwargs)

    monkeypatch.setattr(search, "_train", counting)
    _, starts_again = search.searched_channel(problem, probe, 0, 5, None, resumed, "probe 2 search", rows)
    assert trained == ["search start 2"] and starts_again == starts
    assert list(resumed.stages) == ["probe 2 search start 1", "probe 2 search start 2"]


def _auto_read(corpus, cfg, in_turn: bool, monkeypatch) -> tuple[tuple, list[int], list[str]]:
    """An auto run's proposals and decisions, how many jobs each `side_by_side` call ran at once (0:
    in turn) and the stages in the order they were saved; `in_turn`: as on one core."""
    from tui_decipher.engine.methods import run_decipherment, stages
    from tui_decipher.engine.run import side_by_side as module

    parallel: list[int] = []
    saved: list[str] = []
    real, save = module.side_by_side, stages.StageMemo._save

    def saving(memo) -> None:
        saved.extend(name for name in memo.stages if name not in saved)
        save(memo)

    def counting(problem, jobs, *args, **kwargs):
        parallel.append(len(jobs) if module.run_cores(problem) > 1 else 0)
        return real(problem, jobs, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(stages.StageMemo, "_save", saving)
        m.setattr(stages, "side_by_side", counting)
        if in_turn:
            m.setattr(module, "run_cores", lambda _problem: 1)
        result = run_decipherment(corpus, cfg, checkpoint=None)
    return ([(p.lost, p.known, p.score, p.cost) for p in result.proposals], result.decisions), parallel, saved


@pytest.mark.parametrize("kind", ["syllabary", "shared-alphabet"])
def test_auto_reads_the_same_with_its_stages_side_by_side_as_in_turn(kind, tmp_path, two_threads, monkeypatch) -> None:
    """A whole auto run on 2 cores (a syllabary's probe search starts; one alphabet's fit and reverse
    channel side by side) proposes what the same run with its stages in turn proposes, bit for bit,
    and its stages are saved in the same order."""
    from tui_decipher.engine.corpora.corpus import read_cog
    from tui_decipher.engine.corpora.generators import GeneratorSpec, write_generated
    from tui_decipher.engine.run.config import DecipherConfig

    monkeypatch.setattr(compiled, "PAIRS_A_PART", 64)  # kernels split in turn, not side by side
    corpus = read_cog(write_generated(tmp_path / "c.cog", GeneratorSpec(kind, seed=9, lost_words=60)).path)
    cfg = DecipherConfig(method="auto", device="cpu", seed=2, auto_steps=80, threads=2)
    turn, turn_jobs, turn_saved = _auto_read(corpus, cfg, True, monkeypatch)
    side, side_jobs, side_saved = _auto_read(corpus, cfg, False, monkeypatch)
    assert max(turn_jobs) == 0 and max(side_jobs) == 2  # two stages really trained side by side
    assert side == turn and side_saved == turn_saved
    both = {"syllabary": ["probe 2 search start 1", "probe 2 search start 2"], "shared-alphabet": ["fit", "reverse"]}
    assert " ".join(both[kind]) in " ".join(side_saved)  # saved one after the other, in the jobs' order
