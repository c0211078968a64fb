"""The project's own `.cog` cognate tables (engine/corpora/corpus.py reads them): any file no other format claims."""

from __future__ import annotations

from ..corpus import read_cog
from .base import CorpusFormat

FORMAT = CorpusFormat("cog", lambda path: True, read_cog)
