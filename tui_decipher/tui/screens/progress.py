"""Progress: the live run (or a stored one): rounds and M-step bars, loss and accuracy plots,
the per-round table (loss, flow, cost, accuracy), elapsed and remaining time, and a log."""

from __future__ import annotations

from statistics import fmean
from typing import TYPE_CHECKING

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, ProgressBar, RichLog, Sparkline, Static

from ...engine.run.events import ChannelStep, EpochEnd, RoundEnd
from ...session.run_views import keeps_rounds, loss_curve
from ...store import FINISHED, RoundRow
from ..widgets.mode_bar import ModeBar

if TYPE_CHECKING:
    from textual import getters

    from ..app import DecipherApp
    from ..live import LiveRun


def clock(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    seconds = int(seconds)
    return (
        f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        if seconds >= 3600
        else (f"{seconds // 60}:{seconds % 60:02d}")
    )


def pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


class ProgressScreen(Screen[None]):
    """Watch EM learn. `c` cancels the running run within one epoch; finished rounds are kept."""

    if TYPE_CHECKING:
        app = getters.app(DecipherApp)  # the typed app, for the type checker only

    HELP_TITLE = "Progress"
    BINDINGS = [
        Binding("c", "cancel", "Cancel run", id="progress.cancel"),
        Binding("n", "new_run", "New run", id="progress.new"),
    ]

    def compose(self) -> ComposeResult:
        yield ModeBar("progress")
        with Vertical(id="progress-body"):
            yield Static("", id="progress-head")
            with Horizontal(classes="bar-row", id="round-row"):  # hidden for a run without EM rounds
                yield Label("EM rounds", classes="bar-label")
                yield ProgressBar(id="round-bar", show_eta=False)
            with Horizontal(classes="bar-row"):
                yield Label("M-step", id="epoch-label", classes="bar-label")
                yield ProgressBar(id="epoch-bar", show_eta=False)
            with Horizontal(classes="spark-row"):
                yield Label("loss", id="loss-label", classes="spark-label")
                # A bar's mean, not its max: a channel's batch losses are noisy, its trend is the point.
                yield Sparkline([], id="loss-spark", summary_function=fmean)
            with Horizontal(classes="spark-row short", id="acc-row"):  # hidden for a run without rounds
                yield Label("accuracy", id="acc-label", classes="spark-label")
                yield Sparkline([], id="acc-spark")
            yield DataTable(id="rounds-table", cursor_type="none", zebra_stripes=True)
            # Lines wrap to the log's width: RichLog's default min_width (78) would wrap them wider
            # than an 80-column screen shows, cutting each wrapped line's last characters.
            yield RichLog(id="log", wrap=True, markup=False, max_lines=500, min_width=20)
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        table = self.query_one("#rounds-table", DataTable)
        for label in ("round", "D", "cost", "loss", "flow", "flow cost", "acc %", "model %", "s"):
            table.add_column(label, key=label)
        self._log_lines = 0
        self._shown_run: int | None = None
        self._loss_shown: tuple[str, int] | None = None  # the plot's label and point count
        self.set_interval(1.0, self._tick)
        self._render_all()

    def on_screen_resume(self) -> None:
        self._render_all()

    # --- rendering ----------------------------------------------------------------------------

    def _shown_live(self) -> LiveRun | None:
        # The live run, or None when the screen shows a stored run. A run in progress is always what
        # this screen shows; otherwise the selected stored run.
        live = self.app.live
        if live is not None and (self.app.running or live.run_id in (None, self.app.selected_run)):
            return live
        return None

    def refresh_from_app(self, event: object = None) -> None:
        live = self._shown_live()
        if live is None:
            return
        if isinstance(event, EpochEnd):
            self._render_bars()
            self._render_loss(*live.loss_curve())
        elif isinstance(event, ChannelStep):
            self._render_bars()
        elif isinstance(event, RoundEnd):
            self._add_round_row(event)
            self._render_bars()
            self._render_acc([e.accuracy for e in live.round_ends])
        self._render_log()
        self._tick()

    def _render_all(self) -> None:
        """Redraw everything, from the live run or the selected stored run."""
        table = self.query_one("#rounds-table", DataTable)
        table.clear()
        log = self.query_one("#log", RichLog)
        log.clear()
        self._log_lines = 0
        live = self._shown_live()
        if live is not None:
            for event in live.round_ends:
                self._add_round_row(event)
            self._render_loss(*live.loss_curve())
            self._render_acc([e.accuracy for e in live.round_ends])
            self._render_bars()
            self._render_log()
        else:
            self._render_stored()
        self._tick()

    def _render_stored(self) -> None:
        run_id = self.app.selected_run
        run = self.app.store.run(run_id) if run_id is not None else None
        log = self.query_one("#log", RichLog)
        if run is None:
            self.query_one("#progress-head", Static).update("No run selected: start one with [b]n[/].")
            for bar in self.query(ProgressBar):
                bar.update(total=1, progress=0)
            self._render_loss("loss", [])
            self.query_one("#acc-spark", Sparkline).data = []
            return
        rounds = self.app.store.rounds(run.id)
        for row in rounds:
            self._add_round_row(row)
        channel_curve = self.app.store.channel_losses(run.id)
        self._render_loss(*loss_curve(self.app.store.epoch_losses(run.id), channel_curve))
        self._render_acc([r.accuracy for r in rounds])
        channel_only = not keeps_rounds(run) and not rounds
        self._show_rounds(not channel_only)
        planned = (run.rounds_planned or len(rounds) or 1) * int(run.config.get("restarts", 1))
        self.query_one("#round-bar", ProgressBar).update(total=planned, progress=len(rounds))
        self.query_one("#epoch-label", Label).update("channel" if channel_only else "M-step")
        epochs = 1 if channel_only else int(run.config.get("epochs", 1))
        done = run.status == FINISHED if channel_only else bool(rounds)
        self.query_one("#epoch-bar", ProgressBar).update(total=epochs, progress=epochs if done else 0)
        accuracy = f", accuracy {pct(run.accuracy)}%" if run.accuracy is not None else ""
        seconds = f" in {clock(run.seconds)}" if run.seconds is not None else ""
        self.query_one("#progress-head", Static).update(
            f"[b]Run #{run.id}[/] {escape(run.corpus)} ({run.lost_code} -> {run.known_code}): "
            f"{run.status}{seconds}{accuracy}"
        )
        recorded = f"{len(channel_curve)} channel step(s)" if channel_only else f"{len(rounds)} round(s)"
        log.write(f"stored run #{run.id}: {recorded} recorded" + (f"; {run.error}" if run.error else ""))
        if line := run.decisions.get("line"):  # what auto decided, as its live log ended
            log.write(line)

    def _render_bars(self) -> None:
        live = self.app.live
        if live is None or (live.rounds == 0 and not live.no_rounds):
            return
        self._show_rounds(not live.no_rounds)
        if live.rounds:
            self.query_one("#round-bar", ProgressBar).update(
                total=live.rounds * live.restarts, progress=live.restart * live.rounds + live.round
            )
        self.query_one("#epoch-label", Label).update("channel" if live.in_channel else "M-step")
        if live.in_channel:
            self.query_one("#epoch-bar", ProgressBar).update(total=live.channel_steps, progress=live.channel_step)
        else:
            self.query_one("#epoch-bar", ProgressBar).update(total=live.epochs, progress=live.epoch)

    def _show_rounds(self, shown: bool) -> None:
        """The rounds' bar, accuracy plot and table: hidden for a run without rounds (a channel's
        steps are all of it; the head line and the log give its accuracy)."""
        for part in ("#round-row", "#acc-row", "#rounds-table"):
            self.query_one(part).display = shown

    def _render_loss(self, label: str, losses: list[float]) -> None:
        """The loss plot and its label with the latest value (`run_views.loss_curve`)."""
        self._loss_shown = (label, len(losses))
        self.query_one("#loss-spark", Sparkline).data = losses
        self.query_one("#loss-label", Label).update(label if not losses else f"{label} {losses[-1]:.2f}")

    def _render_acc(self, accuracies: list[float | None]) -> None:
        values = [a for a in accuracies if a is not None]
        self.query_one("#acc-spark", Sparkline).data = [100 * a for a in values]
        label = f"acc {100 * values[-1]:.1f}%" if values else ("acc (no gold)" if accuracies else "accuracy")
        self.query_one("#acc-label", Label).update(label)

    def _add_round_row(self, r: RoundEnd | RoundRow) -> None:
        self.query_one("#rounds-table", DataTable).add_row(
            f"{r.restart + 1}.{r.round}", str(r.demand), r.cost_kind, f"{r.loss:.3f}", str(r.flow),
            f"{r.flow_cost:.1f}", pct(r.accuracy), pct(r.accuracy_model), f"{r.seconds:.0f}",
        )  # fmt: skip

    def _render_log(self) -> None:
        live = self.app.live
        if live is None:
            return
        log = self.query_one("#log", RichLog)
        for line in live.log[self._log_lines :]:
            log.write(line)
        self._log_lines = len(live.log)

    def _tick(self) -> None:
        live = self._shown_live()
        if live is None:
            return
        label, losses = live.loss_curve()
        if (label, len(losses)) != self._loss_shown:  # channel steps: redrawn once a second
            self._render_loss(label, losses)
        run = f"Run #{live.run_id}" if live.run_id is not None else "New run"
        where = f"round {min(live.round + 1, live.rounds)}/{live.rounds}" if live.rounds else ""
        if live.in_channel and live.status in ("running", "cancelling"):
            where = f"channel step {live.channel_step}/{live.channel_steps}"
        if live.restarts > 1:
            where = f"restart {live.restart + 1}/{live.restarts}, {where}"
        eta = live.eta()
        left = f"at most {clock(eta)}" if eta is not None and live.eta_at_most else clock(eta)
        self.query_one("#progress-head", Static).update(
            f"[b]{run}[/] {escape(live.corpus)}  {live.status}  {where}  elapsed {clock(live.elapsed())}  left {left}"
        )

    # --- actions ------------------------------------------------------------------------------

    def action_cancel(self) -> None:
        self.app.cancel_run()

    def action_new_run(self) -> None:
        from .new_run import NewRunScreen

        self.app.push_screen(NewRunScreen())
