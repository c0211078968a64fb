"""The store's review tables: a run's proposals and their judgments (stored in the table `decisions`),
its character map, and the sign values pinned on it."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .connection import Connection
from .rows import (
    DECIDED,
    OPEN,
    PAIR_COLUMNS,
    STATUSES,
    UNKNOWN_VALUE,
    ProposalRow,
    RankedPair,
    RunRow,
    StoreError,
    proposal_row,
)


class ReviewTables(Connection):
    """Proposals, judgments, the character map and pins (a part of `Store`, which opens the connection)."""

    if TYPE_CHECKING:  # the runs' table's, which `Store` also is (store/runs.py)

        def run(self, run_id: int) -> RunRow | None: ...

    def proposals(self, run_id: int) -> list[ProposalRow]:
        """The run's proposals by rank (best first) with their review status."""
        return self._pairs("proposals", run_id)

    def beyond_pairs(self, run_id: int) -> list[ProposalRow]:
        """The run's pairs past its D that the evidence still allows, by rank (after the
        proposals'), with their review status; none for a run without a D range."""
        return self._pairs("beyond_pairs", run_id)

    def _pairs(self, table: str, run_id: int) -> list[ProposalRow]:
        """The rows of a table of pairs (proposals, beyond_pairs) by rank, joined with their judgments."""
        rows = self.conn.execute(
            f"""SELECT p.*, d.status AS decision FROM {table} p
               LEFT JOIN decisions d ON d.run_id = p.run_id AND d.lost_index = p.lost_index
                    AND d.known_index = p.known_index
               WHERE p.run_id = ? ORDER BY p.rank""",
            (run_id,),
        ).fetchall()
        return [proposal_row(r, beyond=table == "beyond_pairs") for r in rows]

    def set_judgment(self, run_id: int, lost_index: int, known_index: int, status: str) -> None:
        """Record a judgment now (committed before returning); OPEN clears it."""
        self.set_judgments(run_id, [(lost_index, known_index, status)])

    def set_judgments(self, run_id: int, items: Iterable[tuple[int, int, str]]) -> None:
        """Record many (lost index, known index, status) judgments in one transaction: all or none.
        OPEN clears a pair's judgment; a later item for the same pair wins."""
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

    def judgments(self, run_id: int) -> dict[tuple[int, int], str]:
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

    def beyond_counts(self, run_id: int) -> tuple[int, int]:
        """The run's pairs past D and how many of them are judged (any judgment)."""
        row = self.conn.execute(
            """SELECT COUNT(*), COUNT(d.status) FROM beyond_pairs p
               LEFT JOIN decisions d ON d.run_id = p.run_id AND d.lost_index = p.lost_index
                    AND d.known_index = p.known_index
               WHERE p.run_id = ?""",
            (run_id,),
        ).fetchone()
        return int(row[0]), int(row[1])

    def copy_judgments(self, from_run: int, to_run: int) -> None:
        """Give a run (a branch) another run's judgments, in one transaction."""
        self._write(
            "INSERT OR REPLACE INTO decisions SELECT ?, lost_index, known_index, status, decided_at"
            " FROM decisions WHERE run_id = ?",
            (to_run, from_run),
        )

    def ranking(self, run_id: int) -> list[RankedPair]:
        """The run's proposals then its pairs past D, by rank, as few columns as settling D reads
        (session/settled_demand.py): on the full Ugaritic list the whole rows take most of a second."""
        rows = self.conn.execute(
            """SELECT p.rank, p.lost_index, p.score, p.gold, d.status, p.beyond FROM (
                   SELECT run_id, rank, lost_index, known_index, score, gold, 0 AS beyond FROM proposals
                   UNION ALL
                   SELECT run_id, rank, lost_index, known_index, score, gold, 1 AS beyond FROM beyond_pairs
               ) p LEFT JOIN decisions d ON d.run_id = p.run_id AND d.lost_index = p.lost_index
                    AND d.known_index = p.known_index
               WHERE p.run_id = ? ORDER BY p.rank""",
            (run_id,),
        ).fetchall()
        return [RankedPair(r[0], r[1], r[2], None if r[3] is None else bool(r[3]), r[4] or OPEN, bool(r[5]))
                for r in rows]  # fmt: skip

    def recut(self, run_id: int, demand: int, decisions: dict[str, Any]) -> None:
        """Move a run's cut between its proposals and its pairs past D to `demand` (session/settled_demand.py):
        the pairs ranked 1..demand become its proposals, the rest pairs past D, each keeping its
        rank and decision; its D and `decisions` (auto's, with the settled D) recorded, in one
        transaction. Nothing is trained or scored again: the ranking is the one the run stored."""
        columns = PAIR_COLUMNS
        self.conn.execute("BEGIN IMMEDIATE")
        with self.transaction() as conn:
            for source, target, keep in (("beyond_pairs", "proposals", "<="), ("proposals", "beyond_pairs", ">")):
                where = f"run_id = ? AND rank {keep} ?"
                conn.execute(f"INSERT INTO {target} ({columns}) SELECT {columns} FROM {source} WHERE {where}",
                             (run_id, demand))  # fmt: skip
                conn.execute(f"DELETE FROM {source} WHERE {where}", (run_id, demand))
            conn.execute(
                "UPDATE runs SET n_cognates = ?, decisions_json = ? WHERE id = ?",
                (demand, json.dumps(decisions, ensure_ascii=False), run_id),
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
