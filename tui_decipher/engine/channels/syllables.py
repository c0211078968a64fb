"""Beyond the paper: a discrete search for a syllabary's sign values, to start the pieces channel from.

The pieces channel learns a syllabary's signs by gradient descent from a random start. Where the
lost words are short (two or three signs, as in a Linear B-like script with codas unwritten) and
many have no cognate, every start it was given ended in a wrong map, although the right map fits
the words better (docs/experiments.md). This module searches the map as a whole instead, by
simulated annealing over a simpler model of the same story, and hands the pieces channel a start.

The model. A syllabary writes one sign per open syllable. A known word is read as its syllables:
one per vowel, each the vowel with one consonant of the cluster before it (the syllable's onset:
any of the cluster's letters, since codas and clusters are not written and which of them is the
onset is unknown), or the bare vowel. A letter that only ever follows a consonant (the h of kh, ph,
th) is read as part of the consonant before it, never an onset by itself (`digraph_tails`). A map
w sends each such unit (consonant, vowel) to a lost sign, many units to one sign where the script
merges sounds (l and r in Linear B). A lost word is then a known word's skeleton written by w, or
a word of no cognate drawn from the signs' own frequencies:

    P(x) = pi * sum_y P(y) sum_readings P(reading | y) [w(reading) = x] + (1 - pi) * P_bg(x)

with P(y) uniform over the known words, the readings of y equally likely, pi = COGNATE_PRIOR.
The search maximises sum_i log P(x_i) over w, moving one unit to another sign or swapping two
units' signs, at a temperature that falls geometrically from HOT to COLD. Only the word lists are
read; the vowels of the known alphabet are found from them by Sukhotin's algorithm.

The moves and their scores are channels/annealing.py's (compiled: annealing_moves.py); many starts
at once, each in a thread, channels/syllable_starts.py's.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..corpora.corpus import Word
from ..corpora.vowels import known_vowels
from .annealing import Annealing
from .spelling import FINAL, NEGLIGIBLE, OPEN_SYLLABLES, Spelling, fit_spelling, reading_counts, spelled_readings

COGNATE_PRIOR = 0.5  # pi: the share of lost words written from a known word (D is not known yet)
# The annealing's first and last temperature, in nats per lost-word token of a sign: a move's
# change of log-likelihood grows with how many words hold the signs it moves, so the heat does too.
# It ends where Linear B's map forms, colder than a generated syllabary's (docs/experiments.md,
# "Annealing colder: where Linear B's map forms").
HOT, COLD = 0.12, 0.02
MOVES = 300_000  # moves of one search by default (auto sets its own: SyllableSearch)
# How unlikely it must be that a consonant which never opens a syllable in the known words does so
# by chance, for it to be read as a digraph's second letter (`digraph_tails`): a conventional
# significance level, not a fitted one.
TAIL_LEVEL = 0.01
MAX_READINGS = 256  # a known word with more readings than this is left out (it bounds memory)


def digraph_tails(known_words: Sequence[Word], vowels: frozenset[str]) -> frozenset[str]:
    """Consonants that only ever follow another consonant: never a word's first letter, never after
    a vowel (the h of an alphabet that spells aspirates kh, ph, th), and seen often enough that an
    ordinary consonant would not have done so by chance (TAIL_LEVEL: Linear B's Greek has a stray
    Latin y in two words, which says little). Such a letter is never a syllable's onset by itself,
    only the second half of a consonant written with two letters, so the syllable model reads it as
    part of the consonant before it (`without_tails`)."""
    seen: Counter[str] = Counter()
    opens: Counter[str] = Counter()  # occurrences that open a syllable: a word's first, or after a vowel
    for w in known_words:
        for k, c in enumerate(w):
            if c not in vowels:
                seen[c] += 1
                opens[c] += k == 0 or w[k - 1] in vowels
    share = sum(opens.values()) / max(1, sum(seen.values()))  # an ordinary consonant's chance to open
    return frozenset(c for c, n in seen.items() if opens[c] == 0 and (1 - share) ** n < TAIL_LEVEL)


def without_tails(known_words: Sequence[Word], tails: frozenset[str]) -> list[Word]:
    """`known_words` with the letters `tails` (`digraph_tails`) left out, so that "tha" reads as the
    syllable (t, a): one sign, as a syllabary writes an aspirate, and the unit the pieces channel's
    gapped piece (t, h, a) writes with the pair (t, a) (channels/pieces.py)."""
    return [tuple(c for c in w if c not in tails) for w in known_words] if tails else list(known_words)


def syllable_words(known_words: Sequence[Word]) -> tuple[frozenset[str], frozenset[str], list[Word]]:
    """The known words as the syllable model reads them: their vowels (`known_vowels`, found before
    any letter is left out), their digraph tails (`digraph_tails`) and the words without the tails
    (`without_tails`). The search (`_Readings`) and `planted_gain` read them through this one place."""
    vowels = known_vowels(known_words)
    tails = digraph_tails(known_words, vowels)
    return vowels, tails, without_tails(known_words, tails)


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
    # The known alphabet's digraph tails (`digraph_tails`), read as part of the consonant before them;
    # a class-level default, as for `spelling`: a map pickled before them had none.
    tails: frozenset[str] = frozenset()

    @property
    def gain(self) -> float:
        """Nats a lost word that the map explains beyond the signs' own frequencies."""
        return (self.log_likelihood - self.background) / max(1, self.n_lost)

    def agreement(self, other: SyllableMap) -> float:
        """The share of the known words' syllables (by weight) that two maps send to one sign: maps
        found from different starts agree where the words pin them, and chance maps do not."""
        return sum(w for u, w in self.weight.items() if self.sign_of[u] == other.sign_of.get(u))

    def values(self) -> list[tuple[str, Word]]:
        """The map as sign values (lost sign, the known letters it writes), one for each unit the
        known words hold: a syllable ("k", "o") as "ko", a bare vowel as itself, a word-final
        consonant (FINAL, where the spelling writes them) as the consonant. Units no known word
        holds were drawn at random and nothing moved them: they are left out."""
        out: list[tuple[str, Word]] = []
        for (consonant, vowel), sign in self.sign_of.items():
            if self.weight.get((consonant, vowel), 0.0) > 0:
                letters = (consonant,) if vowel == FINAL else (consonant, vowel) if consonant else (vowel,)
                out.append((sign, letters))
        return out

    def as_dict(self) -> dict[str, object]:
        return {"vowels": "".join(self.vowels), "tails": "".join(sorted(self.tails)), "gain": round(self.gain, 4),
                "log_likelihood": round(self.log_likelihood, 2), "background": round(self.background, 2),
                "spelling": {"clusters_written": round(self.spelling.clusters, 3),
                             "finals_written": round(self.spelling.finals, 3)}}  # fmt: skip


