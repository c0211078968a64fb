"""Beyond the paper: a discrete search for a syllabary's sign values, to start the pieces channel from.

The pieces channel learns a syllabary's signs by gradient descent from a random start. Where the
lost words are short (two or three signs, as in a Linear B-like script with codas unwritten) and
many have no cognate, every start it was given ended in a wrong map, although the right map fits
the words better (docs/experiments.md). This module searches the map as a whole instead, by
simulated annealing over a simpler model of the same story, and hands the pieces channel a start.

The model. A syllabary writes one sign per open syllable. A known word is read as its syllables:
one per vowel, each the vowel with one consonant of the cluster before it (the syllable's onset:
any of the cluster's letters, since codas and clusters are not written and which of them is the
onset is unknown), or the bare vowel. A map w sends each such unit (consonant, vowel) to a lost
sign, many units to one sign where the script merges sounds (l and r in Linear B). A lost word is
then a known word's skeleton written by w, or a word of no cognate drawn from the signs' own
frequencies:

    P(x) = pi * sum_y P(y) sum_readings P(reading | y) [w(reading) = x] + (1 - pi) * P_bg(x)

with P(y) uniform over the known words, the readings of y equally likely, pi = COGNATE_PRIOR.
The search maximises sum_i log P(x_i) over w, moving one unit to another sign or swapping two
units' signs, at a temperature that falls geometrically from HOT to COLD. Only the word lists are
read; the vowels of the known alphabet are found from them by Sukhotin's algorithm.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import pickle
import random
import subprocess
import sys
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..corpus import Word
from .spelling import FINAL, NEGLIGIBLE, OPEN_SYLLABLES, Spelling, fit_spelling, reading_counts, spelled_readings

COGNATE_PRIOR = 0.5  # pi: the share of lost words written from a known word (D is not known yet)
# The annealing's first and last temperature, in nats per lost-word token of a sign: a move's
# change of log-likelihood grows with how many words hold the signs it moves, so the heat does too.
# Linear B's map forms between 0.04 and 0.02: ending at 0.04, one start in 5 found it; at 0.02, one
# in 2 (a generated syllabary's forms above 0.04; docs/experiments.md).
HOT, COLD = 0.12, 0.02
MOVES = 300_000  # moves of one search by default (auto sets its own: SyllableSearch)
PARALLEL_STARTS = 4  # starts annealed at once at most, one a worker process (where cores allow)
MAX_READINGS = 256  # a known word with more readings than this is left out (it bounds memory)


def known_vowels(known_words: Sequence[Word]) -> frozenset[str]:
    """The vowels of the known alphabet by Sukhotin's algorithm: letters that alternate with the
    others most, taken one at a time until no letter is left that neighbours non-vowels more than
    vowels. Exact for an alphabet with open syllables; a letter that only ever neighbours itself
    is a consonant."""
    letters = sorted({c for w in known_words for c in w})
    index = {c: i for i, c in enumerate(letters)}
    adjacent = np.zeros((len(letters), len(letters)))
    for w in known_words:
        for a, b in itertools.pairwise(w):
            if a != b:
                adjacent[index[a], index[b]] += 1
                adjacent[index[b], index[a]] += 1
    sums = adjacent.sum(1)
    vowels: set[int] = set()
    while True:
        rest = [i for i in range(len(letters)) if i not in vowels]
        if not rest:
            break
        best = max(rest, key=lambda i: sums[i])
        if sums[best] <= 0:
            break
        vowels.add(best)
        for i in rest:
            sums[i] -= 2 * adjacent[i, best]
    return frozenset(letters[i] for i in vowels)


def readings(word: Word, vowels: frozenset[str]) -> list[list[tuple[str, str]]]:
    """The syllables of a known word as the units each can be read as: for each vowel, (consonant,
    vowel) for each consonant of the cluster before it, or ("", vowel) where there is none.
    Consonants after the last vowel are codas, never written."""
    out: list[list[tuple[str, str]]] = []
    cluster: list[str] = []
    for letter in word:
        if letter in vowels:
            out.append([(c, letter) for c in dict.fromkeys(cluster)] or [("", letter)])
            cluster = []
        else:
            cluster.append(letter)
    return out


@dataclass(frozen=True)
class SyllableMap:
    """A found sign map: each unit's sign, and how well the map explains the lost words."""

    vowels: tuple[str, ...]
    sign_of: dict[tuple[str, str], str]  # (consonant or "", vowel) -> lost sign
    log_likelihood: float  # sum_i log P(x_i) under the map
    background: float  # sum_i log P_bg(x_i): no word has a cognate
    n_lost: int
    weight: dict[tuple[str, str], float]  # each unit's share of the known words' syllables
    # How the script spells consonants no vowel follows, as fitted. A class-level default: a map
    # pickled before spellings existed (a stopped run's stage) reads as the open syllables it assumed.
    spelling: Spelling = OPEN_SYLLABLES

    @property
    def gain(self) -> float:
        """Nats a lost word that the map explains beyond the signs' own frequencies."""
        return (self.log_likelihood - self.background) / max(1, self.n_lost)

    def agreement(self, other: SyllableMap) -> float:
        """The share of the known words' syllables (by weight) that two maps send to one sign: maps
        found from different starts agree where the words pin them, and chance maps do not."""
        return sum(w for u, w in self.weight.items() if self.sign_of[u] == other.sign_of.get(u))

    def as_dict(self) -> dict[str, object]:
        return {"vowels": "".join(self.vowels), "gain": round(self.gain, 4),
                "log_likelihood": round(self.log_likelihood, 2), "background": round(self.background, 2),
                "spelling": {"clusters_written": round(self.spelling.clusters, 3),
                             "finals_written": round(self.spelling.finals, 3)}}  # fmt: skip


