"""The expert in the loop: the simulated reviewer, the simulated scholar's known readings and an
oracle reviewer's ceiling, per dataset and method (bench/experiments/refine.py)."""

from __future__ import annotations

from typing import Any

from ..core import BenchSetting, RowSpec
from ..experiments.refine import (
    CEILING_FOLDS,
    KNOWN_READINGS,
    REFINE_DRAWS,
    REFINE_ITERATIONS,
    REFINE_JUDGMENTS,
    known_pairs_ceiling,
    known_readings,
    reviewer_refine,
)

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
