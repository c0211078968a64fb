"""Run configuration: one typed dataclass, a preset per corpus, TOML overrides, validation.

Every CLI flag and TUI field maps to exactly one field here. Names follow the paper: capacity C,
demand D, flow decay gamma, norm ratio r, regularizer weight lambda, universal inventory n_u.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, get_args, get_type_hints

from .method_summaries import settings_error
from .presets import DEFINITIONS as PRESET_DEFINITIONS
from .presets import canonical as canonical_preset
from .presets import resolve as resolve_preset

Regularizer = Literal["alphabetic", "syllabic", "none"]
CostKind = Literal["nll", "eed"]
Sparsify = Literal["top-k", "union-top-k", "grown-top-k"]
SampleWeights = Literal["sharpened", "model"]
InitFlow = Literal["uniform", "edit-distance", "channel"]
ChannelObjective = Literal["lexicon", "transport"]
ChannelKind = Literal["pieces", "edit"]
DEVICES = ("auto", "cpu", "cuda")  # or "cuda:N"


class ConfigError(ValueError):
    """A config value out of range or of the wrong type; the message names the field."""


@dataclass
class DecipherConfig:
    """Everything that determines a run. Defaults are the paper's settings where it gives them.

    One flat record (what summary.json, the store and checkpoints keep), read in sections
    (`SECTIONS`): the corpus, the method (the tag that picks which method section applies), the
    flow, the neural EM, the character channel, and the run's execution.
    """

    # --- [corpus] -----------------------------------------------------------------------------
    corpus: str = "demo"  # a registry name (`decipher corpus list`), or a corpus file or folder
    lost: str = ""  # language code or column index; "" = first column
    known: str = ""  # "" = second column
    lost_words: str = ""  # a plain word list (one word per line) for the lost language, no gold
    known_words: str = ""  # with lost_words: the known language's word list
    # A review file (`lost<TAB>known<TAB>decision`, as `decipher review export` writes) of judgments
    # known before the run, e.g. a bilingual's secure readings: accepted pairs are fixed from the
    # run's start, rejected ones excluded, and both become the run's decisions. "" = none.
    known_pairs: str = ""
    # A sign-values file (`lost<TAB>known`: a lost symbol and the known letters it writes, e.g. from
    # a bilingual): the character channel's reading of those symbols from the run's start
    # (engine/constraints/sign_values.py). "" = none.
    known_signs: str = ""
    # --- [method] -----------------------------------------------------------------------------
    # "auto" (beyond the paper): the channel, the demand D and the capacity C chosen from the word
    # lists (engine/methods/auto/); it sets [channel] and [flow] itself. "neural": the paper's EM
    # with the neural model ([neural]); the paper's presets name it. "channel": a character channel
    # alone ([channel]), no neural model and no EM rounds.
    method: str = "auto"  # a name in engine/methods' registry (METHODS; run/method_summaries.py), checked by `validate`
    # auto's channel steps, its probe's and its fit's together; 0 = its own choice per channel kind.
    auto_steps: int = 0
    # auto's D where the decipherer knows how many lost words have a cognate: 0 = read from the word
    # lists (its estimate, with the range its evidence allows); N = N pairs proposed (at most every
    # lost word, and every known word where each is read once: C = 1), the estimate and its range
    # still read and shown beside it.
    auto_demand: int = 0
    # Where the lost script is a cipher of an alphabet (two scripts, about as many signs as letters):
    # auto reads the words again as one alphabet through the map its channel learnt, pass after pass
    # until the map stands still (engine/methods/auto/reading.py). A run saved before this field
    # existed was decided without it and reads it as false (`Checkpoint.settings`).
    auto_read_again: bool = True
    # --- [neural]: the model (paper section 3.1) --------------------------------------------------
    n_universal: int = 50  # n_u: universal character inventory
    embed_dim: int = 250  # d: character embedding size
    hidden_dim: int = 250  # LSTM hidden size
    dropout: float = 0.3  # the neural model's dropout rate while it trains
    residual: bool = True  # norm-controlled residual from the lost embeddings (ablation: False)
    norm_ratio: float = 0.2  # r in g = min(r * |c| / |h|, 1)
    # Beyond the paper: symbols both alphabets share start with one embedding (a copy prior for
    # transliterations written with one alphabet; no effect across different scripts).
    tie_shared_symbols: bool = False
    regularizer: Regularizer = "alphabetic"  # Omega_1; "syllabic" = Omega_2; "none" = ablation
    reg_weight: float = 0.5  # lambda
    # --- [neural]: the EM schedule ----------------------------------------------------------------
    rounds: int = 10  # T: EM iterations
    epochs: int = 60  # M-step optimiser steps; each decodes every lost word once
    first_epochs: int = 0  # steps of round 1's M-step (from the uniform flow); 0 = `epochs`
    reset_each_round: bool = True  # paper: re-initialise theta every M-step; False = warm start
    # Keep the last round's model when a new M-step explains the current flow worse (a stalled
    # fresh start); False = always take the new one, as the paper does.
    keep_better_model: bool = False
    # Beyond the paper: lost words decoded per M-step step after round 1 (a random batch,
    # reshuffled each pass); 0 = all of them, as in the paper. Round 1 always decodes them all.
    lost_batch: int = 0
    lr: float = 5e-3  # the M-step's Adam learning rate
    grad_clip: float = 5.0  # the M-step's gradient norm is clipped to this (0 = not clipped)
    restarts: int = 1  # random restarts; the best by training objective is kept (never by gold)
    use_flow: bool = True  # False = ablation "-flow": one M-step on the uniform flow, model argmax
    warmup_rounds: int = 1  # rounds whose flow cost is -log P; expected edit distance after
    # Beyond the paper: the flow round 1 trains on. "uniform" (paper); "edit-distance": the flow
    # of the words' normalised edit distance, decayed with the uniform one (one shared alphabet);
    # "channel": the flow of a character channel ([channel]) trained on the lexicon.
    init_flow: InitFlow = "uniform"
    eed_samples: int = 10  # S: sampled strings per lost word for the expected edit distance
    eed_sharpen: float = 10.0  # samples drawn from softmax(sharpen * log p_t)
    # Samples weighted by their sharpened log-probability (published code) or the model's.
    eed_sample_weights: SampleWeights = "sharpened"
    # --- [flow] (paper section 3.2) ---------------------------------------------------------------
    capacity: int = 1  # C: how many lost words one known word may take
    cognate_fraction: float = 1.0  # N = fraction of the lost vocabulary expected to have a cognate
    demand_step: int = 50  # D grows by this each EM round up to N (0 = D = N from round 1)
    flow_decay: float = 0.9  # gamma: f = gamma * f_prev + (1 - gamma) * f_new
    top_k: int = 5  # candidate known words per lost word kept in the flow graph
    sparsify: Sparsify = "top-k"  # "union-top-k" = the published code's variant; "grown-top-k": k widened (flow.py)
    # --- [channel] (beyond the paper; engine/channels/) -------------------------------------------
    # "pieces": each lost symbol written from one or two known letters (a syllabary against an
    # alphabet). "edit": letter by letter with insertions and drops and a copy prior (two alphabets).
    channel_kind: ChannelKind = "pieces"
    # "lexicon": every lost word is the writing of some known word. "transport": the same gradient
    # weighted by a soft flow with the flow's D and C, so no known word explains more than C lost words.
    channel_objective: ChannelObjective = "lexicon"
    channel_steps: int = 300  # Adam steps
    channel_lr: float = 0.05  # the channel's Adam learning rate
    channel_batch: int = 128  # lost words per step, each scored against every known word
    # Channels trained from different random starts; the one with the lowest lexicon loss is kept.
    channel_restarts: int = 1
    # Spread of the random start (logits ~ N(0, scale^2)): near-symmetric starts let the
    # lexicon's own statistics pick the map.
    channel_init_scale: float = 0.02
    # The edit channel's copy prior: a symbol both alphabets hold starts this many logits above the
    # others as the writing of its own letter (0 = no prior).
    channel_copy_bias: float = 3.0
    # The pieces channel's gapped pieces: three known letters a b c writing one symbol as a c does,
    # b unwritten (a transliteration's digraph, kh, read where the script writes k). auto turns them
    # on where the lost script reads as a syllabary.
    channel_gaps: bool = False
    # --- [run]: execution ----------------------------------------------------------------------
    seed: int = 1234  # every random draw of the run: the same seed and settings, the same run
    device: str = "auto"  # auto | cpu | cuda
    # torch's CPU threads for the run; 0 = the front end's own: every core in `decipher run` (or
    # OMP_NUM_THREADS), one core fewer in `decipher-tui`, whose screen needs one (engine/run/device.py).
    threads: int = 0
    score_chunk: int = 256  # lost words decoded at once when scoring all pairs (bounds memory)

    def replace(self, **changes: Any) -> DecipherConfig:
        """A copy with some fields changed, validated."""
        new = dataclasses.replace(self, **changes)
        new.validate()
        return new

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def validate(self) -> None:
        """Refuse out-of-range values with the field's name and the allowed range."""
        for f in fields(self):
            _check_type(f.name, getattr(self, f.name), _HINTS[f.name])
        for name in _RANGES:
            _check_range(name, getattr(self, name))
        _check_range("device", self.device)
        problem = settings_error(self)  # each method's rule, read without importing the methods
        if problem is not None:
            raise ConfigError(problem)