def syllable_units(
    known_words: Sequence[Word], finals: bool = False, vowels: frozenset[str] | None = None
) -> tuple[frozenset[str], list[tuple[str, str]]]:
    """The known alphabet's vowels (`known_vowels`, unless given) and every unit a map sends to a
    sign: each bare vowel, then each (consonant, vowel), in a fixed order; with `finals` (a spelling
    that writes word-final consonants, channels/spelling.py), then each (consonant, FINAL) of a
    consonant that ends a word."""
    vowels = known_vowels(known_words) if vowels is None else vowels
    consonants = sorted({c for w in known_words for c in w} - vowels)
    ends = sorted({w[-1] for w in known_words if w and w[-1] not in vowels}) if finals else []
    bare = [("", v) for v in sorted(vowels)]
    return vowels, bare + [(c, v) for c in consonants for v in sorted(vowels)] + [(c, FINAL) for c in ends]


def search_syllables(
    lost_words: Sequence[Word],
    known_words: Sequence[Word],
    seed: int,
    moves: int = MOVES,
    should_stop: Callable[[], bool] = lambda: False,
    on_progress: Callable[[int, int, float], None] | None = None,
    start: dict[tuple[str, str], str] | None = None,
    fixed: dict[tuple[str, str], str] | None = None,
    hot: float = HOT,
    cold: float = COLD,
) -> SyllableMap | None:
    """Anneal a map from the known words' syllable units to the lost signs (see the module's
    docstring), calling `on_progress(moves done, moves, -log-likelihood a lost word)` every
    10,000 moves; `start`: units' signs to start from (the rest random); `fixed`: units' signs
    that never move (a scholar's known sign values); `hot`, `cold`: the first and last temperature
    (nats per lost-word token of a sign). None when `should_stop` said so."""
    rng = random.Random(seed)
    signs = sorted({s for w in lost_words for s in w})
    sign_id = {s: k for k, s in enumerate(signs)}
    lost = [tuple(sign_id[s] for s in w) for w in lost_words]
    # A string of signs is one integer, digit k its k-th sign + 1 in base len(signs) + 1 (0: no sign),
    # so a key's string under the map is a dot product. Strings longer than an int64 holds (about 9
    # signs of 90) are left to the background: no reading writes them.
    base = len(signs) + 1
    longest = min(max((len(w) for w in lost), default=1), int(62 / math.log2(base)))

    # Each known word's readings (channels/spelling.py), P(y) uniform, and the spelling its lengths
    # favour. Word-final consonants are written or not as the fitted share says (more often than
    # not: their units are searched); a reading whose spelling makes it less likely than NEGLIGIBLE
    # is left out (it writes nothing measurable, and a script that does not spell that way anneals
    # as it did before the spelling was learned).
    vowels = known_vowels(known_words)
    spelled = [(r, r.base / len(known_words)) for w in known_words for r in spelled_readings(w, vowels, MAX_READINGS)]
    by_length: dict[tuple[int, int, int, int, int], float] = defaultdict(float)
    for r, mass in spelled:
        by_length[len(r.units), r.full, r.single, r.finals, r.dropped] += mass
    spelling = fit_spelling(by_length, Counter(len(w) for w in lost))
    finals = spelling.finals > 0.5
    spelling = Spelling(spelling.clusters, 1.0 if finals else 0.0)
    vowels, units = syllable_units(known_words, finals, vowels)
    unit_id = {u: k for k, u in enumerate(units)}

    # By (key, spelling choices), the part of P(y, reading) the spelling shares leave out. A key is
    # a reading's unit ids; a reading longer than every lost word can write none of them.
    part: dict[tuple[tuple[int, ...], int, int, int, int], float] = defaultdict(float)
    likely = spelling.weights(reading_counts([r for r, _ in spelled])) > NEGLIGIBLE  # (n_spelled,)
    for (r, mass), keep in zip(spelled, likely, strict=True):
        if keep and len(r.units) <= longest:
            part[tuple(unit_id[u] for u in r.units), r.full, r.single, r.finals, r.dropped] += mass
    key_index: dict[tuple[int, ...], int] = {}
    reading_key = np.array([key_index.setdefault(k[0], len(key_index)) for k in part], dtype=np.int64)
    reading_base = np.array(list(part.values()), dtype=np.float64)  # (n_readings,)
    choices = np.array([k[1:] for k in part], dtype=np.float64).reshape(-1, 4)  # (n_readings, 4)

    # keys (n_keys, longest): the readings' unit ids, padded with a unit that writes no sign.
    place = base ** np.arange(longest, dtype=np.int64)  # (longest,)
    pad = len(units)
    keys = np.full((len(key_index), longest), pad, dtype=np.int64)  # (n_keys, longest)
    for key, j in key_index.items():
        keys[j, : len(key)] = key
    keys_of = [np.flatnonzero((keys == u).any(1)) for u in range(len(units))]

    # (n_keys,) each key's P(y, reading) under the spelling
    key_mass = np.bincount(reading_key, reading_base * spelling.weights(choices), minlength=len(keys))

    def code(word: Sequence[int]) -> int:
        return sum((s + 1) * base**k for k, s in enumerate(word)) if len(word) <= longest else -1

    # The lost words by distinct string: its code, how many words write it, its background.
    sign_counts = Counter(s for w in lost for s in w)
    total = sum(sign_counts.values())
    lengths = Counter(len(w) for w in lost)
    strings = Counter(lost)
    distinct = sorted(strings, key=code)
    codes = np.array([code(w) for w in distinct], dtype=np.int64)  # (n_strings,) ascending
    count = np.array([strings[w] for w in distinct], dtype=np.float64)
    background = np.array([
        math.log(lengths[len(w)] / len(lost)) + sum(math.log(sign_counts[s] / total) for s in w) for w in distinct
    ])  # fmt: skip
    bg_mass = (1 - COGNATE_PRIOR) * np.exp(background)

    # The map, as each unit's digit: its sign + 1; the last entry, the padding unit, 0 (no sign).
    signs_of = np.zeros(len(units) + 1, dtype=np.int64)  # (n_units + 1,)
    signs_of[:pad] = [rng.randrange(len(signs)) + 1 for _ in units]
    for u, sign in {**(start or {}), **(fixed or {})}.items():
        if u in unit_id and sign in sign_id:
            signs_of[unit_id[u]] = sign_id[sign] + 1
    movable = [unit_id[u] for u in units if u not in (fixed or {})]

    # The lost strings' codes with a sentinel above every code after them, so that a code's
    # insertion point always indexes this array (a key's string is found where it is equal).
    codes_at = np.append(codes, np.iinfo(np.int64).max)  # (n_strings + 1,)
    key_code = signs_of[keys] @ place  # (n_keys,) each key's string now
    at = np.searchsorted(codes_at, key_code)
    hit = codes_at[at] == key_code
    written = np.zeros(len(codes))  # (n_strings,) the mass the map writes on each lost string
    np.add.at(written, at[hit], key_mass[hit])  # (bincount gives ints where no key hits)
    current = np.log(COGNATE_PRIOR * written + bg_mass)  # (n_strings,)
    score = float(count @ current)
    seen = np.zeros(len(codes), dtype=bool)  # scratch: the strings a move touches

    per_sign = total / len(signs)  # tokens of a sign in the lost words
    for step in range(moves):
        if step % 10_000 == 0:
            if should_stop():
                return None
            if on_progress is not None:
                on_progress(step, moves, -score / len(lost))
        heat = per_sign * hot * (cold / hot) ** (step / moves)
        if len(movable) < 2:
            break
        if rng.random() < 0.5:
            u = rng.choice(movable)
            old = {u: int(signs_of[u])}
            signs_of[u] = rng.randrange(len(signs)) + 1
            moved = keys_of[u]
        else:
            u, v = rng.sample(movable, 2)
            old = {u: int(signs_of[u]), v: int(signs_of[v])}
            signs_of[u], signs_of[v] = old[v], old[u]
            moved = np.unique(np.concatenate((keys_of[u], keys_of[v])))
        # A move that changes a unit's sign changes every key that holds the unit; one that keeps
        # every sign changes nothing (delta 0, taken).
        if all(signs_of[k] == s for k, s in old.items()) or len(moved) == 0:
            continue
        before = key_code[moved]
        after = signs_of[keys[moved]] @ place
        both = np.concatenate((before, after))  # (2 n_moved,)
        found = np.searchsorted(codes_at, both)
        where = (codes_at[found] == both).nonzero()[0]  # the keys that write a lost string, before then after
        delta = 0.0
        if len(where):
            touched = found[where]
            change = key_mass[moved[where % len(moved)]]
            change[where < len(moved)] *= -1.0  # a key's mass leaves the string it wrote before
            seen[touched] = True
            affected = seen.nonzero()[0]  # the touched strings, ascending
            seen[affected] = False
            net = np.bincount(touched, weights=change, minlength=len(codes))[affected]
            new = np.log(COGNATE_PRIOR * (written[affected] + net) + bg_mass[affected])
            delta = float(count[affected] @ (new - current[affected]))
        if delta >= 0 or rng.random() < math.exp(delta / heat):
            if len(where):
                written[affected] += net
                current[affected] = new
            key_code[moved] = after
            score += delta
        else:  # undo
            for k, s in old.items():
                signs_of[k] = s
    if on_progress is not None:
        on_progress(moves, moves, -score / len(lost))
    weight = np.bincount(keys.ravel(), np.repeat(key_mass, longest), minlength=pad + 1)[:pad]  # (n_units,)
    weight /= max(weight.sum(), 1e-300)
    return SyllableMap(
        tuple(sorted(vowels)), {u: signs[signs_of[k] - 1] for k, u in enumerate(units)}, float(count @ current),
        float(count @ background), len(lost), {u: float(weight[k]) for k, u in enumerate(units)}, spelling,
    )  # fmt: skip


