"""The Textual app: a thin shell that owns the store, the engine worker and the four screens.

The engine runs in one exclusive thread worker. It talks back only through `post_message`
(thread-safe) and records the run in the store through its own database connection, so no
widget is ever touched from the thread. Errors of every worker are handled in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive
from textual.worker import Worker, WorkerState, get_current_worker

from ..engine.constraints.judgments import REFINE_ROUNDS
from ..engine.run.checkpoint import CheckpointError
from ..engine.run.config import ConfigSources, DecipherConfig
from ..session.cores import use_screen_threads
from ..session.results import data_dir
from ..session.run_session import RunSession
from ..store import ProposalRow, Store, StoreError, default_path
from .keymap import KEYMAP_NAME, read_keymap
from .live import LiveRun
from .messages import EngineEvent, RunCreated, RunDone, RunRefused
from .screens.help import HelpScreen
from .screens.key import KeyScreen
from .screens.progress import ProgressScreen
from .screens.review import ReviewScreen
from .screens.runs import RunsScreen


def proposal_map(rows: list[ProposalRow]) -> dict[int, frozenset[int]]:
    """A run's proposals as lost word -> the known words proposed for it (several when C > 1)."""
    pairs: dict[int, set[int]] = {}
    for row in rows:
        pairs.setdefault(row.lost_index, set()).add(row.known_index)
    return {lost: frozenset(known) for lost, known in pairs.items()}


@dataclass
class Refinement:
    """A refinement started from Review, kept in memory so Review can mark what it changed."""

    source: int  # the run refined
    before: dict[int, frozenset[int]]  # its proposals when the refinement started (proposal_map)
    out: Path | None = None  # a branch's folder; None: in place
    run_id: int | None = None  # the run recording it: the source, or the branch once it is created

    def changed(self, row: ProposalRow) -> bool:
        """Whether the refinement changed this proposal: a new known word for its lost word, or a new lost word."""
        return row.known_index not in self.before.get(row.lost_index, ())


