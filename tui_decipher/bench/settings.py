"""The bench's settings catalogue and registry.

A *setting* names one experiment and the figures it reports beside the paper's. The catalogue is
data, one entry a setting, in the order of the report's tables:

- `PAPER`: the paper's settings, each with its experiment (`EXPERIMENTS`), rows (the paper's
  figure and the edit-distance baseline's reference), corpora and note;
- `VARIANTS`: one of those settings with a few config fields changed (the paper's ablations, and
  the variants beyond the paper), run beside that setting's baseline; `extra=True` keeps an
  exploratory one out of the default bench;
- `REFINE`: the simulated reviewer and the simulated scholar's known readings, per dataset and method.

A new bench setting is one entry here. Plugins (modules named in $DECIPHER_BENCH_PLUGINS) add
theirs with `register`; `load_plugins` imports them.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from .core import BenchError, BenchSetting, RowSpec
from .experiments import (
    CEILING_FOLDS,
    GENERATED,
    GENERATED_SEED,
    GENERATED_SHARES,
    KNOWN_READINGS,
    REFINE_DRAWS,
    REFINE_ITERATIONS,
    REFINE_JUDGMENTS,
    ROMANCE_PAIRS,
    SMALL_GENERATED,
    SMALL_ROMANCE,
    SMALL_SYLLABARY,
    Experiment,
    generated_kinds,
    generated_shares,
    known_pairs_ceiling,
    known_readings,
    one_corpus,
    pair_key,
    reviewer_refine,
    romance_pairs,
    small_generated,
    small_romance,
    small_syllabary,
    ugaritic_transfer,
)
from .user_path import USER_SETTINGS

PLUGINS_ENV = "DECIPHER_BENCH_PLUGINS"

# --- the paper's settings -----------------------------------------------------------------------

# How each of the paper's settings runs; its variants run the same with their changes.
EXPERIMENTS: dict[str, Callable[..., Experiment]] = {
    "ugaritic-noiseless": partial(one_corpus, "ugaritic-noiseless", "paper-ugaritic-noiseless"),
    "ugaritic": ugaritic_transfer,
    "linear-b": partial(one_corpus, "linear-b", "paper-linear-b"),
    "linear-b-names": partial(one_corpus, "linear-b-names", "paper-linear-b-names"),
    "romance": romance_pairs,
}

UGARITIC_ROWS = (
    RowSpec("small", "ugaritic-small (221 evaluated x 4103)", None, 78.7),
    RowSpec("full", "ugaritic-full (2182 evaluated x 39451)", 65.9, 62.7),
)

# The paper's figure per Romance language pair (both directions), then the baseline's reference.
_ROMANCE_PAPER = {"es-it": (92.3, 81.4), "es-pt": (95.0, 86.8), "it-pt": (87.3, 58.5)}


def _paper_pair(lost: str, known: str) -> tuple[float, float]:
    return _ROMANCE_PAPER.get(pair_key(lost, known)) or _ROMANCE_PAPER[pair_key(known, lost)]


def _paper(
    name: str, description: str, rows: tuple[RowSpec, ...], corpora: tuple[str, ...] | None = None, note: str = ""
) -> BenchSetting:
    """One of the paper's settings: its experiment (`EXPERIMENTS[name]`) with its own baseline; it
    needs corpus `name` unless `corpora` says otherwise."""
    exp = EXPERIMENTS[name]()
    return BenchSetting(
        name, description, rows, exp.run, corpora or (name,), exp.baseline, note=note, configs=exp.configs,
        parts=exp.parts, combine=exp.combine,
    )  # fmt: skip


PAPER: tuple[BenchSetting, ...] = (
    _paper(
        "ugaritic-noiseless",
        "Ugaritic/Hebrew, only lines with both words",
        (RowSpec("ugaritic-noiseless", "ugaritic-noiseless (2182 x 2767)", 93.5, 83.7),),
        note="paper: Matcher (Berg-Kirkpatrick & Klein 2011) 90.4",
    ),
    _paper(
        "ugaritic",
        "trained on ugaritic-small (noisy), tested on it and on the full list",
        UGARITIC_ROWS,
        ("ugaritic-small", "ugaritic-full"),
        note="paper: Bayesian model (Snyder et al. 2010) 60.4 on the full list",
    ),
    _paper("linear-b", "Linear B / Greek", (RowSpec("linear-b", "linear-b", 84.7, 0.0),)),
    _paper(
        "linear-b-names",
        "Linear B / Greek proper names (about half unpaired)",
        (RowSpec("linear-b-names", "linear-b-names", 67.3, 1.3),),
    ),
    _paper(
        "romance",
        "Spanish / Italian / Portuguese IPA, all six ordered pairs",
        (
            *(RowSpec(pair_key(a, b), f"romance {a} -> {b}", *_paper_pair(a, b)) for a, b in ROMANCE_PAIRS),
            RowSpec("average", "romance, average of the 6 pairs", 91.6, 75.6),
        ),
        note="paper: one figure per language pair (both directions); Matcher 90.1 on average",
    ),
)

# --- variants: a paper setting with config changes ------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """The paper's setting `of` with config `changes`: the same experiment, corpora and baseline.
    Its rows are `of`'s (beside the paper's figures) unless `rows` says otherwise; a variant of
    `ugaritic` reports the small file and the full list without the paper's figure for the method
    (`_on_ugaritic`), as the paper gives one only for its ablations."""

    name: str
    of: str
    changes: dict[str, Any]
    description: str
    group: str = "beyond"  # "ablation": one part of the setting switched off; "beyond": the paper's text has none
    extra: bool = False  # exploratory: run by `--all` or `--only`, not by default
    rows: tuple[RowSpec, ...] | None = None


def _on_ugaritic(
    name: str,
    changes: dict[str, Any],
    description: str,
    group: str = "beyond",
    paper: float | None = None,
    extra: bool = False,
) -> Variant:
    """A variant of `ugaritic`; `paper` is the paper's figure for it on the full list (ablations)."""
    rows = (RowSpec("small", UGARITIC_ROWS[0].label), RowSpec("full", UGARITIC_ROWS[1].label, paper))
    return Variant(name, "ugaritic", changes, description, group, extra, rows)  # fmt: skip


