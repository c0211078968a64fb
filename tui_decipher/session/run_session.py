"""The run use case, shared by `decipher run` and `decipher-tui`: new, resume and refine.

A `RunSession` is made in three steps, so a front end can report each the way it reports things:

1. `RunSession.new / .resume / .refine` check the input (settings, corpus, checkpoint, review
   decisions) and raise `SessionError` (or ValueError, CheckpointError, StoreError) with a
   one-line message; nothing is written yet.
2. `open()` records the run in the store (a new row, or the stored run marked running again; a
   refinement with `out` is a branch: a new run in a new folder, from a copy of the checkpoint and
   the judgments, the refined run left as it was).
3. `execute(on_event, cancel)` runs the engine in the caller's thread, records every round as it
   ends, writes the run files, and returns the `DecipherResult`; on an error it marks the run
   failed and re-raises.

Front ends only render events and results. This module imports no UI library.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch

from ..engine.constraints.review import REFINE_ROUNDS, ReviewConstraints
from ..engine.constraints.sign_values import SignValue, SignValues, checked_sign_values, read_sign_values
from ..engine.corpora.corpus import Corpus
from ..engine.corpora.registry import LoadedCorpus, load_corpus
from ..engine.methods import (
    DecipherResult,
    check_demand,
    check_refine,
    check_resume,
    method_for,
    refine_decipherment,
    run_decipherment,
)
from ..engine.methods.auto.decisions import refit_under
from ..engine.run.checkpoint import CHECKPOINT_NAME, Checkpoint, CheckpointError, load_checkpoint
from ..engine.run.config import ConfigSources, DecipherConfig
from ..engine.run.device import select_device, use_threads
from ..engine.run.events import EventCallback
from ..store import CANCELLED, FINISHED, OPEN, RUNNING, UNKNOWN_VALUE, RunRecorder, Store, StoreError
from .cores import CoreShare, shared_cores
from .results import new_run_dir, write_run_files
from .review_io import RunVocabulary, read_judgments

log = logging.getLogger(__name__)

RUN_LOG = "run.log"  # in the run folder: what went wrong (tracebacks), and what was skipped on the way


class SessionError(ValueError):
    """A run that cannot start as asked (the message is one line for the user)."""


class _QuietFileHandler(logging.FileHandler):
    """A run's log file: a record it cannot write (a full disk) is dropped, not printed to the
    terminal with a traceback; the run's own error still reaches the user in one line."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass


@contextmanager
def run_log(folder: Path) -> Iterator[Path]:
    """Send this thread's `tui_decipher` log records to `folder`/run.log while the block runs
    (other threads' runs, in the TUI, keep to their own folders). Yields the log's path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / RUN_LOG
    handler = _QuietFileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    thread = threading.get_ident()
    handler.addFilter(lambda record: record.thread == thread)
    logger = logging.getLogger("tui_decipher")
    level = logger.level
    logger.addHandler(handler)
    if level == logging.NOTSET or level > logging.INFO:
        logger.setLevel(logging.INFO)
    try:
        yield path
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        handler.close()


@dataclass
class RunSession:
    """One run, from the checked request to its files."""

    db_path: Path
    cfg: DecipherConfig
    sources: ConfigSources
    loaded: LoadedCorpus
    out_dir: Path
    run_id: int | None = None  # set by open() for a new run; the stored run's id otherwise
    checkpoint: Checkpoint | None = None  # resume and refine: where the run continues from
    review: ReviewConstraints | None = None  # refine: the reviewer's judgments
    refine_rounds: int = REFINE_ROUNDS
    warnings: tuple[str, ...] = field(default_factory=tuple)
    branch_of: int | None = None  # refine into a new run: the run refined (left untouched)...
    branch_source: Path | None = None  # ...and its folder, whose checkpoint the branch copies
    # A new run: the items of its `known_pairs` file (judgments known before it starts), which
    # become its decisions (unsure ones too: stored, never a constraint).
    known_items: list[tuple[int, int, str]] = field(default_factory=list)
    known_signs: SignValues | None = None  # a new run's known sign values (its `known_signs` file)
    # refine: the sign values pinned on the run (the store's, with a `--known-signs` file's over
    # them), held by the refinement; and the file's, stored as the run's pins when it opens.
    pinned: SignValues | None = None
    new_pins: SignValues | None = None
    # The threads this run computes with beside other runs (`cores.shared_cores`), claimed by open()
    # and given back when execute() ends.
    share: CoreShare | None = None
    _claim: ExitStack = field(default_factory=ExitStack, repr=False)

    @classmethod
    def new(
        cls, db_path: Path, data_root: Path, cfg: DecipherConfig, sources: ConfigSources, out: Path | None = None
    ) -> RunSession:
        """A new run of `cfg`, writing to `out` (default: a new folder under `data_root`/runs)."""
        select_device(cfg.device)  # refused before anything is recorded, as everything below
        loaded = load_corpus(cfg)
        if note := check_demand(loaded.corpus, cfg):  # a new run: its demand against the corpus
            loaded = replace(loaded, warnings=(*loaded.warnings, note))
        method_for(cfg.method).check(loaded.corpus, cfg)
        out_dir = out or new_run_dir(loaded.corpus.name, sources.preset, data_root)
        session = cls(db_path, cfg, sources, loaded, out_dir, warnings=loaded.warnings)
        if cfg.known_pairs:
            items = read_judgments(Path(cfg.known_pairs), RunVocabulary.of(loaded.corpus))
            session.known_items = [item for item in items if item[2] != OPEN]
        if cfg.known_signs:  # checked before the run is recorded (the engine reads the file again)
            session.known_signs = read_sign_values(cfg.known_signs, loaded.corpus)
            method_for(cfg.method).check_known_signs(session.known_signs, cfg)
        return session

    @classmethod
    def resume(cls, db_path: Path, run: str) -> RunSession:
        """Continue a stopped run (its id in the store, or its run folder) from its checkpoint."""
        run_id, folder, checkpoint = find_stored_run(run, db_path)
        if run_id is not None:
            with Store(db_path) as store:
                status = store.find_run(run_id).status
            if status == FINISHED:
                raise SessionError(f"run #{run_id} finished: refine it (decipher run --refine {run_id}) to continue it")
        sources = ConfigSources(preset=None, overrides={"resume": str(folder)})
        session = cls._continued(db_path, run_id, folder, checkpoint, sources)
        check_resume(session.loaded.corpus, session.cfg, checkpoint)  # before the run is marked running
        return session

    @classmethod
    def refine(
        cls,
        db_path: Path,
        run: str,
        rounds: int = REFINE_ROUNDS,
        out: Path | None = None,
        known_signs: Path | None = None,
    ) -> RunSession:
        """Continue a stored run for `rounds` more rounds under its review decisions (none: it
        simply trains on) and the sign values pinned on it. With `out`, the refinement is a new
        run there (a branch), and the refined run is left untouched; without, the run is refined
        in place. `known_signs`: a file of sign values to pin on the run first (over its pins)."""
        run_id, folder, checkpoint = find_stored_run(run, db_path)
        if run_id is None:
            raise StoreError(f"{folder}: not a run in {db_path}; --refine needs its review decisions")
        overrides = {"refine": str(folder)} if out is None else {"refine": str(folder), "branch_of": run_id}
        session = cls._continued(db_path, run_id, folder, checkpoint, ConfigSources(preset=None, overrides=overrides))
        corpus = session.loaded.corpus
        with Store(db_path) as store:
            session.review = ReviewConstraints.from_judgments(store.judgments(run_id))
            pins = store.pins(run_id)
            stored = store.find_run(run_id)
            if out is not None:
                session.sources.preset = stored.preset
        settled = (stored.decisions.get("settled") or {}).get("demand")
        if settled and "channel" in checkpoint.state:  # the D its judgments settled (session/settled_demand.py)
            checkpoint.state["demand_base"] = int(settled)
        session.pinned = pinned_sign_values(pins, corpus, f"run #{run_id}'s pinned signs")
        if known_signs is not None:
            session.new_pins = read_sign_values(known_signs, corpus)
            session.pinned = session.pinned.merged(session.new_pins)
        if session.pinned:
            method = method_for(checkpoint.method)
            if not method.refines_with_signs:
                raise SessionError(f"run #{run_id} ({checkpoint.method}) cannot be refined with pinned sign values: "
                                   "they hold a character channel (refine an auto or channel run)")  # fmt: skip
            method.check_known_signs(session.pinned, checkpoint.settings())
        check_refine(corpus, checkpoint, session.review, rounds)  # before the run is marked running
        session.refine_rounds = rounds
        if out is not None:
            if out.exists() and (not out.is_dir() or any(out.iterdir())):
                raise SessionError(f"{out}: already exists and is not an empty folder; name a new one for the branch")
            session.branch_of, session.branch_source, session.out_dir, session.run_id = run_id, folder, out, None
        return session

    @classmethod
    def _continued(
        cls, db_path: Path, run_id: int | None, folder: Path, checkpoint: Checkpoint, sources: ConfigSources
    ) -> RunSession:
        cfg = checkpoint.settings()
        select_device(cfg.device)
        loaded = load_corpus(cfg)
        return cls(db_path, cfg, sources, loaded, folder, run_id, checkpoint, warnings=loaded.warnings)

    @property
    def known_pairs(self) -> ReviewConstraints | None:
        """A new run's constraints from its `known_pairs` file (None: it names none)."""
        if self.checkpoint is not None or not self.cfg.known_pairs:
            return None
        return ReviewConstraints.from_judgments({(i, j): d for i, j, d in self.known_items})

    @property
    def checkpoint_path(self) -> Path:
        return self.out_dir / CHECKPOINT_NAME

    def start_line(self) -> str | None:
        """What a run says before it starts: how it continues or what it starts from, and the
        threads it takes where other runs share the machine (None: nothing to say)."""
        lines = [line for line in (self._continuation_line(), self.share.line() if self.share else None) if line]
        return "\n".join(lines) or None

    def _continuation_line(self) -> str | None:
        if self.review is not None:
            what = f"run #{self.run_id}" if self.branch_of is None else f"run #{self.branch_of} into run #{self.run_id}"
            pinned = f", {len(self.pinned)} pinned sign value(s) ({self.pinned.describe()})" if self.pinned else ""
            return (
                f"refining {what} for {self.refine_rounds} round(s) with {len(self.review.accepted)} "
                f"accepted and {len(self.review.rejected)} rejected pair(s){pinned} ({self.checkpoint_path})"
            )
        if self.known_pairs is not None or self.known_signs:
            given = []
            if self.known_pairs is not None:
                given.append(f"{len(self.known_pairs.accepted)} known pair(s) and "
                             f"{len(self.known_pairs.rejected)} excluded pair(s)")  # fmt: skip
            if self.known_signs:
                given.append(f"{len(self.known_signs)} known sign value(s) ({self.known_signs.describe()})")
            return "starting from " + " and ".join(given)
        if self.checkpoint is not None:
            return (
                f"resuming run #{self.run_id} from restart {self.checkpoint.restart + 1} round "
                f"{self.checkpoint.round} ({self.checkpoint_path})"
            )
        return None

    def open(self) -> int:
        """Record the run in the store: a new row, or the continued run marked running. Its id."""
        if self.branch_of is not None:  # the branch's own copy of the checkpoint it continues
            assert self.branch_source is not None  # refine() sets both
            self.out_dir.mkdir(parents=True, exist_ok=True)
            source = self.branch_source / CHECKPOINT_NAME
            tmp = self.checkpoint_path.with_name(f".{CHECKPOINT_NAME}.tmp")
            shutil.copyfile(source, tmp)
            os.replace(tmp, self.checkpoint_path)
        with Store(self.db_path) as store:
            if self.run_id is None:
                self.run_id = store.create_run(
                    self.loaded.corpus, self.loaded.path, self.sources.preset, self.cfg.to_dict(), self.cfg.rounds,
                    str(self.out_dir.resolve()),
                )  # fmt: skip
                if self.branch_of is not None:
                    store.copy_judgments(self.branch_of, self.run_id)
                    store.copy_pins(self.branch_of, self.run_id)
                if self.known_items:
                    store.set_judgments(self.run_id, self.known_items)
            else:
                # A channel run has no EM rounds to plan; a neural run's refinement adds rounds.
                planned = None
                if self.review is not None and self._refined_checkpoint.rounds:
                    planned = self._refined_checkpoint.round + self.refine_rounds
                store.mark_running(self.run_id, planned)
            given = self.new_pins or self.known_signs  # a --known-signs file's values become the run's pins
            if given:
                for symbol, values in given.by_symbol().items():
                    store.set_pins(self.run_id, symbol, values)
        self.share = self._claim.enter_context(shared_cores(self.cfg.threads, torch.get_num_threads()))
        return self.run_id

    def execute(self, on_event: EventCallback, cancel: threading.Event) -> DecipherResult:
        """Run the engine here (the caller's thread), recording into the store as it goes, then
        write the run files. The recorder opens its own database connection in this thread."""
        if self.run_id is None:
            raise SessionError("the run is not recorded yet: open() it first")
        with self._claim, run_log(self.out_dir):  # the cores are given back however the run ends
            if self.share is not None and self.cfg.threads == 0:
                use_threads(self.share.threads)
            return self._execute(self.run_id, on_event, cancel)

    @property
    def log_path(self) -> Path:
        """The run's log: where an unexpected error's traceback is written (`run_log`)."""
        return self.out_dir / RUN_LOG

    @property
    def _refined_checkpoint(self) -> Checkpoint:
        """A refinement's checkpoint: the stored run's it continues."""
        assert self.checkpoint is not None  # refine() always loads one
        return self.checkpoint

    def _execute(self, run_id: int, on_event: EventCallback, cancel: threading.Event) -> DecipherResult:
        corpus = self.loaded.corpus
        recorder = RunRecorder(self.db_path, run_id, forward=on_event)
        try:
            recorder.catch_up(self.checkpoint)
            if self.review is not None:
                result = refine_decipherment(
                    corpus,
                    self._refined_checkpoint,
                    self.review,
                    self.refine_rounds,
                    recorder,
                    cancel,
                    self.checkpoint_path,
                    signs=self.pinned or None,
                )
            else:
                result = run_decipherment(
                    corpus,
                    self.cfg,
                    recorder,
                    cancel,
                    checkpoint=self.checkpoint_path,
                    resume=self.checkpoint,
                    review=self.known_pairs,
                )
            recorded = result
            if self.review is not None and result.status == CANCELLED:
                # A refinement continues a finished run: stopped early, the run is still finished,
                # with the rounds it completed, and is refined again, not resumed. The caller still
                # gets "cancelled" (the CLI's exit code, the TUI's notice).
                recorded = replace(result, status=FINISHED)
            recorder.finish(recorded, corpus)
            write_run_files(self.out_dir, recorded, corpus, self.sources, self.loaded.path)
        except BaseException as exc:
            log.error("run #%s failed: %s: %s", self.run_id, type(exc).__name__, exc, exc_info=True)
            try:
                recorder.fail(f"{type(exc).__name__}: {exc}")
            except Exception:  # the store failing too: the run's own error is the one to report
                log.exception("run #%s: could not mark the run failed", self.run_id)
            raise
        finally:
            recorder.close()
        return result