def search_starts(
    lost_words: Sequence[Word],
    known_words: Sequence[Word],
    seeds: Sequence[int],
    moves: int = MOVES,
    workers: int = 1,
    should_stop: Callable[[], bool] = lambda: False,
    on_progress: Callable[[int, float], None] | None = None,
    fixed: dict[tuple[str, str], str] | None = None,
) -> Iterator[SyllableMap | None]:
    """`search_syllables` from a random start for each of `seeds`, yielding the maps in the seeds'
    order; the caller stops whenever it has enough (close the iterator: starts still running are
    stopped). With `workers` > 1, up to that many starts anneal at once, each in a worker process
    of its own (`python -m` this module: it never imports the caller's main script, and a start is
    a function of its seed alone, so the maps are the ones one process finds).
    `on_progress(moves done over every start so far, -log-likelihood a lost word of the latest
    report)`; yields None, and stops, when `should_stop` said so."""
    workers = max(1, min(workers, PARALLEL_STARTS, len(seeds)))
    progress = [0] * len(seeds)  # each start's moves done so far

    def one_here(k: int) -> SyllableMap | None:
        def report(m: int, _total: int, loss: float) -> None:
            progress[k] = m
            if on_progress is not None:
                on_progress(sum(progress), loss)

        return search_syllables(lost_words, known_words, seeds[k], moves, should_stop=should_stop,
                                on_progress=report, fixed=fixed)  # fmt: skip

    if workers == 1:
        for k in range(len(seeds)):
            found = one_here(k)
            yield found
            if found is None:
                return
        return
    request = pickle.dumps((tuple(lost_words), tuple(known_words), moves, fixed))  # once for every worker
    running: dict[int, _Worker] = {}
    try:
        for k in range(len(seeds)):
            for j in range(k, min(k + workers, len(seeds))):  # keep `workers` starts in flight
                if j not in running:
                    running[j] = _Worker(request, seeds[j])
            while not running[k].finished(0.25):
                for j, worker in running.items():
                    progress[j] = worker.moves
                # A worker that has not measured yet holds NaN: report the surest loss measured so far.
                losses = [w.loss for w in (running[k], *running.values()) if math.isfinite(w.loss)]
                if on_progress is not None and losses:
                    on_progress(sum(progress), losses[0])
                if should_stop():
                    yield None
                    return
            # A worker that could not run (no interpreter to start, a killed process) leaves its
            # start to this process: the same map, or the same error where the start itself fails.
            done = running.pop(k)
            found = done.found or one_here(k)
            progress[k] = moves
            if on_progress is not None and done.found is not None and math.isfinite(done.loss):
                on_progress(sum(progress), done.loss)  # its last report: a start that ended between polls
            yield found
            if found is None:
                return
    finally:
        for worker in running.values():
            worker.stop()