# The edit-distance start (beyond the paper) and the schedule it needs: D = N and expected edit
# distance from round 1 (the flow is already mostly right), 3 rounds of 150 steps.
EDIT_INIT: dict[str, Any] = {
    "init_flow": "edit-distance", "demand_step": 0, "warmup_rounds": 0, "rounds": 3, "first_epochs": 150,
}  # fmt: skip

# The channel start (beyond the paper): round 1 trains on the matching of a character channel
# trained on the lexicon objective (engine/channels/), mostly right when the channel found the
# sign map, so D = N (the preset's fraction) and expected edit distance from round 1, the flow
# kept 3/4 (gamma = 0.25, as ugaritic), 3 rounds of 150 + 100 + 100 steps.
CHANNEL_INIT: dict[str, Any] = {
    "init_flow": "channel", "demand_step": 0, "warmup_rounds": 0, "rounds": 3, "first_epochs": 150,
    "flow_decay": 0.25,
}  # fmt: skip

# Exploratory variants (`extra=True`) were measured once and are kept measurable, but left out of
# the default bench: neural-EM changes that moved Ugaritic by less than a seed's spread or cost
# several runs, the neural EM started from a channel (the channel alone reads better), Romance's
# long M-steps and own top 5.
VARIANTS: tuple[Variant, ...] = (
    # The paper's ablations on Ugaritic (noisy): each switches one part of the method off.
    _on_ugaritic("ugaritic-no-monotonic", {"regularizer": "none"}, "ugaritic without the monotonic regularizer",
                 "ablation", paper=0.0),
    _on_ugaritic("ugaritic-no-residual", {"residual": False}, "ugaritic without the residual connection",
                 "ablation", paper=0.0),
    _on_ugaritic("ugaritic-no-flow", {"use_flow": False}, "ugaritic without the flow (model argmax only)",
                 "ablation", paper=8.6),
    # Beyond the paper on Ugaritic: one change behind a config field each (the paper's setting
    # stays the preset), reported as its own row beside the preset's.
    _on_ugaritic("ugaritic-eed-model-weights", {"eed_sample_weights": "model"},
                 "expected edit distance with samples weighted by the model, not the sharpened draw", extra=True),
    _on_ugaritic("ugaritic-eed-30", {"eed_samples": 30}, "expected edit distance from 30 samples instead of 10",
                 extra=True),
    _on_ugaritic("ugaritic-union-top-k", {"sparsify": "union-top-k"},
                 "flow graph: every known word in anyone's top 5 (published code), not each word's own top 5",
                 extra=True),
    _on_ugaritic("ugaritic-top-10", {"top_k": 10}, "flow graph: 10 candidates per lost word instead of 5",
                 extra=True),
    _on_ugaritic("ugaritic-shared-symbols", {"tie_shared_symbols": True},
                 "symbols both transliterations share start with one embedding (a copy prior)", extra=True),
    _on_ugaritic("ugaritic-restarts-3", {"restarts": 3}, "3 random restarts, the best by training objective kept",
                 extra=True),
    _on_ugaritic("ugaritic-lost-batch", {"lost_batch": 184, "epochs": 600},
                 "later M-steps on random batches of 184 lost words (a quarter), 600 steps each: the same"
                 " compute as the preset's 150 full steps", extra=True),
    _on_ugaritic("ugaritic-edit-init", EDIT_INIT,
                 "round 1 trains on the words' own edit-distance matching, not the uniform flow; D = N and"
                 " expected edit distance from round 1; 3 rounds x 150 steps"),
    _on_ugaritic("ugaritic-channel-only", {"method": "channel"},
                 "the character channel alone, trained on the small file's lexicon objective and read on both"
                 " lists (no neural model, no EM rounds); model argmax = the channel's argmax"),
    _on_ugaritic("ugaritic-channel-transport", {"method": "channel", "channel_objective": "transport"},
                 "the character channel alone, trained on a transport plan with the flow's D and C instead of"
                 " the lexicon posterior, read on both lists"),
    # Beyond the paper on the other presets: the row is keyed by the preset, beside its baseline.
    Variant("ugaritic-noiseless-edit-init", "ugaritic-noiseless", EDIT_INIT,
            "ugaritic-noiseless started from the words' own edit-distance matching; D = N and expected"
            " edit distance from round 1; 3 rounds x 150 steps", extra=True),
    Variant("linear-b-channel", "linear-b", CHANNEL_INIT,
            "linear-b started from a character channel's matching (no shared symbol, no gold); D = N,"
            " expected edit distance from round 1, gamma = 0.25; 3 rounds", extra=True),
    Variant("linear-b-names-channel", "linear-b-names", CHANNEL_INIT,
            "linear-b-names started from a character channel's matching; D = N / 2 from round 1,"
            " expected edit distance from round 1, gamma = 0.25; 3 rounds", extra=True),
    # The character channel alone (method = "channel"): no neural model, no EM rounds; the
    # evaluation flow of its costs, and its argmax as the model accuracy.
    Variant("linear-b-channel-only", "linear-b", {"method": "channel"},
            "linear-b deciphered by the character channel alone (no neural model, no EM rounds): the"
            " evaluation flow of its costs; model argmax = the channel's argmax"),
    Variant("linear-b-names-channel-only", "linear-b-names", {"method": "channel"},
            "linear-b-names deciphered by the character channel alone; model argmax = the channel's argmax"),
    # The channel trained on transport-plan weights (channel_objective = "transport"): on the
    # names the lexicon objective stalls; the plan's capacity keeps easy names from explaining
    # everything. It learns slower than the lexicon channel on linear-b, so 1500 steps.
    Variant("linear-b-names-channel-transport", "linear-b-names",
            {"method": "channel", "channel_objective": "transport", "channel_steps": 1500},
            "linear-b-names deciphered by the character channel alone, trained on a transport plan with"
            " the flow's D and C instead of the lexicon posterior (1500 steps)"),
    Variant("ugaritic-noiseless-channel-only", "ugaritic-noiseless", {"method": "channel"},
            "ugaritic-noiseless deciphered by the character channel alone; model argmax = the channel's argmax"),
    Variant("ugaritic-noiseless-channel-transport", "ugaritic-noiseless",
            {"method": "channel", "channel_objective": "transport"},
            "ugaritic-noiseless deciphered by the character channel alone, trained on a transport plan"
            " with the flow's D and C (no known word explains more than C = 3 lost words)"),
    # Romance's fourth 150-step round gained 0.0 on average (its later M-steps are underfitted):
    # the same budget as 3 rounds of 300 steps after round 1's 250 (850 steps against 700).
    Variant("romance-long-m-steps", "romance", {"rounds": 3, "epochs": 300},
            "romance with 3 rounds whose later M-steps train 300 steps, not 4 rounds of 150", extra=True),
    # Two Latin alphabets: the edit channel (letter by letter, insertions, a copy prior) on a
    # transport plan (D = N, C = 1), no neural model.
    Variant("romance-edit-channel", "romance",
            {"method": "channel", "channel_kind": "edit", "channel_objective": "transport"},
            "romance deciphered by the edit channel alone (each letter written as one symbol or dropped,"
            " symbols inserted, a copy prior for shared letters), trained on a transport plan; 300 steps"),
    # `method = "auto"` (the default of `decipher run`): one configuration for every dataset. It
    # keeps only the preset's corpus and seed (engine/methods/auto/: own_settings) and decides
    # the channel, D and C from the word lists.
    *(Variant(f"{of}-auto", of, {"method": "auto"},
              f"{of} deciphered by auto: the channel, D and C decided from the word lists, no setting"
              " of the preset", "auto", rows=rows)
      for of, rows in (("ugaritic", (RowSpec("small", UGARITIC_ROWS[0].label),
                                     RowSpec("full", UGARITIC_ROWS[1].label, 65.9))),
                       ("ugaritic-noiseless", None), ("linear-b", None), ("linear-b-names", None), ("romance", None))),
    # A preset with a part of its setting switched back (shown with the ablations).
    Variant("romance-own-top-5", "romance", {"sparsify": "top-k"},
            "romance with the paper's text's flow graph: each lost word's own top 5, not the published"
            " code's union of everyone's top 5 (the preset)", "ablation", extra=True),
)  # fmt: skip


