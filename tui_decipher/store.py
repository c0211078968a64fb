"""The run store: one SQLite database of runs, their metrics, proposals and review decisions.

It lives in the user data dir (platformdirs; `$DECIPHER_DATA_DIR` or `--data-dir` override).
`decipher run` and the TUI both write here, possibly at once, so the database uses WAL and a
busy timeout, every write is its own short transaction, and each review decision is committed
the moment it is made. The schema is versioned through `PRAGMA user_version`; a database from a
newer program, or one that is not a database at all, is reported and left untouched.

Depends on the engine only; never imports a UI library.
"""

from __future__ import annotations

import json
import logging
import math
import os
import socket
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .engine.alignment import Alignment, Segment, attention_path
from .engine.corpus import Corpus, graphemes, word_text, word_tokens
from .engine.evaluation import ProposalScores
from .engine.events import ChannelStep, EpochEnd, RoundEnd, RunStarted
from .engine.methods import DecipherResult
from .engine.review import ACCEPTED, REJECTED, UNSURE

if TYPE_CHECKING:  # annotations only: the store itself never loads torch's checkpoint reader
    from .engine.checkpoint import Checkpoint

log = logging.getLogger(__name__)  # the run's log (run.log in its folder, session.py)

# A run's row with its proposals counted (the user's metric, `RunRow.proposal_scores`); by the
# proposals' primary key (run_id, rank), so a list of runs costs an index range a run.
_RUNS_QUERY = """SELECT runs.*,
    (SELECT COUNT(*) FROM proposals p WHERE p.run_id = runs.id) AS n_proposals,
    (SELECT COUNT(DISTINCT p.lost_index) FROM proposals p WHERE p.run_id = runs.id AND p.gold = 1) AS n_correct
    FROM runs"""

DB_NAME = "decipher.sqlite3"
BUSY_TIMEOUT_MS = 10_000

# Review statuses. "open" is stored as the absence of a decision row.
OPEN = "open"  # a proposal without a decision; decisions are the engine's ACCEPTED / REJECTED / UNSURE
DECIDED = (ACCEPTED, REJECTED, UNSURE)  # what a decision row may hold
STATUSES = (OPEN, *DECIDED)

# Run statuses.
RUNNING, FINISHED, CANCELLED, FAILED, INTERRUPTED = "running", "finished", "cancelled", "failed", "interrupted"


UNKNOWN_VALUE = "?"  # a pinned sign marked unknown: listed and exported, never a constraint


class StoreError(RuntimeError):
    """The database cannot be used (newer schema, corrupted, unwritable); the message says why."""