# The folder that holds this package: a worker imports the very code that started it.
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[3])


class _Worker:
    """One start of `search_starts` in a worker process: its request on stdin, then progress lines
    ("P moves loss") and the found map ("R" and its JSON) on stdout, read by a thread."""

    def __init__(self, request: bytes, seed: int) -> None:
        """Start a worker on `request` (the pickled word lists, moves and fixed units) and `seed`."""
        self.moves, self.loss, self.found = 0, math.nan, None
        path = os.pathsep.join(p for p in (_PACKAGE_ROOT, os.environ.get("PYTHONPATH")) if p)
        self.process: subprocess.Popen[bytes] | None = None
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": path},
            )  # fmt: skip
            assert self.process.stdin is not None
            self.process.stdin.write(request + pickle.dumps(seed))
            self.process.stdin.close()
        except OSError:  # no interpreter to start, or it died at once: the start runs in the caller
            self.stop()
            self.process = None
            return
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            kind, _, rest = line.decode().partition(" ")
            if kind == "P":
                moves, loss = rest.split()
                self.moves, self.loss = int(moves), float(loss)
            elif kind == "R":
                self.found = _map_from_json(rest)

    def finished(self, wait: float) -> bool:
        """Whether the start ended (found its map or failed), after waiting up to `wait` seconds."""
        if self.process is None:
            return True
        self.reader.join(wait)
        return not self.reader.is_alive()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def _map_to_json(found: SyllableMap) -> str:
    units = list(found.sign_of)
    return json.dumps({"vowels": found.vowels, "units": units, "signs": [found.sign_of[u] for u in units],
                       "weights": [found.weight[u] for u in units], "log_likelihood": found.log_likelihood,
                       "background": found.background, "n_lost": found.n_lost,
                       "spelling": [found.spelling.clusters, found.spelling.finals]})  # fmt: skip


