"""Refine a run (`R` on Review): how many rounds, and in place or as a new run (a branch) in a new folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.validation import Integer
from textual.widgets import Button, Input, RadioButton, RadioSet, Static

from ...engine.constraints.judgments import REFINE_ROUNDS
from ...session.results import branch_run_dir
from ...session.run_session import pins_refit
from ...session.run_views import checkpoint_dir
from ...store import ACCEPTED, REJECTED, UNKNOWN_VALUE, RunRow
from ..widgets.marked import MarkedRadioButton

if TYPE_CHECKING:
    from .key import KeyScreen
    from .review import ReviewScreen

MAX_ROUNDS = 1000


@dataclass(frozen=True)
class RefineChoice:
    """What the dialog asks for: `rounds` more rounds, into the folder `out` (a branch) or in place (None)."""

    rounds: int
    out: Path | None


class RefineScreen(ModalScreen[RefineChoice | None]):
    """Pick the rounds and in place or a branch; enter or the button starts, escape cancels."""

    HELP_TITLE = "Refine"
    AUTO_FOCUS = "#refine-rounds"
    BINDINGS = [
        Binding("ctrl+s", "go", "Refine", tooltip="Start the refinement (enter in a field, too)", id="refine.go"),
        Binding("escape", "dismiss_none", "Cancel", tooltip="Close without refining", id="refine.cancel"),
        # A modal screen hides the app's bindings: its own ? (off the fields, where ? is typed).
        Binding("question_mark", "app.help", "Help", tooltip="These keys", id="refine.help"),
    ]

    def __init__(self, run: RunRow, accepted: int, rejected: int, pinned: int = 0, refits: bool = False) -> None:
        super().__init__()
        self.run, self.accepted, self.rejected, self.pinned = run, accepted, rejected, pinned
        self.refits = refits  # a pinned value new to the run makes auto fit it again (`refit_under`)

    def compose(self) -> ComposeResult:
        if self.accepted + self.rejected:
            judged = (f"{self.accepted} accepted pair(s) fixed and {self.rejected} rejected pair(s) removed; "
                      "unsure ones constrain nothing")  # fmt: skip
        else:
            judged = "no accepted or rejected pairs"
            judged += "" if self.pinned else ": it simply trains on, a control for later refinements"
        if self.pinned:
            judged += f"; {self.pinned} pinned sign value(s) held"
        with Vertical(id="refine-body"):
            yield Static(f"[b]Refine run #{self.run.id}[/]: {judged}.")
            with Horizontal(classes="refine-row", id="refine-rounds-row"):
                yield Static("rounds", classes="refine-label")
                yield Input(str(REFINE_ROUNDS), type="integer", validators=[Integer(1, MAX_ROUNDS)],
                            id="refine-rounds")  # fmt: skip
            if self.refits:
                took = f" ({self.run.seconds:.0f} s)" if self.run.seconds else ""
                again = (f"a pinned value new to this run fits it again, as long as the run took{took}: its "
                         "syllable map searched under the values, then its probes (and D, where it found no "
                         "map)")  # fmt: skip
                yield Static(again, classes="hint")
            else:
                yield Static("a round: one EM round (neural), 50 channel steps (channel, auto)", classes="hint")
            # A branch by default, and first (the set's cursor starts on its first button): enter never
            # replaces a run's proposals unless in place was chosen.
            with RadioSet(id="refine-where"):
                yield MarkedRadioButton("as a new run (a branch) in this folder, this run kept", value=True,
                                        id="refine-branch")  # fmt: skip
                yield MarkedRadioButton("in place: the new proposals replace this run's", id="refine-in-place")
            offered = str(branch_run_dir(Path(self.run.run_dir))) if self.run.run_dir else ""  # Review checks it
            yield Input(offered, id="refine-out")
            with Horizontal(id="refine-buttons"):
                yield Button("Refine", variant="primary", id="refine-go")
                yield Button("Cancel", id="refine-cancel")

    def on_mount(self) -> None:
        if self.refits:  # a refit (auto fitted again under new values) runs no rounds: no field for them
            self.query_one("#refine-rounds-row").display = False
            self.query_one("#refine-go", Button).focus()

    @on(RadioSet.Changed, "#refine-where")
    def _where_changed(self, event: RadioSet.Changed) -> None:
        self.query_one("#refine-out", Input).disabled = event.pressed.id != "refine-branch"

    def _choice(self) -> RefineChoice | str:
        """The choice, or what is wrong with it (one line)."""
        rounds = self.query_one("#refine-rounds", Input)
        result = rounds.validate(rounds.value)  # marks the field too
        if result is not None and not result.is_valid:
            return f"Rounds: a whole number from 1 to {MAX_ROUNDS}."
        if not self.query_one("#refine-branch", RadioButton).value:
            return RefineChoice(int(rounds.value), None)
        text = self.query_one("#refine-out", Input).value.strip()
        if not text:
            return "Name a new folder for the branch."
        out = Path(text).expanduser()
        if out.exists() and (not out.is_dir() or any(out.iterdir())):  # the session refuses it too, later
            return f"{out}: already exists and is not an empty folder; name a new one for the branch."
        return RefineChoice(int(rounds.value), out)

    @on(Button.Pressed, "#refine-go")
    @on(Input.Submitted)
    def action_go(self) -> None:
        choice = self._choice()
        if isinstance(choice, str):
            self.notify(choice, severity="error")
            return
        self.dismiss(choice)

    @on(Button.Pressed, "#refine-cancel")
    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def ask_refinement(screen: ReviewScreen | KeyScreen, run: RunRow | None, where_after: str) -> None:
    """From Review or Key: check that `run` can be refined, ask how (RefineScreen), start it and say
    what it holds (its accepted and rejected pairs, its pinned sign values). `where_after`: where
    the new proposals show when an in-place refinement ends."""
    app = screen.app
    if run is None:
        screen.notify("No run to refine: pick one on Runs (1).")
        return
    if app.running:
        screen.notify("A run is already in progress: cancel it first (c on Progress).", severity="warning")
        return
    run_dir = checkpoint_dir(run)
    if run_dir is None:
        screen.notify(f"Run #{run.id} has no checkpoint to continue from.", severity="warning")
        return
    decisions = list(app.store.judgments(run.id).values())
    accepted, rejected = decisions.count(ACCEPTED), decisions.count(REJECTED)  # unsure ones constrain nothing
    pins = [(sign, value) for sign, value in app.store.pins(run.id) if value != UNKNOWN_VALUE]
    pinned = len(pins)
    refits = pins_refit(Path(run_dir), run.decisions, pins)  # values new to the run: auto fits it again

    def start(choice: RefineChoice | None) -> None:
        if choice is None or not app.refine_run(run.id, run_dir, choice.rounds, choice.out, refits):
            return
        if choice.out is None:
            where, after = "in place", f"the new proposals appear {where_after} when it ends, your decisions kept"
        else:
            where, after = f"as a new run in {choice.out}", "Review shows the new run when it ends"
        pins = f" and {pinned} pinned sign value(s)" if pinned else ""
        how = "fitting it again" if refits else f"for {choice.rounds} round(s)"
        screen.notify(
            f"Refining run #{run.id} {where}, {how}, with {accepted} accepted and "
            f"{rejected} rejected pairs{pins}. Keep working, or press 2 to watch; {after} (Δ marks what changed).",
            timeout=8,
        )

    app.push_screen(RefineScreen(run, accepted, rejected, pinned, refits), start)
