"""Beyond the paper: the annealing of the syllable search (channels/syllables.py), its moves and
their scores.

A move sends one unit to another sign or swaps two units' signs. It changes the string of every
known word's reading (a key) that holds those units, and so the mass the map writes on the lost
strings those keys wrote before and write now; the change of log-likelihood is summed over those
strings alone. A move that raises the log-likelihood is taken, one that lowers it by delta is taken
with probability exp(delta / heat). The arrays are the search's `SyllableModel`; the moves
themselves run compiled (channels/annealing_moves.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np


class _Keys(Protocol):
    """The known words' readings as the moves score them (syllables.py's `_Readings`)."""

    @property
    def keys(self) -> np.ndarray: ...  # (n_keys, longest)

    @property
    def keys_start(self) -> np.ndarray: ...  # (n_units + 1,)

    @property
    def keys_flat(self) -> np.ndarray: ...

    @property
    def mass(self) -> np.ndarray: ...  # (n_keys,)


class _Strings(Protocol):
    """The lost words by distinct string (syllables.py's `_LostStrings`)."""

    @property
    def codes_at(self) -> np.ndarray: ...  # (n_strings + 1,)

    @property
    def count(self) -> np.ndarray: ...  # (n_strings,)

    @property
    def bg_mass(self) -> np.ndarray: ...  # (n_strings,)


class Annealed(Protocol):
    """The model a map is annealed under: syllables.py's `SyllableModel` (which builds on this
    module), named here by what the moves read."""

    @property
    def readings(self) -> _Keys: ...

    @property
    def strings(self) -> _Strings: ...

    @property
    def place(self) -> np.ndarray: ...  # (longest,)

    @property
    def prior(self) -> float: ...

    @property
    def n_lost(self) -> int: ...

    @property
    def per_sign(self) -> float: ...

    @property
    def signs(self) -> list[str]: ...


BLOCK = 10_000  # moves compiled at a time, between progress reports and checks for a stop


class Annealing:
    """A map being annealed (`syllables.search_syllables`) and what it writes: each key's string,
    the mass written on each lost string, and the log-likelihood."""

    def __init__(self, model: Annealed, signs_of: np.ndarray) -> None:
        """Start from the map `signs_of` (`SyllableModel.random_map`), changed in place by the moves."""
        self.model, self.signs_of = model, signs_of  # (n_units + 1,)
        codes_at, mass = model.strings.codes_at, model.readings.mass
        self.key_code = signs_of[model.readings.keys] @ model.place  # (n_keys,) each key's string now
        at = np.searchsorted(codes_at, self.key_code)
        hit = codes_at[at] == self.key_code
        self.written = np.zeros(len(model.strings.count))  # (n_strings,) the mass the map writes on each lost string
        np.add.at(self.written, at[hit], mass[hit])  # (bincount gives ints where no key hits)
        self.current = np.log(model.prior * self.written + model.strings.bg_mass)  # (n_strings,)
        self.score = float(model.strings.count @ self.current)

    def run(
        self,
        rng: np.random.Generator,
        movable: list[int],
        moves: int,
        hot: float,
        cold: float,
        should_stop: Callable[[], bool],
        on_progress: Callable[[int, int, float], None] | None,
    ) -> bool:
        """`moves` moves of the `movable` units at a temperature falling geometrically from `hot` to
        `cold`, reporting as `search_syllables` says; False when `should_stop` said so. The moves run
        compiled (channels/annealing_moves.py), BLOCK at a time, their draws taken from `rng`."""
        # Imported here: numba takes a third of a second to import, which every command would pay.
        from .annealing_moves import anneal_moves, string_table

        model, n_lost = self.model, self.model.n_lost
        readings, strings = model.readings, model.strings
        units = np.asarray(movable, dtype=np.int64)  # (n_movable,)
        table = string_table(strings.codes_at)
        for begin in range(0, moves, BLOCK):
            if should_stop():
                return False
            if on_progress is not None:
                on_progress(begin, moves, -self.score / n_lost)
            if len(units) < 2:
                break
            n = min(BLOCK, moves - begin)
            first = rng.integers(len(units), size=n)
            second = rng.integers(len(units) - 1, size=n)
            second += second >= first  # two different units
            heat = model.per_sign * hot * (cold / hot) ** (np.arange(begin, begin + n) / moves)  # (n,)
            self.score = anneal_moves(
                self.signs_of, self.key_code, self.written, self.current, self.score, readings.keys,
                readings.keys_start, readings.keys_flat, model.place, strings.codes_at, table, readings.mass,
                strings.count, strings.bg_mass, model.prior, units, rng.random(n) >= 0.5, first, second,
                rng.integers(len(model.signs), size=n) + 1, rng.random(n), heat,
            )  # fmt: skip
        if on_progress is not None:
            on_progress(moves, moves, -self.score / n_lost)
        return True
