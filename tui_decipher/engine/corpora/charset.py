"""Character sets: each language's symbols plus PAD, start-of-word, end-of-word and unknown."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .corpus import Word

if TYPE_CHECKING:
    import torch

PAD, SOW, EOW, UNK = "<pad>", "<s>", "</s>", "<unk>"
SPECIALS = (PAD, SOW, EOW, UNK)
PAD_ID, SOW_ID, EOW_ID, UNK_ID = 0, 1, 2, 3


class Charset:
    """A language's symbol inventory; ids 0-3 are the special symbols, then symbols sorted."""

    def __init__(self, symbols: Iterable[str]) -> None:
        self.symbols: tuple[str, ...] = SPECIALS + tuple(sorted(set(symbols) - set(SPECIALS)))
        self.index = {s: i for i, s in enumerate(self.symbols)}
        # The symbol of another script each symbol is read as, where it is read as one (a cipher's
        # signs read through a learnt map: engine/methods/auto/reading.py); the rest read as themselves.
        self.reading: dict[str, str] = {}

    def with_reading(self, reading: dict[str, str]) -> Charset:
        """The same symbols and ids, each symbol of `reading` read as its value (`read`)."""
        charset = Charset(self.symbols[len(SPECIALS) :])
        charset.reading = dict(reading)
        return charset

    def read(self, symbol: str) -> str:
        """The symbol `symbol` is read as: its reading's value, or itself."""
        return self.reading.get(symbol, symbol)

    @classmethod
    def from_words(cls, words: Iterable[Word]) -> Charset:
        return cls(s for w in words for s in w)

    def __len__(self) -> int:
        return len(self.symbols)

    @property
    def n_real(self) -> int:
        """Number of real (non-special) symbols."""
        return len(self.symbols) - len(SPECIALS)

    def encode(self, word: Word) -> list[int]:
        return [self.index.get(s, UNK_ID) for s in word]

    def decode(self, ids: Iterable[int]) -> Word:
        """Symbols up to the first end-of-word; specials other than UNK are dropped."""
        out = []
        for i in ids:
            if i == EOW_ID:
                break
            if i >= len(SPECIALS) or i == UNK_ID:
                out.append(self.symbols[i])
        return tuple(out)

    def encode_batch(self, words: Sequence[Word], add_eow: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
        """Pad a list of words into ids (n, L) and lengths (n,), each word followed by EOW."""
        import torch  # here, not at the top: the CLI's corpus and store commands read charsets without torch

        seqs = [self.encode(w) + ([EOW_ID] if add_eow else []) for w in words]
        lengths = np.fromiter((len(s) for s in seqs), dtype=np.int64, count=len(seqs))  # (n,)
        ids = np.full((len(seqs), int(lengths.max(initial=0)) if seqs else 1), PAD_ID, dtype=np.int64)
        # Every id at once (a tensor a word took a tenth of the full Ugaritic list's run):
        # word w's ids go to row w, columns 0..len - 1.
        ends = np.cumsum(lengths)
        rows = np.repeat(np.arange(len(seqs)), lengths)
        ids[rows, np.arange(len(rows)) - (ends - lengths)[rows]] = np.fromiter(
            itertools.chain.from_iterable(seqs), dtype=np.int64, count=len(rows)
        )
        return torch.from_numpy(ids), torch.from_numpy(lengths)


def shared_symbols(lost: Charset, known: Charset) -> tuple[tuple[int, int], ...]:
    """(lost id, known id) of every real symbol both charsets hold, plus end-of-word."""
    pairs = [(EOW_ID, EOW_ID)]
    pairs += [(i, known.index[s]) for i, s in enumerate(lost.symbols) if i >= len(SPECIALS) and s in known.index]
    return tuple(pairs)