_HINTS = get_type_hints(DecipherConfig)

MIN_COGNATE_FRACTION = 0.001  # the least share of the lost words a D may be said as
_RANGES: dict[str, tuple[float, float]] = {
    "n_universal": (1, 10_000), "embed_dim": (2, 4096), "hidden_dim": (2, 4096), "dropout": (0.0, 0.95),
    "norm_ratio": (0.0, 10.0), "reg_weight": (0.0, 1000.0), "rounds": (1, 1000), "epochs": (1, 100_000),
    "first_epochs": (0, 100_000), "lost_batch": (0, 10_000_000), "lr": (1e-7, 1.0), "grad_clip": (0.0, 1e6),
    "restarts": (1, 100), "capacity": (1, 1000), "cognate_fraction": (MIN_COGNATE_FRACTION, 1.0),
    "flow_decay": (0.0, 1.0), "top_k": (1, 100_000), "warmup_rounds": (0, 1000), "channel_steps": (1, 100_000),
    "auto_steps": (0, 100_000), "auto_demand": (0, 10_000_000), "channel_lr": (1e-6, 10.0),
    "channel_batch": (1, 1_000_000), "demand_step": (0, 1_000_000),
    "channel_restarts": (1, 100), "channel_init_scale": (0.0, 10.0), "channel_copy_bias": (0.0, 100.0),
    "eed_samples": (1, 1000), "eed_sharpen": (0.01, 1000.0), "seed": (0, 2**31 - 1), "score_chunk": (1, 1_000_000),
    "threads": (0, 1024),
}  # fmt: skip