# Each migration takes the schema from version i to i + 1. Never edit a released one: add another.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        created_at REAL NOT NULL,
        finished_at REAL,
        status TEXT NOT NULL,
        corpus TEXT NOT NULL,
        corpus_path TEXT NOT NULL,
        preset TEXT,
        lost_code TEXT NOT NULL,
        known_code TEXT NOT NULL,
        config_json TEXT NOT NULL,
        stats_json TEXT NOT NULL DEFAULT '{}',
        has_gold INTEGER NOT NULL DEFAULT 0,
        n_cognates INTEGER,
        device TEXT,
        pid INTEGER,
        host TEXT,
        rounds_planned INTEGER,
        accuracy REAL,
        accuracy_model REAL,
        n_evaluated INTEGER,
        seconds REAL,
        phase_json TEXT,
        objective REAL,
        run_dir TEXT,
        error TEXT
    );
    CREATE TABLE rounds (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        restart INTEGER NOT NULL,
        round INTEGER NOT NULL,
        demand INTEGER NOT NULL,
        cost_kind TEXT NOT NULL,
        loss REAL NOT NULL,
        flow_cost REAL NOT NULL,
        flow INTEGER NOT NULL,
        accuracy REAL,
        accuracy_model REAL,
        seconds REAL NOT NULL,
        PRIMARY KEY (run_id, restart, round)
    );
    CREATE TABLE epochs (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        restart INTEGER NOT NULL,
        round INTEGER NOT NULL,
        epoch INTEGER NOT NULL,
        loss REAL NOT NULL,
        nll REAL NOT NULL,
        reg REAL NOT NULL,
        seconds REAL NOT NULL,
        PRIMARY KEY (run_id, restart, round, epoch)
    );
    CREATE TABLE proposals (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        rank INTEGER NOT NULL,
        lost_index INTEGER NOT NULL,
        known_index INTEGER NOT NULL,
        lost TEXT NOT NULL,
        known TEXT NOT NULL,
        score REAL NOT NULL,
        cost REAL NOT NULL,
        gold INTEGER,
        gold_known_json TEXT NOT NULL DEFAULT '[]',
        alternatives_json TEXT NOT NULL DEFAULT '[]',
        attention_json TEXT NOT NULL DEFAULT '[]',
        PRIMARY KEY (run_id, rank)
    );
    CREATE INDEX proposals_pair ON proposals (run_id, lost_index, known_index);
    CREATE TABLE decisions (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        lost_index INTEGER NOT NULL,
        known_index INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('accepted', 'rejected')),
        decided_at REAL NOT NULL,
        PRIMARY KEY (run_id, lost_index, known_index)
    );
    CREATE TABLE char_map (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        lost_symbol TEXT NOT NULL,
        rank INTEGER NOT NULL,
        known_symbol TEXT NOT NULL,
        prob REAL NOT NULL,
        PRIMARY KEY (run_id, lost_symbol, rank)
    );
    """,
    # 2: what a method that decides its own settings (auto) chose, and why.
    """
    ALTER TABLE runs ADD COLUMN decisions_json TEXT NOT NULL DEFAULT '{}';
    """,
    # 3: what the field's formats carry beside the words, for exports to them: each word's symbols
    # (a segment may be several characters) and concept, and the two languages' names and Glottocodes.
    """
    ALTER TABLE proposals ADD COLUMN lost_tokens TEXT NOT NULL DEFAULT '';
    ALTER TABLE proposals ADD COLUMN known_tokens TEXT NOT NULL DEFAULT '';
    ALTER TABLE proposals ADD COLUMN lost_gloss TEXT NOT NULL DEFAULT '';
    ALTER TABLE proposals ADD COLUMN known_gloss TEXT NOT NULL DEFAULT '';
    ALTER TABLE runs ADD COLUMN languages_json TEXT NOT NULL DEFAULT '{}';
    """,
    # 4: a third decision, "unsure" (kept and exported, never a constraint). SQLite cannot alter a
    # CHECK, so the table is rebuilt; nothing references it, so dropping the old one is safe.
    """
    CREATE TABLE decisions_new (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        lost_index INTEGER NOT NULL,
        known_index INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('accepted', 'rejected', 'unsure')),
        decided_at REAL NOT NULL,
        PRIMARY KEY (run_id, lost_index, known_index)
    );
    INSERT INTO decisions_new (run_id, lost_index, known_index, status, decided_at)
        SELECT run_id, lost_index, known_index, status, decided_at FROM decisions;
    DROP TABLE decisions;
    ALTER TABLE decisions_new RENAME TO decisions;
    """,
    # 5: the character channel's training curve, a loss a step, which the Progress screen plots
    # for runs with no EM rounds (channel, auto) as it plots the M-step's epochs. `seq` orders a
    # run's steps across its phases (auto's search, probe and fit) and the refinements after it.
    """
    CREATE TABLE channel_steps (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        restart INTEGER NOT NULL,
        step INTEGER NOT NULL,
        objective TEXT NOT NULL,
        loss REAL NOT NULL,
        seconds REAL NOT NULL,
        PRIMARY KEY (run_id, seq)
    );
    """,
    # 6: each proposal's reading under its run's model (engine/alignment.py), segment by segment:
    # [[lost symbols, known symbols, probability], ...]. Runs recorded before read none ([]).
    """
    ALTER TABLE proposals ADD COLUMN alignment_json TEXT NOT NULL DEFAULT '[]';
    """,
    # 7: sign values the decipherer pinned on a run (the Key screen, `decipher run --refine RUN
    # --known-signs FILE`): a lost symbol and the known letters it writes as typed, or UNKNOWN_VALUE
    # for a sign marked unknown (kept and listed, never a constraint). A refinement holds them.
    """
    CREATE TABLE pinned_signs (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        lost_symbol TEXT NOT NULL,
        value TEXT NOT NULL,
        pinned_at REAL NOT NULL,
        PRIMARY KEY (run_id, lost_symbol, value)
    );
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)


def default_path(data_dir: Path) -> Path:
    return data_dir / DB_NAME


