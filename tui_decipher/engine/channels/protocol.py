"""What every character channel P(lost word | known word) provides to the trainer and the methods."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol, Self

import torch

from ..corpora.charset import Charset
from ..corpora.corpus import Word
from .alignment import Step


class Channel(Protocol):
    """A trainable channel: a torch module whose best fit is a character map.

    `none` is the id that pads known words (and marks "no second letter"); `sizes` is
    (lost symbols, known letters) of the charsets it was built for.
    """

    none: int
    # Whether the untrained channel already ranks a lost word's cognates among its best known words
    # (the edit channel's copy prior on one alphabet), so that shortlists drawn from its first step
    # hold them: such a channel trains through shortlists from fewer pairs (channels/shortlist.py).
    lists_from_start: bool

    @classmethod
    def build(
        cls,
        lost_charset: Charset,
        known_charset: Charset,
        generator: torch.Generator,
        init_scale: float,
        copy_bias: float,
        gaps: bool = False,
    ) -> Channel:
        """An untrained channel for two charsets, its random start drawn from `generator`; `gaps`:
        a pieces channel's gapped pieces (`DecipherConfig.channel_gaps`)."""
        ...

    @property
    def sizes(self) -> tuple[int, int]: ...

    # torch.nn.Module's, which every channel is:
    def parameters(self, recurse: bool = True) -> Iterator[torch.nn.Parameter]: ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False) -> Any: ...

    def to(self, device: torch.device | str) -> Self: ...

    def log_prob(
        self, lost: torch.Tensor, lost_len: torch.Tensor, known: torch.Tensor, known_len: torch.Tensor
    ) -> torch.Tensor:
        """log P(x_i | y_j) for every pair: lost (n_x, N) ids, known (n_y, M) ids padded with
        `none`; lengths without padding. Returns (n_x, n_y)."""
        ...

    def log_prob_pairs(
        self, lost: torch.Tensor, lost_len: torch.Tensor, known: torch.Tensor, known_len: torch.Tensor
    ) -> torch.Tensor:
        """log P(x_p | y_p) for aligned pairs (row p of lost with row p of known): (P,), the
        diagonal of `log_prob` at the cost of P pairs rather than P x P."""
        ...

    def pin_signs(self, values: Sequence[tuple[int, tuple[int, ...]]]) -> None:
        """Hold the channel to known sign values (lost symbol id, known letter ids): a symbol's other
        readings start PIN_STRENGTH nats below its values (engine/constraints/sign_values.py), and
        training does not move the symbol's own logits. ValueError for a value the channel cannot write."""
        ...

    def forget_signs(self, symbols: Sequence[int]) -> None:
        """Zero what training taught the lost `symbols` (ids), so that a sign pinned on a trained
        channel reads as its values say."""
        ...

    def best_paths(self, lost: Sequence[Sequence[int]], known: Sequence[Sequence[int]]) -> list[list[Step]]:
        """Each pair's (lost[p], known[p] ids, no padding) most probable path through the channel's
        lattice, as steps (letters read, symbols written, log P): engine/channels/alignment.py."""
        ...

    def sample(self, known: list[int], generator: torch.Generator) -> list[int]:
        """A lost word drawn from P(x | y) for the known word `known` (letter ids), as lost symbol ids."""
        ...

    def character_map(
        self, known_words: Sequence[Word], lost_charset: Charset, known_charset: Charset, top: int = 5
    ) -> dict[str, list[tuple[str, float]]]:
        """Lost symbol -> the known letters or pieces that write it, best first, with probabilities."""
        ...
