"""The paper's settings, each with its experiment (`EXPERIMENTS`), rows (the paper's figure and the
edit-distance baseline's reference), corpora and note."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..core import BenchSetting, RowSpec
from ..experiments.experiment import Experiment
from ..experiments.paper import ROMANCE_PAIRS, one_corpus, pair_key, romance_pairs, ugaritic_transfer

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
