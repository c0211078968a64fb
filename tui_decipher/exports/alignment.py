"""Alignments of exported cognate sets, as EDICTOR's ALIGNMENT and CLDF's CognateTable Alignment.

A pair is aligned by lingpy's Needleman-Wunsch (`nw_align`), scored by what the run itself learnt:

- `attention`: the model's own alignment of the pair, its attention weights (the paper's neural
  method stores them): the path through the grid with the most attention;
- `key`: the run's character key (every method stores one): lost symbol x against known symbol y
  scores the probability that x reads as y (or as a piece holding y: a syllabary sign as "ko");
- `sca`: a run with neither (none today): lingpy's own sound-class alignment (SCA), which knows
  IPA but not a lost script; it is only tried there.

A set of more than two words (accepted pairs that share a word) is aligned by lingpy's
progressive multiple alignment (`msa`, SCA). When lingpy cannot align a set (its sound classes
know none of the symbols), the words stand unaligned, padded with gaps to one length (`none`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..engine.formats.lingpy_import import lingpy, quiet_lingpy

GAP = "-"
# Against match scores in [0, 1]: a gap costs a little, so two gaps never beat one weak match.
GAP_SCORE = -0.1

Key = Mapping[str, Sequence[tuple[str, float]]]


def _nw(a: Sequence[object], b: Sequence[object], score: dict[tuple[object, object], float]) -> list[list]:
    """lingpy's global Needleman-Wunsch of two sequences under a score for each pair of their items."""
    left, right, _ = lingpy().align.pairwise.nw_align(list(a), list(b), score, GAP_SCORE)
    return [left, right]


def attention_alignment(lost: list[str], known: list[str], attention: list[list[float]]) -> list[list[str]] | None:
    """The pair aligned along its attention (rows: known symbols and end of word; columns: lost
    symbols and end of word); None when the grid does not fit the words."""
    if len(attention) < len(known) or any(len(row) < len(lost) for row in attention[: len(known)]):
        return None
    positions_a, positions_b = range(len(lost)), range(len(known))
    score = {(i, t): float(attention[t][i]) for i in positions_a for t in positions_b}
    left, right = _nw(positions_a, positions_b, score)
    return [[GAP if i == GAP else lost[i] for i in left], [GAP if t == GAP else known[t] for t in right]]


def key_alignment(lost: list[str], known: list[str], key: Key) -> list[list[str]] | None:
    """The pair aligned by the character key; None when the key reads none of the lost symbols."""
    if not any(x in key for x in lost):
        return None
    score = {}
    for x in set(lost):
        readings = key.get(x, ())
        for y in set(known):
            score[x, y] = max((p for r, p in readings if r == y or (len(r) > len(y) and y in r)), default=0.0)
    return _nw(lost, known, score)  # type: ignore[return-value]


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


def align_set(
    words: list[list[str]], n_lost: int, attention: list[list[float]] | None, key: Key
) -> tuple[list[list[str]], str]:
    """(the alignment of a cognate set's words, lost words first, and which source made it)."""
    if len(words) == 2 and n_lost == 1:
        if attention:
            aligned = attention_alignment(words[0], words[1], attention)
            if aligned is not None:
                return aligned, "attention"
        aligned = key_alignment(words[0], words[1], key)
        if aligned is not None:
            return aligned, "key"
    aligned = sca_alignment(words)
    if aligned is not None:
        return aligned, "sca" if len(words) == 2 else "msa"
    return unaligned(words), "none"