def syllable_units(
    known_words: Sequence[Word], finals: bool = False, vowels: frozenset[str] | None = None
) -> tuple[frozenset[str], list[tuple[str, str]]]:
    """The known alphabet's vowels (`known_vowels`, unless given) and every unit a map sends to a
    sign: each bare vowel, then each (consonant, vowel), in a fixed order; with `finals` (a spelling
    that writes word-final consonants, channels/spelling.py), then each (consonant, FINAL) of a
    consonant in a word-final cluster (each of its consonants is written with a final's sign: the
    s of a word ending "-st" as much as its t)."""
    vowels = known_vowels(known_words) if vowels is None else vowels
    consonants = sorted({c for w in known_words for c in w} - vowels)
    ends = sorted({c for w in known_words for c in _final_cluster(w, vowels)}) if finals else []
    bare = [("", v) for v in sorted(vowels)]
    return vowels, bare + [(c, v) for c in consonants for v in sorted(vowels)] + [(c, FINAL) for c in ends]


def _final_cluster(word: Word, vowels: frozenset[str]) -> Word:
    """The consonants after a word's last vowel (none where it ends in a vowel)."""
    end = len(word)
    while end > 0 and word[end - 1] not in vowels:
        end -= 1
    return word[end:]


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
    model = SyllableModel.build(lost_words, known_words)
    search = Annealing(model, model.random_map(rng, {**(start or {}), **(fixed or {})}))
    movable = [model.readings.unit_id[u] for u in model.readings.units if u not in (fixed or {})]
    moves_rng = np.random.default_rng(rng.getrandbits(64))  # the moves' draws, after the start's
    if not search.run(moves_rng, movable, moves, hot, cold, should_stop, on_progress):
        return None
    return model.found(search.signs_of, search.current)


