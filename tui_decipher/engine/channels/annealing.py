"""Beyond the paper: the annealing of the syllable search (channels/syllables.py), its moves and
their scores.

A move sends one unit to another sign or swaps two units' signs. It changes the string of every
known word's reading (a key) that holds those units, and so the mass the map writes on the lost
strings those keys wrote before and write now; the change of log-likelihood is summed over those
strings alone. A move that raises the log-likelihood is taken, one that lowers it by delta is taken
with probability exp(delta / heat). The arrays are the search's `SyllableModel`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from .syllables import SyllableModel


class Annealing:
    """A map being annealed (`syllables.search_syllables`) and what it writes: each key's string,
    the mass written on each lost string, and the log-likelihood."""

    def __init__(self, model: SyllableModel, signs_of: np.ndarray) -> None:
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
        self.seen = np.zeros(len(model.strings.count), dtype=bool)  # scratch: the strings a move touches

    def run(
        self,
        rng: random.Random,
        movable: list[int],
        moves: int,
        hot: float,
        cold: float,
        should_stop: Callable[[], bool],
        on_progress: Callable[[int, int, float], None] | None,
    ) -> bool:
        """`moves` moves of the `movable` units at a temperature falling geometrically from `hot` to
        `cold`, reporting as `search_syllables` says; False when `should_stop` said so."""
        per_sign, n_lost = self.model.per_sign, self.model.n_lost
        for step in range(moves):
            if step % 10_000 == 0:
                if should_stop():
                    return False
                if on_progress is not None:
                    on_progress(step, moves, -self.score / n_lost)
            heat = per_sign * hot * (cold / hot) ** (step / moves)
            if len(movable) < 2:
                break
            old, moved = self.propose(rng, movable)
            # A move that changes a unit's sign changes every key that holds the unit; one that keeps
            # every sign changes nothing (delta 0, taken).
            if all(self.signs_of[k] == s for k, s in old.items()) or len(moved) == 0:
                continue
            delta, after, change = self.delta(moved)
            if delta >= 0 or rng.random() < math.exp(delta / heat):
                self.accept(moved, after, delta, change)
            else:  # undo
                for k, s in old.items():
                    self.signs_of[k] = s
        if on_progress is not None:
            on_progress(moves, moves, -self.score / n_lost)
        return True

    def propose(self, rng: random.Random, movable: list[int]) -> tuple[dict[int, int], np.ndarray]:
        """Move one unit to a random sign, or swap two units' signs, in the map: (the moved units'
        signs before, the keys that hold them)."""
        signs_of, keys_of = self.signs_of, self.model.readings.keys_of
        if rng.random() < 0.5:
            u = rng.choice(movable)
            old = {u: int(signs_of[u])}
            signs_of[u] = rng.randrange(len(self.model.signs)) + 1
            return old, keys_of[u]
        u, v = rng.sample(movable, 2)
        old = {u: int(signs_of[u]), v: int(signs_of[v])}
        signs_of[u], signs_of[v] = old[v], old[u]
        return old, np.unique(np.concatenate((keys_of[u], keys_of[v])))

    def delta(self, moved: np.ndarray) -> tuple[float, np.ndarray, _Change | None]:
        """The change of log-likelihood where the keys `moved` write their strings under the map now:
        (the change, their strings now, what changes on the lost strings where a key writes one)."""
        codes_at, count = self.model.strings.codes_at, self.model.strings.count
        before = self.key_code[moved]
        after = self.signs_of[self.model.readings.keys[moved]] @ self.model.place
        both = np.concatenate((before, after))  # (2 n_moved,)
        found = np.searchsorted(codes_at, both)
        where = (codes_at[found] == both).nonzero()[0]  # the keys that write a lost string, before then after
        if not len(where):
            return 0.0, after, None
        touched = found[where]
        change = self.model.readings.mass[moved[where % len(moved)]]
        change[where < len(moved)] *= -1.0  # a key's mass leaves the string it wrote before
        self.seen[touched] = True
        affected = self.seen.nonzero()[0]  # the touched strings, ascending
        self.seen[affected] = False
        net = np.bincount(touched, weights=change, minlength=len(count))[affected]
        new = np.log(self.model.prior * (self.written[affected] + net) + self.model.strings.bg_mass[affected])
        return float(count[affected] @ (new - self.current[affected])), after, _Change(affected, net, new)

    def accept(self, moved: np.ndarray, after: np.ndarray, delta: float, change: _Change | None) -> None:
        """Take a move that `delta` measured: the keys `moved` now write `after`."""
        if change is not None:
            self.written[change.strings] += change.mass
            self.current[change.strings] = change.log_p
        self.key_code[moved] = after
        self.score += delta


class _Change(NamedTuple):
    """What a move changes on the lost strings it touches."""

    strings: np.ndarray  # (n_affected,) the touched strings, ascending
    mass: np.ndarray  # (n_affected,) the mass the map writes on each, added
    log_p: np.ndarray  # (n_affected,) each one's log P(x) after the move