def variant_setting(variant: Variant) -> BenchSetting:
    """The setting a variant names: its paper setting's experiment with its changes."""
    (main,) = (s for s in PAPER if s.name == variant.of)
    exp = EXPERIMENTS[variant.of](**variant.changes)
    return BenchSetting(
        variant.name, variant.description, variant.rows or main.rows, exp.run, main.corpora,
        baseline_of=variant.of, group=variant.group, note=f"config changes: {variant.changes}", configs=exp.configs,
        parts=exp.parts, combine=exp.combine, extra=variant.extra,
    )  # fmt: skip


# --- generated corpora ----------------------------------------------------------------------------


def _generated_setting() -> BenchSetting:
    """auto on one generated corpus of each kind (bench/experiments.py: GENERATED), a generator seed
    that no setting was tuned on: the bench's check that the default generalises."""
    exp = generated_kinds()

    def label(spec: dict) -> str:
        friends = f", {spec['false_friends']:.0%} false friends" if spec.get("false_friends") else ""
        return f"generated {spec['kind']}{friends}, {spec['lost_words']} lost words (generator seed {GENERATED_SEED})"

    rows = tuple(RowSpec(key, label(spec)) for key, spec in GENERATED.items())
    return BenchSetting(
        "generated-auto",
        "auto (no flag) on generated corpora of every kind: cipher, shared alphabet, syllabary, large known list",
        (*rows, RowSpec("average", "generated corpora, average")),
        exp.run, (), exp.baseline, group="generated", note="`decipher corpus generate KIND --seed 301` makes each",
        configs=exp.configs, parts=exp.parts, combine=exp.combine,
    )  # fmt: skip