def pinned_sign_values(pins: list[tuple[str, str]], corpus: Corpus, source: str) -> SignValues:
    """A run's pinned values (the store's (symbol, value) rows; signs marked unknown left out) as
    sign values, checked against its corpus as a file's are (`checked_sign_values`)."""
    cells = [(n, symbol, value) for n, (symbol, value) in enumerate(pins, start=1) if value != UNKNOWN_VALUE]
    return checked_sign_values(cells, corpus, source)


def pins_refit(run_dir: Path, decisions: dict[str, Any], pins: list[tuple[str, str]]) -> bool:
    """Whether refining the run in `run_dir` under `pins` (the store's rows) fits it again (auto's
    `refit_under`): a pinned value the run did not hold, on a run that searched its signs as
    syllables. The values it had are its checkpoint's; an unreadable checkpoint has none."""
    values = SignValues(tuple(SignValue(sign, tuple(value)) for sign, value in pins if value != UNKNOWN_VALUE))
    if not refit_under(decisions, SignValues(), values):  # no search, or no pins: no checkpoint read at all
        return False
    try:
        run_signs = SignValues.from_state(load_checkpoint(run_dir).state.get("sign_values"))
    except CheckpointError:
        run_signs = SignValues()
    return refit_under(decisions, run_signs, values)