def _check_range(name: str, value: Any) -> None:
    if name in _RANGES:
        lo, hi = _RANGES[name]
        if not lo <= value <= hi:
            raise ConfigError(f"{name} = {value!r} is out of range (allowed {lo}..{hi})")
    if name == "device" and value not in DEVICES and not value.startswith("cuda:"):
        raise ConfigError(f"device = {value!r} is not one of {', '.join(DEVICES)}")


def field_range(name: str) -> tuple[float, float] | None:
    """The allowed (low, high) of a numeric field, for help texts and form hints."""
    return _RANGES.get(name)


def check_field(name: str, value: Any) -> Any:
    """Coerce one field's value (e.g. a form's text) and check its type and range; the value or ConfigError."""
    value = coerce_field(name, value)
    _check_range(name, value)
    return value


def _check_type(name: str, value: Any, hint: Any) -> None:
    choices = get_args(hint)
    if choices and all(isinstance(c, str) for c in choices):  # a Literal
        if value not in choices:
            raise ConfigError(f"{name} = {value!r} is not one of {', '.join(choices)}")
        return
    if hint is bool:
        ok = isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    else:
        ok = isinstance(value, hint)
    if not ok:
        raise ConfigError(f"{name} = {value!r} has the wrong type (expected {hint.__name__})")