def _small_settings() -> tuple[BenchSetting, ...]:
    """auto on small lexica (bench/experiments.py: SMALL_GENERATED, SMALL_SYLLABARY, SMALL_ROMANCE):
    the size of a user's real pair, generated and cut from Romance."""
    made = []

    def generated(key: str, spec: dict) -> str:
        friends = ", 30% false friends" if spec.get("false_friends") else ""
        return f"generated {spec['kind']}{friends}, {spec['lost_words']} lost words (generator seed {GENERATED_SEED})"

    for name, exp, specs, corpora, what, sizes in (
        ("small-generated-auto", small_generated(), SMALL_GENERATED, (), generated, "40-150"),
        ("small-syllabary-auto", small_syllabary(), SMALL_SYLLABARY, (), generated, "150-250"),
        ("small-romance-auto", small_romance(), SMALL_ROMANCE, ("romance",),
         lambda key, spec: f"romance {spec[0]} -> {spec[1]} cut to {spec[2]} lost words", "50-150"),
    ):  # fmt: skip
        rows = tuple(RowSpec(key, what(key, spec)) for key, spec in specs.items())
        made.append(BenchSetting(
            name, f"auto (no flag) on {name.split('-')[1]} small lexica: {sizes} lost words, as a user's real pair",
            (*rows, RowSpec("average", f"{name.split('-')[1]} small lexica, average")),
            exp.run, corpora, exp.baseline, group="small", configs=exp.configs, parts=exp.parts, combine=exp.combine,
            note="bench/experiments.py: SMALL_GENERATED, SMALL_SYLLABARY and SMALL_ROMANCE say how each corpus is made",
        ))  # fmt: skip
    return tuple(made)


