"""A syllable map pinned as sign values: where the search ran under a scholar's values, auto's first
probe is also trained pinned to the map it found (`pins_map`), its syllables given to the channel
as the scholar's values are (`map_values`; engine/constraints/sign_values.py), and held-out words
choose (probe.py)."""

from __future__ import annotations

from ...channels.syllables import SyllableMap
from ...constraints.sign_values import SignValue, SignValues
from ...run.problem import Problem

# A pinned map's syllables also write their consonant alone (`SignValues.with_dead_vowels`) where its
# spelling writes at least this share of clusters in full, each consonant with a sign (channels/
# spelling.py's `fit_spelling`): far from what Linear B and Cypriot-like scripts fit (docs/pinning.md).
# Below it, a consonant alone is a reading the map says the script does not use.
FULL_CLUSTERS = 0.1


def map_values(found: SyllableMap) -> SignValues:
    """A syllable search's map as sign values (`SyllableMap.values`), to pin channels to."""
    values = SignValues(tuple(SignValue(sign, letters) for sign, letters in found.values()), "the syllable map")
    return values.with_dead_vowels(frozenset(found.vowels)) if found.spelling.clusters >= FULL_CLUSTERS else values


def pins_map(problem: Problem, found: SyllableMap) -> bool:
    """Whether the first probe is also tried pinned to the syllable map `found` (its syllables as
    sign values, `map_values`): where the map was searched under a scholar's values. A channel free
    to leave a map can drift from a right one, and pinned to it keeps a wrong part; on generated
    syllabaries with values, held-out words told the two apart, while without values they could not
    tell a map to pin from one the channel goes on to correct (the Linear B names: docs/pinning.md,
    "A map found under values, held")."""
    return problem.signs is not None and len(problem.signs) > 0 and bool(found.values())
