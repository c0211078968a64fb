"""How a bench setting runs: the kinds of experiment the catalogue (`bench/settings/`) is made of.

An `Experiment` is the configs of a job, the run of one job, the edit-distance baseline and, for
work split into parts, the parts and how their rows combine. Each kind takes config changes, so a
variant of a setting is its experiment with its changes. Where each lives:

- `experiment`: the `Experiment`, the `--quick` schedule (`schedule`), and the rows made of a run,
  of the baseline and of an average;
- `paper`: one corpus trained and evaluated on (`one_corpus`), Ugaritic trained on the small file
  and read on both lists (`ugaritic_transfer`), the six Romance pairs (`romance_pairs`);
- `generated`: auto on corpora the bench writes (generated of every kind, known shares with a
  cognate, small lexica);
- `refine`: the simulated reviewer (`reviewer_refine`), known readings and the oracle's ceiling.

The names below are the ones used outside the bench; the bench imports each from its module.
"""

from .experiment import QUICK_CHANGES, QUICK_CHANNEL_STEPS, row_from_run, schedule
from .generated import (
    GENERATED,
    GENERATED_PARTS,
    GENERATED_SEED,
    GENERATED_SHARES,
    SMALL_GENERATED,
    SMALL_ROMANCE,
    SMALL_SYLLABARY,
    generated_path,
    shares_path,
    small_path,
    write_romance_cut,
)
from .paper import ROMANCE_PAIRS, ROMANCE_PARTS

__all__ = [
    "GENERATED",
    "GENERATED_PARTS",
    "GENERATED_SEED",
    "GENERATED_SHARES",
    "QUICK_CHANGES",
    "QUICK_CHANNEL_STEPS",
    "ROMANCE_PAIRS",
    "ROMANCE_PARTS",
    "SMALL_GENERATED",
    "SMALL_ROMANCE",
    "SMALL_SYLLABARY",
    "generated_path",
    "row_from_run",
    "schedule",
    "shares_path",
    "small_path",
    "write_romance_cut",
]