@dataclass(frozen=True)
class _Readings:
    """The known words' readings as the search scores them (channels/spelling.py): each distinct key,
    a reading's unit ids, and its P(y, reading), P(y) uniform, under the spelling the readings'
    lengths favour."""

    vowels: frozenset[str]
    tails: frozenset[str]  # `digraph_tails`: left out of the known words before they are read
    units: list[tuple[str, str]]  # `syllable_units`
    unit_id: dict[tuple[str, str], int]
    spelling: Spelling
    keys: np.ndarray  # (n_keys, longest): the readings' unit ids, padded with a unit that writes no sign
    # The keys that hold each unit, unit u's at keys_flat[keys_start[u]:keys_start[u + 1]]
    keys_start: np.ndarray  # (n_units + 1,)
    keys_flat: np.ndarray  # (the keys each unit holds, summed,)
    mass: np.ndarray  # (n_keys,) each key's P(y, reading) under the spelling

    @classmethod
    def build(cls, known_words: Sequence[Word], lost_lengths: Counter[int], longest: int) -> _Readings:
        """The readings of `known_words` that a lost word of at most `longest` signs can write, the
        spelling fitted to `lost_lengths` (how many lost words have each length)."""
        # Each known word's readings (channels/spelling.py), P(y) uniform, and the spelling its lengths
        # favour. Word-final consonants are written or not as the fitted share says (more often than
        # not: their units are searched); a reading whose spelling makes it less likely than NEGLIGIBLE
        # is left out (it writes nothing measurable, and a script that does not spell that way anneals
        # as it did before the spelling was learned).
        vowels, tails, known_words = syllable_words(known_words)
        spelled = [(r, r.base / len(known_words))
                   for w in known_words for r in spelled_readings(w, vowels, MAX_READINGS)]  # fmt: skip
        by_length: dict[tuple[int, int, int, int, int], float] = defaultdict(float)
        for r, mass in spelled:
            by_length[len(r.units), r.full, r.single, r.finals, r.dropped] += mass
        spelling = fit_spelling(by_length, lost_lengths)
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

        keys = np.full((len(key_index), longest), len(units), dtype=np.int64)  # (n_keys, longest)
        for key, j in key_index.items():
            keys[j, : len(key)] = key
        holds = [np.flatnonzero((keys == u).any(1)) for u in range(len(units))]
        keys_start = np.cumsum([0, *(len(h) for h in holds)])
        keys_flat = np.concatenate([*holds, np.zeros(0, dtype=np.int64)]).astype(np.int64)
        # (n_keys,) each key's P(y, reading) under the spelling
        key_mass = np.bincount(reading_key, reading_base * spelling.weights(choices), minlength=len(keys))
        return cls(vowels, tails, units, unit_id, spelling, keys, keys_start, keys_flat, key_mass)


@dataclass(frozen=True)
class _LostStrings:
    """The lost words by distinct string: its code (`SyllableModel`), how many words write it, its background."""

    # The codes, ascending, with a sentinel above every code after them, so that a code's insertion
    # point always indexes this array (a key's string is found where it is equal).
    codes_at: np.ndarray  # (n_strings + 1,)
    count: np.ndarray  # (n_strings,)
    background: np.ndarray  # (n_strings,) log P_bg(x)
    bg_mass: np.ndarray  # (n_strings,) (1 - pi) P_bg(x)

    @classmethod
    def build(cls, lost: Sequence[tuple[int, ...]], base: int, longest: int) -> _LostStrings:
        """The strings of `lost` (sign ids), coded in `base`; one longer than `longest` signs gets
        code -1 (no reading writes it)."""

        def code(word: Sequence[int]) -> int:
            return sum((s + 1) * base**k for k, s in enumerate(word)) if len(word) <= longest else -1

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
        return cls(np.append(codes, np.iinfo(np.int64).max), count, background, bg_mass)


