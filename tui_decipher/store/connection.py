"""What the store's tables query through: the connection `Store` opens, and its short transactions."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


class Connection:
    """The run database's connection and its transactions: the base of the runs' and the review's
    tables (`Store` opens the connection and is both)."""

    path: Path
    conn: sqlite3.Connection

    def _scalar(self, sql: str, params: tuple = ()) -> Any:
        # fetchall, never fetchone: a statement left un-finished keeps its read snapshot open in WAL
        # mode, and this connection would stop seeing other processes' writes.
        return self.conn.execute(sql, params).fetchall()[0][0]

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