@dataclass
class RunRow:
    """One run as listed in the Runs screen."""

    id: int
    created_at: float
    status: str
    corpus: str
    preset: str | None
    lost_code: str
    known_code: str
    has_gold: bool
    accuracy: float | None
    accuracy_model: float | None
    n_evaluated: int | None
    seconds: float | None
    rounds_planned: int | None
    corpus_path: str
    config: dict[str, Any]
    stats: dict[str, int]
    run_dir: str | None
    error: str | None
    pid: int | None
    host: str | None
    n_cognates: int | None
    device: str | None
    decisions: dict[str, Any] = field(default_factory=dict)  # what auto chose, with its `line`; {} otherwise
    # The source's name and Glottocode of the lost and known languages, when it gives them:
    # {code: {"name": ..., "glottocode": ...}}; {} for a `.cog` corpus and for runs before schema 3.
    languages: dict[str, dict[str, str]] = field(default_factory=dict)
    n_proposals: int = 0  # its proposals, and of them the gold pairs (counted from the proposals table)
    n_correct: int = 0

    def proposal_scores(self) -> ProposalScores | None:
        """Its proposals judged as a user gets them (precision, recall, F1 at its own D); None
        without gold or before it has proposals."""
        if not self.has_gold or self.accuracy is None:
            return None
        return ProposalScores(self.n_proposals, self.n_correct, self.n_evaluated or 0)


@dataclass
class ProposalRow:
    """A proposed cognate pair with its review status."""

    rank: int
    lost_index: int
    known_index: int
    lost: str
    known: str
    score: float
    cost: float
    gold: bool | None
    status: str = OPEN
    gold_known: list[str] = field(default_factory=list)
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    attention: list[list[float]] = field(default_factory=list)
    # Each word's symbols (one per segment of a CLDF / EDICTOR source; a run recorded before schema 3
    # reads its grapheme clusters) and its concept in the source ("" when it has none).
    lost_tokens: list[str] = field(default_factory=list)
    known_tokens: list[str] = field(default_factory=list)
    lost_gloss: str = ""
    known_gloss: str = ""
    # The method's reading of the pair (engine/alignment.py); a neural run recorded before schema 6
    # reads its attention's path, any other run recorded before it none.
    alignment: Alignment = field(default_factory=list)


@dataclass
class RoundRow:
    restart: int
    round: int
    demand: int
    cost_kind: str
    loss: float
    flow_cost: float
    flow: int
    accuracy: float | None
    accuracy_model: float | None
    seconds: float


