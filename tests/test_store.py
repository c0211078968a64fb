"""Tests for the SQLite run store (tui_decipher.store): no training, every input built by hand."""

from __future__ import annotations

import math
import os
import random
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui_decipher import store as store_module
from tui_decipher.engine.corpora.corpus import Corpus, read_cog
from tui_decipher.engine.corpora.formats.word_lists import read_word_lists
from tui_decipher.engine.methods import DecipherResult, Proposal
from tui_decipher.engine.run.config import DecipherConfig
from tui_decipher.engine.run.events import ChannelStep, EpochEnd, RoundEnd, RunFinished, RunStarted
from tui_decipher.exports.cog import export_cog
from tui_decipher.exports.tsv import export_tsv
from tui_decipher.store import (
    ACCEPTED,
    CANCELLED,
    FAILED,
    FINISHED,
    INTERRUPTED,
    OPEN,
    REJECTED,
    RUNNING,
    SCHEMA_VERSION,
    UNKNOWN_VALUE,
    UNSURE,
    ProposalRow,
    RoundRow,
    RunRecorder,
    Store,
    StoreError,
    default_path,
    round_dicts,
)

REPO_ROOT = Path(__file__).resolve().parents[1]

# Lost vocabulary (first appearance): 0 abc, 1 bcd, 2 cde, 3 dé.
# Known vocabulary (first appearance): 0 abd, 1 abe, 2 bce, 3 zzz, 4 de.
COG = "xl\tyk\nabc\tabd|abe\nbcd\tbce\ncde\t_\n_\tzzz\ndé\tde\n"
TABLES = (
    "runs", "rounds", "epochs", "proposals", "decisions", "char_map", "channel_steps", "pinned_signs", "beyond_pairs",
)  # fmt: skip


# ------------------------------------------------------------------------------- helpers


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    path = tmp_path / "tiny.cog"
    path.write_text(COG, encoding="utf-8")
    return read_cog(path)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return default_path(tmp_path / "data")


@pytest.fixture
def store(db: Path):
    with Store(db) as s:
        yield s


def config() -> DecipherConfig:
    return DecipherConfig(corpus="tiny", rounds=2, epochs=3, embed_dim=8, hidden_dim=8)


def new_run(store: Store, corpus: Corpus, **kwargs) -> int:
    args = {"corpus_path": "tiny.cog", "preset": "demo", "config": config().to_dict(), "rounds_planned": 2}
    args.update(kwargs)
    return store.create_run(corpus, **args)


def attention(rows: int, cols: int, hot: int = 0) -> list[list[float]]:
    return [[0.75 if c == (r + hot) % cols else 0.25 / (cols - 1) for c in range(cols)] for r in range(rows)]


def make_result(proposals: list[Proposal], status: str = FINISHED, **kwargs) -> DecipherResult:
    fields = {
        "config": config(), "corpus_name": "tiny", "lost_code": "xl", "known_code": "yk", "demand": 4,
        "status": status, "device": "cpu", "proposals": proposals,
        "char_map": {"c": [("e", 0.5), ("c", 0.25)], "a": [("a", 0.875)], "é": [("e", 0.625)]},
        "accuracy": 0.5, "accuracy_model": 0.25, "n_evaluated": 3, "seconds": 7.5, "objective": 12.25,
        "phase_seconds": {"train": 5.0, "flow": 2.5},
    }  # fmt: skip
    fields.update(kwargs)
    return DecipherResult(**fields)


def standard_proposals() -> list[Proposal]:
    """Four pairs, best first: (lost, known) = (0, 0) right, (1, 3) wrong, (3, 4) right, (2, 2) no gold."""
    return [
        Proposal(0, 0, 0.9, 1.5, True, [(0, 0.9), (1, 0.123456789)], attention(4, 4)),
        Proposal(1, 3, 0.7, 2.0, False, [(3, 0.7), (2, 0.2)], attention(4, 4, hot=1)),
        Proposal(3, 4, 0.6, 2.5, True, [(4, 0.6)], attention(3, 3)),
        Proposal(2, 2, 0.4, 3.0, None, [], []),
    ]


def count(store: Store, table: str, run_id: int) -> int:
    return store.conn.execute(f"SELECT COUNT(*) FROM {table} WHERE {'id' if table == 'runs' else 'run_id'} = ?",
                              (run_id,)).fetchone()[0]  # fmt: skip


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def pairs(rows: list[ProposalRow]) -> list[tuple[int, int, str]]:
    return [(r.lost_index, r.known_index, r.status) for r in rows]


# ------------------------------------------------------------------------------- schema