def _shares_setting() -> BenchSetting:
    """auto on generated corpora of known shares with a cognate (bench/experiments.py:
    GENERATED_SHARES): whether D follows the share (issue 64)."""
    exp = generated_shares()
    rows = tuple(
        RowSpec(key, f"generated {spec['kind']}, {spec['cognate_share']:.0%} of {spec['lost_words']} lost words "
                     f"with a cognate (generator seed {GENERATED_SEED})")
        for key, spec in GENERATED_SHARES.items()
    )  # fmt: skip
    return BenchSetting(
        "shares-auto",
        "auto (no flag) on generated corpora where 30%, 60% or all lost words have a cognate: D against the truth",
        (*rows, RowSpec("average", "generated shares, average")),
        exp.run, (), exp.baseline, group="generated",
        note="`decipher corpus generate KIND --seed 301 --lost-words 400 --cognate-share S --known-ratio 1.5`",
        configs=exp.configs, parts=exp.parts, combine=exp.combine,
    )  # fmt: skip


GENERATED_SETTINGS = (_generated_setting(), _shares_setting(), *_small_settings())

# --- the simulated reviewer ------------------------------------------------------------------------

# Where judgments must pay off (issue 31): a transliteration, a syllabary with half its words
# unpaired, a Romance pair; (corpus, the paper's preset, changes) each.
REFINE_DATASETS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "ugaritic-small": ("ugaritic-small", "paper-ugaritic", {}),
    "linear-b-names": ("linear-b-names", "paper-linear-b-names", {}),
    "romance-es-it": ("romance", "paper-romance", {"lost": "es", "known": "it"}),
}
# The methods a reviewer refines: auto, both channels alone (on the transport objective), the paper's EM.
REFINE_METHODS: dict[str, dict[str, Any]] = {
    "auto": {"method": "auto"},
    "pieces": {"method": "channel", "channel_kind": "pieces", "channel_objective": "transport"},
    "edit": {"method": "channel", "channel_kind": "edit", "channel_objective": "transport"},
    "neural": {"method": "neural"},
}
_REFINE_NOTE = (
    f"each cycle accepts the {REFINE_JUDGMENTS} most confident correct proposals and rejects the "
    f"{REFINE_JUDGMENTS} most confident wrong ones not yet judged; accuracy over evaluated lost words "
    "the reviewer never judged; s: the run before review, then one refinement"
)


def refine_setting(dataset: str, method: str) -> BenchSetting:
    """The simulated reviewer on one dataset and method (ugaritic-small with the paper's EM keeps
    its first name, `ugaritic-refine`)."""
    corpus, preset_name, changes = REFINE_DATASETS[dataset]
    exp = reviewer_refine(corpus, preset_name, **changes, **REFINE_METHODS[method])
    name = "ugaritic-refine" if (dataset, method) == ("ugaritic-small", "neural") else f"refine-{dataset}-{method}"
    return BenchSetting(
        name,
        f"{dataset}, {method}, with a simulated reviewer (gold plays the epigrapher, in this benchmark only), "
        f"its refinements drawn {REFINE_DRAWS} times",
        (
            RowSpec("unrefined", f"{dataset} ({method}), words never judged: the run before review"),
            RowSpec("refined", f"same words after {REFINE_ITERATIONS} cycles of review + 1-round refine "
                               f"(mean of {REFINE_DRAWS} draws)"),
            RowSpec("control", f"same words after the same {REFINE_ITERATIONS} refinements without decisions "
                               f"(mean of {REFINE_DRAWS} draws)"),
        ),
        exp.run, (corpus,), group="refine", note=_REFINE_NOTE, configs=exp.configs, extra=True,
    )  # fmt: skip