def coerce_field(name: str, value: Any) -> Any:
    """Turn a value from TOML, a CLI flag or a TUI text field into the field's type, or refuse it."""
    if name not in _HINTS:
        close = difflib.get_close_matches(name, _HINTS, n=1)
        raise ConfigError(f"unknown config field {name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    hint = _HINTS[name]
    if isinstance(value, str) and hint in (int, float, bool):
        text = value.strip()
        try:
            if hint is bool:
                if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError
                value = text.lower() in ("true", "1", "yes")
            elif hint is int:
                value = int(text)
            else:
                value = float(text)
        except ValueError:
            raise ConfigError(f"{name} = {value!r} has the wrong type (expected {hint.__name__})") from None
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    _check_type(name, value, hint)
    return value


# Each preset's fields, its bases' included (engine/run/presets.py says why each differs).
PRESETS: dict[str, dict[str, Any]] = {name: resolve_preset(name) for name in PRESET_DEFINITIONS}

# The sections of a config, for TOML files and `decipher presets`: every field is in exactly one.
# [neural] and [channel] are the method sections; `method` says which one a run uses ([neural]
# runs may use [channel] too, to seed round 1's flow).
SECTIONS: dict[str, tuple[str, ...]] = {
    "corpus": ("corpus", "lost", "known", "lost_words", "known_words", "known_pairs", "known_signs"),
    "method": ("method", "auto_steps", "auto_demand", "auto_read_again"),
    "flow": ("capacity", "cognate_fraction", "demand_step", "flow_decay", "top_k", "sparsify"),
    "neural": (
        "n_universal", "embed_dim", "hidden_dim", "dropout", "residual", "norm_ratio", "tie_shared_symbols",
        "regularizer", "reg_weight", "rounds", "epochs", "first_epochs", "reset_each_round", "keep_better_model",
        "lost_batch", "lr", "grad_clip", "restarts", "use_flow", "warmup_rounds", "init_flow", "eed_samples",
        "eed_sharpen", "eed_sample_weights",
    ),
    "channel": (
        "channel_kind", "channel_objective", "channel_steps", "channel_lr", "channel_batch", "channel_restarts",
        "channel_init_scale", "channel_copy_bias", "channel_gaps",
    ),
    "run": ("seed", "device", "threads", "score_chunk"),
}  # fmt: skip
SECTION_OF: dict[str, str] = {name: section for section, names in SECTIONS.items() for name in names}


def preset(name: str) -> DecipherConfig:
    """The config of a named preset (an old name, `presets.ALIASES`, names its new one)."""
    name = canonical_preset(name)
    if name not in PRESETS:
        raise ConfigError(f"unknown preset {name!r} (have: {', '.join(PRESETS)})")
    cfg = DecipherConfig(**PRESETS[name])
    cfg.validate()
    return cfg


def apply_overrides(cfg: DecipherConfig, overrides: dict[str, Any], source: str = "") -> DecipherConfig:
    """Apply {field: value} overrides (from TOML, CLI or a form), coercing and validating each."""
    where = f"{source}: " if source else ""
    changes = {}
    for name, value in overrides.items():
        try:
            changes[name] = coerce_field(name, value)
        except ConfigError as exc:
            raise ConfigError(f"{where}{exc}") from None
    try:
        return cfg.replace(**changes)
    except ConfigError as exc:
        raise ConfigError(f"{where}{exc}") from None


def load_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML config file into {field: value}: fields at the top level or in their section's
    table (`[flow]`, `[neural]`, ... see SECTIONS); an optional top-level `preset` names the preset
    they override. A `[decipher]` table of fields is accepted too."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a config file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config file ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    if "decipher" in data and isinstance(data["decipher"], dict):
        data = {**{k: v for k, v in data.items() if k != "decipher"}, **data["decipher"]}
    return _flatten_sections(data, path)


def _flatten_sections(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """{field: value} from a TOML document whose fields may sit in their sections' tables."""
    flat = {k: v for k, v in data.items() if not isinstance(v, dict)}
    for section, table in data.items():
        if not isinstance(table, dict):
            continue
        if section not in SECTIONS:
            raise ConfigError(f"{path}: unknown section [{section}] (sections: {', '.join(SECTIONS)})")
        for name, value in table.items():
            home = SECTION_OF.get(name)
            if home != section:
                where = f"; it belongs in [{home}]" if home else ""
                raise ConfigError(f"{path}: [{section}] has no field {name!r}{where}")
            if name in flat:
                raise ConfigError(f"{path}: {name} is given twice (at the top and in [{section}])")
            flat[name] = value
    return flat


def to_toml(cfg: DecipherConfig, preset_name: str | None = None) -> str:
    """Every field of `cfg` as a TOML file in sections, which `load_toml` reads back (with the
    preset's why as a comment when it names one)."""

    def value(v: Any) -> str:
        if isinstance(v, str):
            return json.dumps(v, ensure_ascii=False)
        return str(v).lower() if isinstance(v, bool) else str(v)

    values = cfg.to_dict()
    lines = []
    if preset_name is not None:
        preset_name = canonical_preset(preset_name)
        lines += [f"# {PRESET_DEFINITIONS[preset_name].why}", f"preset = {value(preset_name)}"]
    lines += [f"{name} = {value(values[name])}" for name in SECTIONS["method"]]
    for section, names in SECTIONS.items():
        if section != "method":
            lines += ["", f"[{section}]"] + [f"{name} = {value(values[name])}" for name in names]
    return "\n".join(lines) + "\n"


@dataclass
class ConfigSources:
    """Where a final config came from, kept for summary.json."""

    preset: str | None = None
    toml: str | None = None
    overrides: dict[str, Any] = field(default_factory=dict)


def build_config(
    preset_name: str | None = None,
    toml_path: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
) -> tuple[DecipherConfig, ConfigSources]:
    """Preset, then TOML file, then explicit overrides (CLI flags / TUI fields), in that order."""
    sources = ConfigSources()
    toml_values: dict[str, Any] = {}
    where = ""  # the TOML file, when the preset is named there
    if toml_path is not None:
        toml_values = load_toml(toml_path)
        sources.toml = str(toml_path)
        if not preset_name and "preset" in toml_values:
            where = f"{toml_path}: "
        preset_name = preset_name or toml_values.pop("preset", None)
        toml_values.pop("preset", None)
        if preset_name is not None and not isinstance(preset_name, str):
            raise ConfigError(f"{where}preset = {preset_name!r} has the wrong type (expected str)")
    sources.preset = canonical_preset(preset_name) if isinstance(preset_name, str) else preset_name
    try:
        cfg = preset(preset_name) if preset_name else DecipherConfig()
    except ConfigError as exc:
        raise ConfigError(f"{where}{exc}") from None
    if toml_values:
        cfg = apply_overrides(cfg, toml_values, source=str(toml_path))
    if overrides:
        cfg = apply_overrides(cfg, overrides)
        sources.overrides = dict(overrides)
    cfg.validate()
    return cfg, sources
