"""The run database's schema: its file name and busy timeout, and the migrations that take a
database from each version to the next (`PRAGMA user_version`). Never edit a released migration:
add another."""

from __future__ import annotations

from pathlib import Path

DB_NAME = "decipher.sqlite3"
BUSY_TIMEOUT_MS = 10_000


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
    # 6: each proposal's reading under its run's model (engine/channels/alignment.py), segment by segment:
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
    # 8: the pairs past a run's D that the evidence still allows (auto's D range): lost words not
    # proposed, read by the flow at the range's high end, ranked after the proposals. Kept apart from
    # the proposals, so that nothing counting or exporting proposals counts them. Runs recorded
    # before read none.
    """
    CREATE TABLE beyond_pairs (
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
        lost_tokens TEXT NOT NULL DEFAULT '',
        known_tokens TEXT NOT NULL DEFAULT '',
        lost_gloss TEXT NOT NULL DEFAULT '',
        known_gloss TEXT NOT NULL DEFAULT '',
        alignment_json TEXT NOT NULL DEFAULT '[]',
        PRIMARY KEY (run_id, rank)
    );
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)


def default_path(data_dir: Path) -> Path:
    return data_dir / DB_NAME
