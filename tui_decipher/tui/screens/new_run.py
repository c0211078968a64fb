"""The new-run form: corpus (registry name, or a path of any corpus format) with a preview, preset,
main hyperparameters.

Every field maps to one config field and is checked by the config's own rules as you type:
an invalid value is marked on the field with the allowed range, and Start refuses to go.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, get_args

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.validation import ValidationResult, Validator
from textual.widgets import Button, Footer, Input, Label, Select, Static
from textual.worker import get_current_worker

from ...engine.run.config import (
    DEVICES,
    PRESETS,
    ChannelKind,
    ChannelObjective,
    ConfigError,
    DecipherConfig,
    InitFlow,
    Regularizer,
    Sparsify,
    build_config,
    check_field,
)
from ...engine.run.method_summaries import SUMMARIES
from ...session.cores import screen_threads
from ...session.corpus_views import available_corpora
from ..widgets.corpus_preview import CorpusPreview, CorpusSummary, summarize_corpus

if TYPE_CHECKING:
    from textual import getters

    from ..app import DecipherApp

# The preset choice that means none: the config defaults, where `method = "auto"` decides the rest.
NO_PRESET, NO_PRESET_LABEL = "-", "none (auto decides)"
# (config field, label) of the hyperparameters the form shows; the rest come from the preset.
FIELDS: tuple[tuple[str, str], ...] = (
    ("auto_steps", "auto steps (0 = its own)"),
    ("auto_demand", "auto D (0 = its own)"),
    ("rounds", "EM rounds T"),
    ("epochs", "steps per M-step"),
    ("first_epochs", "round-1 steps"),
    ("restarts", "restarts"),
    ("seed", "seed"),
    ("threads", "CPU threads"),
    ("embed_dim", "embedding d"),
    ("hidden_dim", "hidden size"),
    ("n_universal", "universal chars n_u"),
    ("capacity", "capacity C"),
    ("cognate_fraction", "cognate fraction"),
    ("flow_decay", "flow decay gamma"),
    ("reg_weight", "regularizer lambda"),
    ("lr", "learning rate"),
    ("top_k", "candidates per lost word"),
)
# (config field, label, choices) of the fields picked from a list; the Select's id is the field name.
CHOICES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("method", "method", tuple(SUMMARIES)),
    ("regularizer", "regularizer", get_args(Regularizer)),
    ("sparsify", "flow graph", get_args(Sparsify)),
    ("init_flow", "initial flow", get_args(InitFlow)),
    ("channel_objective", "channel objective", get_args(ChannelObjective)),
    ("channel_kind", "channel kind", get_args(ChannelKind)),
    ("device", "device", DEVICES),
)


class FieldValidator(Validator):
    """Validates a text field with the config's own coercion and range check."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.field = name

    def validate(self, value: str) -> ValidationResult:
        try:
            check_field(self.field, value)
        except ConfigError as exc:
            return self.failure(str(exc))
        return self.success()


