"""Every name the bench takes from the engine, imported here and nowhere else in the bench.

When the engine's modules move, re-point these imports; the rest of the bench imports the names
from this module. The engine never imports the bench.
"""

from __future__ import annotations

from ..engine.corpora.corpus import Corpus, CorpusError
from ..engine.corpora.encipher import encipher
from ..engine.corpora.generators import GeneratorSpec, syllabary_key_text, write_generated
from ..engine.corpora.registry import entry_path, load_corpus, load_registry, shared_corpora_dirs
from ..engine.evaluation.baseline import edit_distance_assignment, edit_distance_proposals
from ..engine.evaluation.transfer import evaluate_on_corpus
from ..engine.methods import DecipherResult, RoundMetrics, method_for, run_decipherment
from ..engine.run.config import DecipherConfig, preset
from ..engine.run.device import select_device
from ..engine.run.events import ChannelStep, EpochEnd, RoundEnd, RunStarted

__all__ = [
    "ChannelStep",
    "Corpus",
    "CorpusError",
    "DecipherConfig",
    "DecipherResult",
    "EpochEnd",
    "GeneratorSpec",
    "RoundEnd",
    "RoundMetrics",
    "RunStarted",
    "edit_distance_assignment",
    "edit_distance_proposals",
    "encipher",
    "entry_path",
    "evaluate_on_corpus",
    "load_corpus",
    "load_registry",
    "method_for",
    "preset",
    "run_decipherment",
    "select_device",
    "shared_corpora_dirs",
    "syllabary_key_text",
    "write_generated",
]
