"""What the two word lists' scripts look like, read from the words alone (no gold).

`method = "auto"` (engine/methods/auto/) reads this profile to choose a character channel: two
lists written in one alphabet (transliterations, Romance IPA) share most of their symbols, and the
edit channel's copy prior starts from that; two different scripts (Linear B against Greek, a
cipher) share none, and the pieces channel learns which known letters each lost symbol writes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ...corpora.corpus import Word

# Share of the lost words' symbol tokens that the known list also writes, above which the two
# lists count as written in one alphabet. Transliterations and IPA are far above it (Ugaritic
# against Hebrew 1.00, Romance 0.99), different scripts far below (Linear B 0.00).
ONE_ALPHABET = 0.5
# Two scripts where the lost one has this many times the known one's symbols and words this much
# shorter read as a syllabary against an alphabet: one sign per syllable (Linear B against Greek
# 2.5x and 0.51, a cipher of an alphabet about 1x and 1).
SYLLABARY_SYMBOLS = 1.5
SYLLABARY_LENGTH = 0.75


@dataclass(frozen=True)
class ScriptProfile:
    """Symbol inventories and word lengths of the two lists, and how much of a script they share."""

    lost_symbols: int
    known_symbols: int
    shared_symbols: int  # symbols both lists write
    shared_share: float  # share of the lost words' symbol tokens that the known list also writes
    lost_length: float  # mean symbols per lost word
    known_length: float  # mean symbols per known word

    @classmethod
    def of(cls, lost_words: Sequence[Word], known_words: Sequence[Word]) -> ScriptProfile:
        lost_counts = Counter(s for w in lost_words for s in w)
        known_set = {s for w in known_words for s in w}
        shared_tokens = sum(n for s, n in lost_counts.items() if s in known_set)
        return cls(
            lost_symbols=len(lost_counts),
            known_symbols=len(known_set),
            shared_symbols=sum(1 for s in lost_counts if s in known_set),
            shared_share=shared_tokens / max(1, sum(lost_counts.values())),
            lost_length=sum(len(w) for w in lost_words) / max(1, len(lost_words)),
            known_length=sum(len(w) for w in known_words) / max(1, len(known_words)),
        )

    @property
    def one_alphabet(self) -> bool:
        """Whether the two lists are written in one alphabet (see ONE_ALPHABET)."""
        return self.shared_share >= ONE_ALPHABET

    @property
    def syllabary(self) -> bool:
        """Whether the lost list reads as a syllabary against an alphabet (see SYLLABARY_SYMBOLS)."""
        return (
            not self.one_alphabet
            and self.lost_symbols >= SYLLABARY_SYMBOLS * self.known_symbols
            and self.lost_length <= SYLLABARY_LENGTH * self.known_length
        )

    def as_dict(self) -> dict[str, float | int | bool]:
        return {
            "lost_symbols": self.lost_symbols, "known_symbols": self.known_symbols,
            "shared_symbols": self.shared_symbols, "shared_share": round(self.shared_share, 4),
            "lost_length": round(self.lost_length, 3), "known_length": round(self.known_length, 3),
            "one_alphabet": self.one_alphabet, "syllabary": self.syllabary,
        }  # fmt: skip
