"""What the front ends' corpus commands take from the engine, in one place (as bench/engine_api.py
is for the bench): the registry and corpus loading, a `.cog` file's table, the generators of
`decipher corpus generate`, `corpus encipher`'s map and the demo corpus's writer. A front end
imports these from here, never from the engine's modules; when those move, only this file follows."""

from __future__ import annotations

from ..engine.corpora.corpus import read_cog_table
from ..engine.corpora.demo_corpus import DemoSpec, write_demo_corpus
from ..engine.corpora.encipher import DEFAULT_SCRIPT, SCRIPTS, SYLLABIC, SYLLABIC_SCRIPT, encipher
from ..engine.corpora.generators import (
    BASE_KINDS,
    KIND_HELP,
    KINDS,
    SYLLABARY_KINDS,
    GeneratorSpec,
    syllabary_key_text,
    write_generated,
)
from ..engine.corpora.registry import CorpusSpec, entry_path, load_corpus, load_registry

__all__ = [
    "BASE_KINDS", "DEFAULT_SCRIPT", "KINDS", "KIND_HELP", "SCRIPTS", "SYLLABARY_KINDS", "SYLLABIC", "SYLLABIC_SCRIPT",
    "CorpusSpec", "DemoSpec", "GeneratorSpec", "encipher", "entry_path", "load_corpus", "load_registry",
    "read_cog_table", "syllabary_key_text", "write_demo_corpus", "write_generated",
]  # fmt: skip