KNOWN_DATASETS: dict[str, tuple[str, str, dict[str, Any]]] = {
    **{name: (name, f"paper-{name}", {}) for name in ("ugaritic-noiseless", "linear-b")},
    **REFINE_DATASETS,
}


def known_setting(dataset: str) -> BenchSetting:
    """auto with 10 correct pairs known before the run, against auto without them."""
    corpus, preset_name, changes = KNOWN_DATASETS[dataset]
    exp = known_readings(corpus, preset_name, **changes, method="auto")
    return BenchSetting(
        f"known-{dataset}",
        f"{dataset}, auto, with {KNOWN_READINGS} correct pairs known from the start (drawn from gold by the seed)",
        (
            RowSpec("without", f"{dataset} (auto), the words not given: the run alone"),
            RowSpec("with", f"same words, the run given {KNOWN_READINGS} known pairs at its start"),
        ),
        exp.run, (corpus,), group="refine", note="accuracy over evaluated lost words other than the given ones",
        configs=exp.configs, extra=True,
    )  # fmt: skip


def ceiling_setting(dataset: str, method: str) -> BenchSetting:
    """An oracle reviewer's ceiling for one method: half of gold's pairs given from the start."""
    corpus, preset_name, changes = REFINE_DATASETS[dataset]
    exp = known_pairs_ceiling(corpus, preset_name, **changes, **REFINE_METHODS[method])
    return BenchSetting(
        f"ceiling-{dataset}-{method}",
        f"{dataset}, {method}: what correct pairs can teach it at most (gold plays an oracle reviewer who "
        f"gives half of its pairs from the start, each half in turn, in this benchmark only)",
        (
            RowSpec("without", f"{dataset} ({method}), every evaluated word: the run alone"),
            RowSpec("with", f"same words, each scored on a run given the other {CEILING_FOLDS - 1}/{CEILING_FOLDS} "
                            "of gold's pairs at its start"),
        ),
        exp.run, (corpus,), group="refine",
        note="a bound on issue 31's reviewer: many more correct pairs than three review cycles give",
        configs=exp.configs, extra=True,
    )  # fmt: skip


REFINE = (
    *(refine_setting(dataset, method) for dataset in REFINE_DATASETS for method in REFINE_METHODS),
    *(known_setting(dataset) for dataset in KNOWN_DATASETS),
    *(ceiling_setting(dataset, method) for dataset in REFINE_DATASETS for method in ("auto", "pieces", "edit")),
)

# --- the registry ---------------------------------------------------------------------------------

SETTINGS: dict[str, BenchSetting] = {}


def register(setting: BenchSetting) -> BenchSetting:
    """Add (or replace) a setting in the registry; returns it."""
    SETTINGS[setting.name] = setting
    return setting


for _setting in (*PAPER, *map(variant_setting, VARIANTS), *GENERATED_SETTINGS, *REFINE, *USER_SETTINGS):
    register(_setting)


def load_plugins() -> None:
    """Import the modules named in $DECIPHER_BENCH_PLUGINS (they call `register`); a module already
    imported is not run again."""
    for name in filter(None, (n.strip() for n in os.environ.get(PLUGINS_ENV, "").split(","))):
        importlib.import_module(name)


def default_settings(include_extra: bool = False) -> list[str]:
    """What `decipher bench` runs without --only: every setting but the extra ones (all with
    `include_extra`), in registry order."""
    return [name for name, setting in SETTINGS.items() if include_extra or not setting.extra]


def extra_settings() -> list[str]:
    """The exploratory settings, run by `--all` or by name, in registry order."""
    return [name for name, setting in SETTINGS.items() if setting.extra]


def validate_names(names: Sequence[str] | None, include_extra: bool = False) -> list[str]:
    """The settings to run, in registry order: `names`, or the default set when there are none
    (see `default_settings`); an unknown name raises BenchError (one line)."""
    if not names:
        return default_settings(include_extra)
    unknown = [n for n in names if n not in SETTINGS]
    if unknown:
        raise BenchError(f"unknown bench setting {unknown[0]!r} (have: {', '.join(SETTINGS)})")
    wanted = set(names)
    return [n for n in SETTINGS if n in wanted]
