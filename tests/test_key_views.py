"""The key as a worksheet (session/key_views.py): which proposals read each sign how, and a syllabary's
key as a grid of consonants and vowels."""

from __future__ import annotations

from tui_decipher.engine.channels.alignment import Segment
from tui_decipher.session.key_views import NO_VOWEL, NONE, sign_uses, syllable_grid
from tui_decipher.store import ProposalRow


def _row(rank: int, lost: str, known: str, alignment: list[Segment]) -> ProposalRow:
    return ProposalRow(rank, rank, rank, lost, known, 0.5, 1.0, None, alignment=alignment)


def test_sign_uses_count_each_proposal_once_per_reading() -> None:
    rows = [
        _row(2, "AB", "kosa", [Segment(("A",), ("k", "o"), 0.9), Segment(("B",), ("s", "a"), 0.8)]),
        _row(1, "AA", "kogo", [Segment(("A",), ("k", "o"), 0.9), Segment(("A",), ("g", "o"), 0.4)]),
        _row(3, "AC", "ko", [Segment(("A",), ("k", "o"), 0.9), Segment(("C",), (), 0.1)]),
        _row(4, "AA", "koko", [Segment(("A",), ("k", "o"), 0.9), Segment(("A",), ("k", "o"), 0.9)]),
        _row(5, "B", "sa", []),  # stored without a reading: adds nothing
    ]
    uses = sign_uses(rows)
    assert uses["A"].readings == {"ko": [1, 2, 3, 4], "go": [1]} and uses["A"].total == 5
    assert uses["A"].by_count() == [("ko", [1, 2, 3, 4]), ("go", [1])]
    assert uses["B"].readings == {"sa": [2]} and uses["C"].readings == {NONE: [3]}


def test_a_syllabary_key_reads_as_a_grid_and_an_alphabet_key_does_not() -> None:
    key = {
        "A": [("ko", 0.9), ("go", 0.1)], "B": [("ka", 0.6)], "C": [("a", 0.8)], "D": [("ko", 0.4)],
        "E": [("s", 0.7)], "F": [("ta", 0.5)], "G": [("pho", 0.3)],
    }  # fmt: skip
    grid = syllable_grid(key, vowels="aeiou")
    assert grid is not None
    assert grid.vowels == ["a", "o", NO_VOWEL] and grid.onsets == ["", "k", "s", "t", "ph"]
    assert grid.cells[("k", "o")] == [("A", 0.9), ("D", 0.4)]  # two signs read as one syllable: both shown
    assert grid.cells[("", "a")] == [("C", 0.8)] and grid.cells[("s", NO_VOWEL)] == [("E", 0.7)]
    assert grid.cells[("ph", "o")] == [("G", 0.3)]
    alphabet = {"A": [("k", 0.9)], "B": [("a", 0.6)], "C": [("ko", 0.5)]}
    assert syllable_grid(alphabet, vowels="aeiou") is None