def find_stored_run(run: str, db_path: Path) -> tuple[int | None, Path, Checkpoint]:
    """A stored run id or a run folder -> (its run id if stored, its folder, its checkpoint)."""
    run_id: int | None = None
    if run.isdigit():
        with Store(db_path) as store:
            row = store.run(int(run))
        if row is None or not row.run_dir:
            raise StoreError(f"{db_path}: no run #{run} with a run folder")
        if row.status == RUNNING:
            raise StoreError(f"run #{row.id} is still running (pid {row.pid}); cancel it first")
        run_id, folder = row.id, Path(row.run_dir)
    else:
        folder = Path(run).expanduser()
        with Store(db_path) as store:
            matches = [r.id for r in store.runs() if r.run_dir and Path(r.run_dir) == folder.resolve()]
        run_id = matches[0] if matches else None
    if not (folder / CHECKPOINT_NAME).exists() and run_id is not None:
        with Store(db_path) as store:
            method = store.find_run(run_id).config.get("method", "neural")  # a run stored before `method`: neural
        if not method_for(method).keeps_rounds:  # the generic "did not complete a round" would be untrue
            raise CheckpointError(
                f"{folder}: no checkpoint: this {method} run stopped before it saved any progress (it saves every "
                "50 channel steps and after each stage); run it again"
            )
    return run_id, folder, load_checkpoint(folder)
