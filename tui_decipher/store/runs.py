"""The store's runs: recording a run and its metrics as it goes, finding and listing runs."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.corpora.corpus import Corpus, word_text, word_tokens
from ..engine.run.events import ChannelStep, EpochEnd, RoundEnd, RunStarted
from .connection import Connection
from .rows import FAILED, INTERRUPTED, PAIR_VALUES, RUNNING, RoundRow, RunRow, StoreError

if TYPE_CHECKING:  # annotations only: the store itself never loads torch's checkpoint reader
    from ..engine.methods import DecipherResult
    from ..engine.methods.base import Proposal

# A run's row with its proposals counted (the user's metric, `RunRow.proposal_scores`); by the
# proposals' primary key (run_id, rank), so a list of runs costs an index range a run.
_RUNS_QUERY = """SELECT runs.*,
    (SELECT COUNT(*) FROM proposals p WHERE p.run_id = runs.id) AS n_proposals,
    (SELECT COUNT(DISTINCT p.lost_index) FROM proposals p WHERE p.run_id = runs.id AND p.gold = 1) AS n_correct
    FROM runs"""


class RunTables(Connection):
    """The runs and their metrics (a part of `Store`, which opens the connection)."""

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
        run_id = cur.lastrowid
        assert run_id is not None  # an INSERT's cursor holds the new row's id
        return run_id

    def record_started(self, run_id: int, event: RunStarted) -> None:
        self._write("UPDATE runs SET device = ?, n_cognates = ? WHERE id = ?", (event.device, event.demand, run_id))

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
        """The finished (or cancelled) run: its figures, proposals (and the pairs beyond its D) and
        character map."""
        rows = _pair_rows(run_id, result.proposals, corpus, 1)
        beyond = _pair_rows(run_id, result.beyond, corpus, len(result.proposals) + 1)
        char_rows = [
            (run_id, lost, rank, known, prob)
            for lost, tops in result.char_map.items()
            for rank, (known, prob) in enumerate(tops, start=1)
        ]
        self.conn.execute("BEGIN IMMEDIATE")
        with self.transaction() as conn:
            conn.execute("DELETE FROM proposals WHERE run_id = ?", (run_id,))
            conn.executemany(f"INSERT INTO proposals {PAIR_VALUES}", rows)
            conn.execute("DELETE FROM beyond_pairs WHERE run_id = ?", (run_id,))
            conn.executemany(f"INSERT INTO beyond_pairs {PAIR_VALUES}", beyond)
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
                    result.device, result.demand, json.dumps(result.decisions, ensure_ascii=False), run_id,
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
        if status == RUNNING and r["host"] == socket.gethostname() and not pid_alive(r["pid"]):
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
        rows = self.conn.execute("SELECT * FROM rounds WHERE run_id = ? ORDER BY restart, round", (run_id,)).fetchall()
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


def _pair_rows(run_id: int, pairs: list[Proposal], corpus: Corpus, first_rank: int) -> list[tuple[Any, ...]]:
    """The rows (PAIR_COLUMNS) of `pairs`, ranked from `first_rank` in their order."""
    rows = []
    for rank, p in enumerate(pairs, start=first_rank):
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
    return rows


def pid_alive(pid: int | None) -> bool:
    """Whether a process of this machine with that id is running (another user's counts)."""
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