def _map_from_json(text: str) -> SyllableMap:
    d = json.loads(text)
    units = [tuple(u) for u in d["units"]]
    return SyllableMap(tuple(d["vowels"]), dict(zip(units, d["signs"], strict=True)), d["log_likelihood"],
                       d["background"], d["n_lost"], dict(zip(units, d["weights"], strict=True)),
                       Spelling(*d["spelling"]))  # fmt: skip


def _worker_main() -> None:
    """A worker process of `search_starts`: one start, its request read from stdin."""
    lost_words, known_words, moves, fixed = pickle.load(sys.stdin.buffer)
    seed = pickle.load(sys.stdin.buffer)

    def report(m: int, _total: int, loss: float) -> None:
        print(f"P {m} {loss!r}", flush=True)

    found = search_syllables(lost_words, known_words, seed, moves, on_progress=report, fixed=fixed)
    assert found is not None
    print(f"R {_map_to_json(found)}", flush=True)


def planted_gain(lost_words: Sequence[Word], known_words: Sequence[Word], seed: int, draws: int = 8) -> float:
    """The gain (nats a lost word beyond the signs' frequencies, `SyllableMap.gain`) of a true map on
    lists of these sizes and spellings: a random map writes a random COGNATE_PRIOR share of the lost
    words from known words' readings (the rest kept as they are), and its gain on them is measured,
    averaged over `draws` draws. Where chance maps that the search finds explain the real words
    nearly as well, no start can be told from chance (few lost words against many units)."""
    rng = random.Random(seed)
    vowels, units = syllable_units(known_words)
    signs = sorted({s for w in lost_words for s in w})
    longest = max((len(w) for w in lost_words), default=0)
    options = [o for o in (readings(w, vowels) for w in known_words)
               if o and len(o) <= longest and math.prod(len(x) for x in o) <= MAX_READINGS]  # fmt: skip
    if not options or not signs:
        return 0.0
    gains = []
    for _ in range(draws):
        sign_of = {u: rng.choice(signs) for u in units}
        written = list(lost_words)
        for i in rng.sample(range(len(written)), int(COGNATE_PRIOR * len(written))):
            written[i] = tuple(sign_of[rng.choice(unit)] for unit in rng.choice(options))
        found = search_syllables(written, known_words, seed, moves=0, start=sign_of)
        gains.append(found.gain if found is not None else 0.0)
    return sum(gains) / len(gains)


def value_units(values: Sequence[tuple[str, Word]], vowels: frozenset[str]) -> dict[tuple[str, str], str]:
    """Known sign values (lost sign, known letters) as the units they fix: a consonant and a vowel
    ("ko") or a bare vowel ("a"); a value of any other shape says nothing of a unit and is left out."""
    out: dict[tuple[str, str], str] = {}
    for sign, letters in values:
        if len(letters) == 1 and letters[0] in vowels:
            out["", letters[0]] = sign
        elif len(letters) == 2 and letters[0] not in vowels and letters[1] in vowels:
            out[letters[0], letters[1]] = sign
    return out


if __name__ == "__main__":
    _worker_main()
