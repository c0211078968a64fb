"""Runs: every stored run (from this app or `decipher run`), and the actions on them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ...session.run_views import (
    RUN_COLUMNS,
    checkpoint_dir,
    method_line,
    percent,
    refinement_line,
    review_summary,
    run_cells,
)
from ...store import RUNNING, RunRow
from ..widgets.mode_bar import ModeBar
from ..widgets.row_table import RowTable
from .confirm import ConfirmScreen
from .new_run import NewRunScreen

if TYPE_CHECKING:
    from textual import getters

    from ..app import DecipherApp


class RunsScreen(Screen[None]):
    """The list of past runs; `n` opens the new-run form."""

    if TYPE_CHECKING:
        app = getters.app(DecipherApp)  # the typed app, for the type checker only

    HELP_TITLE = "Runs"
    AUTO_FOCUS = "#runs-table"
    BINDINGS = [
        Binding("n", "new_run", "New run", id="runs.new"),
        Binding("enter", "open", "Review", id="runs.open", priority=True),
        Binding("p", "progress", "Progress", id="runs.progress"),
        Binding("c", "cancel", "Cancel run", id="runs.cancel"),
        Binding(
            "R", "resume", "Resume", tooltip="Continue a stopped run from its last complete round", id="runs.resume"
        ),
        Binding("d", "delete", "Delete", id="runs.delete"),
    ]

    def compose(self) -> ComposeResult:
        yield ModeBar("runs")
        with Vertical(id="runs-body"):
            yield RowTable(id="runs-table", cursor_type="row", zebra_stripes=True)
            yield Static(id="run-detail")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        table = self.query_one("#runs-table", DataTable)
        for label, key in RUN_COLUMNS:
            table.add_column(label, key=key)
        self._shown: list[tuple] = []
        self.reload()
        if getattr(self.app, "initial_corpus", None):
            self.app.call_after_refresh(self.action_new_run)
        # Runs started elsewhere (`decipher run`) and status changes appear without a keypress.
        self.set_interval(2.0, self.reload)

    def on_screen_resume(self) -> None:
        self.reload()

    def refresh_from_app(self, event: object = None) -> None:
        if event is None:
            self.reload()

    def reload(self) -> None:
        runs = self.app.store.runs()
        rows = [run_cells(r) for r in runs]
        table = self.query_one("#runs-table", DataTable)
        if rows != self._shown:
            selected = self.app.selected_run
            table.clear()
            for run, cells in zip(runs, rows, strict=True):
                table.add_row(*cells, key=str(run.id))
            self._shown = rows
            if selected is not None and any(r.id == selected for r in runs):
                table.move_cursor(row=table.get_row_index(str(selected)))
        self._runs = {r.id: r for r in runs}
        self._show_detail()

    def _current(self) -> RunRow | None:
        table = self.query_one("#runs-table", DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self._runs.get(int(key)) if key is not None else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self.app.selected_run = int(event.row_key.value)
        self._show_detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def _show_detail(self) -> None:
        detail = self.query_one("#run-detail", Static)
        run = self._current()
        if run is None:
            detail.update("No runs yet. Press [b]n[/] to start one (the demo corpus is a good first run).")
            return
        cfg = run.config
        s = run.stats
        schedule = method_line(cfg, run.decisions)
        lines = [
            f"[b]#{run.id} {run.corpus}[/] ({run.lost_code} -> {run.known_code}), preset {run.preset or '-'}, "
            f"{run.status}" + (f": {run.error}" if run.error else ""),
            f"{s.get('lost_words', '?')} lost x {s.get('known_words', '?')} known words; "
            f"{schedule}, seed {cfg.get('seed')}",
        ]
        scored = run.proposal_scores()
        if scored is not None:  # the user's metric first: what the proposals are worth as they stand
            lines.append(f"proposals vs gold: {scored.line()}")
        if run.has_gold and run.accuracy is not None:
            lines.append(
                f"paper's protocol {percent(run.accuracy)} (flow), {percent(run.accuracy_model)} (model) "
                f"on the {run.n_evaluated} words with a gold cognate"
            )
        if run.status not in (RUNNING,):
            store = self.app.store
            counts, beyond = store.review_counts(run.id), store.beyond_counts(run.id)
            lines.append(f"review: {review_summary(counts, len(store.judgments(run.id)), beyond)}")
        refinement = refinement_line(run.decisions)
        if refinement:  # last: the detail pane shows the accuracy and the review first
            lines.append(f"refinement: {refinement}")
        detail.update("\n".join(lines))

    def action_new_run(self) -> None:
        self.app.push_screen(NewRunScreen(getattr(self.app, "initial_corpus", None)))
        self.app.initial_corpus = None

    def action_open(self) -> None:
        run = self._current()
        if run is not None:
            self.app.open_run(run.id, "review")

    def action_progress(self) -> None:
        run = self._current()
        if run is not None:
            self.app.open_run(run.id, "progress")

    def action_cancel(self) -> None:
        self.app.cancel_run()

    def action_resume(self) -> None:
        run = self._current()
        if run is None:
            return
        if run.status in (RUNNING, "finished"):
            self.notify(f"Run #{run.id} is {run.status}: only a cancelled, failed or interrupted run resumes.")
            return
        run_dir = checkpoint_dir(run)
        if run_dir is None:
            self.notify(
                f"Run #{run.id} has no checkpoint: it stopped before its first round ended.", severity="warning"
            )
            return
        self.app.resume_run(run.id, run_dir)

    def action_delete(self) -> None:
        run = self._current()
        if run is None:
            return
        if run.status == RUNNING:
            self.notify(
                "That run is still training: cancel it first (c, or Ctrl-C in its terminal).", severity="warning"
            )
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.app.store.delete_run(run.id)
                self.notify(f"Deleted run #{run.id} and its decisions.")
                self.reload()

        self.app.push_screen(
            ConfirmScreen(f"Delete run #{run.id} ({run.corpus}) with its proposals and review decisions?"),
            confirmed,
        )