class DecipherApp(App[None]):
    """`decipher-tui`: configure runs, watch EM learn, review cognates by keyboard."""

    TITLE = "tui-decipher"
    CSS_PATH = "app.tcss"  # beside this module, inside the package
    ENABLE_COMMAND_PALETTE = False
    MODES = {"runs": RunsScreen, "progress": ProgressScreen, "review": ReviewScreen, "key": KeyScreen}
    BINDINGS = [
        Binding("1", "switch_mode('runs')", "Runs", show=False, id="app.runs"),
        Binding("2", "switch_mode('progress')", "Progress", show=False, id="app.progress"),
        Binding("3", "switch_mode('review')", "Review", show=False, id="app.review"),
        Binding("4", "switch_mode('key')", "Key", show=False, id="app.key"),
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("q", "quit", "Quit", id="app.quit"),
    ]

    selected_run: reactive[int | None] = reactive(None, init=False)

    def __init__(self, data: Path | str | None = None, corpus: str | None = None) -> None:
        super().__init__()
        self.data_dir = data_dir(data)
        self.db_path = default_path(self.data_dir)
        self.store = Store(self.db_path)  # the UI thread's connection; StoreError is raised to the caller
        self.initial_corpus = corpus
        self.live: LiveRun | None = None
        self.refinement: Refinement | None = None  # the one under way
        self.refined: dict[int, Refinement] = {}  # run id -> its last refinement that ended (this session)
        runs = self.store.runs()
        self.selected_run = runs[0].id if runs else None

    def on_mount(self) -> None:
        self._load_keymap()
        self.switch_mode("runs")

    def _load_keymap(self) -> None:
        """Optional `keymap.toml` in the data dir (tui/keymap.py); a bad one is a warning, and ignored."""
        path = self.data_dir / KEYMAP_NAME
        if not path.exists():
            return
        try:
            self.set_keymap(read_keymap(path))
        except ValueError as exc:
            self.notify(f"{exc}; ignored", severity="warning")

    # --- navigation ---------------------------------------------------------------------------

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(self.screen))

    def open_run(self, run_id: int, mode: str = "review") -> None:
        self.selected_run = run_id
        self.switch_mode(mode)

    # --- the engine worker --------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.live is not None and self.live.status in ("loading", "running", "cancelling")

    def start_run(self, cfg: DecipherConfig, sources: ConfigSources) -> bool:
        """Start the engine on a validated config; False (and a notice) if a run is already going."""
        return self._launch(
            f"loading corpus {cfg.corpus}...", lambda: RunSession.new(self.db_path, self.data_dir, cfg, sources)
        )

    def resume_run(self, run_id: int, run_dir: str) -> bool:
        """Continue a stopped run from its last checkpoint, recording into the same stored run."""
        self.selected_run = run_id
        return self._launch(
            f"resuming run #{run_id} from {run_dir}...", lambda: RunSession.resume(self.db_path, str(run_id))
        )

    def refine_run(
        self, run_id: int, run_dir: str, rounds: int = REFINE_ROUNDS, out: Path | None = None, refits: bool = False
    ) -> bool:
        """Continue a stored run for `rounds` rounds under its review decisions, in place or, with `out`,
        as a new run in that folder (a branch); `refits`: auto fits it again under pinned values
        instead (`refit_under`), which rounds do not count. Review shows the new proposals when it ends."""
        before = proposal_map(self.store.proposals(run_id))
        where = "in place" if out is None else f"into {out}"
        how = "fitting it again under its pinned values" if refits else f"for {rounds} round(s)"
        launched = self._launch(
            f"refining run #{run_id} from {run_dir} {where}, {how}...",
            lambda: RunSession.refine(self.db_path, str(run_id), rounds, out),
            show_progress=False,
        )
        if launched:  # the worker's messages are handled after this returns, so this is in time
            self.refinement = Refinement(run_id, before, out, run_id if out is None else None)
            assert self.live is not None  # set by _launch
            self.live.refining = True
            if out is None:
                self.selected_run = run_id
        return launched

    def _launch(self, first_line: str, make_session: Callable[[], RunSession], show_progress: bool = True) -> bool:
        """Run the session `make_session` builds (in the engine worker, where its checks read files)."""
        if self.running:
            self.notify("A run is already in progress: cancel it first (c on Progress).", severity="warning")
            return False
        self.live = LiveRun()
        self.live.log.append(first_line)
        self._engine(make_session)
        if show_progress:
            self.switch_mode("progress")
        return True

    def cancel_run(self) -> None:
        if not self.running or self.live is None:
            self.notify("No run in progress.", severity="information")
            return
        self.live.status = "cancelling"
        self.live.log.append(self.live.cancel_note)
        self.workers.cancel_group(self, "engine")  # sets the worker's cancelled_event, the engine's flag
        self._refresh_screen()

    @work(thread=True, exclusive=True, group="engine", exit_on_error=False, description="decipherment")
    def _engine(self, make_session: Callable[[], RunSession]) -> None:
        worker = get_current_worker()
        use_screen_threads()  # a run whose config leaves threads to the front end (0)
        try:
            session = make_session()
            run_id = session.open()
        except (ValueError, CheckpointError, StoreError) as exc:  # CorpusError, SessionError: ValueErrors
            self.post_message(RunRefused(str(exc)))
            return
        for warning in session.warnings:
            self.call_from_thread(self.notify, warning, title="warning", severity="warning", timeout=10)
        self.post_message(RunCreated(run_id))

        def on_event(event: object) -> None:
            self.post_message(EngineEvent(run_id, event))

        result = session.execute(on_event, worker.cancelled_event)
        self.post_message(RunDone(run_id, result.status))

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        """The one place worker errors land: the engine's, and the screens' preview loaders'."""
        if event.state != WorkerState.ERROR:
            return
        error = event.worker.error
        if event.worker.group == "engine":
            self.refinement = None
            if self.live is not None:
                self.live.status = "failed"
                self.live.log.append(f"failed: {error}")
                self._refresh_screen()
        where = " (traceback in the run folder's run.log)" if event.worker.group == "engine" else ""
        self.notify(f"{type(error).__name__}: {error}{where}", title="error", severity="error", timeout=10)

    def on_run_created(self, message: RunCreated) -> None:
        refinement = self.refinement
        branch = refinement if refinement is not None and refinement.run_id is None else None  # into a new run
        if self.live is not None:
            self.live.run_id = message.run_id
            note = f": a branch of run #{branch.source}" if branch is not None else ""
            self.live.log.append(f"run #{message.run_id} recorded{note}")
        if branch is not None:  # Review stays on the refined run until the branch has proposals to show
            branch.run_id = message.run_id
        else:
            self.selected_run = message.run_id
        self._refresh_screen()

    def on_run_refused(self, message: RunRefused) -> None:
        self.live = None
        self.refinement = None
        self.notify(message.error, title="cannot start", severity="error", timeout=10)
        if self.current_mode != "review":  # a refused refinement leaves the reviewer where they were
            self.switch_mode("runs")

    def on_engine_event(self, message: EngineEvent) -> None:
        if self.live is None or self.live.run_id != message.run_id:
            return
        line = self.live.apply(message.event)  # keeps "cancelling" until the run ends
        if line:
            self.live.log.append(line)
        self._refresh_screen(message.event)

    def on_run_done(self, message: RunDone) -> None:
        if self.live is not None and self.live.run_id == message.run_id:
            self.live.status = message.status
        has_proposals = sum(self.store.review_counts(message.run_id).values()) > 0
        hint = "press 3 to review its proposals" if has_proposals else "it has no proposals"
        status, refinement = message.status, self.refinement
        if refinement is not None and refinement.run_id == message.run_id:
            self.refinement = None
            self.refined[message.run_id] = refinement  # what Review compares the new proposals with
            self.selected_run = message.run_id  # a branch: Review moves to the new run
            changed = sum(refinement.changed(row) for row in self.store.proposals(message.run_id))
            hint = f"{changed} proposal(s) changed (Δ on Review); {hint}"
            if refinement.out is not None:
                hint = f"a branch of run #{refinement.source} (left as it was) in {refinement.out}; {hint}"
            if message.status == "cancelled":  # the run stays finished (RunSession.execute)
                status = "refinement cancelled; the run keeps the rounds it completed and stays finished"
        self.notify(f"Run #{message.run_id} {status}: {hint}.")
        self._refresh_screen()

    def _refresh_screen(self, event: Any = None) -> None:
        refresh = getattr(self.screen, "refresh_from_app", None)
        if refresh is not None:
            refresh(event)

    async def action_quit(self) -> None:
        """Quit; a running engine is cancelled first and stops within one epoch, so exit never hangs."""
        if self.running:
            self.workers.cancel_group(self, "engine")
        self.exit()

    def on_unmount(self) -> None:
        self.store.close()


def run_app(data: Path | str | None = None, corpus: str | None = None) -> None:
    DecipherApp(data, corpus).run()
