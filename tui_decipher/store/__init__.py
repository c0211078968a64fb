"""The run store: one SQLite database of runs, their metrics, proposals and review decisions.

It lives in the user data dir (platformdirs; `$DECIPHER_DATA_DIR` or `--data-dir` override).
`decipher run` and the TUI both write here, possibly at once, so the database uses WAL and a
busy timeout, every write is its own short transaction, and each review decision is committed
the moment it is made. The schema is versioned through `PRAGMA user_version`; a database from a
newer program, or one that is not a database at all, is reported and left untouched.

One module per concern: `schema` (the file, the migrations), `rows` (what queries return, the
statuses), `database` (`Store`: the connection), `connection` (its transactions, the tables' base),
`runs` and `review` (its tables' queries), `recorder` (`RunRecorder`, the engine's event sink).
Depends on the engine only; never imports a UI library.
"""

from .database import Store
from .recorder import RunRecorder
from .rows import (
    ACCEPTED,
    CANCELLED,
    DECIDED,
    FAILED,
    FINISHED,
    INTERRUPTED,
    OPEN,
    REJECTED,
    RUNNING,
    STATUSES,
    UNKNOWN_VALUE,
    UNSURE,
    ProposalRow,
    RankedPair,
    RoundRow,
    RunRow,
    StoreError,
    round_dicts,
)
from .schema import DB_NAME, MIGRATIONS, SCHEMA_VERSION, default_path

__all__ = [
    "ACCEPTED", "CANCELLED", "DB_NAME", "DECIDED", "FAILED", "FINISHED", "INTERRUPTED", "MIGRATIONS", "OPEN",
    "REJECTED", "RUNNING", "SCHEMA_VERSION", "STATUSES", "UNKNOWN_VALUE", "UNSURE", "ProposalRow", "RankedPair",
    "RoundRow", "RunRecorder", "RunRow", "Store", "StoreError", "default_path", "round_dicts",
]  # fmt: skip