class NewRunScreen(Screen[None]):
    """Configure and start a run. ctrl+s starts, escape goes back."""

    if TYPE_CHECKING:
        app = getters.app(DecipherApp)  # the typed app, for the type checker only

    HELP_TITLE = "New run"
    AUTO_FOCUS = "#corpus-select"  # not the scroll container: typing and tab go straight to the fields
    BINDINGS = [
        Binding("ctrl+s", "start", "Start", id="new.start"),
        Binding("escape", "back", "Back", id="new.back"),
    ]

    def __init__(self, corpus: str | None = None) -> None:
        super().__init__()
        self.initial_corpus = corpus

    def compose(self) -> ComposeResult:
        self.available = available_corpora()
        corpus_options = [(name, name) for name in self.available]
        yield Static("[b]New run[/]  (ctrl+s start, escape back)", id="new-title")
        with VerticalScroll(id="new-form"):
            with Horizontal(classes="form-row"):
                yield Label("corpus", classes="form-label")
                yield Select(corpus_options, value="demo" if "demo" in self.available else Select.NULL,
                             id="corpus-select", allow_blank=True, prompt="(registry)")  # fmt: skip
            with Horizontal(classes="form-row"):
                yield Label("or a path", classes="form-label")
                yield Input(placeholder="a .cog, CLDF metadata/folder or EDICTOR .tsv", id="corpus-path")
            with Horizontal(classes="form-row"):
                yield Label("lost / known", classes="form-label")
                yield Input(placeholder="lost code", id="lost")
                yield Input(placeholder="known code", id="known")
            with Horizontal(classes="form-row"):
                yield Label("known pairs", classes="form-label")
                yield Input(placeholder="optional: a lost/known/decision .tsv of secure readings", id="known-pairs")
            with Horizontal(classes="form-row"):
                yield Label("known signs", classes="form-label")
                yield Input(placeholder="optional: a lost/known .tsv of sign values", id="known-signs")
            yield CorpusPreview("loading...", id="corpus-preview")
            with Horizontal(classes="form-row"):
                yield Label("preset", classes="form-label")
                options = [(NO_PRESET_LABEL, NO_PRESET)] + [(p, p) for p in PRESETS]
                yield Select(options, value=NO_PRESET, id="preset", allow_blank=False)
            defaults = DecipherConfig()
            for name, label, choices in CHOICES:
                with Horizontal(classes="form-row"):
                    yield Label(label, classes="form-label")
                    yield Select([(c, c) for c in choices], value=getattr(defaults, name), id=name, allow_blank=False)
            for name, label in FIELDS:
                with Horizontal(classes="form-row"):
                    yield Label(label, classes="form-label")
                    yield Input(id=f"field-{name}", validators=[FieldValidator(name)], validate_on=["changed"])
            yield Static("", id="form-error")
            with Horizontal(id="form-buttons"):
                yield Button("Start", variant="primary", id="start")
                yield Button("Back", id="back")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        if self.initial_corpus:
            if self.initial_corpus in self.available:
                self.query_one("#corpus-select", Select).value = self.initial_corpus
            else:
                self.query_one("#corpus-path", Input).value = self.initial_corpus
        self._fill_from_preset(self._preset_name())
        self._preview()

    # --- values -------------------------------------------------------------------------------

    def _preset_name(self) -> str | None:
        """The chosen preset; None for none (the config defaults: `method = "auto"`)."""
        value = self.query_one("#preset", Select).value
        return None if value is Select.NULL or value == NO_PRESET else str(value)

    def corpus_value(self) -> str:
        path = self.query_one("#corpus-path", Input).value.strip()
        if path:
            return path
        value = self.query_one("#corpus-select", Select).value
        return "" if value is Select.NULL else str(value)

    def _fill_from_preset(self, name: str | None) -> None:
        cfg = DecipherConfig(**PRESETS[name]) if name else DecipherConfig()
        for field_name, _ in FIELDS:
            value = getattr(cfg, field_name)
            if field_name == "threads":  # the user's machine, not the preset's: leave the screen a core
                value = value or screen_threads()
            self.query_one(f"#field-{field_name}", Input).value = str(value)
        for name, _, _ in CHOICES:
            if name != "device":  # where to run is the user's machine, not the preset's
                self.query_one(f"#{name}", Select).value = getattr(cfg, name)

    def overrides(self) -> dict[str, Any]:
        """Every form value as {config field: text}; build_config coerces and validates them."""
        values: dict[str, Any] = {"corpus": self.corpus_value()}
        values["lost"] = self.query_one("#lost", Input).value.strip()
        values["known"] = self.query_one("#known", Input).value.strip()
        values["known_pairs"] = self.query_one("#known-pairs", Input).value.strip()
        values["known_signs"] = self.query_one("#known-signs", Input).value.strip()
        for name, _, _ in CHOICES:
            values[name] = str(self.query_one(f"#{name}", Select).value)
        for name, _ in FIELDS:
            values[name] = self.query_one(f"#field-{name}", Input).value
        return values

    # --- events -------------------------------------------------------------------------------

    @on(Select.Changed, "#preset")
    def _preset_changed(self, event: Select.Changed) -> None:
        if event.value is not Select.NULL:
            self._fill_from_preset(self._preset_name())

    @on(Select.Changed, "#corpus-select")
    def _corpus_changed(self, event: Select.Changed) -> None:
        # A registry corpus gives its files and language codes, never settings: the preset stays the user's.
        if event.value is not Select.NULL:
            self._preview()

    @on(Input.Changed, "#corpus-path, #lost, #known")
    def _corpus_text_changed(self) -> None:
        self._preview()

    @on(Input.Changed)
    def _field_changed(self, event: Input.Changed) -> None:
        if event.validation_result is not None and not event.validation_result.is_valid:
            self.query_one("#form-error", Static).update(
                f"[red]{'; '.join(event.validation_result.failure_descriptions)}[/]"
            )
        elif event.validation_result is not None:
            self.query_one("#form-error", Static).update("")

    @on(Input.Submitted)
    def _next_field(self) -> None:
        self.focus_next()

    @on(Button.Pressed, "#start")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#back")
    def _back_pressed(self) -> None:
        self.action_back()

    def _corpus_key(self) -> tuple[str, str, str]:
        """(corpus, lost code, known code) as the form holds them: what a preview was made for."""
        return (self.corpus_value(), self.query_one("#lost", Input).value.strip(),
                self.query_one("#known", Input).value.strip())  # fmt: skip

    def _preview(self) -> None:
        self.query_one(CorpusPreview).show(None)
        self._load_preview(*self._corpus_key())

    @work(thread=True, exclusive=True, group="preview", description="corpus preview")
    def _load_preview(self, corpus: str, lost: str, known: str) -> None:
        summary = summarize_corpus(corpus, lost, known) if corpus else CorpusSummary("choose a corpus", False)
        if not get_current_worker().is_cancelled:  # a newer preview superseded this one
            self.app.call_from_thread(self._show_preview, (corpus, lost, known), summary)

    def _show_preview(self, key: tuple[str, str, str], summary: CorpusSummary) -> None:
        self.previewed = (key, summary)
        if self.is_attached:
            self.query_one(CorpusPreview).show(summary)

    def _corpus_refusal(self) -> str | None:
        """Why the corpus the form names cannot be read (the preview's one line), None if it can. A
        preview that read these values is trusted; otherwise, a refusal included (the file may have
        been mended since), the corpus is read again now and the preview shows the new verdict."""
        key = self._corpus_key()
        previewed = getattr(self, "previewed", None)
        if previewed is not None and previewed[0] == key and previewed[1].ok:
            return None
        summary = summarize_corpus(*key)
        self._show_preview(key, summary)
        return None if summary.ok else Text.from_markup(summary.text).plain

    # --- actions ------------------------------------------------------------------------------

    def action_start(self) -> None:
        for name, _ in FIELDS:
            field_input = self.query_one(f"#field-{name}", Input)
            result = field_input.validate(field_input.value)
            if result is not None and not result.is_valid:
                field_input.focus()
                self.query_one("#form-error", Static).update(f"[red]{result.failure_descriptions[0]}[/]")
                self.notify(result.failure_descriptions[0], title="invalid field", severity="error")
                return
        if not self.corpus_value():
            self.notify("Choose a corpus or type a path.", severity="error")
            return
        refusal = self._corpus_refusal()
        if refusal is not None:  # the form stays open with what was typed, so the path can be mended
            self.query_one("#form-error", Static).update(f"[red]{escape(refusal)}[/]")
            self.notify(refusal, title="cannot read the corpus", severity="error")
            self.query_one("#corpus-path", Input).focus()
            return
        try:
            cfg, sources = build_config(self._preset_name(), None, self.overrides())
        except ConfigError as exc:
            self.query_one("#form-error", Static).update(f"[red]{exc}[/]")
            self.notify(str(exc), title="invalid settings", severity="error")
            return
        if self.app.running:
            self.notify("A run is already in progress: cancel it first.", severity="warning")
            return
        self.dismiss()
        self.app.start_run(cfg, sources)

    def action_back(self) -> None:
        self.dismiss()
