"""Beyond the paper: a block of the syllable search's moves (channels/annealing.py), compiled.

One move costs a few dozen array operations on a few dozen keys; run one numpy call at a time,
the interpreter's overhead was nearly all of a move. The same loop compiled by numba is an order
of magnitude faster (docs/speed.md). `anneal_moves.py_func` is the same code run by the
interpreter (the tests compare the two).

The random draws of a block are made beforehand by the caller (numpy's generator, from the start's
seed), so a start is a function of its seed alone, compiled or not.
"""

from __future__ import annotations

import math

import numba
import numpy as np

# A hash table finds a key's string among the lost strings' codes in a probe or two, where a binary
# search took ten (most of a move's time): each slot holds a string's index, or -1.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing's multiplier, 2^64 / the golden ratio


@numba.njit(cache=True, nogil=True)
def _slot(code: int, mask: int) -> int:
    """A code's first slot: the top 24 bits of its product with _GOLDEN, masked (tables up to 2^24
    slots spread evenly; a larger one is still correct, its probes only longer)."""
    return int((np.uint64(code) * _GOLDEN) >> np.uint64(40)) & mask


@numba.njit(cache=True, nogil=True)
def string_table(codes_at: np.ndarray) -> np.ndarray:
    """The open-addressing table of the lost strings' codes (`codes_at` without its sentinel), at
    most a quarter full."""
    n = len(codes_at) - 1
    size = 64
    while size < 4 * n:
        size *= 2
    table = np.full(size, -1, dtype=np.int64)
    for s in range(n):
        slot = _slot(codes_at[s], size - 1)
        while table[slot] >= 0:
            slot = (slot + 1) & (size - 1)
        table[slot] = s
    return table


@numba.njit(cache=True, nogil=True)
def _lookup(table: np.ndarray, codes_at: np.ndarray, code: int) -> int:
    """The index of the lost string of `code`, or -1."""
    mask = len(table) - 1
    slot = _slot(code, mask)
    while table[slot] >= 0:
        if codes_at[table[slot]] == code:
            return table[slot]
        slot = (slot + 1) & mask
    return -1


@numba.njit(cache=True, nogil=True)
def anneal_moves(
    signs_of: np.ndarray,  # (n_units + 1,) int64: each unit's sign + 1, changed in place
    key_code: np.ndarray,  # (n_keys,) int64: each key's string under the map, changed in place
    written: np.ndarray,  # (n_strings,) float64: the mass the map writes on each lost string, in place
    current: np.ndarray,  # (n_strings,) float64: each lost string's log P(x), in place
    score: float,  # the log-likelihood now
    keys: np.ndarray,  # (n_keys, longest) int64: each key's unit ids
    keys_start: np.ndarray,  # (n_units + 1,) int64: unit u's keys are keys_flat[keys_start[u]:keys_start[u + 1]]
    keys_flat: np.ndarray,  # (sum of keys a unit,) int64
    place: np.ndarray,  # (longest,) int64: each digit's place value in a code
    codes_at: np.ndarray,  # (n_strings + 1,) int64: the lost strings' codes, ascending, then a sentinel
    table: np.ndarray,  # (2 ** bits,) int64: `string_table(codes_at)`
    mass: np.ndarray,  # (n_keys,) float64: each key's P(y, reading)
    count: np.ndarray,  # (n_strings,) float64: how many lost words write each string
    bg_mass: np.ndarray,  # (n_strings,) float64: (1 - pi) P_bg(x)
    prior: float,  # pi
    movable: np.ndarray,  # (n_movable,) int64: the units a move may change (at least 2)
    swap: np.ndarray,  # (n_moves,) bool: a swap of two units' signs, else one unit sent to a sign
    first: np.ndarray,  # (n_moves,) int64: the (first) unit's index in `movable`
    second: np.ndarray,  # (n_moves,) int64: a swap's second unit's index in `movable`, != first
    sign: np.ndarray,  # (n_moves,) int64: a sign + 1 for a unit sent to one
    chance: np.ndarray,  # (n_moves,) float64: uniform draws that take a move that lowers the score
    heat: np.ndarray,  # (n_moves,) float64: each move's temperature
) -> float:
    """Run the moves of one block on the map, as channels/annealing.py describes them; the
    log-likelihood after them."""
    n_keys, longest = keys.shape
    n_strings = len(count)
    in_move = np.zeros(n_keys, dtype=np.bool_)  # scratch: the keys a swap has listed
    moved = np.empty(n_keys, dtype=np.int64)  # the keys that hold the moved units
    after = np.empty(n_keys, dtype=np.int64)  # their strings under the moved map
    net = np.zeros(n_strings)  # the mass a move adds to each lost string
    new_log = np.zeros(n_strings)  # each touched string's log P(x) after the move
    seen = np.zeros(n_strings, dtype=np.bool_)
    touched = np.empty(n_strings, dtype=np.int64)
    for t in range(len(swap)):
        u = movable[first[t]]
        old_u = signs_of[u]
        v = -1
        old_v = 0
        if swap[t]:
            v = movable[second[t]]
            old_v = signs_of[v]
            if old_u == old_v:  # a move that keeps every sign changes nothing
                continue
            signs_of[u], signs_of[v] = old_v, old_u
        else:
            if sign[t] == old_u:
                continue
            signs_of[u] = sign[t]
        n_moved = 0
        for j in range(keys_start[u], keys_start[u + 1]):
            moved[n_moved] = keys_flat[j]
            in_move[keys_flat[j]] = True
            n_moved += 1
        if v >= 0:  # a key that holds both units is listed once
            for j in range(keys_start[v], keys_start[v + 1]):
                if not in_move[keys_flat[j]]:
                    moved[n_moved] = keys_flat[j]
                    n_moved += 1
        for i in range(n_moved):
            in_move[moved[i]] = False
        if n_moved == 0:
            continue
        # Each moved key's mass leaves the lost string it wrote and goes to the one it writes now.
        n_touched = 0
        for i in range(n_moved):
            k = moved[i]
            code = 0
            for d in range(longest):
                code += signs_of[keys[k, d]] * place[d]
            after[i] = code
            s = _lookup(table, codes_at, key_code[k])  # the string it wrote
            if s >= 0:
                net[s] -= mass[k]
                if not seen[s]:
                    seen[s] = True
                    touched[n_touched] = s
                    n_touched += 1
            s = _lookup(table, codes_at, code)  # the string it writes
            if s >= 0:
                net[s] += mass[k]
                if not seen[s]:
                    seen[s] = True
                    touched[n_touched] = s
                    n_touched += 1
        delta = 0.0
        for i in range(n_touched):
            s = touched[i]
            new_log[s] = math.log(prior * (written[s] + net[s]) + bg_mass[s])
            delta += count[s] * (new_log[s] - current[s])
        if delta >= 0 or chance[t] < math.exp(delta / heat[t]):
            for i in range(n_touched):
                s = touched[i]
                written[s] += net[s]
                current[s] = new_log[s]
            for i in range(n_moved):
                key_code[moved[i]] = after[i]
            score += delta
        else:  # undo
            signs_of[u] = old_u
            if v >= 0:
                signs_of[v] = old_v
        for i in range(n_touched):
            net[touched[i]] = 0.0
            seen[touched[i]] = False
    return score