@dataclass(frozen=True)
class SyllableModel:
    """The module docstring's model as arrays, built once from the word lists for a search
    (channels/annealing.py)."""

    signs: list[str]  # the lost signs, sorted
    sign_id: dict[str, int]
    n_lost: int
    per_sign: float  # tokens of a sign in the lost words
    place: np.ndarray  # (longest,) each digit's place value in a code
    readings: _Readings
    strings: _LostStrings
    prior: float = COGNATE_PRIOR  # pi

    @classmethod
    def build(cls, lost_words: Sequence[Word], known_words: Sequence[Word]) -> SyllableModel:
        """The model of `lost_words` written from `known_words`."""
        signs = sorted({s for w in lost_words for s in w})
        sign_id = {s: k for k, s in enumerate(signs)}
        lost = [tuple(sign_id[s] for s in w) for w in lost_words]
        # A string of signs is one integer, digit k its k-th sign + 1 in base len(signs) + 1 (0: no sign),
        # so a key's string under the map is a dot product. Strings longer than an int64 holds (about 9
        # signs of 90) are left to the background: no reading writes them.
        base = len(signs) + 1
        longest = min(max((len(w) for w in lost), default=1), int(62 / math.log2(base)))
        readings = _Readings.build(known_words, Counter(len(w) for w in lost), longest)
        place = base ** np.arange(longest, dtype=np.int64)  # (longest,)
        strings = _LostStrings.build(lost, base, longest)
        per_sign = sum(len(w) for w in lost) / len(signs)
        return cls(signs, sign_id, len(lost), per_sign, place, readings, strings)

    def random_map(self, rng: random.Random, given: dict[tuple[str, str], str]) -> np.ndarray:
        """A map, as each unit's digit: its sign + 1; the last entry, the padding unit, 0 (no sign).
        Each unit's sign is drawn from `rng`, then the units of `given` get their signs there."""
        units = self.readings.units
        signs_of = np.zeros(len(units) + 1, dtype=np.int64)  # (n_units + 1,)
        signs_of[: len(units)] = [rng.randrange(len(self.signs)) + 1 for _ in units]
        for u, sign in given.items():
            if u in self.readings.unit_id and sign in self.sign_id:
                signs_of[self.readings.unit_id[u]] = self.sign_id[sign] + 1
        return signs_of

    def found(self, signs_of: np.ndarray, current: np.ndarray) -> SyllableMap:
        """The map `signs_of` (`random_map`'s form) as found, `current` (n_strings,) each lost
        string's log P(x) under it; with each unit's share of the known words' syllables."""
        readings, pad = self.readings, len(self.readings.units)
        mass = np.repeat(readings.mass, readings.keys.shape[1])  # (n_keys * longest,) each key's at each place
        # (n_units,) float: weighted (numpy's stubs type every bincount as int)
        weight: np.ndarray = np.bincount(readings.keys.ravel(), mass, minlength=pad + 1)[:pad]
        weight /= max(weight.sum(), 1e-300)
        return SyllableMap(
            tuple(sorted(readings.vowels)), {u: self.signs[signs_of[k] - 1] for k, u in enumerate(readings.units)},
            float(self.strings.count @ current), float(self.strings.count @ self.strings.background), self.n_lost,
            {u: float(weight[k]) for k, u in enumerate(readings.units)}, readings.spelling, readings.tails,
        )  # fmt: skip


def planted_gain(lost_words: Sequence[Word], known_words: Sequence[Word], seed: int, draws: int = 8) -> float:
    """The gain (nats a lost word beyond the signs' frequencies, `SyllableMap.gain`) of a true map on
    lists of these sizes and spellings: a random map writes a random COGNATE_PRIOR share of the lost
    words from known words' readings (the rest kept as they are), and its gain on them is measured,
    averaged over `draws` draws. Where chance maps that the search finds explain the real words
    nearly as well, no start can be told from chance (few lost words against many units)."""
    rng = random.Random(seed)
    vowels, _tails, known_words = syllable_words(known_words)
    vowels, units = syllable_units(known_words, vowels=vowels)
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