class Store:
    """A connection to the run database. One per thread: SQLite connections are not shared."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{self.path.parent}: cannot create the data folder ({exc.strerror})") from None
        # No plain open() of the database file here, ever: closing any descriptor of the file drops
        # this process's POSIX locks on it, and another process could then delete the WAL from
        # under our connections (a "malformed" database). Garbage files are caught by SQLite.
        try:
            self.conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open the run database ({exc})") from None
        try:
            self.conn.row_factory = sqlite3.Row
            self.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self.conn.execute("PRAGMA foreign_keys = ON")
            self._check_version()
            self._ensure_wal()
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            if "not a database" in str(exc):
                raise StoreError(f"{self.path}: not an SQLite database (corrupted?); left untouched") from None
            raise StoreError(f"{self.path}: not a usable run database ({exc}); left untouched") from None
        except StoreError:
            self.conn.close()
            raise

    def _ensure_wal(self) -> None:
        """Switch a new database to WAL (persistent, so later opens only read it). Changing the
        journal mode does not wait on the busy handler, so processes creating the database at the
        same moment retry here until the busy timeout."""
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                if self._scalar("PRAGMA journal_mode").lower() != "wal":
                    self.conn.execute("PRAGMA journal_mode = WAL").fetchall()
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _check_version(self) -> None:
        """Refuse, before writing anything, a database from a newer program or from another program."""
        # One statement, one snapshot: another process may be creating the database right now.
        version, n_tables = self.conn.execute(
            "SELECT user_version, (SELECT COUNT(*) FROM sqlite_master) FROM pragma_user_version"
        ).fetchall()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: schema version {version} is newer than this program's ({SCHEMA_VERSION}); "
                "upgrade tui-decipher; the database was left untouched"
            )
        # Version 0 with tables: someone else's SQLite file (ours sets the version with the tables).
        if version == 0 and n_tables > 0:
            raise StoreError(f"{self.path}: not a usable run database (it holds another program's tables); "
                             "left untouched")

    def _migrate(self) -> None:
        version = self._scalar("PRAGMA user_version")
        for target in range(version, SCHEMA_VERSION):
            # BEGIN IMMEDIATE, then re-read the version: another process may have migrated meanwhile.
            self.conn.execute("BEGIN IMMEDIATE")
            with self.transaction() as conn:
                if self._scalar("PRAGMA user_version") != target:
                    continue
                for statement in MIGRATIONS[target].split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {target + 1}")

    def _scalar(self, sql: str, params: tuple = ()) -> Any:
        # fetchall, never fetchone: a statement left un-finished keeps its read snapshot open in WAL
        # mode, and this connection would stop seeing other processes' writes.
        return self.conn.execute(sql, params).fetchall()[0][0]

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on error (executescript manages its own BEGIN)."""
        try:
            yield self.conn
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    def _write(self, sql: str, params: tuple | dict = ()) -> sqlite3.Cursor:
        self.conn.execute("BEGIN IMMEDIATE")
        with self.transaction():
            return self.conn.execute(sql, params)

    # --- runs -----------------------------------------------------------------------------

    def create_run(
        self,
        corpus: Corpus,
        corpus_path: str,
        preset: str | None,
        config: dict[str, Any],
        rounds_planned: int,
        run_dir: str | None = None,
    ) -> int:
        """Record a new run as running; returns its id."""
        languages = {
            lang.id: {"name": lang.name, "glottocode": lang.glottocode}
            for lang in (corpus.language(corpus.lost_code), corpus.language(corpus.known_code))
            if lang.name or lang.glottocode
        }
        cur = self._write(
            """INSERT INTO runs (created_at, status, corpus, corpus_path, preset, lost_code, known_code,
                   config_json, stats_json, has_gold, pid, host, rounds_planned, run_dir, languages_json)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                time.time(), RUNNING, corpus.name, corpus_path, preset, corpus.lost_code, corpus.known_code,
                json.dumps(config), json.dumps(corpus.stats()), int(corpus.has_gold), os.getpid(),
                socket.gethostname(), rounds_planned, run_dir, json.dumps(languages, ensure_ascii=False),
            ),
        )  # fmt: skip
        return int(cur.lastrowid)

    def record_started(self, run_id: int, event: RunStarted) -> None:
        self._write("UPDATE runs SET device = ?, n_cognates = ? WHERE id = ?", (event.device, event.n_cognates, run_id))

    def record_round(self, run_id: int, event: RoundEnd, epochs: list[EpochEnd]) -> None:
        """A finished EM round and the epochs of its M-step, in one transaction."""
        self.conn.execute("BEGIN IMMEDIATE")
        with self.transaction() as conn:
            conn.execute(
                """INSERT OR REPLACE INTO rounds VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    run_id, event.restart, event.round, event.demand, event.cost_kind, event.loss,
                    event.flow_cost, event.flow, event.accuracy, event.accuracy_model, event.seconds,
                ),
            )  # fmt: skip
            conn.executemany(
                "INSERT OR REPLACE INTO epochs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(run_id, e.restart, e.round, e.epoch, e.loss, e.nll, e.reg, e.seconds) for e in epochs],
            )

    def record_result(self, run_id: int, result: DecipherResult, corpus: Corpus) -> None:
        """The finished (or cancelled) run: its figures, proposals and character map."""
        rows = []
        for rank, p in enumerate(result.proposals, start=1):
            gold_known = [word_text(corpus.known_words[j]) for j in sorted(corpus.gold.get(p.lost, ()))]
            alternatives = [(word_text(corpus.known_words[j]), round(s, 6)) for j, s in p.alternatives]
            lost, known = corpus.lost_words[p.lost], corpus.known_words[p.known]
            rows.append(
                (
                    run_id, rank, p.lost, p.known, word_text(lost), word_text(known), p.score, p.cost,
                    None if p.gold is None else int(p.gold), json.dumps(gold_known, ensure_ascii=False),
                    json.dumps(alternatives, ensure_ascii=False), json.dumps(p.attention),
                    word_tokens(lost), word_tokens(known), corpus.lost_gloss(p.lost), corpus.known_gloss(p.known),
                    json.dumps([seg.as_json() for seg in p.alignment], ensure_ascii=False),
                )
            )  # fmt: skip
        char_rows = [
            (run_id, lost, rank, known, prob)
            for lost, tops in result.char_map.items()
            for rank, (known, prob) in enumerate(tops, start=1)
        ]
        self.conn.execute("BEGIN IMMEDIATE")
        with self.transaction() as conn:
            conn.execute("DELETE FROM proposals WHERE run_id = ?", (run_id,))
            conn.executemany(
                """INSERT INTO proposals (run_id, rank, lost_index, known_index, lost, known, score, cost, gold,
                       gold_known_json, alternatives_json, attention_json, lost_tokens, known_tokens, lost_gloss,
                       known_gloss, alignment_json)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                rows,
            )
            conn.execute("DELETE FROM char_map WHERE run_id = ?", (run_id,))
            conn.executemany("INSERT INTO char_map VALUES (?, ?, ?, ?, ?)", char_rows)
            conn.execute(
                """UPDATE runs SET status = ?, finished_at = ?, accuracy = ?, accuracy_model = ?,
                       n_evaluated = ?, seconds = ?, phase_json = ?, objective = ?, device = ?, n_cognates = ?,
                       decisions_json = ?
                   WHERE id = ?""",
                (
                    result.status, time.time(), result.accuracy, result.accuracy_model,
                    result.n_evaluated, result.seconds, json.dumps(result.phase_seconds), result.objective,
                    result.device, result.n_cognates, json.dumps(result.decisions, ensure_ascii=False), run_id,
                ),
            )  # fmt: skip

    def mark_running(self, run_id: int, rounds_planned: int | None = None) -> None:
        """A resumed or refined run: running again, in this process (a refinement plans more rounds)."""
        self._write(
            "UPDATE runs SET status = ?, pid = ?, host = ?, error = NULL, finished_at = NULL,"
            " rounds_planned = COALESCE(?, rounds_planned) WHERE id = ?",
            (RUNNING, os.getpid(), socket.gethostname(), rounds_planned, run_id),
        )

    def set_run_dir(self, run_id: int, run_dir: str) -> None:
        self._write("UPDATE runs SET run_dir = ? WHERE id = ?", (run_dir, run_id))

    def mark_failed(self, run_id: int, error: str, status: str = FAILED) -> None:
        self._write(
            "UPDATE runs SET status = ?, error = ?, finished_at = ? WHERE id = ?", (status, error, time.time(), run_id)
        )

    def delete_run(self, run_id: int) -> None:
        """Remove a run and everything recorded for it (its decisions included)."""
        self._write("DELETE FROM runs WHERE id = ?", (run_id,))

    def runs(self) -> list[RunRow]:
        """All runs, newest first. A run still marked running whose process is gone shows as interrupted."""
        rows = self.conn.execute(f"{_RUNS_QUERY} ORDER BY created_at DESC, id DESC").fetchall()
        return [self._run_row(r) for r in rows]

    def run(self, run_id: int) -> RunRow | None:
        rows = self.conn.execute(f"{_RUNS_QUERY} WHERE id = ?", (run_id,)).fetchall()
        return self._run_row(rows[0]) if rows else None

    def find_run(self, ref: str | int) -> RunRow:
        """The run a command names: its id in this store, or its run folder. StoreError if none."""
        text = str(ref).strip()
        if text.isdigit():
            row = self.run(int(text))
            if row is None:
                raise StoreError(f"{self.path}: no run #{text} (`decipher runs list` shows the runs)")
            return row
        folder = Path(text).expanduser().resolve()
        for row in self.runs():
            if row.run_dir and Path(row.run_dir).resolve() == folder:
                return row
        what = "a folder" if folder.is_dir() else "no such folder"
        raise StoreError(f"{text}: {what}, not a run in {self.path} (give a run id or a run folder)")

    @staticmethod
    def _run_row(r: sqlite3.Row) -> RunRow:
        status = r["status"]
        if status == RUNNING and r["host"] == socket.gethostname() and not _pid_alive(r["pid"]):
            status = INTERRUPTED
        return RunRow(
            id=r["id"], created_at=r["created_at"], status=status, corpus=r["corpus"], preset=r["preset"],
            lost_code=r["lost_code"], known_code=r["known_code"], has_gold=bool(r["has_gold"]),
            accuracy=r["accuracy"], accuracy_model=r["accuracy_model"], n_evaluated=r["n_evaluated"],
            seconds=r["seconds"], rounds_planned=r["rounds_planned"], corpus_path=r["corpus_path"],
            config=json.loads(r["config_json"]), stats=json.loads(r["stats_json"]), run_dir=r["run_dir"],
            error=r["error"], pid=r["pid"], host=r["host"], n_cognates=r["n_cognates"], device=r["device"],
            n_proposals=r["n_proposals"], n_correct=r["n_correct"],
            decisions=json.loads(r["decisions_json"]), languages=json.loads(r["languages_json"]),
        )  # fmt: skip

    def rounds(self, run_id: int) -> list[RoundRow]:
        rows = self.conn.execute(
            "SELECT * FROM rounds WHERE run_id = ? ORDER BY restart, round", (run_id,)
        ).fetchall()
        return [RoundRow(*tuple(r)[1:]) for r in rows]  # columns after run_id, in RoundRow's field order

    def epoch_losses(self, run_id: int) -> list[float]:
        rows = self.conn.execute(
            "SELECT loss FROM epochs WHERE run_id = ? ORDER BY restart, round, epoch", (run_id,)
        ).fetchall()
        return [r[0] for r in rows]

    def record_channel_steps(self, run_id: int, steps: list[ChannelStep]) -> None:
        """Channel training steps, after the run's recorded ones (a refinement's follow its run's)."""
        if not steps:
            return
        self.conn.execute("BEGIN IMMEDIATE")
        with self.transaction() as conn:
            last = conn.execute("SELECT COALESCE(MAX(seq), -1) FROM channel_steps WHERE run_id = ?", (run_id,))
            first = int(last.fetchone()[0]) + 1
            conn.executemany(
                "INSERT INTO channel_steps VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(run_id, first + i, e.restart, e.step, e.label, e.loss, e.seconds) for i, e in enumerate(steps)],
            )

    def channel_losses(self, run_id: int) -> list[tuple[str, float]]:
        """The run's channel training curve: (`ChannelStep.label`, loss) a step, in the order trained."""
        rows = self.conn.execute(
            "SELECT objective, loss FROM channel_steps WHERE run_id = ? ORDER BY seq", (run_id,)
        ).fetchall()
        return [(r[0], r[1]) for r in rows]

    # --- proposals and decisions ------------------------------------------------------------

    def proposals(self, run_id: int) -> list[ProposalRow]:
        """The run's proposals by rank (best first) with their review status."""
        rows = self.conn.execute(
            """SELECT p.*, d.status AS decision FROM proposals p
               LEFT JOIN decisions d ON d.run_id = p.run_id AND d.lost_index = p.lost_index
                    AND d.known_index = p.known_index
               WHERE p.run_id = ? ORDER BY p.rank""",
            (run_id,),
        ).fetchall()
        return [_proposal_row(r) for r in rows]

    def set_decision(self, run_id: int, lost_index: int, known_index: int, status: str) -> None:
        """Record a review decision now (committed before returning); OPEN clears it."""
        self.set_decisions(run_id, [(lost_index, known_index, status)])

    def set_decisions(self, run_id: int, items: Iterable[tuple[int, int, str]]) -> None:
        """Record many (lost index, known index, status) decisions in one transaction: all or none.
        OPEN clears a pair's decision; a later item for the same pair wins."""
        items = list(items)
        for _, _, status in items:
            if status not in STATUSES:
                raise ValueError(f"unknown review status {status!r}")
        now = time.time()
        self.conn.execute("BEGIN IMMEDIATE")
        with self.transaction() as conn:
            for lost_index, known_index, status in items:
                if status == OPEN:
                    conn.execute(
                        "DELETE FROM decisions WHERE run_id = ? AND lost_index = ? AND known_index = ?",
                        (run_id, lost_index, known_index),
                    )
                else:
                    conn.execute(
                        "INSERT OR REPLACE INTO decisions VALUES (?, ?, ?, ?, ?)",
                        (run_id, lost_index, known_index, status, now),
                    )

    def decisions(self, run_id: int) -> dict[tuple[int, int], str]:
        rows = self.conn.execute(
            "SELECT lost_index, known_index, status FROM decisions WHERE run_id = ?", (run_id,)
        ).fetchall()
        return {(r[0], r[1]): r[2] for r in rows}

    def review_counts(self, run_id: int) -> dict[str, int]:
        """How many of the run's proposals are accepted, rejected, unsure and still open."""
        total = self._scalar("SELECT COUNT(*) FROM proposals WHERE run_id = ?", (run_id,))
        counts = dict.fromkeys(DECIDED, 0)
        for status, n in self.conn.execute(
            """SELECT d.status, COUNT(*) FROM decisions d JOIN proposals p ON p.run_id = d.run_id
                   AND p.lost_index = d.lost_index AND p.known_index = d.known_index
               WHERE d.run_id = ? GROUP BY d.status""",
            (run_id,),
        ):
            counts[status] = n
        counts[OPEN] = total - sum(counts.values())
        return counts

    def copy_decisions(self, from_run: int, to_run: int) -> None:
        """Give a run (a branch) another run's decisions, in one transaction."""
        self._write(
            "INSERT OR REPLACE INTO decisions SELECT ?, lost_index, known_index, status, decided_at"
            " FROM decisions WHERE run_id = ?",
            (to_run, from_run),
        )

    # --- pinned sign values -------------------------------------------------------------------

    def pins(self, run_id: int) -> list[tuple[str, str]]:
        """The run's pinned sign values as (lost symbol, value), by symbol; a value is the known
        letters as typed, or UNKNOWN_VALUE for a sign marked unknown."""
        rows = self.conn.execute(
            "SELECT lost_symbol, value FROM pinned_signs WHERE run_id = ? ORDER BY lost_symbol, pinned_at, value",
            (run_id,),
        ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def set_pins(self, run_id: int, symbol: str, values: Iterable[str]) -> None:
        """Replace a sign's pinned values (none: unpin it), in one transaction committed on return.
        UNKNOWN_VALUE alone marks it unknown."""
        values = list(dict.fromkeys(values))
        if UNKNOWN_VALUE in values and len(values) > 1:
            raise ValueError(f"{symbol}: a sign marked unknown ({UNKNOWN_VALUE}) has no other value")
        if self.run(run_id) is None:
            raise StoreError(f"no run #{run_id}")
        now = time.time()
        self.conn.execute("BEGIN IMMEDIATE")
        with self.transaction() as conn:
            conn.execute("DELETE FROM pinned_signs WHERE run_id = ? AND lost_symbol = ?", (run_id, symbol))
            conn.executemany("INSERT INTO pinned_signs VALUES (?, ?, ?, ?)",
                             [(run_id, symbol, v, now + n * 1e-6) for n, v in enumerate(values)])  # fmt: skip

    def copy_pins(self, from_run: int, to_run: int) -> None:
        """Give a run (a branch) another run's pinned sign values."""
        self._write(
            "INSERT OR REPLACE INTO pinned_signs SELECT ?, lost_symbol, value, pinned_at FROM pinned_signs"
            " WHERE run_id = ?",
            (to_run, from_run),
        )

    def char_map(self, run_id: int) -> dict[str, list[tuple[str, float]]]:
        rows = self.conn.execute(
            "SELECT lost_symbol, known_symbol, prob FROM char_map WHERE run_id = ? ORDER BY lost_symbol, rank",
            (run_id,),
        ).fetchall()
        out: dict[str, list[tuple[str, float]]] = {}
        for lost, known, prob in rows:
            out.setdefault(lost, []).append((known, prob))
        return out


def _proposal_row(r: sqlite3.Row) -> ProposalRow:
    """A proposals row (joined with its decision) as a ProposalRow."""
    lost_tokens, known_tokens = _tokens(r["lost_tokens"], r["lost"]), _tokens(r["known_tokens"], r["known"])
    attention = json.loads(r["attention_json"])
    alignment = [Segment.from_json(seg) for seg in json.loads(r["alignment_json"])]
    if not alignment and attention:  # a neural run recorded before schema 6: its attention's path
        alignment = attention_path(lost_tokens, known_tokens, attention)
    return ProposalRow(
        rank=r["rank"], lost_index=r["lost_index"], known_index=r["known_index"], lost=r["lost"],
        known=r["known"], score=r["score"], cost=r["cost"],
        gold=None if r["gold"] is None else bool(r["gold"]), status=r["decision"] or OPEN,
        gold_known=json.loads(r["gold_known_json"]),
        alternatives=[tuple(a) for a in json.loads(r["alternatives_json"])],
        attention=attention, lost_tokens=lost_tokens, known_tokens=known_tokens,
        lost_gloss=r["lost_gloss"], known_gloss=r["known_gloss"], alignment=alignment,
    )  # fmt: skip


def _tokens(stored: str, text: str) -> list[str]:
    """A word's symbols as stored (space-separated), or, for a run recorded before schema 3, the
    grapheme clusters of its text (what its `.cog` reader made of it)."""
    return stored.split(" ") if stored else list(graphemes(text))


def _pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class RunRecorder:
    """An engine event callback that records a run into the store as it goes, then forwards.

    Created in the thread that runs the engine (it opens its own connection there). Rounds and
    their epochs are committed at each round's end, so a crash keeps every finished round; channel
    steps every CHANNEL_BATCH steps, at a round's end and when the run ends.
    """

    CHANNEL_BATCH = 200  # channel steps a write: a step can take milliseconds, a commit as long

    def __init__(self, store_path: Path, run_id: int, forward: Any = None) -> None:
        self.store_path, self.run_id, self.forward = store_path, run_id, forward
        self._store: Store | None = None
        self._epochs: list[EpochEnd] = []
        self._channel: list[ChannelStep] = []

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.store_path)
        return self._store

    def __call__(self, event: object) -> None:
        try:
            self._record(event)
        except (sqlite3.Error, StoreError, OSError) as exc:
            # A progress point is worth a log line, never the run: the result is recorded at its end.
            log.warning("run #%s: could not record %s: %s: %s", self.run_id, type(event).__name__,
                        type(exc).__name__, exc)  # fmt: skip
        if self.forward is not None:
            self.forward(event)

    def _record(self, event: object) -> None:
        if isinstance(event, RunStarted):
            self.store.record_started(self.run_id, event)
        elif isinstance(event, EpochEnd):
            if math.isfinite(event.loss):  # a point a plot can draw; NaN or inf is no measurement
                self._epochs.append(event)
        elif isinstance(event, ChannelStep):
            if math.isfinite(event.loss):
                self._channel.append(event)
            if len(self._channel) >= self.CHANNEL_BATCH:
                self._flush_channel()
        elif isinstance(event, RoundEnd):
            self._flush_channel()
            self.store.record_round(self.run_id, event, self._epochs)
            self._epochs = []

    def _flush_channel(self) -> None:
        steps, self._channel = self._channel, []
        self.store.record_channel_steps(self.run_id, steps)

    def _flush_channel_quietly(self) -> None:
        """The last steps of a run that failed or stopped: a plot's points, never worth an error
        that would hide the run's own."""
        with suppress(sqlite3.Error, StoreError):
            self._flush_channel()

    def catch_up(self, checkpoint: Checkpoint | None) -> None:
        """Record the checkpointed rounds the store lacks, before a run continues from `checkpoint`.

        The engine checkpoints a round just before reporting it, so a run killed between the two
        resumes past a round the store never recorded. Its epochs are gone; the round's row is not.
        """
        if checkpoint is None:
            return
        restart = checkpoint.restart
        have = {(r.restart, r.round) for r in self.store.rounds(self.run_id)}
        elapsed = 0.0  # RoundEnd.seconds is time since the run began; a checkpoint keeps each round's own
        for m in checkpoint.rounds:
            elapsed += m["seconds"]
            if (restart, m["round"]) not in have:
                fields = {k: m[k] for k in ("demand", "cost_kind", "loss", "flow_cost", "flow", "accuracy",
                                            "accuracy_model", "phase_seconds", "kept_previous")}  # fmt: skip
                event = RoundEnd(restart, m["round"], checkpoint.config["rounds"], seconds=elapsed, **fields)
                self.store.record_round(self.run_id, event, [])

    def finish(self, result: DecipherResult, corpus: Corpus) -> None:
        self._flush_channel()
        self.store.record_result(self.run_id, result, corpus)

    def fail(self, error: str) -> None:
        self.store.mark_failed(self.run_id, error)
        self._flush_channel_quietly()

    def close(self) -> None:
        self._flush_channel_quietly()
        if self._store is not None:
            self._store.close()
            self._store = None


def round_dicts(rows: list[RoundRow]) -> list[dict[str, Any]]:
    return [asdict(r) for r in rows]
