"""A syllable search's map as the pieces channel's start (`seed_channel`): the search
(channels/syllables.py) finds which syllable each sign writes; the channel starts with those
pieces raised, and training goes on from there."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from ..corpora.charset import Charset
from .pieces import NEVER, ONE, CharacterChannel
from .spelling import FINAL

if TYPE_CHECKING:
    from .syllables import SyllableMap

SEED_STRENGTH = 2.5  # how far a syllable search's map raises a sign's logits in the channel's start


def seed_channel(
    channel: CharacterChannel,
    found: SyllableMap,
    lost_charset: Charset,
    known_charset: Charset,
    strength: float = SEED_STRENGTH,
) -> None:
    """Raise the pieces channel's logits toward a syllable search's map (channels/syllables.py), in
    place: a unit (consonant, vowel) is the two-letter piece consonant+vowel (theta1 of the
    consonant, theta2 of the vowel), a bare vowel the one-letter piece (theta1 of the vowel, theta2
    of "none"), a word-final consonant (consonant, FINAL: where the map's spelling writes them) the
    one-letter piece of the consonant. Training then goes on from there and may move any of it.

    Where the channel has gapped pieces, the map's digraph tails (the h of kh, ph, th:
    `SyllableMap.tails`) never start a piece: their actions other than DROP go to NEVER, where
    training leaves them (as it leaves NO_GAP). A tail is then written only inside the
    consonant before it (skipped by a gapped piece, or the end of a two-letter one) or dropped.
    Otherwise the channel could write "tha" as t dropped and the pair (h, a), and since every
    aspirate's syllable reads through that one pair, its row became a wildcard that training
    bent to whatever sign a cognate needed there (the sign of sa read "ha": docs/spelling.md)."""
    with torch.no_grad():
        if channel.gapped():
            for tail in found.tails:
                if tail in known_charset.index:
                    channel.action[known_charset.index[tail], ONE:] = NEVER
        for (consonant, vowel), sign in found.sign_of.items():
            if vowel == FINAL:
                if sign in lost_charset.index and consonant in known_charset.index:
                    channel.first[known_charset.index[consonant], lost_charset.index[sign]] += strength
                    channel.second[channel.none, lost_charset.index[sign]] += strength
                continue
            if sign not in lost_charset.index or vowel not in known_charset.index:
                continue
            s = lost_charset.index[sign]
            first = known_charset.index.get(consonant) if consonant else known_charset.index[vowel]
            second = known_charset.index[vowel] if consonant else channel.none
            if first is None:
                continue
            channel.first[first, s] += strength
            channel.second[second, s] += strength
