"""The connection to the run database: WAL, a busy timeout, the schema checked and migrated (its short
transactions: `connection`). `Store` is that connection with the runs' and the review's tables."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from . import schema
from .review import ReviewTables
from .rows import StoreError
from .runs import RunTables
from .schema import BUSY_TIMEOUT_MS


class Store(RunTables, ReviewTables):
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
        if version > schema.SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: schema version {version} is newer than this program's ({schema.SCHEMA_VERSION}); "
                "upgrade tui-decipher; the database was left untouched"
            )
        # Version 0 with tables: someone else's SQLite file (ours sets the version with the tables).
        if version == 0 and n_tables > 0:
            raise StoreError(
                f"{self.path}: not a usable run database (it holds another program's tables); left untouched"
            )

    def _migrate(self) -> None:
        version = self._scalar("PRAGMA user_version")
        for target in range(version, schema.SCHEMA_VERSION):
            # BEGIN IMMEDIATE, then re-read the version: another process may have migrated meanwhile.
            self.conn.execute("BEGIN IMMEDIATE")
            with self.transaction() as conn:
                if self._scalar("PRAGMA user_version") != target:
                    continue
                for statement in schema.MIGRATIONS[target].split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {target + 1}")

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
