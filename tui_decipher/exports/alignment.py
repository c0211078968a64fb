"""Alignments of exported cognate sets, as EDICTOR's ALIGNMENT and CLDF's CognateTable Alignment.

A pair is aligned by what the run itself learnt:

- `model`: the method's own reading of the pair, stored with its proposal (engine/channels/alignment.py:
  the channel's best path, the neural EM's attention path). A segment of one lost symbol over
  several known letters (a syllable sign over "ko") stands over the first of them, gaps under the
  rest; a letter read from no symbol, or a symbol from no letter, faces a gap;
- `key`: a run stored without readings (recorded before they existed): lingpy's Needleman-Wunsch
  scored by the run's character key, lost symbol x against known symbol y scoring the probability
  that x reads as y (or as a piece holding y: a syllabary sign as "ko");
- `sca`: a run with neither: lingpy's own sound-class alignment (SCA), which knows IPA but not a
  lost script; it is only tried there.

A set of more than two words (accepted pairs that share a word) is aligned by lingpy's
progressive multiple alignment (`msa`, SCA). When lingpy cannot align a set (its sound classes
know none of the symbols), the words stand unaligned, padded with gaps to one length (`none`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..engine.channels.alignment import Alignment, reads_as
from ..engine.corpora.formats.lingpy_import import lingpy, quiet_lingpy

GAP = "-"
# Against match scores in [0, 1]: a gap costs a little, so two gaps never beat one weak match.
GAP_SCORE = -0.1

Key = Mapping[str, Sequence[tuple[str, float]]]


def _nw(a: Sequence[str], b: Sequence[str], score: Mapping[tuple[str, str], float]) -> list[list[str]]:
    """lingpy's global Needleman-Wunsch of two sequences under a score for each pair of their items."""
    left, right, _ = lingpy().align.pairwise.nw_align(list(a), list(b), score, GAP_SCORE)
    return [left, right]


def model_alignment(lost: list[str], known: list[str], reading: Alignment) -> list[list[str]] | None:
    """The pair aligned along the method's reading: each segment's lost symbols over its known letters,
    the shorter side padded with gaps; None when the reading does not spell the two words."""
    if not reading or not reads_as(reading, lost, known):
        return None
    rows: list[list[str]] = [[], []]
    for seg in reading:
        width = max(len(seg.lost), len(seg.known))
        rows[0] += [*seg.lost, *[GAP] * (width - len(seg.lost))]
        rows[1] += [*seg.known, *[GAP] * (width - len(seg.known))]
    return rows


def key_alignment(lost: list[str], known: list[str], key: Key) -> list[list[str]] | None:
    """The pair aligned by the character key; None when the key reads none of the lost symbols."""
    if not any(x in key for x in lost):
        return None
    score = {}
    for x in set(lost):
        readings = key.get(x, ())
        for y in set(known):
            score[x, y] = max((p for r, p in readings if r == y or (len(r) > len(y) and y in r)), default=0.0)
    return _nw(lost, known, score)


def sca_alignment(words: list[list[str]]) -> list[list[str]] | None:
    """lingpy's sound-class alignment of two words (Pairwise) or more (Multiple, progressive); None
    when its sound classes know none of a word's symbols."""
    try:
        with quiet_lingpy() as lp:
            if len(words) == 2:
                pair = lp.Pairwise(" ".join(words[0]), " ".join(words[1]))
                pair.align()
                left, right, _ = pair.alignments[0]
                return [list(left), list(right)]
            msa = lp.Multiple([" ".join(w) for w in words])
            msa.prog_align()
            return [list(row) for row in msa.alm_matrix]
    except (ValueError, KeyError, IndexError):
        return None


def unaligned(words: list[list[str]]) -> list[list[str]]:
    """The words as they are, padded with gaps at the end to one length."""
    width = max(len(w) for w in words)
    return [w + [GAP] * (width - len(w)) for w in words]


def align_set(words: list[list[str]], n_lost: int, reading: Alignment | None, key: Key) -> tuple[list[list[str]], str]:
    """(the alignment of a cognate set's words, lost words first, and which source made it);
    `reading` is a lone pair's reading by its method."""
    if len(words) == 2 and n_lost == 1:
        if reading:
            aligned = model_alignment(words[0], words[1], reading)
            if aligned is not None:
                return aligned, "model"
        aligned = key_alignment(words[0], words[1], key)
        if aligned is not None:
            return aligned, "key"
    aligned = sca_alignment(words)
    if aligned is not None:
        return aligned, "sca" if len(words) == 2 else "msa"
    return unaligned(words), "none"
