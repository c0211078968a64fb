"""auto on the corpora the bench writes itself (bench/experiments/generated.py): a generated
corpus of every kind, generated shares with a cognate, and small lexica."""

from __future__ import annotations

from typing import Any

from ..core import BenchSetting, RowSpec
from ..experiments.generated import (
    GENERATED,
    GENERATED_SEED,
    GENERATED_SHARES,
    SMALL_GENERATED,
    SMALL_ROMANCE,
    SMALL_SYLLABARY,
    generated_kinds,
    generated_shares,
    small_generated,
    small_romance,
    small_syllabary,
)


def _generated_setting() -> BenchSetting:
    """auto on one generated corpus of each kind (bench/experiments/generated.py: GENERATED), a
    generator seed that no setting was tuned on: the bench's check that the default generalises."""
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
    """auto on small lexica (bench/experiments/generated.py: SMALL_GENERATED, SMALL_SYLLABARY,
    SMALL_ROMANCE): the size of a user's real pair, generated and cut from Romance."""
    made = []

    def generated(specs: dict[str, dict[str, Any]]) -> tuple[RowSpec, ...]:
        rows = []
        for key, spec in specs.items():
            friends = ", 30% false friends" if spec.get("false_friends") else ""
            rows.append(RowSpec(key, f"generated {spec['kind']}{friends}, {spec['lost_words']} lost words "
                                     f"(generator seed {GENERATED_SEED})"))  # fmt: skip
        return tuple(rows)

    romance = tuple(
        RowSpec(key, f"romance {lost} -> {known} cut to {n} lost words")
        for key, (lost, known, n) in SMALL_ROMANCE.items()
    )
    for name, exp, rows, corpora, sizes in (
        ("small-generated-auto", small_generated(), generated(SMALL_GENERATED), (), "40-150"),
        ("small-syllabary-auto", small_syllabary(), generated(SMALL_SYLLABARY), (), "150-250"),
        ("small-romance-auto", small_romance(), romance, ("romance",), "50-150"),
    ):
        made.append(BenchSetting(
            name, f"auto (no flag) on {name.split('-')[1]} small lexica: {sizes} lost words, as a user's real pair",
            (*rows, RowSpec("average", f"{name.split('-')[1]} small lexica, average")),
            exp.run, corpora, exp.baseline, group="small", configs=exp.configs, parts=exp.parts, combine=exp.combine,
            note="bench/experiments/generated.py: SMALL_GENERATED, SMALL_SYLLABARY and SMALL_ROMANCE say how each "
                 "corpus is made",
        ))  # fmt: skip
    return tuple(made)


def _shares_setting() -> BenchSetting:
    """auto on generated corpora of known shares with a cognate (bench/experiments/generated.py:
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
