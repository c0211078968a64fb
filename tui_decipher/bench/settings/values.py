"""auto given a scholar's sign values on generated syllabaries, against auto without them
(bench/experiments/values.py): issue 65's "correct values never hurt"."""

from __future__ import annotations

from ..core import BenchSetting, RowSpec
from ..experiments.values import KNOWN_VALUES, VALUES_CORPORA, VALUES_WORDS, scholar_values


def _values_setting() -> BenchSetting:
    exp = scholar_values()
    kinds = sorted({spec["kind"] for spec in VALUES_CORPORA.values()})
    seeds = sorted({spec["seed"] for spec in VALUES_CORPORA.values()})
    of = f"{len(VALUES_CORPORA)} generated syllabaries ({', '.join(kinds)}; generator seeds {seeds[0]}-{seeds[-1]})"
    return BenchSetting(
        "values-auto",
        f"auto on {VALUES_WORDS}-word generated syllabaries without sign values and with the key's {KNOWN_VALUES} "
        "most frequent signs' values (`--known-signs`)",
        (
            RowSpec("without", f"{of}, no values: the run alone (mean)"),
            RowSpec("with", f"the same, given {KNOWN_VALUES} correct values at the start (mean)"),
        ),
        exp.run, (), group="refine", configs=exp.configs, parts=exp.parts, combine=exp.combine, extra=True,
        note="gold plays the scholar (the generator's key), in this benchmark only; `decipher corpus generate "
             f"KIND --seed S --lost-words {VALUES_WORDS} --key K` and K's first {KNOWN_VALUES} values make each",
    )  # fmt: skip


VALUES = (_values_setting(),)
