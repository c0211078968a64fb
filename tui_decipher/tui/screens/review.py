"""Review: the proposed cognate pairs of the selected run, by confidence, judged one key at a time.

Each decision is committed to the store when its key is pressed, so killing the terminal loses
nothing. The detail pane explains the selected pair: its reading (segments with probabilities, and
a neural run's attention grid), the model's other candidates for the lost word and, when the corpus
has them, the gold cognates. After a refinement (`R`) the new proposals replace the old with the
cursor where it was, and a Δ marks those it changed.
Where a run's D is a range (auto), the pairs past D that the range allows follow the proposals,
dimmed (the side panel says how far past D: "+1 past D"): judged as any pair, counted apart.
Each judgment settles D (session/settled_demand.py): where it moves, the cut between the proposals and
the pairs past D moves with it at once, no training, and the counts say "D 43 -> 89 (20 judged)".
`B` shows the boundary queue (session/boundary.py): the 20 unjudged pairs that say most about where the
correct pairs end, "12 of 20 judged" as they are answered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input

from ...exports.base import carried
from ...session.settled_demand import settle_run
from ...store import ACCEPTED, FINISHED, OPEN, REJECTED, UNSURE, ProposalRow
from ..widgets.mode_bar import ModeBar
from ..widgets.pair_detail import PairDetail, status_cell
from ..widgets.review_counts import ReviewCounts
from ..widgets.row_table import RowTable
from .candidates import ask_candidate
from .export import ExportScreen
from .refine import ask_refinement
from .review_order import SORT_OF_COLUMN, boundary_queue, kept_row, next_sort, shown_line, shown_ranks

if TYPE_CHECKING:
    from textual import getters

    from ..app import DecipherApp, Refinement

CYCLE = {OPEN: ACCEPTED, ACCEPTED: REJECTED, REJECTED: UNSURE, UNSURE: OPEN}
STATUS_FILTERS = ("all", OPEN, ACCEPTED, REJECTED, UNSURE)
CHANGED = Text("Δ", style="bold cyan")  # the mark of a proposal the last refinement changed
BEYOND_STYLE = "dim italic"  # a pair past the run's D (its rank, words and score)


class ReviewScreen(Screen[None]):
    """Accept, reject or question proposed cognates by keyboard."""

    if TYPE_CHECKING:
        app = getters.app(DecipherApp)  # the typed app, for the type checker only

    HELP_TITLE = "Review"
    AUTO_FOCUS = "#pairs"
    BINDINGS = [
        Binding("a", "decide('accepted')", "Accept", tooltip="Accept the pair and move down", id="review.accept"),
        Binding("r", "decide('rejected')", "Reject", tooltip="Reject the pair and move down", id="review.reject"),
        Binding("m", "decide('unsure')", "Unsure", tooltip="Mark the pair unsure (maybe): kept and exported, "
                "not a constraint on refinement; move down", id="review.unsure"),
        # Undo, cycle and the status filter are in `?` only, so that an 80-column footer shows the rest.
        Binding("u", "undo", "Undo", show=False, tooltip="Undo the last decision", id="review.undo"),
        Binding("R", "refine", "Refine", tooltip="Refine the run (rounds; in place or as a new run) with accepted "
                "pairs fixed and rejected ones removed; Δ marks what it changed", id="review.refine"),
        Binding("space", "cycle", "Cycle", key_display="␣", show=False,
                tooltip="Cycle open -> accepted -> rejected -> unsure", id="review.cycle"),
        Binding("n", "next_open(1)", "Next", key_display="n/N", tooltip="Next open (unreviewed) pair",
                id="review.next"),
        Binding("N", "next_open(-1)", "Prev", show=False, tooltip="Previous open (unreviewed) pair",
                id="review.previous"),
        Binding("slash", "filter", "Find", tooltip="Filter by text in the lost or known word", id="review.filter"),
        Binding("t", "take", "Take", show=False, tooltip="Take another of the model's candidates for this lost "
                "word: it accepted, this pair rejected", id="review.take"),
        Binding("s", "sort", "Sort", show=False, tooltip="Sort by rank, lost, known or status (a column's header too)",
                id="review.sort"),
        Binding("f", "status_filter", "Status", show=False, tooltip="Show all / open / accepted / rejected / unsure",
                id="review.status"),
        Binding("b", "past_d", "Past D", show=False, tooltip="Jump to the first pair past the run's D (auto, where D "
                "is a range), or back to the first proposal", id="review.past_d"),
        Binding("B", "boundary", "Boundary", show=False, tooltip="Show the boundary queue: the 20 pairs whose "
                "judgments say most about where the correct pairs end (D settles as they are judged); B again: all",
                id="review.boundary"),
        Binding("e", "export", "Export", tooltip="Export the review: tsv, cog, EDICTOR, CLDF or the key",
                id="review.export"),
        Binding("escape", "show_all", "All", show=False, tooltip="Clear the filters: every pair shown again",
                id="review.show_all"),
    ]  # fmt: skip

    def compose(self) -> ComposeResult:
        yield ModeBar("review")
        yield Input(placeholder="filter: text in the lost or known word (enter: back to the list, escape: clear)",
                    id="filter")  # fmt: skip
        with Horizontal(id="review-body"):
            yield RowTable(id="pairs", cursor_type="row", zebra_stripes=True)
            yield PairDetail(id="pair-detail")
        yield ReviewCounts("", id="review-counts")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.run_id: int | None = None
        self.rows: list[ProposalRow] = []
        self.by_rank: dict[int, ProposalRow] = {}
        self.shown_ranks: list[int] = []  # ranks shown, in order
        # (lost index, known index, status before the change): by pair, as a refinement renumbers ranks
        self.undo_stack: list[tuple[int, int, str]] = []
        self.changed: set[int] = set()  # ranks whose proposal the run's last refinement changed
        self.refinement: Refinement | None = None  # the run's last refinement that ended in this session (app.refined)
        self.status_filter = "all"
        self.sort_by, self.sort_reverse = "rank", False  # the run's own order (review_order.py)
        # The boundary queue's ranks while it is shown (`B`; session/boundary.py), fixed when asked for, so that
        # a pair judged stays in it (ranks survive a recut); None: every pair shown.
        self.queue: list[int] | None = None
        self.query_one("#filter", Input).display = False
        self.load()

    def on_screen_resume(self) -> None:
        if self._refined_here():  # e.g. a refinement ended while another screen showed
            if self.run_id != self.app.selected_run or self._stamp() != self.loaded_stamp:
                self.reload_keeping_place()
        elif self.run_id != self.app.selected_run:
            self.load()
        elif self._stamp() != self.loaded_stamp:
            self.reload_keeping_place()

    def _stamp(self) -> tuple | None:
        """What changes when the run's proposals are rewritten: its status and its recorded seconds."""
        run = self.app.store.run(self.run_id) if self.run_id is not None else None
        return None if run is None else (run.status, run.seconds)

    def _refined_here(self) -> bool:
        """Whether the selected run is the shown run or a branch of it, and a refinement of it has ended."""
        selected = self.app.selected_run
        refinement = self.app.refined.get(selected) if selected is not None else None
        return refinement is not None and refinement.source == self.run_id

    def refresh_from_app(self, event: object = None) -> None:
        # A run that just finished may be the one on screen, or a branch of it: show its proposals.
        if event is None and (self.app.selected_run == self.run_id or self._refined_here()):
            self.reload_keeping_place()

    # --- data ---------------------------------------------------------------------------------

    def load(self) -> None:
        """Read the selected run's proposals and decisions from the store."""
        if self.app.selected_run != self.run_id:
            self.undo_stack = []
            self.queue = None  # a boundary queue is one run's ranks
        self.run_id = self.app.selected_run
        run = self.app.store.run(self.run_id) if self.run_id is not None else None
        self.run_row = run
        self.loaded_stamp = None if run is None else (run.status, run.seconds)
        # The proposals, then the pairs past D the evidence allows (ranked after them, marked "+k").
        self.rows = self.app.store.proposals(run.id) + self.app.store.beyond_pairs(run.id) if run is not None else []
        self.n_proposed = sum(not r.beyond for r in self.rows)
        self.by_rank = {r.rank: r for r in self.rows}
        self.refinement = self.app.refined.get(run.id) if run is not None else None
        # Δ marks proposals only: a pair past D was never proposed, so it has no earlier reading to differ from.
        refinement = self.refinement
        self.changed = {r.rank for r in self.rows if not r.beyond and refinement.changed(r)} if refinement else set()
        table = self.query_one("#pairs", DataTable)
        table.clear(columns=True)
        table.add_column("#", key="rank")
        if self.refinement is not None:  # only after a refinement, like gold only with gold
            table.add_column("Δ", key="changed", width=1)
        table.add_column("lost", key="lost")
        table.add_column("known", key="known")
        table.add_column("score", key="score")
        table.add_column("status", key="status", width=9)
        if run is not None and run.has_gold:
            table.add_column("gold", key="gold")
        self.apply_filter()
        if run is None:
            self.query_one("#pair-detail", PairDetail).message("No run selected: pick one on Runs (1).")
        elif not self.rows:
            self.query_one("#pair-detail", PairDetail).message(f"Run #{run.id} has no proposals yet ({run.status}).")

    def reload_keeping_place(self) -> None:
        """Reload the run's proposals (a refinement rewrote them) with the cursor on the pair the
        reviewer was on: the same pair, else the same lost word's new pair, else the same row."""
        rank = self._current_rank()
        place = None if rank is None else self.by_rank[rank]
        index = self.query_one("#pairs", DataTable).cursor_coordinate.row
        self.load()
        if place is None or not self.shown_ranks:
            return
        target = kept_row([self.by_rank[r] for r in self.shown_ranks], place, index)
        self.query_one("#pairs", DataTable).move_cursor(row=target)
        self._show_detail()

    def apply_filter(self, keep_rank: int | None = None) -> None:
        text = self.query_one("#filter", Input).value.strip().casefold()
        table = self.query_one("#pairs", DataTable)
        keep_rank = keep_rank if keep_rank is not None else self._current_rank()
        table.clear()
        self.shown_ranks = shown_ranks(self.rows, text, self.status_filter, self.queue, self.sort_by,
                                       self.sort_reverse)  # fmt: skip
        has_gold = self.run_row is not None and self.run_row.has_gold
        for rank in self.shown_ranks:
            row = self.by_rank[rank]
            words: list = [str(rank), row.lost, row.known, f"{row.score:.3f}"]
            if row.beyond:  # past D: dimmed, the side panel says how far
                words = [Text(cell, style=BEYOND_STYLE) for cell in words]
            cells: list = [*words, status_cell(row.status)]
            if self.refinement is not None:
                cells.insert(1, CHANGED if rank in self.changed else "")
            if has_gold:
                cells.append("yes" if row.gold else "")
            table.add_row(*cells, key=str(rank))
        if keep_rank in self.shown_ranks:
            table.move_cursor(row=self.shown_ranks.index(keep_rank))
        self._update_counts()
        self._show_detail()

    def _current_rank(self) -> int | None:
        table = self.query_one("#pairs", DataTable)
        if table.row_count == 0:
            return None
        row = table.cursor_coordinate.row
        return self.shown_ranks[row] if 0 <= row < len(self.shown_ranks) else None

    def _update_counts(self) -> None:
        queue = None
        if self.queue is not None:
            queue = (sum(self.by_rank[r].status != OPEN for r in self.queue if r in self.by_rank), len(self.queue))
        shown = shown_line(len(self.shown_ranks), len(self.rows), self.status_filter, queue,
                           self.query_one("#filter", Input).value.strip(), self.sort_by, self.sort_reverse)  # fmt: skip
        title = f"run #{self.run_id}  " if self.run_id is not None else ""
        judged = len(self.app.store.judgments(self.run_id)) if self.run_id is not None else 0
        settled = self.run_row.decisions.get("settled") if self.run_row is not None else None
        change = ""
        if self.refinement is not None:
            since = "the last refinement" if self.refinement.out is None else f"run #{self.refinement.source}"
            change = f"  [b cyan]Δ {len(self.changed)} changed by {since}[/]"
        self.query_one("#review-counts", ReviewCounts).show(title, self.rows, judged, settled, change, shown)

    # --- detail pane --------------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#pairs")
    def _highlighted(self) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        rank = self._current_rank()
        detail = self.query_one("#pair-detail", PairDetail)
        if rank is not None:
            detail.show(self.by_rank[rank], self.n_proposed, self.run_row is not None and self.run_row.has_gold)
        elif self.rows:
            detail.message("No pair matches the filter.")

    # --- actions ------------------------------------------------------------------------------

    def set_status(self, rank: int, status: str, record_undo: bool = True) -> None:
        row = self.by_rank[rank]
        if record_undo:
            self.undo_stack.append((row.lost_index, row.known_index, row.status))
        assert self.run_id is not None  # rows are only loaded for a run
        self.app.store.set_judgment(self.run_id, row.lost_index, row.known_index, status)  # committed now
        row.status = status
        if self._settle():
            return
        table = self.query_one("#pairs", DataTable)
        if str(rank) in table.rows:
            table.update_cell(str(rank), "status", status_cell(status))
        self._update_counts()
        self._show_detail()

    def _settle(self) -> bool:
        """The judgments settle D (session/settled_demand.py); where the cut moves, the proposals are
        shown recut there, the cursor on the same pair. Whether it moved."""
        run = self.app.store.run(self.run_id) if self.run_id is not None else None
        if run is None or run.status != FINISHED or not self.rows:
            return False
        settled = settle_run(self.app.store, run)
        if settled is None or settled.demand == self.n_proposed:
            self.run_row = self.app.store.run(run.id)  # its decisions' settled line, for the counts
            return False
        self.reload_keeping_place()
        return True

    def action_decide(self, status: str) -> None:
        rank = self._current_rank()
        if rank is None:
            return
        self.set_status(rank, status)
        self.query_one("#pairs", DataTable).action_cursor_down()

    def action_cycle(self) -> None:
        rank = self._current_rank()
        if rank is not None:
            self.set_status(rank, CYCLE[self.by_rank[rank].status])

    def action_undo(self) -> None:
        if not self.undo_stack:
            self.notify("Nothing to undo.")
            return
        lost, known, previous = self.undo_stack.pop()
        rank = next((r.rank for r in self.rows if (r.lost_index, r.known_index) == (lost, known)), None)
        if rank is None:  # a refinement no longer proposes the pair: its decision is still the store's
            assert self.run_id is not None  # undo entries are only recorded for the loaded run
            self.app.store.set_judgment(self.run_id, lost, known, previous)
            if not self._settle():
                self._update_counts()
            self.notify(f"Undone: a pair not shown is {previous} again.")
            return
        self.set_status(rank, previous, record_undo=False)
        if rank in self.shown_ranks:
            self.query_one("#pairs", DataTable).move_cursor(row=self.shown_ranks.index(rank))

    def action_next_open(self, step: int) -> None:
        if not self.shown_ranks:
            return
        current = self._current_rank()
        start = self.shown_ranks.index(current) if current in self.shown_ranks else -step
        n = len(self.shown_ranks)
        for offset in range(1, n + 1):
            index = (start + step * offset) % n
            if self.by_rank[self.shown_ranks[index]].status == OPEN:
                self.query_one("#pairs", DataTable).move_cursor(row=index)
                return
        self.notify("No open pairs here: every shown pair is judged.")

    def action_past_d(self) -> None:
        """The cursor to the first shown pair past D; from there (or past it), to the first shown proposal."""
        shown = [self.by_rank[r] for r in self.shown_ranks]
        first = next((k for k, row in enumerate(shown) if row.beyond), None)
        if first is None:
            self.notify("No pairs past D here: the run's D is not a range, or the filter hides them.")
            return
        table = self.query_one("#pairs", DataTable)
        table.move_cursor(row=0 if table.cursor_coordinate.row >= first else first)

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self) -> None:
        self.apply_filter()

    @on(Input.Submitted, "#filter")
    def _leave_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = bool(box.value)
        self.query_one("#pairs", DataTable).focus()

    def action_show_all(self) -> None:
        """Escape: the text filter, the status filter and the boundary queue cleared, every pair shown."""
        self.query_one("#filter", Input).value, self.status_filter, self.queue = "", "all", None
        self._leave_filter()
        self.apply_filter()

    def action_sort(self) -> None:
        self.sort_by, self.sort_reverse = next_sort(self.sort_by), False
        self.apply_filter()

    @on(DataTable.HeaderSelected, "#pairs")
    def _sort_by_header(self, event: DataTable.HeaderSelected) -> None:
        """A column's header sorts by it; again, the other way round."""
        if (sort := SORT_OF_COLUMN.get(str(event.column_key.value))) is not None:
            self.sort_by, self.sort_reverse = sort, sort == self.sort_by and not self.sort_reverse
            self.apply_filter()

    def action_status_filter(self) -> None:
        index = STATUS_FILTERS.index(self.status_filter)
        self.status_filter = STATUS_FILTERS[(index + 1) % len(STATUS_FILTERS)]
        self.apply_filter()

    def action_boundary(self) -> None:
        """Show the boundary queue (review_order.py's `boundary_queue`), or all pairs again."""
        if self.queue is not None:
            self.queue = None
        else:
            self.queue, problem = boundary_queue(self.run_row, self.rows)
            if self.queue is None:
                self.notify(problem)
                return
        self.apply_filter()

    def action_take(self) -> None:
        rank = self._current_rank()
        if rank is not None:
            ask_candidate(self, self.by_rank[rank])

    def action_export(self) -> None:
        if self.run_row is None or not self.rows:
            self.notify("Nothing to export.")
            return
        self.app.push_screen(ExportScreen(self.run_row, carried(self.rows)))

    def action_refine(self) -> None:
        """Ask how to refine the run (rounds; in place or a branch); the new proposals show here when it ends."""
        if not self.rows:
            self.notify("No run with proposals to refine.")
            return
        ask_refinement(self, self.run_row, "here")
