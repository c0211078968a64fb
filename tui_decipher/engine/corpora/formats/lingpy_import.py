"""lingpy, imported quietly and only by the code that needs it.

On its first import lingpy compiles its sound-class models, logging thousands of INFO lines, and
its logger setup (`lingpy.log.get_logger`) calls `logging.config.fileConfig`, which puts an INFO
handler on the *root* logger of the whole program. Both are kept out: its logger is held at
WARNING and that `fileConfig` call does nothing. Import it through `lingpy()` alone, inside the
functions that use it, so `decipher --help` never pays its import (about a second).
"""

from __future__ import annotations

import contextlib
import io
import logging
import logging.config
import sys
from collections.abc import Iterator
from types import ModuleType


def _no_file_config(*args: object, **kwargs: object) -> None:
    """Stands in for `logging.config.fileConfig` inside lingpy: the program's logging stays its own."""


@contextlib.contextmanager
def quiet_lingpy(level: int = logging.ERROR) -> Iterator[ModuleType]:
    """lingpy, with its logger held at `level` meanwhile (its multiple alignment warns of every
    gap-only column) and its prints to stdout dropped."""
    module = lingpy()
    logger = logging.getLogger("lingpy")
    before = logger.level
    logger.setLevel(level)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            yield module
    finally:
        logger.setLevel(before)


def lingpy() -> ModuleType:
    """The lingpy package, its logging held at WARNING and never touching the root logger."""
    if "lingpy" in sys.modules:
        return sys.modules["lingpy"]
    logging.getLogger("lingpy").setLevel(logging.WARNING)
    real = logging.config.fileConfig
    logging.config.fileConfig = _no_file_config  # lingpy.log binds it by name at import
    try:
        import lingpy as module
    finally:
        logging.config.fileConfig = real
    module.log.fileConfig = _no_file_config  # in case lingpy.log was imported before, by someone else
    logging.getLogger("lingpy").setLevel(logging.WARNING)
    return module
