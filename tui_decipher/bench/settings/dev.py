"""auto on the development pairs, real words as a decipherer has them (bench/experiments/dev_pairs.py):
as they are, and with the lost side in a script nothing shares."""

from __future__ import annotations

from ..core import BenchSetting, RowSpec
from ..experiments.dev_pairs import DEV_PAIRS, ENCIPHER_SEED, dev_enciphered, dev_pairs


def _setting(name: str, what: str, enciphered: bool) -> BenchSetting:
    exp = dev_enciphered() if enciphered else dev_pairs()
    suffix = ", enciphered" if enciphered else ""
    rows = tuple(RowSpec(pair, f"{pair}{suffix}") for pair in DEV_PAIRS)
    note = ("`decipher corpus encipher ../shared/corpora/dev/PAIR.cog --seed "
            f"{ENCIPHER_SEED}` writes each" if enciphered else "../shared/corpora/dev/PAIR.cog, as it is")  # fmt: skip
    return BenchSetting(
        name, what, (*rows, RowSpec("average", f"dev pairs{suffix}, average")), exp.run, (), exp.baseline,
        group="dev", note=note, configs=exp.configs, parts=exp.parts, combine=exp.combine,
    )  # fmt: skip


DEV = (
    _setting("dev-auto", "auto (no flag) on the sixteen real dev pairs of 95-277 lost words", False),
    _setting("dev-enciphered-auto", "auto (no flag) on the dev pairs, the lost side enciphered (Cherokee)", True),
)
