"""Take another of the model's candidates as a lost word's pair (Review's `t`): the chosen pair
accepted and the shown one rejected, two judgments like any other (a refinement then trains on
them, and they settle D as every judgment does)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...session.review_io import run_vocabulary
from ...store import ACCEPTED, OPEN, REJECTED, ProposalRow, StoreError

if TYPE_CHECKING:
    from .review import ReviewScreen


class CandidateScreen(ModalScreen[str | None]):
    """The model's other candidates for a lost word, best first; Enter takes one, Escape none."""

    BINDINGS = [Binding("escape", "choose_none", "Cancel", id="candidates.cancel")]

    def __init__(self, row: ProposalRow, candidates: list[tuple[str, float]]) -> None:
        super().__init__()
        self.row, self.candidates = row, candidates

    def compose(self) -> ComposeResult:
        lost, known = escape(self.row.lost), escape(self.row.known)
        with Vertical(id="candidates-body"):
            yield Static(f"Take another known word for [b]{lost}[/]: it is accepted, {known} rejected.")
            yield OptionList(*(Option(f"{escape(word)}  {score:.3f}", id=str(k))
                               for k, (word, score) in enumerate(self.candidates)), id="candidate-list")  # fmt: skip
            yield Static("[b]enter[/] take    [b]escape[/] cancel", classes="hint")

    @on(OptionList.OptionSelected, "#candidate-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.candidates[int(event.option.id or 0)][0])

    def action_choose_none(self) -> None:
        self.dismiss(None)


def ask_candidate(screen: ReviewScreen, row: ProposalRow) -> None:
    """Offer `row`'s other candidates; the one taken is accepted for its lost word and `row`
    rejected (each undone by `u`, the rejection first)."""
    candidates = [(word, score) for word, score in row.alternatives if word != row.known]
    if not candidates:
        screen.notify("The model has no other candidate for this lost word.")
        return

    def take(word: str | None) -> None:
        if word is None or screen.run_row is None:
            return
        try:
            known = run_vocabulary(screen.run_row, screen.rows).known_index(word)
        except StoreError as exc:
            screen.notify(str(exc), severity="error")
            return
        if known is None:  # the stored candidates are the corpus's words: only a changed corpus lacks one
            screen.notify(f"{word!r} is not a known word of the run's corpus.", severity="error")
            return
        before = screen.app.store.judgments(screen.run_row.id).get((row.lost_index, known), OPEN)
        screen.undo_stack.append((row.lost_index, known, before))
        screen.app.store.set_judgment(screen.run_row.id, row.lost_index, known, ACCEPTED)
        screen.set_status(row.rank, REJECTED)
        screen.notify(f"{row.lost} -> {word} accepted, {row.known} rejected; R refines the run on them.")

    screen.app.push_screen(CandidateScreen(row, candidates), take)