def test_fresh_database_is_migrated_and_in_wal_mode(db: Path) -> None:
    assert not db.parent.exists()
    with Store(db) as s:
        assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert s.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        names = {r[0] for r in s.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert set(TABLES) <= names
        assert s.runs() == []
    assert db.is_file()
    # WAL mode is a property of the file: a plain connection sees it too.
    raw = sqlite3.connect(db)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    raw.close()


def test_reopening_keeps_data_and_does_not_migrate_again(db: Path, corpus: Corpus) -> None:
    with Store(db) as s:
        run_id = new_run(s, corpus)
    # Running migration 0 again would fail ("table runs already exists") and raise StoreError.
    for _ in range(2):
        with Store(db) as s:
            assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            assert [r.id for r in s.runs()] == [run_id]


def test_a_new_migration_is_applied_once(db: Path, corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    with Store(db) as s:
        run_id = new_run(s, corpus)
    extra = "CREATE TABLE extra (n INTEGER); INSERT INTO extra VALUES (7)"
    monkeypatch.setattr(store_module.schema, "MIGRATIONS", [*store_module.schema.MIGRATIONS, extra])
    monkeypatch.setattr(store_module.schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    for _ in range(2):
        with Store(db) as s:
            assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
            assert [r[0] for r in s.conn.execute("SELECT n FROM extra")] == [7]  # one row: not run twice
            assert [r.id for r in s.runs()] == [run_id]


def test_migration_rechecks_the_version_after_locking(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process migrates between our version read and our BEGIN IMMEDIATE: we must not migrate again."""
    real_connect = sqlite3.connect
    raced: list[bool] = []

    class RacyConnection(sqlite3.Connection):
        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
            if sql == "PRAGMA user_version" and not raced:
                raced.append(True)
                with Store(db):  # the "other process" migrates the database meanwhile
                    pass
                return super().execute("SELECT 0")  # what we read before it did
            return super().execute(sql, *args)

    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: real_connect(*a, factory=RacyConnection, **k))
    db.parent.mkdir(parents=True)
    with Store(db) as s:
        assert raced == [True]
        assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert s.runs() == []


def test_foreign_sqlite_database_with_a_clashing_table_is_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "decipher.sqlite3"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE proposals (x)")
    raw.execute("INSERT INTO proposals VALUES (1)")
    raw.commit()
    raw.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a usable run database"):
        Store(path)
    assert path.read_bytes() == before
    raw = sqlite3.connect(path)
    assert [r[0] for r in raw.execute("SELECT name FROM sqlite_master")] == ["proposals"]  # migration rolled back
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 0
    raw.close()


def test_newer_schema_is_refused_and_left_untouched(db: Path, corpus: Corpus) -> None:
    with Store(db) as s:
        new_run(s, corpus)
    raw = sqlite3.connect(db)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.close()
    before = db.read_bytes()
    with pytest.raises(StoreError, match="newer") as info:
        Store(db)
    assert str(db) in str(info.value)
    assert db.read_bytes() == before
    raw = sqlite3.connect(db)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    raw.close()


def test_garbage_file_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "decipher.sqlite3"
    garbage = random.Random(0).randbytes(8192)
    path.write_bytes(garbage)
    with pytest.raises(StoreError, match="not an SQLite database") as info:
        Store(path)
    assert str(path) in str(info.value)
    assert path.read_bytes() == garbage
    assert sorted(p.name for p in tmp_path.iterdir()) == ["decipher.sqlite3"]  # no -wal/-journal either


def test_short_text_file_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "decipher.sqlite3"
    path.write_bytes(b"hello\n")
    with pytest.raises(StoreError, match="not an SQLite database"):
        Store(path)
    assert path.read_bytes() == b"hello\n"


def test_sqlite_header_with_a_corrupt_body_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "decipher.sqlite3"
    data = b"SQLite format 3\x00" + random.Random(1).randbytes(8192)
    path.write_bytes(data)
    with pytest.raises(StoreError, match=r"not an SQLite database|not a usable run database"):
        Store(path)
    assert path.read_bytes() == data


def test_empty_file_is_accepted_and_migrated(tmp_path: Path, corpus: Corpus) -> None:
    path = tmp_path / "decipher.sqlite3"
    path.write_bytes(b"")
    with Store(path) as s:
        assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        run_id = new_run(s, corpus)
    with Store(path) as s:
        assert s.run(run_id) is not None
    assert path.read_bytes().startswith(b"SQLite format 3\x00")


def test_unusable_data_folder_raises_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot create the data folder"):
        Store(blocker / "decipher.sqlite3")
    assert blocker.read_text() == "x"


def test_database_path_that_is_a_folder_raises_store_error(tmp_path: Path) -> None:
    path = tmp_path / "decipher.sqlite3"
    path.mkdir()
    (path / "keep").write_text("x")  # a non-empty folder (st_size > 0)
    with pytest.raises(StoreError) as info:
        Store(path)
    assert str(path) in str(info.value)
    assert [p.name for p in path.iterdir()] == ["keep"]


def test_a_second_store_in_one_process_keeps_the_first_ones_locks(db: Path, corpus: Corpus) -> None:
    """Opening (and closing) the database file outside SQLite drops this process's POSIX locks on it: another
    process closing its connection would then think it was the last one and delete the WAL under ours."""
    wal = db.with_name(db.name + "-wal")
    with Store(db) as first:
        run_id = new_run(first, corpus)
        with Store(db) as second:
            second.set_judgment(run_id, 0, 0, ACCEPTED)
            assert wal.exists()
            other = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('SELECT * FROM runs'); c.close()"
            subprocess.run([sys.executable, "-c", other, str(db)], check=True, timeout=60)
            assert wal.exists()  # we are still connected: the other process was not the last one
            first.set_judgment(run_id, 1, 3, REJECTED)
            assert second.judgments(run_id) == {(0, 0): ACCEPTED, (1, 3): REJECTED}
    with Store(db) as s:
        assert s.judgments(run_id) == {(0, 0): ACCEPTED, (1, 3): REJECTED}


# ------------------------------------------------------------------------------- runs


def test_create_run_round_trip(store: Store, corpus: Corpus) -> None:
    before = time.time()
    cfg = config().to_dict()
    run_id = new_run(store, corpus, corpus_path="/corpora/tiny.cog", preset="demo", config=cfg, rounds_planned=2,
                     run_dir="/runs/1")  # fmt: skip
    after = time.time()
    row = store.run(run_id)
    assert row is not None
    assert row.id == run_id
    assert row.status == RUNNING
    assert before <= row.created_at <= after
    assert row.corpus == "tiny"
    assert row.corpus_path == "/corpora/tiny.cog"
    assert row.preset == "demo"
    assert (row.lost_code, row.known_code) == ("xl", "yk")
    assert row.config == cfg
    assert row.config["embed_dim"] == 8
    assert row.stats == corpus.stats()
    assert row.stats == {"lost_words": 4, "known_words": 5, "lost_symbols": 6, "known_symbols": 6,
                         "gold_lost_words": 3}  # fmt: skip
    assert row.has_gold is True
    assert row.rounds_planned == 2
    assert row.run_dir == "/runs/1"
    assert (row.pid, row.host) == (os.getpid(), socket.gethostname())
    for unset in ("accuracy", "accuracy_model", "n_evaluated", "seconds", "error", "n_cognates", "device"):
        assert getattr(row, unset) is None, unset
    assert store.runs() == [row]


def test_word_list_run_has_no_gold(store: Store, tmp_path: Path) -> None:
    (tmp_path / "lost.txt").write_text("ab\nba\n", encoding="utf-8")
    (tmp_path / "known.txt").write_text("cd\ndc\ncc\n", encoding="utf-8")
    lists = read_word_lists(tmp_path / "lost.txt", tmp_path / "known.txt")
    row = store.run(new_run(store, lists, preset=None))
    assert row is not None
    assert row.has_gold is False
    assert row.preset is None
    assert (row.lost_code, row.known_code) == ("lost", "known")
    assert row.stats["gold_lost_words"] == 0


def test_runs_are_listed_newest_first(store: Store, corpus: Corpus) -> None:
    ids = [new_run(store, corpus, corpus_path=f"c{i}.cog") for i in range(4)]
    for run_id, created in zip(ids, (300.0, 100.0, 300.0, 200.0), strict=True):
        store.conn.execute("UPDATE runs SET created_at = ? WHERE id = ?", (created, run_id))
    # Newest first; equal times fall back to the higher id first.
    assert [r.id for r in store.runs()] == [ids[2], ids[0], ids[3], ids[1]]
    assert store.run(max(ids) + 1) is None


def test_running_run_whose_process_is_gone_shows_as_interrupted(store: Store, corpus: Corpus) -> None:
    live = new_run(store, corpus)
    gone = new_run(store, corpus)
    finished_gone = new_run(store, corpus)
    elsewhere = new_run(store, corpus)
    no_pid = new_run(store, corpus)
    pid = dead_pid()
    store.conn.execute("UPDATE runs SET pid = ? WHERE id IN (?, ?, ?)", (pid, gone, finished_gone, elsewhere))
    store.conn.execute("UPDATE runs SET status = ? WHERE id = ?", (FINISHED, finished_gone))
    store.conn.execute("UPDATE runs SET host = ? WHERE id = ?", (socket.gethostname() + "-other", elsewhere))
    store.conn.execute("UPDATE runs SET pid = NULL WHERE id = ?", (no_pid,))
    statuses = {r.id: r.status for r in store.runs()}
    assert statuses == {live: RUNNING, gone: INTERRUPTED, finished_gone: FINISHED, elsewhere: RUNNING,
                        no_pid: INTERRUPTED}  # fmt: skip
    assert store.run(gone).status == INTERRUPTED
    # Derived when read, never written back.
    stored = store.conn.execute("SELECT status FROM runs WHERE id = ?", (gone,)).fetchone()[0]
    assert stored == RUNNING


def test_mark_failed_stores_status_and_error(store: Store, corpus: Corpus) -> None:
    failed = new_run(store, corpus)
    cancelled = new_run(store, corpus)
    other = new_run(store, corpus)
    store.mark_failed(failed, "RuntimeError: CUDA out of memory\nat line 3")
    store.mark_failed(cancelled, "stopped by the user", status=CANCELLED)
    row = store.run(failed)
    assert row.status == FAILED
    assert row.error == "RuntimeError: CUDA out of memory\nat line 3"
    finished_at = store.conn.execute("SELECT finished_at FROM runs WHERE id = ?", (failed,)).fetchone()[0]
    assert finished_at is not None and finished_at >= row.created_at
    assert (store.run(cancelled).status, store.run(cancelled).error) == (CANCELLED, "stopped by the user")
    assert (store.run(other).status, store.run(other).error) == (RUNNING, None)
    # A failed run whose process has gone stays failed (not "interrupted").
    store.conn.execute("UPDATE runs SET pid = ? WHERE id = ?", (dead_pid(), failed))
    assert store.run(failed).status == FAILED


def test_set_run_dir(store: Store, corpus: Corpus) -> None:
    run_id = new_run(store, corpus)
    assert store.run(run_id).run_dir is None
    store.set_run_dir(run_id, "/tmp/runs/tiny-1")
    assert store.run(run_id).run_dir == "/tmp/runs/tiny-1"


# ------------------------------------------------------------------------------- recorder


def epoch(restart: int, round_: int, n: int, loss: float) -> EpochEnd:
    return EpochEnd(restart, round_, n, 3, loss, loss - 0.5, 0.5, 0.1 * n)


def round_end(restart: int, round_: int, loss: float, accuracy: float | None) -> RoundEnd:
    return RoundEnd(restart, round_, 2, 2 * round_, "nll" if round_ == 1 else "eed", loss, 10.0 / round_,
                    2 * round_ - 1, accuracy, None if accuracy is None else accuracy / 2, 1.5 * round_)  # fmt: skip


def test_recorder_records_events_and_forwards_them(db: Path, corpus: Corpus) -> None:
    with Store(db) as s:
        run_id = new_run(s, corpus)
    seen: list[object] = []
    recorder = RunRecorder(db, run_id, forward=seen.append)
    events: list[object] = [RunStarted("tiny", "xl", "yk", corpus.stats(), "cpu", 2, 3, 1, 4)]
    recorder(events[0])
    recorder(epoch(0, 1, 1, 9.0))
    recorder(epoch(0, 1, 2, 8.0))
    recorder(epoch(0, 1, 3, 7.0))
    with Store(db) as other:
        assert other.run(run_id).device == "cpu"
        assert other.run(run_id).n_cognates == 4
        assert other.epoch_losses(run_id) == []  # epochs wait for their round
        assert other.rounds(run_id) == []
    recorder(round_end(0, 1, 7.0, 0.5))
    with Store(db) as other:  # the round is committed the moment it ends
        assert other.epoch_losses(run_id) == [9.0, 8.0, 7.0]
        assert len(other.rounds(run_id)) == 1
    recorder(epoch(0, 2, 1, 6.0))
    recorder(epoch(0, 2, 2, 5.5))
    recorder(round_end(0, 2, 5.5, None))
    # A second restart: its rounds sort after the first restart's.
    recorder(epoch(1, 1, 1, 8.5))
    recorder(round_end(1, 1, 8.5, 0.25))
    recorder(RunFinished(FINISHED, 0.5, 0.25, 9.0))
    recorder.close()

    with Store(db) as s:
        assert s.epoch_losses(run_id) == [9.0, 8.0, 7.0, 6.0, 5.5, 8.5]
        assert s.rounds(run_id) == [
            RoundRow(0, 1, 2, "nll", 7.0, 10.0, 1, 0.5, 0.25, 1.5),
            RoundRow(0, 2, 4, "eed", 5.5, 5.0, 3, None, None, 3.0),
            RoundRow(1, 1, 2, "nll", 8.5, 10.0, 1, 0.25, 0.125, 1.5),
        ]
        assert round_dicts(s.rounds(run_id))[1] == {
            "restart": 0, "round": 2, "demand": 4, "cost_kind": "eed", "loss": 5.5, "flow_cost": 5.0, "flow": 3,
            "accuracy": None, "accuracy_model": None, "seconds": 3.0,
        }  # fmt: skip
        assert s.run(run_id).status == RUNNING  # RunFinished alone records nothing; finish() does
        epochs_rows = s.conn.execute(
            "SELECT restart, round, epoch, loss, nll, reg, seconds FROM epochs WHERE run_id = ? "
            "ORDER BY restart, round, epoch", (run_id,)
        ).fetchall()  # fmt: skip
        assert tuple(epochs_rows[0]) == (0, 1, 1, 9.0, 8.5, 0.5, 0.1)
        assert len(epochs_rows) == 6
    assert [type(e).__name__ for e in seen] == [
        "RunStarted", "EpochEnd", "EpochEnd", "EpochEnd", "RoundEnd", "EpochEnd", "EpochEnd", "RoundEnd",
        "EpochEnd", "RoundEnd", "RunFinished",
    ]  # fmt: skip
    assert seen[0] is events[0]


def test_recorder_without_forward_and_repeated_round_replaces(db: Path, corpus: Corpus) -> None:
    with Store(db) as s:
        run_id = new_run(s, corpus)
    recorder = RunRecorder(db, run_id)
    recorder(epoch(0, 1, 1, 9.0))
    recorder(round_end(0, 1, 9.0, None))
    recorder(epoch(0, 1, 1, 4.0))  # the same (restart, round, epoch) again: replaced, not duplicated
    recorder(round_end(0, 1, 4.0, None))
    recorder.close()
    recorder.close()  # closing twice is harmless
    with Store(db) as s:
        assert s.epoch_losses(run_id) == [4.0]
        assert [r.loss for r in s.rounds(run_id)] == [4.0]


def test_finish_records_result_proposals_and_char_map(db: Path, corpus: Corpus) -> None:
    with Store(db) as s:
        run_id = new_run(s, corpus)
    recorder = RunRecorder(db, run_id)
    recorder(RunStarted("tiny", "xl", "yk", corpus.stats(), "cuda:0", 2, 3, 1, 3))
    recorder.finish(make_result(standard_proposals()), corpus)
    recorder.close()

    with Store(db) as s:
        row = s.run(run_id)
        assert row.status == FINISHED
        assert (row.accuracy, row.accuracy_model, row.n_evaluated, row.seconds) == (0.5, 0.25, 3, 7.5)
        assert (row.device, row.n_cognates) == ("cpu", 4)  # the result's figures win over RunStarted's
        raw = s.conn.execute("SELECT finished_at, phase_json, objective FROM runs WHERE id = ?", (run_id,)).fetchone()
        assert raw["finished_at"] >= row.created_at
        assert raw["objective"] == 12.25
        assert raw["phase_json"] == '{"train": 5.0, "flow": 2.5}'

        props = s.proposals(run_id)
        assert [p.rank for p in props] == [1, 2, 3, 4]
        assert [(p.lost_index, p.known_index) for p in props] == [(0, 0), (1, 3), (3, 4), (2, 2)]
        assert [(p.lost, p.known) for p in props] == [("abc", "abd"), ("bcd", "zzz"), ("dé", "de"), ("cde", "bce")]
        assert [p.score for p in props] == [0.9, 0.7, 0.6, 0.4]
        assert [p.cost for p in props] == [1.5, 2.0, 2.5, 3.0]
        assert [p.gold for p in props] == [True, False, True, None]
        assert all(p.status == OPEN for p in props)
        assert [p.gold_known for p in props] == [["abd", "abe"], ["bce"], ["de"], []]
        assert props[0].alternatives == [("abd", 0.9), ("abe", 0.123457)]  # tuples, scores rounded to 6 places
        assert all(isinstance(a, tuple) for p in props for a in p.alternatives)
        assert props[1].alternatives == [("zzz", 0.7), ("bce", 0.2)]
        assert props[3].alternatives == []
        assert props[0].attention == attention(4, 4)
        assert props[1].attention == attention(4, 4, hot=1)
        assert props[2].attention == attention(3, 3)
        assert props[3].attention == []

        cmap = s.char_map(run_id)
        assert cmap == {"a": [("a", 0.875)], "c": [("e", 0.5), ("c", 0.25)], "é": [("e", 0.625)]}
        assert list(cmap) == ["a", "c", "é"]  # sorted by lost symbol, each list best first
        assert s.review_counts(run_id) == {ACCEPTED: 0, REJECTED: 0, UNSURE: 0, OPEN: 4}


def test_recorder_fail_marks_the_run_failed(db: Path, corpus: Corpus) -> None:
    with Store(db) as s:
        run_id = new_run(s, corpus)
    recorder = RunRecorder(db, run_id)
    recorder.fail("boom")
    recorder.close()
    with Store(db) as s:
        assert (s.run(run_id).status, s.run(run_id).error) == (FAILED, "boom")


def test_cancelled_result_is_recorded_as_cancelled(store: Store, corpus: Corpus) -> None:
    run_id = new_run(store, corpus)
    store.record_result(run_id, make_result(standard_proposals()[:1], status=CANCELLED, accuracy=None), corpus)
    row = store.run(run_id)
    assert row.status == CANCELLED
    assert row.accuracy is None
    assert len(store.proposals(run_id)) == 1


# ------------------------------------------------------------------------------- decisions


def test_set_decision_decisions_and_review_counts(store: Store, corpus: Corpus) -> None:
    run_id = new_run(store, corpus)
    other = new_run(store, corpus)
    store.record_result(run_id, make_result(standard_proposals()), corpus)
    store.record_result(other, make_result(standard_proposals()), corpus)

    store.set_judgment(run_id, 0, 0, ACCEPTED)
    store.set_judgment(run_id, 1, 3, REJECTED)
    store.set_judgment(run_id, 3, 4, ACCEPTED)
    assert store.judgments(run_id) == {(0, 0): ACCEPTED, (1, 3): REJECTED, (3, 4): ACCEPTED}
    assert store.review_counts(run_id) == {ACCEPTED: 2, REJECTED: 1, UNSURE: 0, OPEN: 1}
    assert [p.status for p in store.proposals(run_id)] == [ACCEPTED, REJECTED, ACCEPTED, OPEN]
    # Another run is unaffected.
    assert store.judgments(other) == {}
    assert store.review_counts(other) == {ACCEPTED: 0, REJECTED: 0, UNSURE: 0, OPEN: 4}

    store.set_judgment(run_id, 1, 3, ACCEPTED)  # changing one's mind replaces the row
    assert store.judgments(run_id)[(1, 3)] == ACCEPTED
    assert store.review_counts(run_id) == {ACCEPTED: 3, REJECTED: 0, UNSURE: 0, OPEN: 1}
    assert count(store, "decisions", run_id) == 3

    store.set_judgment(run_id, 2, 2, UNSURE)  # a question mark: stored and counted, not a constraint
    assert store.judgments(run_id)[(2, 2)] == UNSURE
    assert store.review_counts(run_id) == {ACCEPTED: 3, REJECTED: 0, UNSURE: 1, OPEN: 0}
    assert store.proposals(run_id)[3].status == UNSURE


def test_set_decisions_writes_many_in_one_transaction(store: Store, corpus: Corpus) -> None:
    run_id = new_run(store, corpus)
    store.record_result(run_id, make_result(standard_proposals()), corpus)
    store.set_judgment(run_id, 2, 2, REJECTED)
    # Any pair of the vocabularies, proposed or not; OPEN clears; a later item for a pair wins.
    store.set_judgments(run_id, [(0, 0, ACCEPTED), (1, 0, UNSURE), (2, 2, OPEN), (3, 4, REJECTED), (3, 4, UNSURE)])
    assert store.judgments(run_id) == {(0, 0): ACCEPTED, (1, 0): UNSURE, (3, 4): UNSURE}
    assert not store.conn.in_transaction
    # One bad item and nothing is written, not even the good ones before it.
    with pytest.raises(ValueError, match="unknown review status"):
        store.set_judgments(run_id, [(2, 2, ACCEPTED), (1, 3, "maybe")])
    with pytest.raises(sqlite3.IntegrityError):  # no such run: the foreign key refuses, all rolled back
        store.set_judgments(12345, [(0, 0, ACCEPTED)])
    assert store.judgments(run_id) == {(0, 0): ACCEPTED, (1, 0): UNSURE, (3, 4): UNSURE}
    assert not store.conn.in_transaction


def test_setting_open_deletes_the_decision_row(store: Store, corpus: Corpus) -> None:
    run_id = new_run(store, corpus)
    store.record_result(run_id, make_result(standard_proposals()), corpus)
    store.set_judgment(run_id, 0, 0, REJECTED)
    store.set_judgment(run_id, 3, 4, ACCEPTED)
    assert count(store, "decisions", run_id) == 2
    store.set_judgment(run_id, 0, 0, OPEN)
    assert count(store, "decisions", run_id) == 1
    assert store.judgments(run_id) == {(3, 4): ACCEPTED}
    assert store.proposals(run_id)[0].status == OPEN
    assert store.review_counts(run_id) == {ACCEPTED: 1, REJECTED: 0, UNSURE: 0, OPEN: 3}
    store.set_judgment(run_id, 2, 2, OPEN)  # clearing an undecided pair is a no-op
    assert store.judgments(run_id) == {(3, 4): ACCEPTED}


@pytest.mark.parametrize("status", ["accept", "ACCEPTED", "", "maybe", None])
def test_unknown_review_status_raises(store: Store, corpus: Corpus, status: object) -> None:
    run_id = new_run(store, corpus)
    store.record_result(run_id, make_result(standard_proposals()), corpus)
    with pytest.raises(ValueError, match="unknown review status"):
        store.set_judgment(run_id, 0, 0, status)  # type: ignore[arg-type]
    assert store.judgments(run_id) == {}
    assert not store.conn.in_transaction


def test_decision_is_visible_from_a_second_connection_at_once(db: Path, corpus: Corpus) -> None:
    with Store(db) as first, Store(db) as second:
        run_id = new_run(first, corpus)
        first.record_result(run_id, make_result(standard_proposals()), corpus)
        assert second.judgments(run_id) == {}
        first.set_judgment(run_id, 1, 3, REJECTED)
        assert not first.conn.in_transaction  # committed before returning
        assert second.judgments(run_id) == {(1, 3): REJECTED}
        assert second.proposals(run_id)[1].status == REJECTED
        assert second.review_counts(run_id) == {ACCEPTED: 0, REJECTED: 1, UNSURE: 0, OPEN: 3}
        second.set_judgment(run_id, 1, 3, OPEN)
        assert first.judgments(run_id) == {}
    # And it survives the connection going away (no pending transaction lost on close).
    with Store(db) as s:
        s.set_judgment(run_id, 0, 0, ACCEPTED)
    raw = sqlite3.connect(db)
    assert raw.execute("SELECT lost_index, known_index, status FROM decisions").fetchall() == [(0, 0, ACCEPTED)]
    raw.close()


def test_every_read_sees_writes_made_since_by_another_process(db: Path, corpus: Corpus) -> None:
    """Long-lived connections (the TUI's own and its engine worker's) see what another process (`decipher
    run`) wrote since, whichever statement they ran last."""
    with Store(db) as ui, Store(db) as worker:
        run_id = new_run(worker, corpus)
        for read in (lambda: ui.run(run_id), lambda: ui.review_counts(run_id), lambda: ui.runs()):
            read()
            status = f"failed-{random.random()}"
            code = (
                "import sys; sys.modules['tui_decipher.engine.methods'] = type(sys)('methods'); "
                "sys.modules['tui_decipher.engine.methods'].DecipherResult = object; "
                f"from tui_decipher.store import Store; s = Store({str(db)!r}); "
                f"s.mark_failed({run_id}, 'x', status={status!r}); s.close()"
            )
            subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO_ROOT)
            assert ui.runs()[0].status == status  # a different statement from the one just read
            assert ui.run(run_id).status == status


def test_decisions_survive_rewriting_the_proposals(store: Store, corpus: Corpus) -> None:
    run_id = new_run(store, corpus)
    store.record_result(run_id, make_result(standard_proposals()), corpus)
    store.set_judgment(run_id, 0, 0, ACCEPTED)
    store.set_judgment(run_id, 1, 3, REJECTED)
    store.set_judgment(run_id, 3, 4, ACCEPTED)

    # The same run recorded again: new ranks, (1, 3) gone, a new pair (1, 2).
    p = standard_proposals()
    rewritten = [p[2], Proposal(1, 2, 0.8, 1.0, True, [(2, 0.8)], attention(4, 4)), p[0], p[3]]
    store.record_result(run_id, make_result(rewritten), corpus)
    assert count(store, "proposals", run_id) == 4
    assert pairs(store.proposals(run_id)) == [(3, 4, ACCEPTED), (1, 2, OPEN), (0, 0, ACCEPTED), (2, 2, OPEN)]
    # The decision on the vanished pair is kept, but only proposals count.
    assert store.judgments(run_id) == {(0, 0): ACCEPTED, (1, 3): REJECTED, (3, 4): ACCEPTED}
    assert store.review_counts(run_id) == {ACCEPTED: 2, REJECTED: 0, UNSURE: 0, OPEN: 2}

    # When the pair comes back, so does its status.
    store.record_result(run_id, make_result(p), corpus)
    assert pairs(store.proposals(run_id)) == [(0, 0, ACCEPTED), (1, 3, REJECTED), (3, 4, ACCEPTED), (2, 2, OPEN)]
    assert store.review_counts(run_id) == {ACCEPTED: 2, REJECTED: 1, UNSURE: 0, OPEN: 1}
    # The character map is rewritten, not appended to.
    assert count(store, "char_map", run_id) == 4


def test_decision_for_a_missing_run_is_refused(store: Store) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        store.set_judgment(12345, 0, 0, ACCEPTED)
    assert not store.conn.in_transaction
    assert store.conn.execute("SELECT COUNT(*) FROM decisions").fetchone()[0] == 0


# ------------------------------------------------------------------------------- delete


def test_delete_run_cascades(db: Path, corpus: Corpus) -> None:
    with Store(db) as s:
        keep, doomed = new_run(s, corpus), new_run(s, corpus)
    for run_id in (keep, doomed):
        recorder = RunRecorder(db, run_id)
        recorder(epoch(0, 1, 1, 3.0))
        recorder(epoch(0, 1, 2, 2.0))
        recorder(round_end(0, 1, 2.0, 0.5))
        recorder(ChannelStep(0, 1, 2, 4.0, 1.0))
        recorder(ChannelStep(0, 2, 2, 3.5, 2.0))
        recorder.finish(make_result(standard_proposals(), beyond=[Proposal(2, 1, 0.3, 3.5, False)]), corpus)
        recorder.store.set_judgment(run_id, 0, 0, ACCEPTED)
        recorder.store.set_judgment(run_id, 1, 3, REJECTED)
        recorder.store.set_pins(run_id, "a", ["k", "g"])
        recorder.close()
    with Store(db) as s:
        before = {t: count(s, t, keep) for t in TABLES}
        assert before == {
            "runs": 1, "rounds": 1, "epochs": 2, "proposals": 4, "decisions": 2, "char_map": 4, "channel_steps": 2,
            "pinned_signs": 2, "beyond_pairs": 1,
        }  # fmt: skip
        assert {t: count(s, t, doomed) for t in TABLES} == before
        s.delete_run(doomed)
        assert {t: count(s, t, doomed) for t in TABLES} == dict.fromkeys(TABLES, 0)
        assert {t: count(s, t, keep) for t in TABLES} == before
        assert s.run(doomed) is None
        assert [r.id for r in s.runs()] == [keep]
        assert s.proposals(doomed) == [] and s.judgments(doomed) == {} and s.char_map(doomed) == {}
        assert s.rounds(doomed) == [] and s.epoch_losses(doomed) == [] and s.channel_losses(doomed) == []
        assert s.pins(doomed) == [] and s.pins(keep) == [("a", "k"), ("a", "g")]
        s.delete_run(doomed)  # deleting again is harmless
    with Store(db) as s:  # and it is committed
        assert [r.id for r in s.runs()] == [keep]


# ------------------------------------------------------------------------------- concurrency

WORKER = r"""
import sys
import types

# The store needs engine.methods for a type annotation only: a stub keeps torch out and the start fast.
sys.modules["tui_decipher.engine.methods"] = types.ModuleType("tui_decipher.engine.methods")
sys.modules["tui_decipher.engine.methods"].DecipherResult = object
from tui_decipher.engine.corpora.corpus import Corpus
from tui_decipher.store import Store

path, worker, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
corpus = Corpus("w", "l", "k", (("a", "b"),), (("c", "d"),))
print("ready", flush=True)
sys.stdin.readline()  # all writers start together
with Store(path) as store:
    run_id = store.create_run(corpus, f"worker{worker}", None, {"worker": worker}, 1)
    for i in range(n):
        store.set_judgment(run_id, worker, i, "accepted" if i % 2 else "rejected")
        if i % 10 == 0:
            store.create_run(corpus, f"worker{worker}-{i}", None, {"worker": worker, "i": i}, 1)
print(run_id, flush=True)
"""


def write_share(path: Path, worker: int, n: int) -> int:
    """What each worker process does, done in this process."""
    corpus = Corpus("w", "l", "k", (("a", "b"),), (("c", "d"),))
    with Store(path) as s:
        run_id = s.create_run(corpus, f"worker{worker}", None, {"worker": worker}, 1)
        for i in range(n):
            s.set_judgment(run_id, worker, i, ACCEPTED if i % 2 else REJECTED)
            if i % 10 == 0:
                s.create_run(corpus, f"worker{worker}-{i}", None, {"worker": worker, "i": i}, 1)
    return run_id


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    """Two processes and this one open a brand-new database at once (racing the migration) and write."""
    path = tmp_path / "shared" / "decipher.sqlite3"
    n = 150
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(path), str(worker), str(n)], cwd=REPO_ROOT,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for worker in (1, 2)
    ]  # fmt: skip
    try:
        for proc in procs:
            assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        for proc in procs:
            proc.stdin.write("go\n")
            proc.stdin.flush()
        run_ids = {0: write_share(path, 0, n)}
        for worker, proc in zip((1, 2), procs, strict=True):
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
            assert "locked" not in err and "Traceback" not in err, err
            run_ids[worker] = int(out.strip())
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    with Store(path) as s:
        assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        runs = s.runs()
        expected_paths = [f"worker{w}" for w in range(3)]
        expected_paths += [f"worker{w}-{i}" for w in range(3) for i in range(0, n, 10)]
        assert sorted(r.corpus_path for r in runs) == sorted(expected_paths)  # each once: nothing lost or doubled
        assert len({r.id for r in runs}) == len(runs)
        for worker, run_id in run_ids.items():
            assert s.run(run_id).corpus_path == f"worker{worker}"
            assert s.judgments(run_id) == {(worker, i): ACCEPTED if i % 2 else REJECTED for i in range(n)}
        assert s.conn.execute("SELECT COUNT(*) FROM decisions").fetchone()[0] == 3 * n


# ------------------------------------------------------------------------------- export


def reviewed_rows(store: Store, corpus: Corpus) -> list[ProposalRow]:
    """Proposals where lost `abc` has two accepted known words, one pair rejected, one open."""
    run_id = new_run(store, corpus)
    p = standard_proposals()
    extra = Proposal(0, 1, 0.55, 2.75, True, [(1, 0.55)], [])
    store.record_result(run_id, make_result([p[0], p[1], p[2], extra, p[3]]), corpus)
    store.set_judgment(run_id, 0, 0, ACCEPTED)
    store.set_judgment(run_id, 1, 3, REJECTED)
    store.set_judgment(run_id, 3, 4, ACCEPTED)
    store.set_judgment(run_id, 0, 1, ACCEPTED)
    return store.proposals(run_id)


def test_export_tsv_accepted_only_and_include_all(store: Store, corpus: Corpus) -> None:
    rows = reviewed_rows(store, corpus)
    assert [r.status for r in rows] == [ACCEPTED, REJECTED, ACCEPTED, ACCEPTED, OPEN]
    # The readings are the stored attention's paths (bcd -> zzz's grid is shifted one column: b
    # is read from no letter, the last z from no symbol); a pair with no attention reads as "".
    assert export_tsv(rows) == (
        "lost\tknown\tscore\tstatus\talignment\n"
        "abc\tabd\t0.900000\taccepted\ta b c / a b d\n"
        "dé\tde\t0.600000\taccepted\td é / d e\n"
        "abc\tabe\t0.550000\taccepted\t\n"
    )
    assert export_tsv(rows, include_all=True) == (  # every proposal, with its decision
        "lost\tknown\tscore\tstatus\talignment\n"
        "abc\tabd\t0.900000\taccepted\ta b c / a b d\n"
        "bcd\tzzz\t0.700000\trejected\tb c d - / - z z z\n"
        "dé\tde\t0.600000\taccepted\td é / d e\n"
        "abc\tabe\t0.550000\taccepted\t\n"
        "cde\tbce\t0.400000\topen\t\n"
    )
    assert export_tsv([]) == "lost\tknown\tscore\tstatus\talignment\n"


def test_export_cog_joins_known_words_and_reads_back(store: Store, corpus: Corpus, tmp_path: Path) -> None:
    rows = reviewed_rows(store, corpus)
    text = export_cog(rows, corpus.lost_code, corpus.known_code)
    assert text == "xl\tyk\nabc\tabd|abe\ndé\tde\n"
    out = tmp_path / "accepted.cog"
    out.write_text(text, encoding="utf-8")
    back = read_cog(out)
    assert (back.lost_code, back.known_code) == ("xl", "yk")
    read_pairs = {
        ("".join(back.lost_words[i]), "".join(back.known_words[j])) for i, js in back.gold.items() for j in js
    }
    accepted = {(r.lost, r.known) for r in rows if r.status == ACCEPTED}
    assert read_pairs == accepted == {("abc", "abd"), ("abc", "abe"), ("dé", "de")}


def _old_store(tmp_path: Path, name: str, version: int) -> Path:
    """A copy of a database under tests/data written by older code, checked to be at `version`."""
    old = tmp_path / "decipher.sqlite3"
    shutil.copyfile(Path(__file__).parent / "data" / name, old)
    assert sqlite3.connect(old).execute("PRAGMA user_version").fetchone()[0] == version
    return old


def test_a_version_1_database_written_by_the_old_code_gains_decisions(tmp_path: Path) -> None:
    """tests/data/v1_store.sqlite3 was written by the code before schema 2 (025a784): the fixed run
    of tests/tui_support.py, and one accepted pair added by hand. Opening it migrates it and keeps everything."""
    with Store(_old_store(tmp_path, "v1_store.sqlite3", 1)) as s:
        assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        (run,) = s.runs()
        assert run.decisions == {} and run.accuracy == 0.75 and run.status == "finished"
        assert len(s.proposals(run.id)) == 8 and len(s.rounds(run.id)) == 2
        judged = s.conn.execute("SELECT run_id, lost_index, known_index, status FROM decisions").fetchall()
        assert [tuple(r) for r in judged] == [(run.id, 0, 0, "accepted")]


def test_a_version_2_database_written_by_the_old_code_gains_tokens_and_languages(tmp_path: Path) -> None:
    """tests/data/v2_store.sqlite3 was written by the code before schema 3 (c74bc91): the fixed run of
    tests/tui_support.py and one accepted pair. Opening it migrates it; its words read as their
    grapheme clusters (what its .cog reader made of them), with no concepts and no language records."""
    with Store(_old_store(tmp_path, "v2_store.sqlite3", 2)) as s:
        assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        (run,) = s.runs()
        assert run.languages == {} and run.accuracy == 0.75 and run.status == "finished"
        rows = s.proposals(run.id)
        assert len(rows) == 8 and s.judgments(run.id) == {(0, 0): ACCEPTED}
        assert rows[0].lost == "λιγβυ" and rows[0].lost_tokens == ["λ", "ι", "γ", "β", "υ"]
        assert rows[0].known_tokens == list(rows[0].known) and rows[0].lost_gloss == rows[0].known_gloss == ""
        assert s.find_run(str(run.id)).id == run.id


def test_a_version_3_database_written_by_the_old_code_takes_unsure_decisions(tmp_path: Path) -> None:
    """tests/data/v3_store.sqlite3 was written by the code before schema 4 (c7862a8): the fixed run of
    tests/tui_support.py with two accepted and two rejected pairs, one of them not a proposal.
    Opening it rebuilds the decisions table to allow "unsure", every decision and its time kept."""
    old = _old_store(tmp_path, "v3_store.sqlite3", 3)
    raw = sqlite3.connect(old)
    before = raw.execute("SELECT * FROM decisions ORDER BY lost_index, known_index").fetchall()
    raw.close()
    with Store(old) as s:
        assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        (run,) = s.runs()
        assert run.accuracy == 0.75 and len(s.proposals(run.id)) == 8
        after = s.conn.execute("SELECT * FROM decisions ORDER BY lost_index, known_index").fetchall()
        assert [tuple(r) for r in after] == before
        assert s.judgments(run.id) == {(0, 1): ACCEPTED, (1, 1): ACCEPTED, (2, 5): REJECTED, (3, 4): REJECTED}
        assert s.review_counts(run.id) == {ACCEPTED: 2, REJECTED: 1, UNSURE: 0, OPEN: 5}
        names = {r[0] for r in s.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "decisions_new" not in names and set(TABLES) <= names
        s.set_judgment(run.id, 4, 4, UNSURE)  # the old CHECK would refuse this
        s.set_judgment(run.id, 3, 4, UNSURE)
        assert s.review_counts(run.id) == {ACCEPTED: 2, REJECTED: 0, UNSURE: 2, OPEN: 4}
        with pytest.raises(sqlite3.IntegrityError):  # the rebuilt table still checks its statuses
            s.conn.execute("INSERT INTO decisions VALUES (?, 0, 0, 'maybe', 0)", (run.id,))
        s.delete_run(run.id)  # the rebuilt table keeps its foreign key: a run's decisions go with it
        assert s.conn.execute("SELECT COUNT(*) FROM decisions").fetchone()[0] == 0


def test_the_review_line_counts_decisions_on_pairs_no_longer_proposed() -> None:
    from tui_decipher.session.run_views import review_summary

    counts = {ACCEPTED: 5, REJECTED: 0, UNSURE: 0, OPEN: 195}
    assert review_summary(counts, 12) == "5 accepted, 0 rejected, 0 unsure, 195 open (+7 judged, not proposed now)"
    assert review_summary(counts, 5) == review_summary(counts) == "5 accepted, 0 rejected, 0 unsure, 195 open"
    # Decisions on pairs past D are theirs, not pairs no longer proposed.
    assert review_summary(counts, 8, (171, 3)) == "5 accepted, 0 rejected, 0 unsure, 195 open; +171 past D (3 judged)"


def test_a_version_4_database_written_by_the_old_code_gains_channel_steps(tmp_path: Path, corpus: Corpus) -> None:
    """tests/data/v4_store.sqlite3 was written by the code before schema 5 (faf5df8): the fixed run of
    tests/tui_support.py (2 rounds of 3 epochs) with one accepted and one unsure pair. Opening it adds
    the channel's training curve, empty for the old run, and keeps everything else."""
    old = _old_store(tmp_path, "v4_store.sqlite3", 4)
    with Store(old) as s:
        assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        (run,) = s.runs()
        assert run.accuracy == 0.75 and len(s.proposals(run.id)) == 8 and len(s.rounds(run.id)) == 2
        assert len(s.epoch_losses(run.id)) == 6 and s.channel_losses(run.id) == []
        assert s.judgments(run.id) == {(0, 0): ACCEPTED, (2, 5): UNSURE}
        new_id = new_run(s, corpus)
    recorder = RunRecorder(old, new_id)
    recorder(ChannelStep(0, 1, 1, 2.5, 0.1, "transport"))
    recorder.finish(make_result(standard_proposals()), corpus)
    recorder.close()
    with Store(old) as s:
        assert s.channel_losses(new_id) == [("transport", 2.5)] and s.channel_losses(run.id) == []


def test_channel_steps_are_kept_in_order_in_batches_and_a_refinement_follows_its_run(
    db: Path, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RunRecorder, "CHANNEL_BATCH", 2)
    with Store(db) as s:
        run_id = new_run(s, corpus)
    recorder = RunRecorder(db, run_id)
    for step, (objective, loss) in enumerate([("lexicon", 5.0), ("lexicon", 4.0), ("lexicon", 3.0)], 1):
        recorder(ChannelStep(0, step, 5, loss, float(step), objective))
    with Store(db) as s:  # a crash now keeps the written batch: the third step waits for the next
        assert s.channel_losses(run_id) == [("lexicon", 5.0), ("lexicon", 4.0)]
    recorder(ChannelStep(0, 4, 5, 2.0, 4.0, "transport"))
    recorder.close()  # a cancelled run: what was waiting is written as the run stops
    refinement = RunRecorder(db, run_id)
    refinement(ChannelStep(0, 1, 1, 1.5, 0.5, "transport"))
    refinement.fail("RuntimeError: boom")
    refinement.close()
    with Store(db) as s:
        assert s.channel_losses(run_id) == [
            ("lexicon", 5.0), ("lexicon", 4.0), ("lexicon", 3.0), ("transport", 2.0), ("transport", 1.5),
        ]  # fmt: skip
        assert s.run(run_id).status == FAILED


def test_the_loss_plot_draws_epochs_or_the_latest_channel_objective() -> None:
    from tui_decipher.session.run_views import loss_curve

    steps = [("syllables", 9.0), ("lexicon", 5.0), ("lexicon", 4.0), ("transport", 3.0), ("transport", 2.0)]
    assert loss_curve([], steps) == ("transport loss", [3.0, 2.0])
    assert loss_curve([], steps[:3]) == ("lexicon loss", [5.0, 4.0])
    assert loss_curve([1.0, 0.5], steps) == ("loss", [1.0, 0.5])  # a neural run after its channel start
    assert loss_curve([], []) == ("loss", [])
    # auto's reverse channel trains the same objective on another scale: its own segment and label.
    steps += [("reverse transport", 30.0), ("reverse transport", 20.0)]
    assert loss_curve([], steps) == ("reverse transport loss", [30.0, 20.0])


def test_a_reverse_channels_steps_are_recorded_under_their_label(db: Path, corpus: Corpus) -> None:
    assert ChannelStep(0, 1, 5, 2.0, 1.0, "transport", "reverse").label == "reverse transport"
    assert ChannelStep(0, 1, 5, 2.0, 1.0, "transport").label == "transport"
    with Store(db) as s:
        run_id = new_run(s, corpus)
    recorder = RunRecorder(db, run_id)
    recorder(ChannelStep(0, 1, 2, 3.0, 1.0, "transport"))
    recorder(ChannelStep(0, 2, 2, 30.0, 2.0, "transport", "reverse"))
    recorder.close()
    with Store(db) as s:
        assert s.channel_losses(run_id) == [("transport", 3.0), ("reverse transport", 30.0)]


def test_a_loss_that_is_no_measurement_never_reaches_the_store_and_a_failed_write_never_the_run(
    db: Path, corpus: Corpus, caplog
) -> None:
    """NaN and inf losses (a search worker that has not measured yet) are left out of the curve,
    and a progress point the store cannot take is logged, not raised: the run goes on."""
    with Store(db) as s:
        run_id = new_run(s, corpus)
    seen: list[object] = []
    recorder = RunRecorder(db, run_id, forward=seen.append)
    steps = [ChannelStep(0, k, 4, loss, 0.1 * k, "transport") for k, loss in
             enumerate([math.nan, 3.0, math.inf, 2.0], start=1)]  # fmt: skip
    for step in steps:
        recorder(step)
    recorder(epoch(0, 1, 1, math.nan))
    recorder(epoch(0, 1, 2, 7.0))
    recorder(round_end(0, 1, 7.0, 0.5))
    assert seen == [*steps, *seen[4:]] and len(seen) == 7  # every event still reaches the front end
    with Store(db) as s:
        assert s.channel_losses(run_id) == [("transport", 3.0), ("transport", 2.0)]
        assert s.epoch_losses(run_id) == [7.0]

    def broken(*_args: object) -> None:
        raise sqlite3.IntegrityError("NOT NULL constraint failed: channel_steps.loss")

    recorder.store.record_channel_steps = broken  # type: ignore[method-assign]
    recorder.CHANNEL_BATCH = 1
    with caplog.at_level("WARNING", logger="tui_decipher.store"):
        recorder(ChannelStep(0, 5, 5, 1.0, 0.5, "transport"))
    assert len(seen) == 8 and "could not record ChannelStep" in caplog.text
    recorder.close()


def test_a_version_5_database_written_by_the_old_code_gains_alignments(tmp_path: Path, corpus: Corpus) -> None:
    """tests/data/v5_store.sqlite3 was written by the code before schema 6 (4374821): the fixed run of
    tests/tui_support.py (a neural run: attention grids, no alignments) and one accepted pair.
    Opening it adds the alignment column and the pinned signs' table; the old run's proposals read
    their attention's path, it takes pins, and a run recorded now keeps the alignments it was given."""
    from tui_decipher.engine.channels.alignment import Segment, reads_as

    old = _old_store(tmp_path, "v5_store.sqlite3", 5)
    with Store(old) as s:
        assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        (run,) = s.runs()
        rows = s.proposals(run.id)
        assert run.accuracy == 0.75 and len(rows) == 8 and s.judgments(run.id) == {(1, 1): ACCEPTED}
        for row in rows:  # the fixed grids are diagonals: each symbol over its row's symbol
            assert row.alignment and reads_as(row.alignment, row.lost_tokens, row.known_tokens)
        assert s.pins(run.id) == []  # schema 7: no pins yet; the old run takes them
        s.set_pins(run.id, "γ", ["n"])
        assert s.pins(run.id) == [("γ", "n")]
        new_id = new_run(s, corpus)
    result = make_result(standard_proposals())
    reading = [Segment(("a", "b"), ("a",), 0.5), Segment(("c",), ("b", "d"), 0.25)]
    result.proposals[0].alignment = reading
    recorder = RunRecorder(old, new_id)
    recorder.finish(result, corpus)
    recorder.close()
    with Store(old) as s:
        rows = s.proposals(new_id)
        assert rows[0].alignment == reading and rows[3].alignment == []  # no alignment, no attention


def test_a_version_7_database_written_by_the_old_code_gains_the_pairs_beyond_d(tmp_path: Path, corpus: Corpus) -> None:
    """tests/data/v7_store.sqlite3 was written by the code before schema 8 (f9822cd): the fixed run of
    tests/tui_support.py, one accepted pair and one pinned sign. Opening it adds the table of pairs
    beyond D: the old run keeps its proposals, decision and pin and reads no pairs beyond D; a run
    recorded now keeps those it was given."""
    old = _old_store(tmp_path, "v7_store.sqlite3", 7)
    with Store(old) as s:
        assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 8
        (run,) = s.runs()
        assert len(s.proposals(run.id)) == 8 and s.judgments(run.id) == {(1, 1): ACCEPTED}
        assert s.pins(run.id) == [("γ", "n")] and s.beyond_pairs(run.id) == []
        new_id = new_run(s, corpus)
    recorder = RunRecorder(old, new_id)
    recorder.finish(make_result(standard_proposals()[:3], beyond=[Proposal(2, 2, 0.4, 3.0, None)]), corpus)
    recorder.close()
    with Store(old) as s:
        assert [(r.rank, r.lost, r.beyond) for r in s.beyond_pairs(new_id)] == [(4, "cde", True)]


def test_pairs_beyond_d_rank_after_the_proposals_and_count_in_none_of_their_figures(
    store: Store, corpus: Corpus, db: Path
) -> None:
    run_id = new_run(store, corpus)
    beyond = [Proposal(2, 2, 0.4, 3.0, None, [(2, 0.4), (1, 0.1)]), Proposal(3, 1, 0.2, 4.0, False)]
    recorder = RunRecorder(db, run_id)
    recorder.finish(make_result(standard_proposals()[:2], beyond=beyond), corpus)
    recorder.close()
    rows = store.beyond_pairs(run_id)
    assert [(r.rank, r.lost, r.known, r.gold, r.beyond) for r in rows] == [
        (3, "cde", "bce", None, True), (4, "dé", "abe", False, True),
    ]  # fmt: skip
    assert rows[0].alternatives == [("bce", 0.4), ("abe", 0.1)]
    assert [r.beyond for r in store.proposals(run_id)] == [False, False]
    # Judged as any pair; the proposals' counts and the run's figures stay the proposals' own.
    store.set_judgment(run_id, 2, 2, ACCEPTED)
    assert [r.status for r in store.beyond_pairs(run_id)] == [ACCEPTED, OPEN]
    assert store.review_counts(run_id) == {ACCEPTED: 0, REJECTED: 0, UNSURE: 0, OPEN: 2}
    assert store.beyond_counts(run_id) == (2, 1) and store.run(run_id).n_proposals == 2
    # A result recorded again (a refinement in place) replaces them; its decisions stay.
    recorder = RunRecorder(db, run_id)
    recorder.finish(make_result(standard_proposals()), corpus)
    recorder.close()
    assert store.beyond_pairs(run_id) == [] and store.judgments(run_id)[(2, 2)] == ACCEPTED
    assert store.beyond_counts(run_id) == (0, 0)


def test_pinned_sign_values_are_replaced_per_sign_copied_to_a_branch_and_marked_unknown(store: Store, corpus: Corpus):
    run_id, branch = new_run(store, corpus), new_run(store, corpus)
    store.set_pins(run_id, "a", ["k", "g"])
    store.set_pins(run_id, "é", ["e"])
    assert store.pins(run_id) == [("a", "k"), ("a", "g"), ("é", "e")]  # by sign, in the order pinned
    store.set_pins(run_id, "a", ["kh"])  # a sign's values are replaced whole
    store.set_pins(run_id, "é", [UNKNOWN_VALUE])
    assert store.pins(run_id) == [("a", "kh"), ("é", UNKNOWN_VALUE)]
    with pytest.raises(ValueError, match="marked unknown"):
        store.set_pins(run_id, "a", ["k", UNKNOWN_VALUE])
    store.copy_pins(run_id, branch)
    store.set_pins(run_id, "a", [])  # unpinned on the run; the branch keeps its copy
    assert store.pins(run_id) == [("é", UNKNOWN_VALUE)] and store.pins(branch) == [("a", "kh"), ("é", UNKNOWN_VALUE)]
    with pytest.raises(StoreError):
        store.set_pins(999, "a", ["k"])
