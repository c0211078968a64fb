"""auto on the development pairs (../shared/corpora/dev/: sixteen real pairs of 95-277 lost words,
IE-CoR and KitchenSemitic), as they are and with their lost side enciphered (`decipher corpus
encipher`, seed ENCIPHER_SEED, Cherokee letters): the decipherer's real case, and the same words in
a script nothing shares. A part (a job) each, with their average; each corpus is written to one
fixed path a machine (a copy, or the enciphered copy), so a job's fingerprint is the same each time."""

from __future__ import annotations

import shutil
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from ..engine_api import CorpusError, encipher, shared_corpora_dirs
from .experiment import Experiment
from .generated import corpus_set

# The pairs, lost -> known (dev/README.md says whence each comes and how it was cleaned).
DEV_PAIRS: tuple[str, ...] = (
    "iecor-bre-cor", "iecor-ces-slk", "iecor-fra-cat", "iecor-gle-gla", "iecor-hin-ben", "iecor-nld-deu",
    "iecor-ofs-osx", "iecor-pes-kmr", "iecor-ron-src", "iecor-rus-ukr", "iecor-sqi-aln", "iecor-swe-dan",
    "iecor-xcl-hye", "kitchen-akk-ary", "kitchen-gez-tir", "kitchen-oar-ary",
)  # fmt: skip
ENCIPHER_SEED = 1  # the map's seed: one fixed map a pair (no setting was chosen on it)


def dev_source(pair: str) -> Path:
    """The dev pair's file in the shared corpora (CorpusError where it is not here)."""
    for folder in shared_corpora_dirs():
        path = folder / "dev" / f"{pair}.cog"
        if path.is_file():
            return path
    where = ", ".join(str(d / "dev") for d in shared_corpora_dirs())
    raise CorpusError(f"{pair}.cog", None, f"the dev pair is not here (looked in {where})")


def dev_path(key: str) -> Path:
    return Path(tempfile.gettempdir()) / "tui-decipher-bench" / f"dev-{key}.cog"


def _copy(path: Path, pair: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(dev_source(pair), path)


def _enciphered(path: Path, pair: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(encipher(dev_source(pair), ENCIPHER_SEED).text, encoding="utf-8")


def dev_pairs(**changes: Any) -> Experiment:
    """auto on each dev pair as it is."""
    return corpus_set({pair: partial(_copy, pair=pair) for pair in DEV_PAIRS}, changes, dev_path)


def dev_enciphered(**changes: Any) -> Experiment:
    """auto on each dev pair with its lost side enciphered."""
    return corpus_set({pair: partial(_enciphered, pair=pair) for pair in DEV_PAIRS}, changes,
                      lambda key: dev_path(f"{key}-enciphered"))  # fmt: skip
